/* SPDX-License-Identifier: MIT */
/*
 * report.c - the sanitizer's records and reports (report.h).
 */
#define _GNU_SOURCE 1
#include "report.h"
#include "report_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/single_threaded.h>
#include <sys/stat.h>
#include <time.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "escape.h"
#include "fdname.h"
#include "procfs.h"
#include "report_out.h"
#include "given.h"
#include "report_group.h"
#include "report_probe.h"
#include "report_suppress.h"
#include "reserve.h"
#include "settings.h"
#include "stack.h"
#include "sys.h"
#include "text.h"
#include "vfd_table.h"

/*
 * A vfork child (vfd_in_vfork_child) shares its parent's memory, these
 * records included, until it execs or exits: each entry point below
 * returns at once there, so that nothing the child does is recorded or
 * reported and the parent's records are exactly as before once it is gone
 * (ufd(7): reports do not cover what a vfork child does before its exec).
 * shim_vfork.c makes such a child only when its exec could not leak a
 * descriptor of the parent's (report_exec_may_leak).
 */

const char *const report_kind_name[REPORT_NKINDS] = {
	"double-close", "use-after-close", "close-not-owned",
	"fd-set-overflow", "exec-leak", "exit-leak",
};

/* ---- records ---- */

/* Numbers are below 2^31: 2^23 chunks of 256 records (7 kB: a scan of a
 * chunk, at exit, touches two pages, not 28), each mapped on its first
 * record, the table of chunks mapped (untouched) at start-up. */
#define CHUNK_BITS 8
#define CHUNK (1U << CHUNK_BITS)
#define NCHUNKS (1U << (31 - CHUNK_BITS))

static struct fdrec **chunks;
/* One more than the highest chunk mapped: a scan of the records reads the
 * table up to it, not all of it (64 MB: reading it touched 1,024 pages of
 * 4 MB, as it was, at each exit and exec of a process with reports on). */
static uint32_t chunks_end;

/* Chunks handed out without a system call: a region reserved at start-up
 * (MAP_NORESERVE: only the pages used cost memory), so that recording
 * needs no mmap while the program may be under a seccomp filter.  Past
 * it, a chunk is mapped on its own. */
