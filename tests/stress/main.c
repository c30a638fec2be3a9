/* SPDX-License-Identifier: MIT */
/*
 * main.c - the stress test (issue 8).  Threads churn virtual
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
 *
 * This file: the end state and main.  The threads are in churn.c and
 * procs.c, what they share in common.c and stress.h.
 */
#include "stress.h"

/* ---- the end state ---- */

/* The real descriptors open for the kernel (kernel_fd_list, ufd_test.h),
 * at most max of them, sorted. */
static int kernel_fds(int *out, int max)
{
	int n = kernel_fd_list(out, max);

	if (n > max)
		n = max;
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
