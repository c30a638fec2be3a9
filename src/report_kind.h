/* SPDX-License-Identifier: MIT */
/*
 * report_kind.h - the sanitizer's kinds of report, and their names: what
 * the report layer's files share without including each other (report.h
 * is the layer's face to the shim).
 */
#ifndef UFD_REPORT_KIND_H
#define UFD_REPORT_KIND_H

#include "calls.h"

/* The call that made a descriptor, for nonseqfd(), which is no row. */
#define REPORT_CALL_NONSEQFD UFD_NCALLS
/* The call of an fd-set-overflow found by its SIGSEGV (shim_segv.c):
 * FD_SET, FD_ISSET or FD_CLR, macros. */
#define REPORT_CALL_FD_SET (UFD_NCALLS + 1)

enum report_kind {
	REPORT_DOUBLE_CLOSE,
	REPORT_USE_AFTER_CLOSE,
	REPORT_NOT_OWNED,
	REPORT_FD_SET,
	REPORT_EXEC_LEAK,
	REPORT_EXIT_LEAK,
	REPORT_NKINDS
};

/* The kinds' names, as reports and suppressions write them:
 * "double-close", "use-after-close", "close-not-owned",
 * "fd-set-overflow", "exec-leak", "exit-leak". */
extern const char *const report_kind_name[REPORT_NKINDS];

#endif /* UFD_REPORT_KIND_H */
