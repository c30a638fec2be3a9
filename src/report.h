/* SPDX-License-Identifier: MIT */
/*
 * report.h - the descriptor sanitizer's reports (UFD_REPORT): a record per
 * descriptor number of where it was made and closed, and the reports of
 * its misuse.
 *
 * The layer between the table and newfd: newfd records what it finishes,
 * the shim records what it makes, closes or lets cross an exec by other
 * ways and asks here when a call fails with EBADF.  Nothing here runs
 * unless UFD_REPORT is set: callers test ufd_settings.report first (or
 * reach here through the checking functions that replace the real
 * functions' pointers only then, shim_report.c).
 *
 * Records (one per number, real ones and virtual ones from FD_UNSEQ_BASE
 * up, in a sparse two-level array mapped lazily) hold the stacks and calls
 * that made and closed the number, the closing thread, its state (open,
 * closed by the program), and whether the program asked for it to cross
 * an exec.  They are updated with relaxed atomic stores, field by field,
 * without a lock: a record changed by two threads at once may mix their
 * fields, which at worst blurs one report.  Recording is async-signal-safe
 * (as far as stack_capture is).
 *
 * Reports are written one at a time under a spin lock whose owner is a
 * thread id: a report from a signal handler that interrupted a report in
 * the same thread is dropped (counted in the next), not deadlocked on.
 * Writing a report symbolizes (dladdr, which takes the loader's lock), so
 * it is not async-signal-safe: a report from a handler that interrupted
 * the loader in the same thread would deadlock, as any dladdr there would.
 */
#ifndef UFD_REPORT_H
#define UFD_REPORT_H

#include "calls.h"
#include "report_kind.h"

/*
 * From the constructor, when UFD_REPORT is set: the stack depot, the
 * output (a file that cannot be opened gets a message, and reports go to
 * stderr), the suppressions (UFD_SUPPRESS).  At exit, libufd's destructor
 * writes the leaks (UFD_REPORT_LEAKS: descriptors this process made, not
 * those it got from its parent at a fork; those made by the same stack,
 * one report with their count) and applies UFD_REPORT_EXITCODE.  Not async-signal-safe.
 */
void report_init(void);

/* A seccomp filter is about to go in (prctl or seccomp through the
 * wrappers), or was in at start-up: load now what a later report or
 * capture would make system calls for (stack_load_unwinder: libgcc's
 * unwinder, the modules' symbols; the names of the descriptors the
 * program was given), since the filter may refuse them.  Does nothing
 * with reports off.  Not async-signal-safe. */
void report_before_sandbox(void);

/* report_init's fork handler, in a fork child (also _Fork's, which runs
 * no atfork handler: shim_vfork.c): a lock another thread held is let go,
 * and the records become the parent's history (made or closed before the
 * fork: no double close, use after close or leak of this process).
 * Async-signal-safe. */
void report_fork_child(void);

/*
 * Descriptor fd (>= 0; anything else is ignored) was just made by call:
 * its record is open, with the caller's stack.  inherit: the program
 * chose the number (dup2, dup3) and so means it to cross an exec.
 */
void report_created(int fd, enum ufd_call call, int inherit);

/* What fd refers to, as its record says: an fdname.h id, 0 if not known.
 * For ufd's backing descriptor of a virtual one, the virtual one's.
 * Lock-free, async-signal-safe, no system call. */
uint32_t report_name_of(int fd);

/*
 * With UFD_REPORT_LEAKS, from report_given.c at start-up: fd, open when
 * the program started (named by report_init) and not closed since, was
 * given to it by name (its own arguments or environment name it): its
 * record becomes open, and an exec that passes it on without naming it to
 * the new program (nor the program marking it, report_inherit) reports it
 * as an exec leak.  Never an exit leak (the program did not make it).
 */
#define REC_GIVEN_NAMED 2
void report_given_named(int fd);

/* The program cleared fd's close-on-exec flag (fcntl F_SETFD): it means
 * fd to cross an exec. */
void report_inherit(int fd);

/*
 * The program is about to close fd with call (close, fclose...).  If fd
 * is open (or may be: a number the records know nothing of), its record
 * becomes closed, with the caller's stack and thread.  If it is not, the
 * close will fail (EBADF) and closes nothing: nothing is
 * recorded, and if the record says this process closed it already, a
 * double-close report (close; unless the close is one of a loop over
 * numbers, report.c) or a use-after-close one (any other call).  Before
 * the kernel's close, so that a creation that gets the number after it is
 * recorded after it.
 */
int report_closing(int fd, enum ufd_call call);

/* The kernel's close of fd, which report_closing said it recorded (1),
 * failed with EBADF: the number was not open, and its record is unknown
 * again (a failed close is no close). */
void report_close_failed(int fd);

/* A stream closed before is closed again (fclose of a freed FILE): a
 * double-close report on fd, the number it had, if this process closed
 * it and nothing has reopened it; nothing is recorded. */
void report_closed_again(int fd, enum ufd_call call);

/* close_range or closefrom (call) closes [first, last]: the records of
 * the program's open descriptors there become closed (no report). */
void report_closing_range(unsigned first, unsigned last, enum ufd_call call);

/* call failed with EBADF on fd: a use-after-close report if this process
 * closed fd (its record says so), unless call is a probe, which only asks
 * whether the number is open (report.c's table: fstat, isatty...). */
void report_ebadf(int fd, enum ufd_call call);

/* The same for a call whose arguments say whether it is a probe: arg is
 * fcntl's command, or fstatat's or statx's flags, and path their path. */
void report_ebadf_args(int fd, enum ufd_call call, long arg, const char *path);

/* call would close fd, which is not the program's: ufd's backing
 * descriptor of a virtual one (hidden 0) or a library's hidden descriptor
 * (hidden 1). */
void report_not_owned(int fd, enum ufd_call call, int hidden);

/* call got fd (a descriptor, or select's nfds - 1) that does not fit in
 * an fd_set (>= FD_SETSIZE); a virtual one's report says that
 * UFD_MODE=random keeps select working. */
void report_fd_set(int fd, enum ufd_call call);

/*
 * Would report_exec with nothing named report a leak?  1 or 0: when 0,
 * the names an exec's arguments and environment hold need not be read
 * (exec_names.h).  No system call but F_GETFD on the program's own
 * descriptors above 2 that cross.  Not async-signal-safe, as report_exec.
 */
int report_exec_may_leak(const int *closed, int n_closed, int close_from);

/*
 * At an exec (or spawn) by call: each descriptor above 2 that the program
 * made, that crosses (not close-on-exec, not closed by the spawn's file
 * actions: closed[] of n_closed numbers, and every number >= close_from
 * if close_from >= 0) and that the program did not mean to pass on (made
 * by dup2/dup3 onto its number, close-on-exec cleared with fcntl, or in
 * named[] of n_named, a spawn's file actions) gets an exec-leak report;
 * those made by the same stack, one report with their count.
 */
void report_exec(enum ufd_call call, const int *named, int n_named,
		 const int *closed, int n_closed, int close_from);

#endif /* UFD_REPORT_H */