#define POOL_CHUNKS 4096
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
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		memset(p, 0, CHUNK * sizeof(struct fdrec)); /* another won: wasted */
	} else {
		uint32_t end = __atomic_load_n(&chunks_end, __ATOMIC_RELAXED);

		chunk = p;
		while (end < c + 1 &&
		       !__atomic_compare_exchange_n(&chunks_end, &end, c + 1, 0,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
	}
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
uint32_t my_pid;

/*
 * A fork child starts with its parent's records, which are the parent's
 * history, not its own: epoch counts the forks since the exec (whose
 * records start empty), and epoch_pid[e] is the process of epoch e, an
 * ancestor's for e < epoch.  A record made or closed in another epoch than
 * the current one was made or closed by an ancestor, before a fork.  (A
 * byte: 256 nested forks wrap it, and an ancestor's record looks the
 * process's own.)
 */
uint8_t epoch;
uint32_t epoch_pid[256];

/* Did this process close fd (the record p), and not its parent? */
static int closed_here(struct fdrec *p)
{
	return GET(p->state) == REC_CLOSED && GET(p->closed_epoch) == epoch;
}

uint32_t gettid_raw(void)
{
	if (__builtin_expect(!my_tid, 0))
		my_tid = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	return my_tid;
}

static uint32_t name_now(int fd, struct fdrec *p);

/* A copy of fd's record, all zero if it has none; its name read now if
 * it was left for later (name_now). */
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
		r.name = name_now(fd, p);
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


/* The fork child has only the forking thread: a lock held by another is
 * no one's there.  Its epoch begins (once: _Fork and fork's handler). */
UFD_FORK void report_fork_child(void)
{
	/* The child's one thread has the process's id. */
	my_tid = my_pid = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	if (epoch_pid[epoch] != my_pid) {
		epoch++;
		epoch_pid[epoch] = my_pid;
	}
	report_emit_fork_child();
}

/* Looked up when reports are turned on, not imported (stack.c says
 * why). */
static int (*fflush_fn)(FILE *);

/* ---- reports ---- */

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

	return p ? name_now(of >= 0 ? of : fd, p) : 0;
}

/*
 * A name of a descriptor the program was given, not read yet: its record
 * says so from start-up (name_given), and the name is read when first
 * needed (name_now): at the descriptor's close or dup, a report of it,
 * or before a seccomp filter goes in (report_before_sandbox).  Reading
 * them all at start-up cost every process an fstat each, and /proc for
 * a regular file (readlink of /proc/self/fd/N, whose entries the kernel
 * then builds for the process and tears down at its exit): a third of
 * what reports on added to a fork + exec, for names few processes print.
 */
#define NAME_LATER UINT32_MAX

/* Mark the descriptors the program was given (0, 1, 2 and any other):
 * reports of their numbers then say what they were.  Their records stay
 * "unknown" otherwise (not made by the program). */
static void name_given(int fd, void *ctx)
{
	struct fdrec *p;

	(void)ctx;
	if (fd == report_out_fd())
		return; /* ufd's own */
	if (!vfd_is_backing(fd) && (p = rec_of(fd, 1)))
		SET(p->name, NAME_LATER);
}

/* p's name (fd's record): read now if it was left for later
 * (NAME_LATER), through fd, which must still be the one given.  The id,
 * or 0.  System calls only then (fstat, and /proc for a regular file);
 * lock-free, async-signal-safe. */
static uint32_t name_now(int fd, struct fdrec *p)
{
	uint32_t id = GET(p->name), later = NAME_LATER;
	char buf[FDNAME_MAX];
	long n;

	if (id != NAME_LATER)
		return id;
	n = given_name(fd, buf, sizeof(buf));
	id = n > 0 ? fdname_intern(buf, (size_t)n) : 0;
	if (!__atomic_compare_exchange_n(&p->name, &later, id, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		id = later; /* named meanwhile */
	return id;
}

void report_created(int fd, enum ufd_call call, int inherit)
{
	struct fdrec *p;

	if (vfd_in_vfork_child())
		return;
	p = rec_of(fd, 1);
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
	struct fdrec *p = vfd_in_vfork_child() ? NULL : rec_of(fd, 0);

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
	struct fdrec *p;
	uint32_t tid, run;
	uint64_t me, last;
	int in_held_run;

	if (vfd_in_vfork_child())
		return 0;
	p = rec_of(fd, 1);
	tid = gettid_raw();
	me = (uint64_t)tid << 32;
	last = __atomic_exchange_n(&last_close, me | (uint32_t)fd, __ATOMIC_RELAXED);
	run = last == (me | (uint32_t)(fd - 1))
		      ? __atomic_load_n(&last_run, __ATOMIC_RELAXED) + 1
		      : 1;
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
	name_now(fd, p); /* (a given one's, while it is still open) */
	SET(p->closed_stack, stack_capture());
	SET(p->closed_tid, tid);
	SET(p->closed_call, (uint16_t)call);
	SET(p->closed_epoch, epoch);
	SET(p->state, REC_CLOSED);
	return 1;
}

void report_closed_again(int fd, enum ufd_call call)
{
	struct fdrec *p;

	if (vfd_in_vfork_child())
		return;
	p = rec_of(fd, 0);
	release_held(0, -1);
	if (p && closed_here(p) && !open_now(fd))
		report(REPORT_DOUBLE_CLOSE, fd, call, stack_capture(), 1, NULL);
}

void report_close_failed(int fd)
{
	struct fdrec *p = vfd_in_vfork_child() ? NULL : rec_of(fd, 0);

	if (p && closed_here(p))
		SET(p->state, REC_UNKNOWN);
}

void report_closing_range(unsigned first, unsigned last, enum ufd_call call)
{
	uint32_t stack = 0, tid, end;

	if (vfd_in_vfork_child())
		return;
	tid = gettid_raw();
	end = __atomic_load_n(&chunks_end, __ATOMIC_ACQUIRE);
	release_held(0, -1);
	if (!chunks || first > INT_MAX)
		return;
	if (last > INT_MAX)
		last = INT_MAX;
	for (uint32_t c = first >> CHUNK_BITS; c <= last >> CHUNK_BITS && c < end; c++) {
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
	struct fdrec *p;

	if (vfd_in_vfork_child())
		return;
	p = rec_of(fd, 0);
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
	if (vfd_in_vfork_child())
		return;
	report(REPORT_NOT_OWNED, fd, call, stack_capture(), 0,
	       hidden ? "a library's hidden descriptor (NONSEQFD_HIDE)"
		      : "ufd's backing descriptor of a virtual one");
}

void report_fd_set(int fd, enum ufd_call call)
{
	if (vfd_in_vfork_child())
		return;
	/* A virtual descriptor cannot fit in any fd_set: the way out. */
	report(REPORT_FD_SET, fd, call, stack_capture(), 0,
	       vfd_in_space(fd) ? "virtual descriptor (UFD_MODE=all; UFD_MODE=random "
				  "keeps select() working)"
				: NULL);
}

/* Call fn(fd) for every number whose record is open. */
static void each_open_record(void (*fn)(int fd, void *ctx), void *ctx)
{
	uint32_t end = __atomic_load_n(&chunks_end, __ATOMIC_ACQUIRE);

	if (!chunks)
		return;
	for (uint32_t c = 0; c < end; c++) {
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

struct may_leak {
	struct exec_scan x;
	int found;
};

static void may_leak_at(int fd, void *ctx)
{
	struct may_leak *m = ctx;

	if (!m->found && exec_check(fd, &m->x))
		m->found = 1;
}

int report_exec_may_leak(const int *closed, int n_closed, int close_from)
{
	struct may_leak m = { { NULL, closed, 0, n_closed, close_from }, 0 };

	if (vfd_in_vfork_child())
		return 0;
	each_open_record(may_leak_at, &m);
	return m.found;
}

void report_exec(enum ufd_call call, const int *named, int n_named,
		 const int *closed, int n_closed, int close_from)
{
	struct exec_scan x = { named, closed, n_named, n_closed, close_from };

	if (vfd_in_vfork_child())
		return;
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
 * leaks, the summary (XML: the document's end), then
 * UFD_REPORT_EXITCODE, after flushing the streams, which
 * exit would have flushed next.  _exit skips this.
 */
__attribute__((destructor)) static void report_at_exit(void)
{
	/* The setting first: chunks is on a page of .bss that a process
	 * without reports never touches otherwise. */
	if (!ufd_settings.report || !chunks || vfd_in_vfork_child())
		return;
	release_held(1, -1);
	report_emit_exit(0);
	if (ufd_settings.report_leaks)
		report_leaks(REPORT_EXIT_LEAK, UFD_CALL_close, exit_leak, NULL);
	report_emit_exit(1);
	if (report_emit_reported() &&
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
	/* A process that never had a second thread runs on its main one,
	 * whose id is the process's: one system call (the constructor of a
	 * library loaded later, in a thread, asks both). */
	my_tid = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	my_pid = __libc_single_threaded ? my_tid : (uint32_t)ufd_sys_getpid();
	fdname_init();
	epoch_pid[0] = my_pid;
	report_emit_init();
	fflush_fn = (int (*)(FILE *))dlsym(RTLD_DEFAULT, "fflush");
	report_suppress_load(ufd_settings.suppress, ufd_settings.suppress_default);
	stack_init();
	p = ufd_reserve((size_t)POOL_CHUNKS * CHUNK * sizeof(struct fdrec));
	if (!ufd_sys_is_error((long)p))
		chunk_pool = p;
	p = ufd_reserve(NCHUNKS * sizeof(*chunks));
	if (!ufd_sys_is_error((long)p)) {
		/* Chunk 0 (0, 1, 2: every process has records there) now:
		 * the table's page written first, one page fault where
		 * rec_of's read and then its compare-and-swap took two. */
		void *c = new_chunk();

		if (!ufd_sys_is_error((long)c)) {
			((struct fdrec **)p)[0] = c;
			chunks_end = 1;
		}
		__atomic_store_n(&chunks, (struct fdrec **)p, __ATOMIC_RELEASE);
	}
	given_each(name_given, NULL);
	pthread_atfork(NULL, NULL, report_fork_child);
	/* Started under a filter (inherited across exec): no later chance. */
	if (ufd_sys6(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0, 0) == SECCOMP_MODE_FILTER)
		report_before_sandbox();
}

void report_before_sandbox(void)
{
	if (!ufd_settings.report || !chunks || vfd_in_vfork_child())
		return;
	stack_load_unwinder();
	for (int fd = 0; fd < GIVEN_BELOW; fd++) {
		struct fdrec *p = rec_of(fd, 0);

		if (p)
			name_now(fd, p);
	}
}
