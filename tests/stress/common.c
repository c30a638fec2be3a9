/* SPDX-License-Identifier: MIT */
/*
 * common.c - what the stress test's threads share: failures (failf),
 * the watchdog thread that turns a stuck thread into a report and an
 * abort, the test's files, and the stable virtual descriptors made
 * before the threads start.
 */
#include "stress.h"

/* ufd's API, for every file of this test (ufd_test.h). */
int (*api_nonseqfd)(int, int);
int (*api_is_virtual)(int);
int (*api_backing_fd)(int);

/* ---- failures ---- */

int failures;

/* Report a failure at once (the first ones are the useful ones) and count
 * it.  Never from a signal handler. */
void failf(const char *fmt, ...)
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

int failed(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED) != 0;
}

/* ---- the watchdog ---- */

#define MAX_WORKERS 16
static struct worker workers[MAX_WORKERS];
static int nworkers;
int all_done;

struct worker *new_worker(const char *name)
{
	struct worker *w = &workers[nworkers++];

	w->name = name;
	w->phase = "starting";
	return w;
}

/*
 * Every 100 ms, look at each thread's progress; when one that is not done
 * has made none for STALL_SECONDS, print where every thread is, kill the
 * children waited for and abort.  Per thread, since the others may go on
 * (a thread waiting for a stuck one counts its waiting as progress).
 * Written with write(2) alone: a stuck thread may hold stdio's lock.
 */
void *watchdog_thread(void *arg)
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

struct file files[NFILES];
char tmpdir[] = "/tmp/ufd-stress-XXXXXX";

/* Which file does st name, or -1. */
int file_of(const struct stat *st)
{
	for (int i = 0; i < NFILES; i++)
		if (files[i].dev == st->st_dev && files[i].ino == st->st_ino)
			return i;
	return -1;
}

int file_by_id(unsigned long dev, unsigned long ino)
{
	for (int i = 0; i < NFILES; i++)
		if ((unsigned long)files[i].dev == dev && (unsigned long)files[i].ino == ino)
			return i;
	return -1;
}

/* ---- stable descriptors: made before the threads, kept to the end ---- */

struct stable stables[NSTABLE];
const char *helper;

/* One of each way in, with each flag. */
void make_stables(void)
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
int stable_expected(int i, int exec)
{
	return !(exec && (stables[i].fdflags & FD_CLOEXEC)) &&
	       !(stables[i].fdflags & FD_CLOFORK);
}
