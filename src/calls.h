/* SPDX-License-Identifier: MIT */
/*
 * calls.h - the rows of calls.def by number and by name, for the layers
 * that must say which call made a descriptor (UFD_EXCLUDE names calls,
 * and so do the log lines), and for the start-up's resolution of their
 * real functions (shim.c).  Data only: no layer of its own.
 */
#ifndef UFD_CALLS_H
#define UFD_CALLS_H

#include <stdint.h>

/* UFD_CALL_open, UFD_CALL_socket, ...: one per row, in the table's order. */
enum ufd_call {
#define UFD_WRAP(name, ret, err, params, args, fds) UFD_CALL_##name,
#define UFD_HAND(name, ret, err, params, args, why) UFD_CALL_##name,
#include "calls.def"
	UFD_NCALLS
};

/* How many rows have a pointer to a real function (all but calls.def's
 * UFD_ALIAS rows, which come last): ufd_reals.slot[UFD_NREALS] in shim.h,
 * and the rows resolved, UFD_CALL_ numbers under UFD_NREALS. */
enum {
#define UFD_WRAP(name, ret, err, params, args, fds) UFD_REALS_##name,
#define UFD_HAND(name, ret, err, params, args, why) UFD_REALS_##name,
#define UFD_ALIAS(name, ret, err, params, args, why)
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why)
#include "calls.def"
	UFD_NREALS
};

/*
 * What start-up's look-up of each row's real function needs (symbols.c's
 * ufd_symbols_resolve_calls), by row: its name's GNU hash (symbols.h's
 * UFD_SYMBOLS_HASH), where ufd_call_name finds the name (its offset from
 * a base common to all rows), and its length.  In the start-up section.
 */
struct ufd_call_key {
	uint32_t hash;
	uint16_t name_at;
	uint16_t len;
};
extern const struct ufd_call_key ufd_call_keys[UFD_NCALLS]
	__attribute__((visibility("hidden")));

/* The row's name, as the C identifier: ufd_call_name(UFD_CALL_open) is
 * "open".  call < UFD_NCALLS.  Async-signal-safe. */
const char *ufd_call_name(enum ufd_call call);

/* The row of call's first name: call itself, or for a second name
 * (calls.def's UFD_ALIAS rows: __open, _IO_fopen) the row its why names
 * ("is `open`"), whose wrapper it calls and whose descriptors it makes;
 * -1 if the why names no row (tests/ufd_settings.sh checks every alias).
 * Async-signal-safe. */
int ufd_call_first(enum ufd_call call);

#endif /* UFD_CALLS_H */
