/* SPDX-License-Identifier: MIT */
/*
 * fdname.h - what a descriptor refers to, for the sanitizer's reports,
 * known when the descriptor is made: the path given to open, a socket's
 * domain and type, "pipe:[read end]", a memfd's name...  Reports then
 * need no system call to say it (issue 23: a report under a seccomp
 * filter must make none but its write).
 *
 * Names are interned in a bounded depot (mapped once, when reports are
 * turned on) and named by a 32-bit id, which a descriptor's record keeps
 * (report.c); a name is stored once however many descriptors have it.
 * A full depot answers 0 ("not known").  Names are cut at FDNAME_MAX
 * bytes.
 *
 * The calling thread's "pending" names carry what a call is making from
 * the checking function that sees its arguments (shim_report.c) to the
 * record made when the call's descriptor is finished (report_created),
 * whatever number the descriptor then has (UFD_MODE=all, random).
 */
#ifndef UFD_FDNAME_H
#define UFD_FDNAME_H

#include <stddef.h>
#include <stdint.h>

#include "calls.h"

#define FDNAME_MAX 1024

/* Map the depot.  From report_init; 0 or -errno.  Not async-signal-safe. */
int fdname_init(void);

/*
 * The id of the len bytes at s (cut at FDNAME_MAX), interned: 0 if len
 * is 0 or the depot is full or not mapped.  Lock-free and
 * async-signal-safe (compare-and-swap on the depot's slots).
 */
uint32_t fdname_intern(const char *s, size_t len);

/* Interned: s (a C string). */
uint32_t fdname_str(const char *s);

/* Interned: a path, prefixed with the directory dir_id names and a '/'
 * if it is relative and dir_id is not 0 (openat's dirfd). */
uint32_t fdname_path(uint32_t dir_id, const char *path);

/* Interned: prefix and s together ("memfd:" and a memfd's name). */
uint32_t fdname_prefixed(const char *prefix, const char *s);

/* Interned: "socket:[DOMAIN, TYPE]" (AF_INET, SOCK_STREAM...; numbers for
 * the ones it does not name). */
uint32_t fdname_socket(int domain, int type);

/* The text of id (NUL-terminated), "" for 0 or an unknown id. */
const char *fdname_text(uint32_t id);

/*
 * The calling thread's pending names: the next n (1 or 2: a pipe's two
 * ends) descriptors that call finishes in this thread are named ids[0],
 * ids[1] (fdname_take, in that order).  A pending name of another call is
 * replaced.  Async-signal-safe: a handler that makes a descriptor in
 * between replaces it, and the interrupted call's goes unnamed.
 */
void fdname_pending(enum ufd_call call, uint32_t id0, uint32_t id1, int n);

/* The next pending name for a descriptor call made, or 0. */
uint32_t fdname_take(int call);

#endif /* UFD_FDNAME_H */
