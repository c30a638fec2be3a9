/* SPDX-License-Identifier: MIT */
/*
 * report.c - the sanitizer's records and reports (report.h).
 */
#define _GNU_SOURCE 1
#include "report.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <unistd.h>

#include "escape.h"
#include "fdname.h"
#include "procfs.h"
#include "report_out.h"
#include "report_group.h"
#include "report_probe.h"
#include "settings.h"
#include "stack.h"
#include "sys.h"
#include "text.h"
#include "vfd_table.h"

const char *const report_kind_name[REPORT_NKINDS] = {
	"double-close", "use-after-close", "close-not-owned",
	"fd-set-overflow", "exec-leak", "exit-leak",
};

/* ---- records ---- */

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

/* Numbers are below 2^31: 2^19 chunks of 4096 records, each mapped on its
 * first record, the table of chunks mapped (untouched) at start-up. */
#define CHUNK_BITS 12
#define CHUNK (1U << CHUNK_BITS)
#define NCHUNKS (1U << (31 - CHUNK_BITS))

static struct fdrec **chunks;

/* Chunks handed out without a system call: a region reserved at start-up
 * (MAP_NORESERVE: only the pages used cost memory), so that recording
 * needs no mmap while the program may be under a seccomp filter.  Past
 * it, a chunk is mapped on its own. */
#define POOL_CHUNKS 256
static char *chunk_pool;
static uint32_t pool_used;

