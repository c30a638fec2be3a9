/* SPDX-License-Identifier: MIT */
/*
 * report_out.h - where the sanitizer's reports go (UFD_REPORT): stderr,
 * or a destination opened once, before the program runs, and held as a
 * hidden virtual descriptor (VFD_HIDDEN, close-on-exec), whose backing
 * descriptor is placed and kept out of the application's way as every
 * backing descriptor is (placement.h): its close-all loops, close_range
 * and listings of /proc/self/fd do not reach it.  Writing a report is
 * then one write(2) on it and no other system call (issue 23).
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

/*
 * Make the destination a hidden virtual descriptor: from the constructor,
 * after the exec hand-off has put back the virtual descriptors this
 * program was given, so as not to take one of their numbers.  Not
 * async-signal-safe.
 */
void report_out_hide(void);

/*
 * Write len bytes of report text to the destination, whole (a short
 * write is continued, EINTR retried).  A failure is said once on stderr,
 * and the text is dropped.  Async-signal-safe; system calls: write only
 * (and the one on stderr when it fails).
 */
void report_out_write(const char *buf, size_t len);

#endif /* UFD_REPORT_OUT_H */
