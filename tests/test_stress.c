/* SPDX-License-Identifier: MIT */
/*
 * Description: the stress test (issue 8).  Threads churn virtual
 * descriptors (nonseqfd, dup2(fd, FD_UNSEQ_ALLOC), dup3 onto exact virtual
 * numbers, F_DUPFD[_CLOEXEC] from a virtual number, open with O_UNSEQFD,
 * F_SETFD, close_range, close) while other threads fork (the child checks
 * its table and _exits), fork and execve a helper, posix_spawn it and run
 * it through system(); the helper reports the virtual descriptors it
 * inherited.  A signaller thread pthread_kills the churning threads, whose
 * handler closes virtual descriptors of its own, often inside a table
 * change of the thread it interrupted.  A watchdog thread turns a deadlock
 * into a failure that says which thread is stuck where.
 *
 * Every loop runs a fixed number of iterations and every thread draws from
 * its own generator with a fixed seed, so that runs are comparable (the
 * interleaving is the scheduler's).  Nothing is timed: the watchdog's bound
 * is only for a thread that makes no progress at all.
 *
 * What must hold:
 *   - each churning thread's descriptors refer to their files (fstat device
 *     and inode) with the flags it gave them, and the numbers it asked for;
 *   - a program exec'd or spawned inherits every stable virtual descriptor
 *     that is not close-on-exec (not close-on-fork either, for a spawn) and
 *     none that is, and no churned descriptor made close-on-exec: those
 *     are all on one file, which must never show up in a child; a fork
 *     child has the stable ones but the close-on-fork one;
 *   - every handler close succeeds;
 *   - at the end, the closed numbers give EBADF, the kernel's descriptors
 *     (raw getdents64 on /proc/self/fd) are those of the start plus one
 *     backing descriptor per stable virtual descriptor, the shim's listing
 *     holds exactly the stable ones, no child is left (not even a zombie),
 *     and system() has left SIGINT and SIGQUIT as they were.
 *
 * Linked against libufd.so; it runs the helper (UFD_TEST_HELPER) with the
 * LD_PRELOAD of UFD_TEST_PRELOAD.  It makes no virtual descriptor with pipe
 * or socketpair (TSan's interceptors abort on numbers past 2^20), so it
 * runs under ThreadSanitizer as it is.  Exit 0 pass, 1 fail, 77 skip.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_test.h"

extern char **environ;

/* The sizes of the run.  About a second in the plain build. */
#define CHURNERS 3
#define CHURN_OPS 10000    /* operations per churning thread */
#define SLOTS 24           /* live descriptors per churning thread, at most */
#define HANDLER_FDS 200    /* closed by the signal handler, per churner */
#define FORKS 200
#define EXECS 40
#define SPAWNS 40
#define SYSTEM_THREADS 2   /* at once: system() must restore SIGINT/SIGQUIT */
#define SYSTEMS 12         /* per system thread */

/* A thread with no progress for this long is stuck (a deadlock): far
 * beyond any run, even under TSan on a loaded machine. */
#ifndef STALL_SECONDS
#define STALL_SECONDS 60
#endif

/* The helper's listing: some 30 bytes per virtual descriptor it has. */
#define OUT_MAX (64 * 1024)

/* ---- failures ---- */

static int failures;

/* Report a failure at once (the first ones are the useful ones) and count
 * it.  Never from a signal handler. */
static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void failf(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	if (__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED) >= 20)
		return;
	n = snprintf(msg, sizeof(msg), "FAIL: ");
	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(msg) - 2)
		n = (int)sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(2, msg, (size_t)n) < 0)
		abort();
}

static int failed(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED) != 0;
}

/* ---- the watchdog ---- */

/* What each thread is doing, for the watchdog's report. */
struct worker {
	const char *name;
	const char *phase;      /* a string literal */
	unsigned long progress; /* operations done */
	pid_t child;            /* the child it waits for, or 0 */
};

#define MAX_WORKERS 16
static struct worker workers[MAX_WORKERS];
static int nworkers;
static int all_done;

static struct worker *new_worker(const char *name)
{
	struct worker *w = &workers[nworkers++];

	w->name = name;
	w->phase = "starting";
	return w;
}

static void set_phase(struct worker *w, const char *phase)
{
	__atomic_store_n(&w->phase, phase, __ATOMIC_RELAXED);
}

static void progress(struct worker *w)
{
	__atomic_fetch_add(&w->progress, 1, __ATOMIC_RELAXED);
}

/*
 * Every 100 ms, look at each thread's progress; when one that is not done
 * has made none for STALL_SECONDS, print where every thread is, kill the
 * children waited for and abort.  Per thread, since the others may go on
 * (a thread waiting for a stuck one counts its waiting as progress).
 * Written with write(2) alone: a stuck thread may hold stdio's lock.
 */
