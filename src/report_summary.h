/* SPDX-License-Identifier: MIT */
/*
 * report_summary.h - the sanitizer's summary at exit, as Valgrind's
 * "ERROR SUMMARY" and ASan's last line give: how many reports of each
 * kind this process wrote, how many were suppressed, and where the
 * reports went.  Written by the process that reported, at its normal
 * exit, to the report destination, and only if it wrote at least one
 * report: a clean run stays silent.
 */
#ifndef UFD_REPORT_SUMMARY_H
#define UFD_REPORT_SUMMARY_H

#include <stddef.h>

#include "report_kind.h"

/* A report of kind was written (suppressed: 0) or suppressed (1).
 * Lock-free, async-signal-safe. */
void report_summary_count(enum report_kind kind, int suppressed);

/* In a fork child: the counts start again (the child's summary is of
 * its own reports).  Async-signal-safe. */
void report_summary_fork_child(void);

/*
 * The summary line of process pid, text or JSON (one object, "ufd":
 * "summary"), into buf (cap bytes): its length, 0 if this process wrote
 * no report.  destination: the name of where reports go ("stderr" or the
 * file's path).  No system call, no allocation; async-signal-safe.
 */
size_t report_summary_format(char *buf, size_t cap, unsigned long pid,
			     int json, const char *destination);

#endif /* UFD_REPORT_SUMMARY_H */
