/* SPDX-License-Identifier: MIT */
/*
 * given.h - the descriptors a process was given when it started: which
 * are open and what each is, without /proc where fstat can say it.
 */
#ifndef UFD_GIVEN_H
#define UFD_GIVEN_H

#include <stddef.h>

/* Numbers looked at for descriptors given at start-up: bash keeps its
 * script at 255, and a table larger than 256 is rare there. */
#define GIVEN_BELOW 256

/*
 * each(fd, ctx) on each descriptor open below GIVEN_BELOW (or the
 * soft RLIMIT_NOFILE if lower), in ascending order, found by one ppoll
 * (no /proc).  0, or -errno.  Async-signal-safe, no lock.
 */
int given_each(void (*each)(int fd, void *ctx), void *ctx);

/*
 * What the kernel's /proc/self/fd link of fd says, into buf of size
 * bytes: its length, or -errno; without /proc where fstat tells it (a
 * pipe, a socket, /dev/null, a terminal).  Async-signal-safe, no lock.
 */
long given_name(int fd, char *buf, size_t size);

#endif /* UFD_GIVEN_H */