static void *watchdog_thread(void *arg)
{
	unsigned long last[MAX_WORKERS] = { 0 };
	int still[MAX_WORKERS] = { 0 }, stuck = -1;

	(void)arg;
	while (!__atomic_load_n(&all_done, __ATOMIC_ACQUIRE)) {
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		for (int i = 0; i < nworkers; i++) {
			unsigned long now = __atomic_load_n(&workers[i].progress, __ATOMIC_RELAXED);
			const char *phase = __atomic_load_n(&workers[i].phase, __ATOMIC_RELAXED);

			still[i] = now == last[i] && strcmp(phase, "done") ? still[i] + 1 : 0;
			last[i] = now;
			if (still[i] >= STALL_SECONDS * 10)
				stuck = i;
		}
		if (stuck < 0)
			continue;
		for (int i = 0; i < nworkers; i++) {
			char line[256];
			struct worker *w = &workers[i];
			pid_t child = __atomic_load_n(&w->child, __ATOMIC_RELAXED);
			int n = snprintf(line, sizeof(line),
					 "watchdog: %s in %s after %lu operations%s%s\n",
					 w->name, __atomic_load_n(&w->phase, __ATOMIC_RELAXED),
					 __atomic_load_n(&w->progress, __ATOMIC_RELAXED),
					 i == stuck ? ", no progress for the bound" : "",
					 child > 0 ? " (its child killed)" : "");

			if (write(2, line, (size_t)n) < 0)
				break;
			if (child > 0)
				kill(child, SIGKILL);
		}
		static const char msg[] = "watchdog: a thread is stuck (a deadlock?): aborting\n";
		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	return NULL;
}

/* ---- files ---- */

/* The files: one per stable descriptor, then the one every churned
 * close-on-exec descriptor refers to (FILE_X: never in a child), and the
 * one every other churned or handler's descriptor refers to (FILE_I). */
#define NSTABLE 6
#define FILE_X NSTABLE
#define FILE_I (NSTABLE + 1)
#define NFILES (NSTABLE + 2)

struct file {
	char path[80];
	int fd; /* real, read-write, close-on-exec */
	dev_t dev;
	ino_t ino;
};

static struct file files[NFILES];
static char tmpdir[] = "/tmp/ufd-stress-XXXXXX";

/* Which file does st name, or -1. */
static int file_of(const struct stat *st)
{
	for (int i = 0; i < NFILES; i++)
		if (files[i].dev == st->st_dev && files[i].ino == st->st_ino)
			return i;
	return -1;
}

static int file_by_id(unsigned long dev, unsigned long ino)
{
	for (int i = 0; i < NFILES; i++)
		if ((unsigned long)files[i].dev == dev && (unsigned long)files[i].ino == ino)
			return i;
	return -1;
}

/* ---- stable descriptors: made before the threads, kept to the end ---- */

struct stable {
	int vfd;
	int fdflags; /* FD_CLOEXEC, FD_CLOFORK */
};

static struct stable stables[NSTABLE];
static const char *helper;

/* One of each way in, with each flag. */
static void make_stables(void)
{
	int base = (int)FD_UNSEQ_BASE + (1 << 25);

	stables[0] = (struct stable){ api_nonseqfd(files[0].fd, 0), 0 };
	stables[1] = (struct stable){ dup2(files[1].fd, (int)FD_UNSEQ_ALLOC), 0 };
	stables[2] = (struct stable){ open(files[2].path, O_RDONLY | O_UNSEQFD), 0 };
	stables[3] = (struct stable){ api_nonseqfd(files[3].fd, NONSEQFD_CLOEXEC), FD_CLOEXEC };
	stables[4] = (struct stable){ api_nonseqfd(files[4].fd, NONSEQFD_CLOFORK), FD_CLOFORK };
	stables[5] = (struct stable){ dup3(files[5].fd, base + 7, O_CLOEXEC), FD_CLOEXEC };
	for (int i = 0; i < NSTABLE; i++)
		if (!is_vfd(stables[i].vfd))
			failf("stable descriptor %d not made: %d (%s)", i, stables[i].vfd,
			      strerror(errno));
}

/* Does a child have stable descriptor i?  Every child here is a fork
 * child (posix_spawn and system() fork too), so none has the close-on-fork
 * one; one that execs has none of the close-on-exec ones. */
static int stable_expected(int i, int exec)
{
	return !(exec && (stables[i].fdflags & FD_CLOEXEC)) &&
	       !(stables[i].fdflags & FD_CLOFORK);
}

/* ---- churning threads ---- */

struct entry {
	int vfd;
	int file;    /* FILE_X or FILE_I */
	int fdflags; /* as F_GETFD must give */
};

struct churner {
	int id;
	uint64_t rng;
	struct worker *w;
	pthread_t thread;
	int exact;  /* [exact, exact + 64): dup3 onto these exact numbers */
	int lowest; /* F_DUPFD from here: [lowest, lowest + SLOTS] */
	struct entry e[SLOTS];
	int n;
	int history[CHURN_OPS + 1]; /* every number it was given */
	int nhist;
	/* The signal handler's: it closes hfd[hnext++] at each signal. */
	int hfd[HANDLER_FDS];
	int hres[HANDLER_FDS]; /* 0, or the errno of the failed close */
	int hnext;
	int finished; /* its operations are done */
};

static struct churner churners[CHURNERS];
static __thread struct churner *my_churner;
static int signaller_done;

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: any fixed-seed generator does. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* The handler: close the next descriptor made for this thread's handler.
 * close() is async-signal-safe, and ufd's close works also when this
 * interrupted ufd inside its table lock. */
static void closing_handler(int sig)
{
	struct churner *c = my_churner;
	int saved = errno, i;

	(void)sig;
	if (c && (i = __atomic_load_n(&c->hnext, __ATOMIC_RELAXED)) < HANDLER_FDS) {
		c->hres[i] = close(c->hfd[i]) == 0 ? 0 : errno;
		__atomic_store_n(&c->hnext, i + 1, __ATOMIC_RELEASE);
	}
	errno = saved;
}

/* Does vfd refer to file with flags fdflags?  Reports and returns 0 if not. */
static int check_vfd(struct churner *c, int vfd, int file, int fdflags, const char *after)
{
	struct stat st;
	int r;

	if (fstat(vfd, &st) != 0) {
		failf("churner %d: fstat(%d) after %s: %s", c->id, vfd, after, strerror(errno));
		return 0;
	}
	if (file_of(&st) != file) {
		failf("churner %d: %d refers to file %d, not %d, after %s", c->id, vfd,
		      file_of(&st), file, after);
		return 0;
	}
	r = fcntl(vfd, F_GETFD);
	if (r != fdflags) {
		failf("churner %d: F_GETFD of %d is %d, not %d, after %s", c->id, vfd, r,
		      fdflags, after);
		return 0;
	}
	return 1;
}

static int find_entry(struct churner *c, int vfd)
{
	for (int i = 0; i < c->n; i++)
		if (c->e[i].vfd == vfd)
			return i;
	return -1;
}

static void forget_entry(struct churner *c, int i)
{
	c->e[i] = c->e[--c->n];
}

/* A number from the exact or the F_DUPFD range is only ever this
 * thread's: once closed, it must give EBADF. */
static int own_number(struct churner *c, int vfd)
{
	return (vfd >= c->exact && vfd < c->exact + 64) ||
	       (vfd >= c->lowest && vfd <= c->lowest + SLOTS);
}

static void check_closed(struct churner *c, int vfd, const char *after)
{
	if (own_number(c, vfd) && (fcntl(vfd, F_GETFD) != -1 || errno != EBADF))
		failf("churner %d: %d still open after %s", c->id, vfd, after);
}

/* A new descriptor: recorded, and checked against what was asked. */
static void add_entry(struct churner *c, int vfd, int file, int fdflags, const char *how)
{
	if (!is_vfd(vfd)) {
		failf("churner %d: %s gave %d (%s)", c->id, how, vfd, strerror(errno));
		return;
	}
	if (find_entry(c, vfd) >= 0) {
		failf("churner %d: %s gave %d, which it has open already", c->id, how, vfd);
		return;
	}
	for (int s = 0; s < NSTABLE; s++)
		if (stables[s].vfd == vfd)
			failf("churner %d: %s gave %d, a stable one", c->id, how, vfd);
	c->e[c->n++] = (struct entry){ vfd, file, fdflags };
	c->history[c->nhist++] = vfd;
	check_vfd(c, vfd, file, fdflags, how);
}

/*
 * One operation, chosen by the thread's generator.  A close-on-exec
 * descriptor is on FILE_X and is made close-on-exec atomically (by a flag
 * of the call that makes it), or a concurrent exec could rightly pass it
 * on; every other one is on FILE_I.
 */
static void churn_op(struct churner *c)
{
	uint64_t r = next_rand(&c->rng);
	int op = (int)(r % 10), x = (int)(r >> 8) & 1, pick = c->n ? (int)((r >> 16) % (unsigned)c->n) : -1;
	int file = x ? FILE_X : FILE_I, src = files[file].fd, cx = x ? FD_CLOEXEC : 0;
	int v, i, k;

	/* Full: close one instead of making one. */
	if (op <= 4 && c->n == SLOTS)
		op = 6;
	if (op >= 5 && c->n == 0)
		op = (int)(r % 5);
	switch (op) {
	case 0: { /* nonseqfd, sometimes close-on-fork */
		int fl = (x ? NONSEQFD_CLOEXEC : 0) | ((r >> 9) & 1 ? NONSEQFD_CLOFORK : 0);

		set_phase(c->w, "nonseqfd");
		v = api_nonseqfd(src, fl);
		add_entry(c, v, file, cx | (fl & NONSEQFD_CLOFORK ? FD_CLOFORK : 0), "nonseqfd");
		break;
	}
	case 1: /* dup2(FD_UNSEQ_ALLOC), or F_DUPFD_CLOEXEC from the base,
		 * from the real file or from a virtual descriptor on it */
		set_phase(c->w, "dup2/F_DUPFD_CLOEXEC");
		k = pick >= 0 && c->e[pick].file == file ? c->e[pick].vfd : src;
		v = x ? fcntl(k, F_DUPFD_CLOEXEC, (int)FD_UNSEQ_BASE)
		      : dup2(k, (int)FD_UNSEQ_ALLOC);
		add_entry(c, v, file, cx, x ? "F_DUPFD_CLOEXEC" : "dup2(FD_UNSEQ_ALLOC)");
		break;
	case 2: /* dup3 onto an exact number, replacing this thread's own */
		set_phase(c->w, "dup3 exact");
		k = c->exact + (int)((r >> 20) % 64);
		i = find_entry(c, k);
		v = dup3(src, k, x ? O_CLOEXEC : 0);
		if (v != k) {
			failf("churner %d: dup3 onto %d gave %d (%s)", c->id, k, v, strerror(errno));
			break;
		}
		if (i >= 0) {
			/* Replaced in place: its flags are the new ones. */
			c->e[i] = (struct entry){ k, file, cx };
			check_vfd(c, k, file, cx, "dup3 onto an open one");
		} else {
			add_entry(c, v, file, cx, "dup3");
		}
		break;
	case 3: /* F_DUPFD: the lowest free number from this thread's own */
		set_phase(c->w, "F_DUPFD");
		v = fcntl(src, x ? F_DUPFD_CLOEXEC : F_DUPFD, c->lowest);
		if (v < c->lowest || v > c->lowest + SLOTS) {
			failf("churner %d: F_DUPFD from %d gave %d (%s)", c->id, c->lowest, v,
			      strerror(errno));
			break;
		}
		for (i = c->lowest; i < v; i++)
			if (find_entry(c, i) < 0)
				failf("churner %d: F_DUPFD from %d gave %d, but %d is free",
				      c->id, c->lowest, v, i);
		add_entry(c, v, file, cx, "F_DUPFD");
		break;
	case 4: /* open with O_UNSEQFD */
		set_phase(c->w, "open O_UNSEQFD");
		v = open(files[file].path, O_RDONLY | O_UNSEQFD | (x ? O_CLOEXEC : 0));
		add_entry(c, v, file, cx, "open(O_UNSEQFD)");
		break;
	case 5: /* F_SETFD: close-on-fork either way; close-on-exec too on
		 * FILE_I (never off on FILE_X) */
		set_phase(c->w, "F_SETFD");
		k = (c->e[pick].file == FILE_X || (r >> 10) & 1 ? FD_CLOEXEC : 0) |
		    ((r >> 11) & 1 ? FD_CLOFORK : 0);
		if (fcntl(c->e[pick].vfd, F_SETFD, k) != 0)
			failf("churner %d: F_SETFD %d on %d: %s", c->id, k, c->e[pick].vfd,
			      strerror(errno));
		c->e[pick].fdflags = k;
		check_vfd(c, c->e[pick].vfd, c->e[pick].file, k, "F_SETFD");
		break;
	case 6:
	case 7: /* close */
		set_phase(c->w, "close");
		v = c->e[pick].vfd;
		if (close(v) != 0)
			failf("churner %d: close(%d): %s", c->id, v, strerror(errno));
		forget_entry(c, pick);
		check_closed(c, v, "close");
		break;
	case 8: /* close_range: one descriptor, or the exact range (closed,
		 * or made close-on-exec) */
		set_phase(c->w, "close_range");
		if ((r >> 12) % 3 == 0) {
			v = c->e[pick].vfd;
			if (close_range((unsigned)v, (unsigned)v, 0) != 0)
				failf("churner %d: close_range(%d, %d): %s", c->id, v, v,
				      strerror(errno));
			forget_entry(c, pick);
			check_closed(c, v, "close_range of one");
		} else {
			int cloexec = (r >> 12) % 3 == 1;

			if (close_range((unsigned)c->exact, (unsigned)c->exact + 63,
					cloexec ? CLOSE_RANGE_CLOEXEC : 0) != 0)
				failf("churner %d: close_range(%d, +63): %s", c->id, c->exact,
				      strerror(errno));
			for (i = c->n - 1; i >= 0; i--) {
				v = c->e[i].vfd;
				if (v < c->exact || v >= c->exact + 64)
					continue;
				if (cloexec) {
					c->e[i].fdflags |= FD_CLOEXEC;
					check_vfd(c, v, c->e[i].file, c->e[i].fdflags,
						  "close_range CLOEXEC");
				} else {
					forget_entry(c, i);
					check_closed(c, v, "close_range");
				}
			}
		}
		break;
	default: /* check one */
		set_phase(c->w, "check");
		check_vfd(c, c->e[pick].vfd, c->e[pick].file, c->e[pick].fdflags, "a check");
		break;
	}
}

static void *churn_thread(void *arg)
{
	struct churner *c = arg;

	my_churner = c;
	for (int i = 0; i < CHURN_OPS && !failed(); i++) {
		churn_op(c);
		progress(c->w);
		/* Now and then, everything it has. */
		if (i % 256 == 255)
			for (int j = 0; j < c->n; j++)
				check_vfd(c, c->e[j].vfd, c->e[j].file, c->e[j].fdflags,
					  "the periodic check");
	}
	set_phase(c->w, "closing its own");
	while (c->n > 0) {
		int v = c->e[c->n - 1].vfd;

		if (close(v) != 0)
			failf("churner %d: final close(%d): %s", c->id, v, strerror(errno));
		c->n--;
	}
	/* The signaller goes on until the handler has closed all its
	 * descriptors; this thread must exist until it stops. */
	set_phase(c->w, "waiting for the signaller");
	__atomic_store_n(&c->finished, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&signaller_done, __ATOMIC_ACQUIRE)) {
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
		progress(c->w);
	}
	set_phase(c->w, "done");
	return NULL;
}

