/* SPDX-License-Identifier: MIT */
/*
 * report_out.h - where the sanitizer's reports go (UFD_REPORT): stderr,
 * or a destination opened once, before the program runs, close-on-exec,
 * at the highest free number below 64 (or the soft RLIMIT_NOFILE): the
 * top of the descriptor table a process starts with, which a higher
 * number would make the kernel enlarge (and every fork copy).
 * The program's close, close_range and closefrom leave it open (the
 * shim asks report_out_fd).  Writing a report is then one write(2) on it
 * and no other system call (issue 23).
 *
 * A destination that cannot take reports is refused at start-up with one
 * line on stderr, and reports go to stderr: anything but a regular file
 * on a real file system (not /proc, /sys and their like, whose "files"
 * are control knobs), a terminal, or a FIFO with a reader.  A write that
 * fails is said once on stderr.
 */
#ifndef UFD_REPORT_OUT_H
#define UFD_REPORT_OUT_H

#include <stddef.h>

/*
 * Open UFD_REPORT's destination (ufd_settings.report, not NULL): 0, or -1
 * after a line on stderr (reports then go to stderr).  From report_init,
 * in the constructor.  Not async-signal-safe.
 */
int report_out_open(void);

/* The destination's descriptor, ufd's own, or -1 (none, or stderr).
 * Lock-free, async-signal-safe. */
int report_out_fd(void);

/* The destination's name, for the summary: "stderr", or the file's path
 * as UFD_REPORT gave it (copied at start-up).  Lock-free,
 * async-signal-safe. */
const char *report_out_name(void);

/*
 * The program is about to dup2/dup3 onto fd: if fd is the destination's
 * number, the destination moves to the highest free number below it
 * first (the program's call then replaces nothing of ufd's), as a backing
 * descriptor moves.  A few system calls, in that rare case only.
 * Async-signal-safe.
 */
void report_out_make_way(int fd);

/*
 * Write len bytes of report text to the destination, whole (a short
 * write is continued, EINTR retried).  A failure is said once on stderr,
 * and the text is dropped.  Async-signal-safe; system calls: write only
 * (and the one on stderr when it fails).
 */
void report_out_write(const char *buf, size_t len);

/* The process set its RLIMIT_FSIZE soft limit to soft (the limit
 * wrappers, after the kernel took it): while it is finite and SIGXFSZ is
 * not ignored, reports to a regular file are not written (report_out.c
 * says why).  One rt_sigaction when the destination is a file.
 * Lock-free, async-signal-safe. */
void report_out_fsize_set(unsigned long long soft);

#endif /* UFD_REPORT_OUT_H */
