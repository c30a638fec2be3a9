/* SPDX-License-Identifier: MIT */
/*
 * report_probe.h - for the sanitizer (report.h): which calls are probes,
 * that is, only ask whether a number is open (or its flags, its file's
 * type or attributes) and never use its file.  An EBADF from a probe on a
 * number the program closed is no use after close: it is how programs ask
 * "is n open?".  One table, in report_probe.c.
 */
#ifndef UFD_REPORT_PROBE_H
#define UFD_REPORT_PROBE_H

#include "calls.h"

#include <poll.h>

/*
 * Is call a probe?  arg is fcntl's command, or fstatat's or statx's flags,
 * and path their path; -1 and NULL where the caller does not know them
 * (then fcntl, fstatat and statx are not).  Async-signal-safe, no lock.
 */
int report_probe(enum ufd_call call, long arg, const char *path);

/*
 * Is a poll of the n entries fds a sweep, three or more consecutive
 * ascending numbers or the next of the last sweep's, asking which are
 * open (findutils' find and xargs poll every number so, 64 a call)?  Then
 * its POLLNVAL answers are no uses after close.  Call it once per poll:
 * it remembers where a sweep stopped.  Async-signal-safe, no lock.
 */
int report_probe_poll_sweep(const struct pollfd *fds, nfds_t n);

#endif /* UFD_REPORT_PROBE_H */