/* Signal each churning thread once per CHURN_OPS / HANDLER_FDS of its
 * operations (so that handler closes fall all along its run), and until
 * its handler has closed all of its descriptors. */
static void *signaller_thread(void *arg)
{
	struct worker *w = arg;
	int busy;

	set_phase(w, "signalling");
	do {
		busy = 0;
		for (int i = 0; i < CHURNERS; i++) {
			struct churner *c = &churners[i];
			int next = __atomic_load_n(&c->hnext, __ATOMIC_ACQUIRE);
			unsigned long done = __atomic_load_n(&c->w->progress, __ATOMIC_RELAXED);

			if (next >= HANDLER_FDS)
				continue;
			busy = 1;
			if (__atomic_load_n(&c->finished, __ATOMIC_ACQUIRE) ||
			    done >= (unsigned long)next * (CHURN_OPS / HANDLER_FDS))
				pthread_kill(c->thread, SIGUSR1);
		}
		nanosleep(&(struct timespec){ 0, 100 * 1000 }, NULL);
		progress(w);
	} while (busy);
	set_phase(w, "done");
	__atomic_store_n(&signaller_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- forking and exec'ing threads ---- */

/* In a fork child: the stable descriptors as expected, every listed
 * virtual descriptor whole, and the table usable.  The exit status. */
static int fork_child_checks(void)
{
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int v;

	for (int i = 0; i < NSTABLE; i++) {
		if (!stable_expected(i, 0)) {
			if (fcntl(stables[i].vfd, F_GETFD) != -1 || errno != EBADF)
				return 10 + i;
			continue;
		}
		if (fstat(stables[i].vfd, &st) != 0 || file_of(&st) != i)
			return 20 + i;
		if (fcntl(stables[i].vfd, F_GETFD) != stables[i].fdflags)
			return 30 + i;
	}
	dir = opendir("/proc/self/fd");
	if (!dir)
		return 40;
	while ((d = readdir(dir))) {
		long n = strtol(d->d_name, NULL, 10);
		int f;

		if (!is_vfd((int)n))
			continue;
		if (fstat((int)n, &st) != 0)
			return 41;
		f = file_of(&st);
		if (f < 0 || (f < NSTABLE && stables[f].vfd != n))
			return 42;
	}
	closedir(dir);
	v = api_nonseqfd(files[FILE_I].fd, 0);
	if (!is_vfd(v) || close(v) != 0)
		return 43;
	return 0;
}

static void wait_child(struct worker *w, pid_t pid, int *status)
{
	__atomic_store_n(&w->child, pid, __ATOMIC_RELAXED);
	set_phase(w, "waitpid");
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			failf("%s: waitpid: %s", w->name, strerror(errno));
			*status = -1;
			break;
		}
	}
	__atomic_store_n(&w->child, 0, __ATOMIC_RELAXED);
}

