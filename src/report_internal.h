/* SPDX-License-Identifier: MIT */
/*
 * report_internal.h - what the sanitizer's records (report.c) and the
 * writing of its reports (report_emit.c) share, and nobody else sees: a
 * record, a report, the process's epochs and the writer's entry points.
 */
#ifndef UFD_REPORT_INTERNAL_H
#define UFD_REPORT_INTERNAL_H

#include <stdint.h>

#include "report_kind.h"

enum { REC_UNKNOWN, REC_OPEN, REC_CLOSED };

struct fdrec {
	uint32_t made_stack, closed_stack; /* depot ids, 0 for none */
	uint32_t made_tid, closed_tid;
	uint16_t made_call, closed_call;
	uint8_t state;	 /* REC_* */
	uint8_t inherit; /* the program means it to cross an exec (1), or
			  * was given it by name (REC_GIVEN_NAMED) */
	uint32_t name;	 /* what it refers to (fdname.h), 0: not known */
	uint8_t made_epoch, closed_epoch; /* the process's when made, closed */
};

/* One report: kind on fd by call, from the stack `stack`; rec is fd's
 * record as it was before the call; with_closed: show its close. */
struct report {
	enum report_kind kind;
	int fd;
	enum ufd_call call;
	uint32_t stack, tid;
	struct fdrec rec;
	int with_closed;
	const char *what; /* a word more for close-not-owned */
	uint32_t more; /* merged: as many more of this kind and making stack */
};

/* A close-all loop: a run of this many closes of consecutive numbers
 * (report_emit.c's held reports). */
#define LOOP_RUN 3

/* report.c's: the process's id, its epoch (forks since the exec) and the
 * process of each epoch; the calling thread's id, kept (no system call
 * after the first). */
extern uint32_t my_pid;
extern uint8_t epoch;
extern uint32_t epoch_pid[256];
uint32_t gettid_raw(void);

/*
 * report_emit.c's.  report_send: write r after this thread's held report
 * (symbolized, suppressions applied, one write under the reports' lock);
 * with need, hold r instead until need more closes of the run tell
 * whether it is a close-all loop's.  Saves errno.  Not async-signal-safe
 * (dladdr); a handler inside this thread's report drops its own.
 */
void report_send(const struct report *r, uint32_t need);

/* The held report, if this thread's (or any thread's, with any): written;
 * if next_fd (the number this thread now closes, else -1) continues its
 * run, still held, or dropped when the run is a loop, and 1 returned.
 * Saves errno. */
int release_held(int any, int next_fd);

/* In a fork child: a reports' lock another thread held is let go, the
 * held report (the parent's) dropped.  Async-signal-safe. */
void report_emit_fork_child(void);

/* Was any report written (UFD_REPORT_EXITCODE)?  Lock-free. */
int report_emit_reported(void);

/* From report_init (the constructor), UFD_REPORT_FORMAT=xml: what the
 * XML document's head says (parent, program), read now, not at report
 * time.  Not async-signal-safe. */
void report_emit_init(void);

/* At exit, before the leaks and after them: after them, the summary
 * line (report_summary.h); in XML instead, the document's closing status
 * and counts.  Not async-signal-safe. */
void report_emit_exit(int after_leaks);

#endif /* UFD_REPORT_INTERNAL_H */
