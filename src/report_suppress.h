/* SPDX-License-Identifier: MIT */
/*
 * report_suppress.h - the sanitizer's suppressions (UFD_SUPPRESS): which
 * reports are not written.  One file may hold rules in two formats:
 *
 *   kind:function-glob        ufd's own: a report of kind (a name of
 *                             report_kind_name, or * for any) is dropped
 *                             when any frame's function matches the
 *                             fnmatch(3) glob.
 *
 *   {                         Valgrind's, so that existing suppression
 *      name                   files keep working: the kind line is
 *      CoreError:FdBadClose   CoreError:FdBadClose (double close, close
 *      fun:close              of a number not owned), CoreError:FdBadUse
 *      fun:close_twice        (use after close) or CoreError:FdNotClosed
 *      ...                    (leak at exec or exit); then frames matched
 *   }                         from the top: fun:glob, obj:glob, ... (any
 *                             number of frames); globs of * and ?.
 *
 * Valgrind's stacks start in libc's function (frame 0 is close, open...);
 * ufd's start in its caller, so the matching puts the call's name first
 * as frame 0, in libc's object.  Blocks of other tools (Memcheck:Leak...)
 * are skipped: a file written for memcheck is accepted whole.  src: lines
 * need source lines, which reports get outside the process: such a
 * block never matches, and loading says so once.
 */
#ifndef UFD_REPORT_SUPPRESS_H
#define UFD_REPORT_SUPPRESS_H

#include "report_kind.h"
#include "stack.h"

/*
 * Read the rules: ufd's defaults if defaults (UFD_SUPPRESS_DEFAULT is not
 * 0: reports that random numbering provokes in widely used programs, each
 * with its reason in report_suppress.c), then those of the file at path
 * if not NULL; from report_init (before the program runs; the file is
 * read once and closed).  A line or block it does not understand gets
 * one message on stderr and is skipped.  Not async-signal-safe.
 */
void report_suppress_load(const char *path, int defaults);

/*
 * Is a report of kind suppressed?  call is the name of the call the stack
 * is of (Valgrind's frame 0: "close" for a double close, "open" for a
 * leak made by open), sym[0..n) its frames, innermost first.  Reads the
 * rules only (loaded before the program ran; ufd's defaults alone, at the
 * first call): no system call.  Under the reports' lock.
 */
int report_suppressed(enum report_kind kind, const char *call,
		      const struct stack_symbol *sym, int n);

#endif /* UFD_REPORT_SUPPRESS_H */
