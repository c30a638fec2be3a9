/* SPDX-License-Identifier: MIT */
/*
 * calls.h - the rows of calls.def by number and by name, for the layers
 * that must say which call made a descriptor (UFD_EXCLUDE names calls,
 * and so do the log lines).  Data only: no layer of its own.
 */
#ifndef UFD_CALLS_H
#define UFD_CALLS_H

/* UFD_CALL_open, UFD_CALL_socket, ...: one per row, in the table's order. */
enum ufd_call {
#define UFD_WRAP(name, ret, err, params, args, fds) UFD_CALL_##name,
#define UFD_HAND(name, ret, err, params, args, why) UFD_CALL_##name,
#include "calls.def"
	UFD_NCALLS
};

/* The row's name, as the C identifier: ufd_call_name(UFD_CALL_open) is
 * "open".  call < UFD_NCALLS.  Async-signal-safe. */
const char *ufd_call_name(enum ufd_call call);

#endif /* UFD_CALLS_H */