static void *fork_thread(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < FORKS && !failed(); i++) {
		int status;
		pid_t pid;

		set_phase(w, "fork");
		pid = fork();
		if (pid == 0) {
			alarm(30); /* a child that hangs dies */
			_exit(fork_child_checks());
		}
		if (pid < 0) {
			failf("fork: %s", strerror(errno));
			break;
		}
		wait_child(w, pid, &status);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failf("fork child %d: status %#x (exit %d: see fork_child_checks)",
			      i, status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		progress(w);
	}
	set_phase(w, "done");
	return NULL;
}

/* Read fd to its end into out (NUL-terminated). */
static void read_all(int fd, char *out, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && ((n = read(fd, out + len, size - 1 - len)) > 0 ||
				  (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	out[len] = '\0';
}

/*
 * Check the helper's listing (mode listv): a stable descriptor where one
 * is expected, on its file; nothing else but churned or handler's
 * descriptors on FILE_I; "end" last.
 */
static void check_listing(const char *who, int round, const char *out)
{
	int seen[NSTABLE] = { 0 }, ended = 0;
	const char *p = out;

	while (*p) {
		unsigned long dev, ino;
		int vfd, f, len = 0;

		if (!strncmp(p, "end\n", 4)) {
			ended = 1;
			p += 4;
			continue;
		}
		if (sscanf(p, "%d %lu %lu\n%n", &vfd, &dev, &ino, &len) != 3 || !len) {
			failf("%s %d: unexpected output: %.200s", who, round, p);
			return;
		}
		p += len;
		f = file_by_id(dev, ino);
		for (int i = 0; i < NSTABLE; i++) {
			if (stables[i].vfd != vfd)
				continue;
			seen[i] = 1;
			if (!stable_expected(i, 1))
				failf("%s %d: inherited stable descriptor %d (%d), flags %d",
				      who, round, i, vfd, stables[i].fdflags);
			if (f != i)
				failf("%s %d: stable %d (%d) refers to file %d", who, round,
				      i, vfd, f);
			goto next;
		}
		if (f != FILE_I)
			failf("%s %d: inherited %d, on file %d%s", who, round, vfd, f,
			      f == FILE_X ? " (only ever close-on-exec)" : "");
	next:;
	}
	for (int i = 0; i < NSTABLE; i++)
		if (stable_expected(i, 1) && !seen[i])
			failf("%s %d: stable descriptor %d (%d) not inherited", who, round, i,
			      stables[i].vfd);
	if (!ended)
		failf("%s %d: output cut short: %.200s", who, round, out);
}

static char *const listv_argv[] = { "ufd_helper", "listv", NULL };

/*
 * The helper (listv) that pid runs writes its listing to rd: read it all,
 * reap pid, and check that it exited 0 and inherited what it should.
 * what and i name the run in a failure.
 */
static void finish_helper(struct worker *w, pid_t pid, int rd, const char *what,
			  int i)
{
	char out[OUT_MAX];
	int status;

	__atomic_store_n(&w->child, pid, __ATOMIC_RELAXED);
	set_phase(w, "reading the helper");
	read_all(rd, out, sizeof(out));
	close(rd);
	wait_child(w, pid, &status);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		failf("%s %d: helper status %#x: %s", what, i, status, out);
	check_listing(what, i, out);
	progress(w);
}

static void *exec_thread(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < EXECS && !failed(); i++) {
		int p[2];
		pid_t pid;

		set_phase(w, "pipe2");
		if (pipe2(p, O_CLOEXEC) != 0) {
			failf("pipe2: %s", strerror(errno));
			break;
		}
		set_phase(w, "fork for execve");
		pid = fork();
		if (pid == 0) {
			alarm(30); /* kept across execve: a hung helper dies */
			if (dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
				_exit(126);
			execve(helper, listv_argv, environ);
			_exit(127);
		}
		close(p[1]);
		if (pid < 0) {
			failf("fork: %s", strerror(errno));
			close(p[0]);
			break;
		}
		finish_helper(w, pid, p[0], "execve", i);
	}
	set_phase(w, "done");
	return NULL;
}

static void *spawn_thread(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < SPAWNS && !failed(); i++) {
		posix_spawn_file_actions_t fa;
		int p[2], r;
		pid_t pid;

		set_phase(w, "pipe2");
		if (pipe2(p, O_CLOEXEC) != 0) {
			failf("pipe2: %s", strerror(errno));
			break;
		}
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
		posix_spawn_file_actions_adddup2(&fa, p[1], 2);
		set_phase(w, "posix_spawn");
		r = posix_spawn(&pid, helper, &fa, NULL, listv_argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		close(p[1]);
		if (r != 0) {
			failf("posix_spawn: %s", strerror(r));
			close(p[0]);
			break;
		}
		finish_helper(w, pid, p[0], "posix_spawn", i);
	}
	set_phase(w, "done");
	return NULL;
}

static void *system_thread(void *arg)
{
	struct worker *w = arg;
	char path[128], cmd[PATH_MAX + 256], out[OUT_MAX];

	snprintf(path, sizeof(path), "%s/%s.out", tmpdir, w->name);
	snprintf(cmd, sizeof(cmd), "exec '%s' listv >'%s' 2>&1", helper, path);
	for (int i = 0; i < SYSTEMS && !failed(); i++) {
		int status, fd;

		set_phase(w, "system");
		status = system(cmd);
		set_phase(w, "reading the helper");
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			failf("%s %d: no output (status %#x)", w->name, i, status);
			break;
		}
		read_all(fd, out, sizeof(out));
		close(fd);
		unlink(path);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failf("%s %d: status %#x: %s", w->name, i, status, out);
		check_listing(w->name, i, out);
		progress(w);
	}
	set_phase(w, "done");
	return NULL;
}

/* ---- the end state ---- */

/* The real descriptors open for the kernel, from raw getdents64 on
 * /proc/self/fd (the shim filters readdir, not the system call), sorted,
 * without the listing's own. */
static int kernel_fds(int *out, int max)
{
	char buf[8192];
	int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	long got;

	if (dfd < 0)
		return -1;
	while ((got = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *e = (void *)(buf + off);
			int fd = atoi(e->name);

			if (e->name[0] != '.' && fd != dfd && n < max)
				out[n++] = fd;
			off += e->reclen;
		}
	}
	close(dfd);
	for (int i = 1; i < n; i++) /* insertion sort: a few dozen */
		for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
			int t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static int in_list(const int *list, int n, int fd)
{
	for (int i = 0; i < n; i++)
		if (list[i] == fd)
			return 1;
	return 0;
}

#define MAX_KFDS 512

static void check_end_state(const int *before, int nbefore,
			    const struct sigaction *intr, const struct sigaction *quit)
{
	int after[MAX_KFDS], nafter = kernel_fds(after, MAX_KFDS), listed = 0;
	struct sigaction now;
	struct dirent *d;
	DIR *dir;

	/* The handlers closed all of theirs. */
	for (int i = 0; i < CHURNERS; i++) {
		struct churner *c = &churners[i];

		if (c->hnext != HANDLER_FDS)
			failf("churner %d: the handler closed %d of %d", i, c->hnext, HANDLER_FDS);
		for (int j = 0; j < c->hnext; j++) {
			if (c->hres[j])
				failf("churner %d: handler close(%d): %s", i, c->hfd[j],
				      strerror(c->hres[j]));
			if (fcntl(c->hfd[j], F_GETFD) != -1 || errno != EBADF)
				failf("churner %d: handler-closed %d is open", i, c->hfd[j]);
		}
		/* Every number it was given, all closed now. */
		for (int j = 0; j < c->nhist; j++) {
			int v = c->history[j], stable = 0;

			for (int s = 0; s < NSTABLE; s++)
				stable |= stables[s].vfd == v;
			if (!stable && (fcntl(v, F_GETFD) != -1 || errno != EBADF))
				failf("churner %d: %d is open after the end", i, v);
		}
	}
	/* The stable ones are whole, with their flags. */
	for (int i = 0; i < NSTABLE; i++) {
		struct stat st;

		if (fstat(stables[i].vfd, &st) != 0 || file_of(&st) != i)
			failf("stable %d (%d) lost: %s", i, stables[i].vfd, strerror(errno));
		if (fcntl(stables[i].vfd, F_GETFD) != stables[i].fdflags)
			failf("stable %d (%d): flags %d, not %d", i, stables[i].vfd,
			      fcntl(stables[i].vfd, F_GETFD), stables[i].fdflags);
	}
	/* The kernel's descriptors: those of the start, plus one backing
	 * descriptor per stable virtual descriptor, nothing else. */
	if (nafter != nbefore + NSTABLE)
		failf("%d kernel descriptors at the end, %d at the start + %d backing",
		      nafter, nbefore, NSTABLE);
	for (int i = 0; i < nbefore; i++)
		if (!in_list(after, nafter, before[i]))
			failf("descriptor %d of the start is gone", before[i]);
	for (int i = 0; i < NSTABLE; i++) {
		int b = api_backing_fd(stables[i].vfd);

		if (in_list(before, nbefore, b) || !in_list(after, nafter, b))
			failf("backing %d of stable %d is not a new kernel descriptor", b, i);
	}
	for (int i = 0; i < nafter; i++) {
		int backs = 0;

		for (int s = 0; s < NSTABLE; s++)
			backs |= api_backing_fd(stables[s].vfd) == after[i];
		if (!backs && !in_list(before, nbefore, after[i]))
			failf("kernel descriptor %d leaked", after[i]);
	}
	/* The shim's listing: exactly the stable virtual descriptors. */
	dir = opendir("/proc/self/fd");
	while (dir && (d = readdir(dir))) {
		long n = strtol(d->d_name, NULL, 10);
		int stable = 0;

		if (!is_vfd((int)n))
			continue;
		listed++;
		for (int s = 0; s < NSTABLE; s++)
			stable |= stables[s].vfd == n;
		if (!stable)
			failf("virtual descriptor %ld is listed at the end", n);
	}
	if (dir)
		closedir(dir);
	if (listed != NSTABLE)
		failf("%d virtual descriptors listed at the end, not %d", listed, NSTABLE);
	/* No child left, running or zombie. */
	if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
		failf("a child is left at the end");
	/* system() ignores SIGINT and SIGQUIT while it waits; with two at
	 * once, the last one out must restore the caller's dispositions. */
	sigaction(SIGINT, NULL, &now);
	if (now.sa_handler != intr->sa_handler)
		failf("SIGINT's disposition changed by concurrent system() calls");
	sigaction(SIGQUIT, NULL, &now);
	if (now.sa_handler != quit->sa_handler)
		failf("SIGQUIT's disposition changed by concurrent system() calls");
}

/* ---- main ---- */

static void make_files(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	for (int i = 0; i < NFILES; i++) {
		struct stat st;

		snprintf(files[i].path, sizeof(files[i].path), "%s/f%d", tmpdir, i);
		files[i].fd = open(files[i].path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (files[i].fd < 0 || fstat(files[i].fd, &st) != 0) {
			perror(files[i].path);
			exit(1);
		}
		files[i].dev = st.st_dev;
		files[i].ino = st.st_ino;
	}
}

static void remove_files(void)
{
	char path[160];

	for (int i = 0; i < NFILES; i++) {
		close(files[i].fd);
		unlink(files[i].path);
	}
	for (int i = 0; i < SYSTEM_THREADS; i++) {
		snprintf(path, sizeof(path), "%s/system%d.out", tmpdir, i);
		unlink(path);
	}
	rmdir(tmpdir);
}

static void start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int r = pthread_create(t, NULL, fn, arg);

	if (r != 0) {
		fprintf(stderr, "pthread_create: %s\n", strerror(r));
		exit(1);
	}
}

int main(void)
{
	static const char *const system_names[SYSTEM_THREADS] = { "system0", "system1" };
	pthread_t watchdog, signaller, forker, execer, spawner, systems[SYSTEM_THREADS];
	struct sigaction sa = { .sa_handler = closing_handler, .sa_flags = SA_RESTART };
	struct sigaction intr, quit;
	int before[MAX_KFDS], nbefore;
	const char *preload;
	struct timespec t0, t1;

	load_api(1);
	helper = getenv("UFD_TEST_HELPER");
	preload = getenv("UFD_TEST_PRELOAD");
	if (!helper || !preload) {
		fprintf(stderr, "UFD_TEST_HELPER and UFD_TEST_PRELOAD must be set "
				"(tests/meson.build)\n");
		return 1;
	}
	/* The helper gets ufd (and in a sanitizer build the ASan runtime
	 * first) through the environment: this test is linked, not
	 * preloaded. */
	if (!getenv("LD_PRELOAD"))
		setenv("LD_PRELOAD", preload, 1);
	if (!raise_nofile(4096)) {
		printf("skipped: the hard RLIMIT_NOFILE is below 4096\n");
		return 77;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	make_files();
	sigaction(SIGINT, NULL, &intr);
	sigaction(SIGQUIT, NULL, &quit);
	nbefore = kernel_fds(before, MAX_KFDS);
	make_stables();
	for (int i = 0; i < CHURNERS; i++) {
		struct churner *c = &churners[i];

		c->id = i;
		c->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
		c->exact = (int)FD_UNSEQ_BASE + (1 << 24) + i * (1 << 16);
		c->lowest = c->exact + 4096;
		for (int j = 0; j < HANDLER_FDS; j++) {
			c->hfd[j] = api_nonseqfd(files[FILE_I].fd, 0);
			if (!is_vfd(c->hfd[j]) || c->hfd[j] >= (int)FD_UNSEQ_BASE + (1 << 24))
				failf("handler descriptor: %d (%s)", c->hfd[j], strerror(errno));
		}
	}
	if (failed())
		return 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);

	for (int i = 0; i < CHURNERS; i++) {
		static const char *const names[] = { "churner0", "churner1", "churner2" };

		churners[i].w = new_worker(names[i]);
	}
	{
		struct worker *ws = new_worker("signaller"), *wf = new_worker("fork"),
			      *we = new_worker("execve"), *wp = new_worker("posix_spawn"),
			      *wsys[SYSTEM_THREADS];

		for (int i = 0; i < SYSTEM_THREADS; i++)
			wsys[i] = new_worker(system_names[i]);
		/* Once every worker is there: it reads the list unlocked. */
		start(&watchdog, watchdog_thread, NULL);
		for (int i = 0; i < CHURNERS; i++)
			start(&churners[i].thread, churn_thread, &churners[i]);
		start(&signaller, signaller_thread, ws);
		start(&forker, fork_thread, wf);
		start(&execer, exec_thread, we);
		start(&spawner, spawn_thread, wp);
		for (int i = 0; i < SYSTEM_THREADS; i++)
			start(&systems[i], system_thread, wsys[i]);
	}
	pthread_join(forker, NULL);
	pthread_join(execer, NULL);
	pthread_join(spawner, NULL);
	for (int i = 0; i < SYSTEM_THREADS; i++)
		pthread_join(systems[i], NULL);
	pthread_join(signaller, NULL);
	for (int i = 0; i < CHURNERS; i++)
		pthread_join(churners[i].thread, NULL);
	__atomic_store_n(&all_done, 1, __ATOMIC_RELEASE);
	pthread_join(watchdog, NULL);
	signal(SIGUSR1, SIG_IGN);

	check_end_state(before, nbefore, &intr, &quit);
	for (int i = 0; i < NSTABLE; i++)
		close(stables[i].vfd);
	remove_files();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%d churners x %d operations, %d handler closes, %d forks, %d execs, "
	       "%d spawns, %d system() calls: %s (%.1f s, not a check)\n",
	       CHURNERS, CHURN_OPS, CHURNERS * HANDLER_FDS, FORKS, EXECS, SPAWNS,
	       SYSTEM_THREADS * SYSTEMS, failures ? "FAILED" : "ok",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failures ? 1 : 0;
}