static void *new_chunk(void)
{
	uint32_t i = __atomic_fetch_add(&pool_used, 1, __ATOMIC_RELAXED);

	if (chunk_pool && i < POOL_CHUNKS)
		return chunk_pool + (size_t)i * CHUNK * sizeof(struct fdrec);
	return ufd_sys_mmap(NULL, CHUNK * sizeof(struct fdrec), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* fd's record, mapping its chunk if make (else NULL when there is none). */
static struct fdrec *rec_of(int fd, int make)
{
	uint32_t c = (uint32_t)fd >> CHUNK_BITS;
	struct fdrec *chunk;
	void *p;

	if (fd < 0 || !chunks)
		return NULL;
	chunk = __atomic_load_n(&chunks[c], __ATOMIC_ACQUIRE);
	if (chunk || !make)
		return chunk ? &chunk[(uint32_t)fd & (CHUNK - 1)] : NULL;
	p = new_chunk();
	if (ufd_sys_is_error((long)p))
		return NULL;
	if (!__atomic_compare_exchange_n(&chunks[c], &chunk, (struct fdrec *)p, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		memset(p, 0, CHUNK * sizeof(struct fdrec)); /* another won: wasted */
	else
		chunk = p;
	return &chunk[(uint32_t)fd & (CHUNK - 1)];
}

#define SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/*
 * The thread's id and the process's, kept so that recording and reports
 * make no system call (a program under a seccomp filter may not allow
 * gettid): the main thread's at start-up, the forking thread's in a fork
 * child (report_fork_child, inside the program's fork), another thread's
 * at its first record.
 */
static __thread uint32_t my_tid __attribute__((tls_model("initial-exec")));
static uint32_t my_pid;

/*
 * A fork child starts with its parent's records, which are the parent's
 * history, not its own: epoch counts the forks since the exec (whose
 * records start empty), and epoch_pid[e] is the process of epoch e, an
 * ancestor's for e < epoch.  A record made or closed in another epoch than
 * the current one was made or closed by an ancestor, before a fork.  (A
 * byte: 256 nested forks wrap it, and an ancestor's record looks the
 * process's own.)
 */
static uint8_t epoch;
static uint32_t epoch_pid[256];

/* Did this process close fd (the record p), and not its parent? */
static int closed_here(struct fdrec *p)
{
	return GET(p->state) == REC_CLOSED && GET(p->closed_epoch) == epoch;
}

static uint32_t gettid_raw(void)
{
	if (__builtin_expect(!my_tid, 0))
		my_tid = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	return my_tid;
}

/* A copy of fd's record, all zero if it has none. */
static struct fdrec rec_copy(int fd)
{
	struct fdrec r = { 0 }, *p = rec_of(fd, 0);

	if (p) {
		r.made_stack = GET(p->made_stack);
		r.closed_stack = GET(p->closed_stack);
		r.made_tid = GET(p->made_tid);
		r.closed_tid = GET(p->closed_tid);
		r.made_call = GET(p->made_call);
		r.closed_call = GET(p->closed_call);
		r.state = GET(p->state);
		r.inherit = GET(p->inherit);
		r.name = GET(p->name);
		r.made_epoch = GET(p->made_epoch);
		r.closed_epoch = GET(p->closed_epoch);
	}
	return r;
}

/* Is fd open for the program now (not one of ufd's backing
 * descriptors)?  From the table and the records, without asking the
 * kernel: no system call the program did not make (issue 23). */
static int open_now(int fd)
{
	struct fdrec *p;

	if (vfd_in_space(fd))
		return vfd_slot(fd) != 0;
	p = rec_of(fd, 0);
	return p && GET(p->state) == REC_OPEN && !vfd_is_backing(fd);
}

/* ---- the output ---- */

static int reported; /* a report was written: UFD_REPORT_EXITCODE */

/* Reports are written one at a time: owner is the writing thread's id. */
static uint32_t owner;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static int lock_reports(void)
{
	uint32_t me = gettid_raw(), free_ = 0;

	if (__atomic_load_n(&owner, __ATOMIC_RELAXED) == me)
		return -1; /* a handler inside this thread's report: dropped */
	while (!__atomic_compare_exchange_n(&owner, &free_, me, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		free_ = 0;
		cpu_relax(); /* no system call: see my_tid */
	}
	return 0;
}

static void unlock_reports(void)
{
	__atomic_store_n(&owner, 0, __ATOMIC_RELEASE);
}

static void drop_held(void);

/* The fork child has only the forking thread: a lock held by another is
 * no one's there.  Its epoch begins (once: _Fork and fork's handler). */
UFD_FORK void report_fork_child(void)
{
	/* The child's one thread has the process's id. */
	my_tid = my_pid = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	if (owner != my_tid)
		owner = 0;
	if (epoch_pid[epoch] != my_pid) {
		epoch++;
		epoch_pid[epoch] = my_pid;
	}
	drop_held();
}

#define OUT_MAX 65536
static char out[OUT_MAX]; /* the report being written; the lock held */
static size_t out_len;

static void o_mem(const char *s, size_t n)
{
	if (n > OUT_MAX - 1 - out_len)
		n = OUT_MAX - 1 - out_len;
	memcpy(out + out_len, s, n);
	out_len += n;
}

static void o_str(const char *s)
{
	o_mem(s, strlen(s));
}

static void o_num(unsigned long n)
{
	char d[24];

	o_mem(d, (size_t)(ufd_put_decimal(d, n) - d));
}

static void o_hex(uintptr_t n)
{
	char d[2 + 2 * sizeof(n)], *p = d + sizeof(d);

	do
		*--p = "0123456789abcdef"[n & 15];
	while (n >>= 4);
	*--p = 'x';
	*--p = '0';
	o_mem(p, (size_t)(d + sizeof(d) - p));
}

/* s as report text, escaped (escape.h). */
static void o_text(const char *s)
{
	out_len += escape_text(out + out_len, OUT_MAX - 1 - out_len, s);
}

/* s as a JSON string, quotes included (escape.h). */
static void o_json(const char *s)
{
	o_str("\"");
	out_len += escape_json(out + out_len, OUT_MAX - 1 - out_len, s);
	o_str("\"");
}

/* ---- stacks, symbolized ---- */

struct sym_stack {
	int n;
	uintptr_t pc[STACK_FRAMES];
	struct stack_symbol sym[STACK_FRAMES];
};

/* Three stacks at most per report (the call's, the close's, the
 * making's); the lock held. */
static struct sym_stack stacks[3];

static void symbolize(uint32_t id, struct sym_stack *s)
{
	s->n = stack_frames(id, s->pc, STACK_FRAMES);
	for (int i = 0; i < s->n; i++)
		stack_symbolize(s->pc[i], &s->sym[i]);
}

static void o_text_stack(const struct sym_stack *s)
{
	if (!s->n)
		o_str("    (no stack)\n");
	for (int i = 0; i < s->n; i++) {
		const struct stack_symbol *y = &s->sym[i];

		o_str("    #");
		o_num((unsigned long)i);
		o_str(" ");
		o_hex(s->pc[i]);
		if (y->name[0]) {
			o_str(" in ");
			o_text(y->name);
			o_str("+");
			o_hex(y->name_off);
		}
		if (y->module[0]) {
			o_str(" (");
			o_text(y->module);
			o_str("+");
			o_hex(y->module_off);
			o_str(")");
		}
		o_str("\n");
	}
}

static void o_json_stack(const struct sym_stack *s)
{
	o_str("[");
	for (int i = 0; i < s->n; i++) {
		const struct stack_symbol *y = &s->sym[i];

		o_str(i ? ",{\"pc\":\"" : "{\"pc\":\"");
		o_hex(s->pc[i]);
		o_str("\",\"function\":");
		o_json(y->name);
		o_str(",\"function_offset\":");
		o_num(y->name_off);
		o_str(",\"module\":");
		o_json(y->module);
		o_str(",\"module_offset\":\"");
		o_hex(y->module_off);
		o_str("\"}");
	}
	o_str("]");
}

/* Looked up when reports are turned on, not imported (stack.c says
 * why). */
static int (*fnmatch_fn)(const char *, const char *, int);
static int (*fflush_fn)(FILE *);

/* ---- suppressions ---- */

#define RULES_MAX 256
static struct rule {
	int kind; /* a report_kind, or -1 for any */
	const char *glob;
} rules[RULES_MAX];
static int nrules;
static char rules_text[16384];

/* Read UFD_SUPPRESS's file: lines "kind:function-glob", # comments. */
static void load_suppressions(const char *path)
{
	int fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path,
			       O_RDONLY | O_CLOEXEC, 0, 0, 0);
	long len = 0, r;
	char *line, *next;

	if (fd < 0) {
		fprintf(stderr, "ufd: UFD_SUPPRESS=\"%s\": cannot open (%s); "
			"ignored\n", path, strerror(-fd));
		return;
	}
	while (len < (long)sizeof(rules_text) - 1 &&
	       (r = ufd_sys6(SYS_read, fd, (long)(rules_text + len),
			     (long)sizeof(rules_text) - 1 - len, 0, 0, 0)) > 0)
		len += r;
	ufd_sys_close(fd);
	rules_text[len] = 0;
	for (line = rules_text; line && *line; line = next) {
		char *colon, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		while (*line == ' ' || *line == '\t')
			line++;
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = 0;
		if (!*line || *line == '#')
			continue;
		colon = strchr(line, ':');
		if (!colon || nrules == RULES_MAX) {
			fprintf(stderr, "ufd: UFD_SUPPRESS: \"%s\": not "
				"kind:function-glob; ignored\n", line);
			continue;
		}
		*colon = 0;
		rules[nrules].kind = -2;
		if (!strcmp(line, "*"))
			rules[nrules].kind = -1;
		for (int k = 0; k < REPORT_NKINDS; k++)
			if (!strcmp(line, report_kind_name[k]))
				rules[nrules].kind = k;
		if (rules[nrules].kind == -2) {
			fprintf(stderr, "ufd: UFD_SUPPRESS: unknown kind \"%s\"; "
				"ignored\n", line);
			continue;
		}
		rules[nrules++].glob = colon + 1;
	}
}

static int suppressed(enum report_kind kind, const struct sym_stack *s)
{
	for (int r = 0; r < nrules; r++) {
		if (rules[r].kind != -1 && rules[r].kind != (int)kind)
			continue;
		for (int i = 0; i < s->n; i++)
			if (s->sym[i].name[0] &&
			    fnmatch_fn && fnmatch_fn(rules[r].glob, s->sym[i].name, 0) == 0)
				return 1;
	}
	return 0;
}

/* ---- reports ---- */

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

static const char *const kind_words[REPORT_NKINDS] = {
	"double close of descriptor ",
	"use after close of descriptor ",
	"close of a descriptor that is not the program's: ",
	"descriptor past FD_SETSIZE (1024), in no fd_set: ",
	"leak across exec: not close-on-exec and never meant to be inherited: descriptor ",
	"leak at exit: still open: descriptor ",
};

/* What fd refers to, as its record says (fdname.h: named when it was
 * made, kept when it is closed), "" if not known.  For one of ufd's
 * backing descriptors, what the virtual descriptor it backs refers to.
 * No system call. */
static const char *refers_to(const struct report *r)
{
	int of = r->fd >= 0 && !vfd_in_space(r->fd) ? vfd_owner(r->fd) : -1;

	return fdname_text(of >= 0 ? report_name_of(of) : r->rec.name);
}

static const char *call_name(enum ufd_call call)
{
	return call < UFD_NCALLS ? ufd_call_name(call)
	       : call == REPORT_CALL_NONSEQFD ? "nonseqfd" : "?";
}

/* One part of a report: in text "  TITLE by CALL in thread TID:" and the
 * stack's lines; in JSON ,"KEY":{"call":"CALL","thread":TID,"stack":[...]}.
 * Done in epoch ep before this one: the thread was an ancestor's, named
 * (" of process PID, before a fork"; "process":PID). */
static void o_part(const char *key, const char *title, enum ufd_call call,
		   uint32_t tid, uint8_t ep, const struct sym_stack *s)
{
	int json = ufd_settings.report_json;

	o_str(json ? ",\"" : "  ");
	o_str(json ? key : title);
	o_str(json ? "\":{\"call\":\"" : " by ");
	o_str(call_name(call));
	o_str(json ? "\",\"thread\":" : " in thread ");
	o_num(tid);
	if (ep != epoch) {
		o_str(json ? ",\"process\":" : " of process ");
		o_num(epoch_pid[ep]);
		o_str(json ? "" : ", before a fork");
	}
	if (json) {
		o_str(",\"stack\":");
		o_json_stack(s);
		o_str("}");
	} else {
		o_str(":\n");
		o_text_stack(s);
	}
}

/* The call's, the close's and the making's parts of report r. */
static void o_parts(const struct report *r, const struct sym_stack *call,
		    const struct sym_stack *closed, const struct sym_stack *made)
{
	if (r->kind != REPORT_EXIT_LEAK)
		o_part("call", r->kind == REPORT_EXEC_LEAK ? "crossing" : "call",
		       r->call, r->tid, epoch, call);
	if (r->with_closed)
		o_part("closed",
		       r->kind == REPORT_DOUBLE_CLOSE ? "first closed" : "closed",
		       r->rec.closed_call, r->rec.closed_tid, r->rec.closed_epoch,
		       closed);
	if (r->rec.made_tid) /* made while recording */
		o_part("made", "made", r->rec.made_call, r->rec.made_tid,
		       r->rec.made_epoch, made);
}

static void emit(const struct report *r)
{
	struct sym_stack *call = &stacks[0], *closed = &stacks[1], *made = &stacks[2];
	int leak = r->kind == REPORT_EXEC_LEAK || r->kind == REPORT_EXIT_LEAK;
	/* Reports of these kinds are of a number the kernel said EBADF for
	 * (or would: a close of a closed one). */
	int closed_now = r->kind == REPORT_DOUBLE_CLOSE || r->kind == REPORT_USE_AFTER_CLOSE;
	const char *target;
	const char *fn;

	if (lock_reports() < 0)
		return;
	symbolize(r->stack, call);
	symbolize(r->with_closed ? r->rec.closed_stack : 0, closed);
	symbolize(r->rec.made_tid ? r->rec.made_stack : 0, made);
	if (suppressed(r->kind, leak ? made : call)) {
		unlock_reports();
		return;
	}
	__atomic_store_n(&reported, 1, __ATOMIC_RELAXED);
	target = refers_to(r);
	fn = "";
	for (int i = 0; i < (leak ? made : call)->n && !fn[0]; i++)
		fn = (leak ? made : call)->sym[i].name;
	out_len = 0;
	if (ufd_settings.report_json) {
		o_str("{\"ufd\":\"report\",\"kind\":\"");
		o_str(report_kind_name[r->kind]);
		o_str("\",\"pid\":");
		o_num(my_pid);
		o_str(",\"fd\":");
		o_num((unsigned long)r->fd);
		o_str(closed_now ? ",\"open\":false" : ",\"open\":true");
		o_str(",\"refers_to\":");
		o_json(target);
		if (r->what) {
			o_str(",\"what\":");
			o_json(r->what);
		}
		if (r->more) {
			o_str(",\"more\":");
			o_num(r->more);
		}
		o_parts(r, call, closed, made);
		o_str("}\n");
	} else {
		o_str("==");
		o_num(my_pid);
		o_str("==ERROR: ufd: ");
		o_str(report_kind_name[r->kind]);
		o_str(": ");
		o_str(kind_words[r->kind]);
		if (r->what) {
			o_str(r->what);
			o_str(" ");
		}
		o_num((unsigned long)r->fd);
		/* "(NAME)", "(not open)", "(not open, was NAME)". */
		if (closed_now || target[0]) {
			o_str(closed_now ? " (not open" : " (");
			o_str(closed_now && target[0] ? ", was " : "");
			o_text(target);
			o_str(")");
		}
		if (r->more) {
			o_str(", and ");
			o_num(r->more);
			o_str(" more like it");
		}
		o_str("\n");
		o_parts(r, call, closed, made);
		o_str("SUMMARY: ufd: ");
		o_str(report_kind_name[r->kind]);
		o_str(" of descriptor ");
		o_num((unsigned long)r->fd);
		o_str(" in ");
		o_text(fn[0] ? fn : "??");
		o_str("\n\n");
	}
	report_out_write(out, out_len);
	unlock_reports();
}

/*
 * A double close held back.  A close that fails on a number the program
 * closed is a double close, unless it is one of a loop that closes every
 * number of a range (a daemon's or a fork child's close-all loop), which
 * meets the program's closed numbers too: a close in a run of LOOP_RUN or
 * more closes of consecutive ascending numbers by one thread.  The closes
 * before it tell (report_closing's run); for the first ones of a loop,
 * only the next closes of the same thread can: the report is held until
 * they come (the run reaches LOOP_RUN: dropped) or another close or
 * recorded call of its thread does (written), or an exec or the exit
 * (written); a fork child drops its parent's.  Two double closes of
 * neighbours in a run are one report.  held_state guards held, held_next
 * and held_need: a thread (or a signal handler) that does not move it from
 * HELD_NONE or HELD_READY to HELD_BUSY does not touch them.
 */
#define LOOP_RUN 3
enum { HELD_NONE, HELD_BUSY, HELD_READY };
static int held_state;
static struct report held;
static int held_next;	   /* the number that continues its run */
static uint32_t held_need; /* closes more that make the run a loop */

/* Hold r, whose run is need closes short of a loop, if nothing is held
 * (else write it: two threads' loops at once are not told apart). */
static void hold(const struct report *r, uint32_t need)
{
	int none = HELD_NONE;

	if (!__atomic_compare_exchange_n(&held_state, &none, HELD_BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		emit(r);
		return;
	}
	held = *r;
	held_next = r->fd + 1;
	held_need = need;
	__atomic_store_n(&held_state, HELD_READY, __ATOMIC_RELEASE);
}

/* The held report, if this thread's (or any thread's, with any): written;
 * if next_fd (the number this thread now closes, else -1) continues its
 * run, still held, or dropped when the run is a loop, and 1 returned.
 * Saves errno. */
static int release_held(int any, int next_fd)
{
	int ready = HELD_READY, saved;
	struct report r;

	if (__atomic_load_n(&held_state, __ATOMIC_ACQUIRE) != HELD_READY ||
	    (!any && held.tid != gettid_raw()) ||
	    !__atomic_compare_exchange_n(&held_state, &ready, HELD_BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	if (!any && next_fd >= 0 && next_fd == held_next) {
		held_next++;
		__atomic_store_n(&held_state, --held_need ? HELD_READY : HELD_NONE,
				 __ATOMIC_RELEASE);
		return 1;
	}
	r = held;
	__atomic_store_n(&held_state, HELD_NONE, __ATOMIC_RELEASE);
	saved = errno;
	emit(&r);
	errno = saved;
	return 0;
}

/* In a fork child: the held report is the parent's to write. */
UFD_FORK static void drop_held(void)
{
	held_state = HELD_NONE;
}

/* A report of kind on fd by call (stack) in this thread, fd's record as
 * it is now. */
static struct report report_new(enum report_kind kind, int fd, enum ufd_call call,
				uint32_t stack, int with_closed, const char *what)
{
	return (struct report){
		.kind = kind, .fd = fd, .call = call, .stack = stack,
		.tid = gettid_raw(), .rec = rec_copy(fd),
		.with_closed = with_closed, .what = what,
	};
}

/* Write r after this thread's held report; with need, hold r instead
 * (hold).  Saves errno. */
static void report_send(const struct report *r, uint32_t need)
{
	int saved = errno;

	release_held(0, -1);
	if (need)
		hold(r, need);
	else
		emit(r);
	errno = saved;
}

static void report(enum report_kind kind, int fd, enum ufd_call call,
		   uint32_t stack, int with_closed, const char *what)
{
	struct report r = report_new(kind, fd, call, stack, with_closed, what);

	report_send(&r, 0);
}

/* ---- recording ---- */

uint32_t report_name_of(int fd)
{
	int of = fd >= 0 && vfd_guarded(fd) && !vfd_in_space(fd) ? vfd_owner(fd) : -1;
	struct fdrec *p = rec_of(of >= 0 ? of : fd, 0);

	return p ? GET(p->name) : 0;
}

/* Name the descriptors the program was given (0, 1, 2 and any other),
 * while it is not yet sandboxed: reports of their numbers then say what
 * they were.  Their records stay "unknown" otherwise (not made by the
 * program). */
static void name_given(int fd, void *ctx)
{
	char buf[FDNAME_MAX];
	long n = ufd_proc_fd_link(fd, buf, sizeof(buf));
	struct fdrec *p;

	(void)ctx;
	if (n > 0 && !vfd_is_backing(fd) && (p = rec_of(fd, 1)))
		SET(p->name, fdname_intern(buf, (size_t)n));
}

void report_created(int fd, enum ufd_call call, int inherit)
{
	struct fdrec *p = rec_of(fd, 1);

	if (!p)
		return;
	SET(p->made_stack, stack_capture());
	SET(p->made_tid, gettid_raw());
	SET(p->made_call, (uint16_t)call);
	SET(p->made_epoch, epoch);
	SET(p->inherit, (uint8_t)inherit);
	SET(p->name, fdname_take((int)call));
	SET(p->closed_stack, 0);
	SET(p->state, REC_OPEN);
	release_held(0, -1);
}

void report_given_named(int fd)
{
	struct fdrec *p = rec_of(fd, 0);

	if (p && GET(p->state) == REC_UNKNOWN && GET(p->name)) {
		SET(p->inherit, REC_GIVEN_NAMED);
		SET(p->state, REC_OPEN);
	}
}

void report_inherit(int fd)
{
	struct fdrec *p = rec_of(fd, 0);

	if (p)
		SET(p->inherit, 1);
}

/* The last close: its thread's id (high half) and number (low half),
 * and how many closes of consecutive numbers by that thread end there. */
static uint64_t last_close;
static uint32_t last_run;

/* Does call close the descriptor it is given (a second one is a double
 * close, not a use after close)? */
static int is_close_call(enum ufd_call call)
{
	return call == UFD_CALL_close || call == UFD_CALL_fclose ||
	       call == UFD_CALL_closedir || call == UFD_CALL_pclose;
}

int report_closing(int fd, enum ufd_call call)
{
	struct fdrec *p = rec_of(fd, 1);
	uint32_t tid = gettid_raw();
	uint64_t me = (uint64_t)tid << 32;
	uint64_t last = __atomic_exchange_n(&last_close, me | (uint32_t)fd, __ATOMIC_RELAXED);
	uint32_t run = last == (me | (uint32_t)(fd - 1))
			       ? __atomic_load_n(&last_run, __ATOMIC_RELAXED) + 1
			       : 1;
	int in_held_run;

	__atomic_store_n(&last_run, run, __ATOMIC_RELAXED);
	in_held_run = release_held(0, fd);
	if (!p)
		return 0;
	/* A number whose record is unknown (given to the process, or made
	 * by a call ufd does not see) may be open: its close is recorded,
	 * and taken back if the kernel says EBADF (report_close_failed). */
	if (!open_now(fd) && (vfd_in_space(fd) || GET(p->state) != REC_UNKNOWN)) {
		/* The close fails (EBADF) and closes nothing: a misuse only
		 * of a number this process closed, and not in a loop. */
		if (closed_here(p) && (call != UFD_CALL_close ||
				       (run < LOOP_RUN && !in_held_run))) {
			struct report r = report_new(
				is_close_call(call) ? REPORT_DOUBLE_CLOSE
						    : REPORT_USE_AFTER_CLOSE,
				fd, call, stack_capture(), 1, NULL);

			report_send(&r, call == UFD_CALL_close ? LOOP_RUN - run : 0);
		}
		return 0;
	}
	SET(p->closed_stack, stack_capture());
	SET(p->closed_tid, tid);
	SET(p->closed_call, (uint16_t)call);
	SET(p->closed_epoch, epoch);
	SET(p->state, REC_CLOSED);
	return 1;
}

void report_closed_again(int fd, enum ufd_call call)
{
	struct fdrec *p = rec_of(fd, 0);

	release_held(0, -1);
	if (p && closed_here(p) && !open_now(fd))
		report(REPORT_DOUBLE_CLOSE, fd, call, stack_capture(), 1, NULL);
}

void report_close_failed(int fd)
{
	struct fdrec *p = rec_of(fd, 0);

	if (p && closed_here(p))
		SET(p->state, REC_UNKNOWN);
}

void report_closing_range(unsigned first, unsigned last, enum ufd_call call)
{
	uint32_t stack = 0, tid = gettid_raw();

	release_held(0, -1);
	if (!chunks || first > INT_MAX)
		return;
	if (last > INT_MAX)
		last = INT_MAX;
	for (uint32_t c = first >> CHUNK_BITS; c <= last >> CHUNK_BITS; c++) {
		struct fdrec *chunk = __atomic_load_n(&chunks[c], __ATOMIC_ACQUIRE);

		for (uint32_t i = 0; chunk && i < CHUNK; i++) {
			struct fdrec *p = &chunk[i];
			uint32_t fd = c << CHUNK_BITS | i;

			if (fd < first || fd > last || GET(p->state) != REC_OPEN)
				continue;
			if (!stack)
				stack = stack_capture();
			SET(p->closed_stack, stack);
			SET(p->closed_tid, tid);
			SET(p->closed_call, (uint16_t)call);
			SET(p->closed_epoch, epoch);
			SET(p->state, REC_CLOSED);
		}
	}
}

void report_ebadf_args(int fd, enum ufd_call call, long arg, const char *path)
{
	struct fdrec *p = rec_of(fd, 0);

	release_held(0, -1);
	if (p && closed_here(p) && !report_probe(call, arg, path) && !open_now(fd))
		report(REPORT_USE_AFTER_CLOSE, fd, call, stack_capture(), 1, NULL);
}

void report_ebadf(int fd, enum ufd_call call)
{
	report_ebadf_args(fd, call, -1, NULL);
}

void report_not_owned(int fd, enum ufd_call call, int hidden)
{
	report(REPORT_NOT_OWNED, fd, call, stack_capture(), 0,
	       hidden ? "a library's hidden descriptor (NONSEQFD_HIDE)"
		      : "ufd's backing descriptor of a virtual one");
}

void report_fd_set(int fd, enum ufd_call call)
{
	/* A virtual descriptor cannot fit in any fd_set: the way out. */
	report(REPORT_FD_SET, fd, call, stack_capture(), 0,
	       vfd_in_space(fd) ? "virtual descriptor (UFD_MODE=all; UFD_MODE=random "
				  "keeps select() working)"
				: NULL);
}

/* Call fn(fd) for every number whose record is open. */
static void each_open_record(void (*fn)(int fd, void *ctx), void *ctx)
{
	if (!chunks)
		return;
	for (uint32_t c = 0; c < NCHUNKS; c++) {
		struct fdrec *chunk = __atomic_load_n(&chunks[c], __ATOMIC_ACQUIRE);

		for (uint32_t i = 0; chunk && i < CHUNK; i++)
			if (GET(chunk[i].state) == REC_OPEN)
				fn((int)(c << CHUNK_BITS | i), ctx);
	}
}

static void report_leaks(enum report_kind kind, enum ufd_call call,
			 int (*is_leak)(int fd, void *ctx), void *ctx);

struct exec_scan {
	const int *named, *closed;
	int n_named, n_closed, close_from;
};

static int listed(int fd, const int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] == fd)
			return 1;
	return 0;
}

/* Is fd an exec leak (report_exec)? */
static int exec_check(int fd, void *ctx)
{
	struct exec_scan *x = ctx;

	if (fd <= 2 || GET(rec_of(fd, 0)->inherit) == 1 || listed(fd, x->named, x->n_named) ||
	    listed(fd, x->closed, x->n_closed) ||
	    (x->close_from >= 0 && fd >= x->close_from) || !open_now(fd))
		return 0;
	if (vfd_in_space(fd))
		return vfd_get_flags(fd) >= 0 && !(vfd_get_flags(fd) & VFD_CLOEXEC);
	return !(ufd_sys_fcntl(fd, F_GETFD, 0) & FD_CLOEXEC);
}

void report_exec(enum ufd_call call, const int *named, int n_named,
		 const int *closed, int n_closed, int close_from)
{
	struct exec_scan x = { named, closed, n_named, n_closed, close_from };

	release_held(1, -1);
	report_leaks(REPORT_EXEC_LEAK, call, exec_check, &x);
}

/*
 * Leaks of one kind with the same making stack are one report, with how
 * many more ("and 37 more like it"), as LeakSanitizer's are.  A scan
 * counts the open records, maps a table of making stacks
 * (report_group.h), fills it with the leaks in ascending order, and
 * reports each group at its lowest number.  Without the table (no
 * memory), each leak is its own report.
 */
struct leak_scan {
	enum report_kind kind;
	enum ufd_call call;
	uint32_t stack; /* the call's, captured at the first report */
	int (*is_leak)(int fd, void *ctx);
	void *ctx;
	struct report_groups groups;
	uint32_t open;
};

static void leak_count(int fd, void *ctx)
{
	(void)fd;
	((struct leak_scan *)ctx)->open++;
}

static void leak_group_add(int fd, void *ctx)
{
	struct leak_scan *s = ctx;

	if (s->is_leak(fd, s->ctx))
		report_groups_add(&s->groups, GET(rec_of(fd, 0)->made_stack), fd);
}

static void leak_report(int fd, void *ctx)
{
	struct leak_scan *s = ctx;
	const struct report_group *g = NULL;
	struct report r;

	if (s->groups.g) {
		g = report_groups_of(&s->groups, GET(rec_of(fd, 0)->made_stack));
		if (!g->count || g->first != fd)
			return;
	} else if (!s->is_leak(fd, s->ctx)) {
		return;
	}
	if (!s->stack && s->kind != REPORT_EXIT_LEAK)
		s->stack = stack_capture();
	r = report_new(s->kind, fd, s->call, s->stack, 0, NULL);
	r.more = g ? g->count - 1 : 0;
	report_send(&r, 0);
}

/* Report the open records for which is_leak(fd, ctx) holds, as kind at
 * call, merged.  Not async-signal-safe (the stacks' depot), but safe in a
 * vfork child (no heap). */
static void report_leaks(enum report_kind kind, enum ufd_call call,
			 int (*is_leak)(int fd, void *ctx), void *ctx)
{
	struct leak_scan s = { kind, call, 0, is_leak, ctx, { NULL, 0 }, 0 };

	each_open_record(leak_count, &s);
	if (!s.open)
		return;
	if (report_groups_map(&s.groups, s.open) == 0)
		each_open_record(leak_group_add, &s);
	each_open_record(leak_report, &s);
	report_groups_unmap(&s.groups);
}

/* A leak at exit: a descriptor above 2 this process made (not one it
 * got from its parent at a fork) that is still open. */
static int exit_leak(int fd, void *ctx)
{
	(void)ctx;
	return fd > 2 && GET(rec_of(fd, 0)->made_epoch) == epoch &&
	       GET(rec_of(fd, 0)->inherit) != REC_GIVEN_NAMED && open_now(fd);
}

/*
 * At exit, as libufd's destructor (the program's own destructors and
 * atexit handlers have run, the standard streams are still open): the
 * leaks, then UFD_REPORT_EXITCODE, after flushing the streams, which
 * exit would have flushed next.  _exit skips this.
 */
__attribute__((destructor)) static void report_at_exit(void)
{
	/* The setting first: chunks is on a page of .bss that a process
	 * without reports never touches otherwise. */
	if (!ufd_settings.report || !chunks)
		return;
	release_held(1, -1);
	if (ufd_settings.report_leaks)
		report_leaks(REPORT_EXIT_LEAK, UFD_CALL_close, exit_leak, NULL);
	if (__atomic_load_n(&reported, __ATOMIC_RELAXED) &&
	    ufd_settings.report_exitcode >= 0) {
		if (fflush_fn)
			fflush_fn(NULL);
		ufd_sys6(SYS_exit_group, ufd_settings.report_exitcode, 0, 0, 0, 0, 0);
	}
}

void report_init(void)
{
	void *p;

	if (!ufd_settings.report || chunks)
		return;
	report_out_open();
	report_groups_reserve();
	my_pid = (uint32_t)ufd_sys_getpid();
	my_tid = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	fdname_init();
	epoch_pid[0] = my_pid;
	fnmatch_fn = (int (*)(const char *, const char *, int))dlsym(RTLD_DEFAULT,
								     "fnmatch");
	fflush_fn = (int (*)(FILE *))dlsym(RTLD_DEFAULT, "fflush");
	if (ufd_settings.suppress)
		load_suppressions(ufd_settings.suppress);
	stack_init();
	p = ufd_sys_mmap(NULL, (size_t)POOL_CHUNKS * CHUNK * sizeof(struct fdrec),
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!ufd_sys_is_error((long)p))
		chunk_pool = p;
	p = ufd_sys_mmap(NULL, NCHUNKS * sizeof(*chunks), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!ufd_sys_is_error((long)p))
		__atomic_store_n(&chunks, (struct fdrec **)p, __ATOMIC_RELEASE);
	ufd_proc_fds(name_given, NULL);
	pthread_atfork(NULL, NULL, report_fork_child);
}
