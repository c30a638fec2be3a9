/* SPDX-License-Identifier: MIT */
/*
 * regressions.c - bugs of src/ that the process tests (the kb_* ones) or
 * a review found, since fixed; each one's comment says what the bug was
 * (tcase regressions).
 */
#include "process.h"

/* ---- regressions: bugs found in ufd, since fixed ----
 *
 * Each comment says what the bug was.  (The kb_ names are from when they
 * ran as expected failures.)
 */

/*
 * kb_spawn_handoff.  The hand-off names the pid of the process that
 * prepared it; posix_spawn, posix_spawnp, system and popen exec in a new
 * process, whose ufd rejects it as "another process's hand-off": the
 * spawned program gets neither the virtual descriptors nor the marks, and
 * their backing descriptors, made inheritable for the spawn, leak into it
 * as plain descriptors (ls then lists them).
 */
static const char *const spawn_members[] = {
	"posix_spawn", "posix_spawnp", "system", "popen",
};

START_TEST(kb_spawn_handoff_chain)
{
	size_t n = sizeof(spawn_members) / sizeof(spawn_members[0]);

	for (size_t i = 0; i < n; i++) {
		run_chain(spawn_members[i], "execv");
		run_chain("execv", spawn_members[i]);
	}
}
END_TEST

START_TEST(kb_spawn_handoff_ls)
{
	ls_listing(1);
}
END_TEST

/*
 * kb_fork_listing_lock.  shim_dir.c's listings_lock (a pthread mutex)
 * is not taken around fork: a fork that catches another thread holding
 * it (readdir of any directory takes it while a /proc/self/fd listing is
 * open) leaves it locked forever in the child, whose next readdir hangs.
 * Many open listings make each readdir hold the lock long.
 */
static volatile int lister_stop;

static void *lister_thread(void *arg)
{
	DIR *d = arg;

	while (!__atomic_load_n(&lister_stop, __ATOMIC_RELAXED)) {
		rewinddir(d);
		while (readdir(d))
			;
	}
	return NULL;
}

static int listing_child(const int *unused)
{
	DIR *d = opendir("/proc/self/fd");

	(void)unused;
	if (!d)
		return 1;
	while (readdir(d))
		;
	closedir(d);
	return 0;
}

START_TEST(kb_fork_listing_lock)
{
	enum { LISTINGS = 1500 };
	DIR *open_listings[LISTINGS], *own;
	pthread_t t;
	int hung = 0;

	if (!raise_nofile(LISTINGS + 256)) {
		fprintf(stderr, "kb_fork_listing_lock: skipped: RLIMIT_NOFILE\n");
		return;
	}
	for (int i = 0; i < LISTINGS; i++)
		ck_assert_ptr_nonnull(open_listings[i] = opendir("/proc/self/fd"));
	own = opendir("/");
	lister_stop = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, lister_thread, own), 0);
	for (int i = 0; i < 50 && !hung; i++) {
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(listing_child(NULL));
		hung += wait_bounded(pid, 2000) == -1;
	}
	__atomic_store_n(&lister_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	closedir(own);
	for (int i = 0; i < LISTINGS; i++)
		closedir(open_listings[i]);
	ck_assert_msg(!hung, "a fork child hung in readdir");
}
END_TEST

/*
 * kb_backing_clofork.  fcntl(F_SETFD, FD_CLOFORK) on a backing
 * descriptor's number is accepted (only close and dup2 protect them), and
 * fork then closes that backing descriptor in the child while the virtual
 * descriptor it backs stays in the table: F_GETFD says open, read says
 * EBADF, and the next descriptor to get the number would silently be
 * read through it.
 */
static int backing_child(const int *v)
{
	return reads(*v, "backed") ? 0 : 1;
}

START_TEST(kb_backing_clofork)
{
	int fd = temp_file("backed"), v = api_nonseqfd(fd, 0), b = api_backing_fd(v);

	/* Refusing (EBADF) would be right too; either way the child must
	 * keep a working v. */
	fcntl(b, F_SETFD, FD_CLOEXEC | FD_CLOFORK);
	in_fork_child(backing_child, &v);
	close(v);
	close(fd);
}
END_TEST

/*
 * kb_freopen_mark.  freopen closes the stream's descriptor inside glibc,
 * which ufd does not see, and the new file gets the same number: the
 * close-on-fork mark of the old descriptor carries over to it.
 */
START_TEST(kb_freopen_mark)
{
	FILE *fp = fopen("/dev/null", "r");
	int fd;

	ck_assert_ptr_nonnull(fp);
	fd = fileno(fp);
	ck_assert_int_eq(fcntl(fd, F_SETFD, FD_CLOFORK), 0);
	fp = freopen("/dev/zero", "r", fp);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fileno(fp), fd);
	ck_assert_int_eq(fcntl(fd, F_GETFD), 0);
	fclose(fp);
}
END_TEST

/*
 * kb_early_variadic.  The stub a variadic wrapper's real-function pointer
 * starts at (UFD_HANDV in shim.c) reads six optional arguments whatever
 * the call passed.  Until ufd's constructor has resolved the pointers,
 * ufd's open() calls that stub with one: a library constructor that runs
 * before ufd's (here many_vfds, preloaded after it, so initialised first)
 * and calls open() has the stub read past the arguments, which
 * AddressSanitizer reports as a dynamic-stack-buffer-overflow (undefined
 * behaviour everywhere; only ASan builds see it, and only they run this).
 */
START_TEST(kb_early_variadic)
{
	char out[256], lp[PATH_MAX * 2];
	char *const argv[] = { "ufd_helper", "open5", NULL };
	char *extra[] = { lp, "UFD_TEST_MANY_OPEN=1", "UFD_PAD1=", "UFD_PAD2=",
			  "UFD_PAD3=", NULL };
	int status;

	snprintf(lp, sizeof(lp), "LD_PRELOAD=%s:%s", preload, many_path);
	/* Whether the read lands in a redzone depends on the stack's
	 * alignment, which moves with the number of environment entries. */
	for (int pad = 0; pad < 4; pad++) {
		char **env;

		extra[2 + pad] = NULL;
		env = env_with(extra, NULL);
		status = run(helper_path, argv, env, -1, out, sizeof(out));
		ck_assert_msg(exited_ok(status) && strstr(out, " many=1000\n"),
			      "%d padding entries: status %#x: %s", pad, status, out);
		free(env);
		extra[2 + pad] = pad == 0 ? "UFD_PAD1=" : pad == 1 ? "UFD_PAD2=" : "UFD_PAD3=";
	}
}
END_TEST

/*
 * failed_dup2_leaves_target.  dup2 and dup3 onto a real descriptor that
 * ufd guards moved a backing descriptor there out of the way, or dropped
 * the descriptor's close-on-fork mark, before knowing whether oldfd was
 * open: a call that failed with EBADF still changed newfd, which the
 * kernel never does.
 */
START_TEST(failed_dup2_leaves_target)
{
	int fd = temp_file("kept"), v = api_nonseqfd(fd, 0), b = api_backing_fd(v);
	int marked = fcntl(fd, F_DUPFD_CLOFORK, 30);
	int closed_real = dup(fd), closed_virtual = api_nonseqfd(fd, 0);
	int bad[3];

	ck_assert_int_ge(b, 3);
	ck_assert_int_ge(marked, 30);
	ck_assert_int_eq(close(closed_real), 0);
	ck_assert_int_eq(close(closed_virtual), 0);
	bad[0] = closed_real;
	bad[1] = closed_virtual;
	bad[2] = -1;
	for (int i = 0; i < 3; i++) {
		ck_assert(is_ebadf(dup2(bad[i], b)));
		ck_assert(is_ebadf(dup3(bad[i], b, 0)));
		ck_assert_msg(api_backing_fd(v) == b,
			      "a failed dup2(%d, %d) moved the backing descriptor to %d",
			      bad[i], b, api_backing_fd(v));
		ck_assert(is_ebadf(dup2(bad[i], marked)));
		ck_assert(is_ebadf(dup3(bad[i], marked, O_CLOEXEC)));
		ck_assert_msg(fcntl(marked, F_GETFD) == FD_CLOFORK,
			      "a failed dup2(%d, %d) dropped its close-on-fork mark",
			      bad[i], marked);
	}
	ck_assert(reads(v, "kept"));
	ck_assert(reads(marked, "kept"));
	ck_assert_int_eq(close(v), 0);
	ck_assert_int_eq(close(marked), 0);
	close(fd);
}
END_TEST

/*
 * flags_kept_while_backing_moves.  When dup2 onto a backing descriptor
 * moved it (vfd_real_replacing), the slot of its virtual descriptor was
 * rewritten with the flags read before the move, under the table lock;
 * flag changes take no lock, so an F_SETFD made meanwhile by another
 * thread was silently undone.  A race: before the fix, runs here lost a
 * change within 600 to 160,000 moves; the loop makes about a million in
 * its 2 s.
 */
struct flag_toggler {
	int v;
	volatile int stop;
	int lost, rounds;
};

static void *flag_toggler_thread(void *arg)
{
	struct flag_toggler *t = arg;

	while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED)) {
		int want = t->rounds++ & 1 ? FD_CLOEXEC | FD_CLOFORK : 0;

		if (fcntl(t->v, F_SETFD, want) != 0 || fcntl(t->v, F_GETFD) != want) {
			__atomic_store_n(&t->lost, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

START_TEST(flags_kept_while_backing_moves)
{
	int fd = temp_file("moving"), other = temp_file("other");
	struct flag_toggler t = { .v = api_nonseqfd(fd, 0) };
	struct timespec start, now;
	pthread_t thread;
	int moves = 0;

	ck_assert(is_vfd(t.v));
	ck_assert_int_eq(pthread_create(&thread, NULL, flag_toggler_thread, &t), 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int b = api_backing_fd(t.v);

		ck_assert_int_eq(dup2(other, b), b);
		ck_assert_int_eq(close(b), 0);
		moves++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!__atomic_load_n(&t.lost, __ATOMIC_RELAXED) &&
		 (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 <
			 2000);
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	ck_assert_msg(!t.lost, "an F_SETFD was lost after %d moves of the backing "
		      "descriptor and %d flag changes", moves, t.rounds);
	ck_assert(reads(t.v, "moving"));
	ck_assert_int_eq(close(t.v), 0);
	close(fd);
	close(other);
}
END_TEST

/*
 * backing_cloexec_after_failed_exec.  After a failed exec, handoff_done
 * gave back the kernel's close-on-exec flag only to the backing
 * descriptors of the virtual descriptors that survived an exec by their
 * flags at that moment; flags change without the lock, so one made
 * close-on-exec by another thread during the exec kept an inheritable
 * backing descriptor, which the next program started by any other means
 * (a raw fork and execve) would get.  A race, made likely by a thread
 * that toggles the flag all along: before the fix, runs here showed it
 * within 6 to 1,112 failed execs; the loop makes 5,000.
 */
START_TEST(backing_cloexec_after_failed_exec)
{
	int fd = temp_file("exec");
	struct flag_toggler t = { .v = api_nonseqfd(fd, 0) };
	char *const argv[] = { "x", NULL };
	pthread_t thread;
	int b = api_backing_fd(t.v), leaked = 0, i;

	ck_assert(is_vfd(t.v));
	ck_assert_int_eq(pthread_create(&thread, NULL, flag_toggler_thread, &t), 0);
	for (i = 0; i < 5000 && !leaked; i++) {
		ck_assert_int_eq(execve("/nonexistent/ufd-x", argv, environ), -1);
		leaked = kernel_cloexec(b) != 1;
	}
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	ck_assert_msg(!leaked, "backing descriptor %d is inheritable after failed exec %d",
		      b, i);
	ck_assert_int_eq(api_backing_fd(t.v), b);
	ck_assert_int_eq(close(t.v), 0);
	close(fd);
}
END_TEST

/*
 * new_vfd_not_on_app_file.  Two windows in which the application's dup2
 * onto a number among the backing descriptors and a virtual descriptor
 * being made in another thread met on one number, leaving the new
 * virtual descriptor on the application's file (and the application's
 * number refused by close() as a backing descriptor):
 *   - dup2(x, b) onto backing descriptor b moved it elsewhere, closed b,
 *     unlocked the table and only then let the kernel's dup2 make b; a
 *     virtual descriptor made in between got b as its backing
 *     descriptor, which the dup2 then replaced;
 *   - vfd_create made its backing descriptor before taking the table
 *     lock; a dup2 onto that number before it was in the table saw no
 *     backing descriptor there and replaced it.
 * In rounds: a thread makes NEW_VFDS virtual descriptors while the main
 * thread dup2s, again and again, onto the number after the last one's
 * backing descriptor (where the next is likely made); then, the main
 * thread idle, the thread checks and closes them.  (Reading them while
 * the main thread may move their backing descriptors would race with the
 * move itself: a call that translated a virtual descriptor before its
 * backing descriptor moved reaches the old number.)  A race, run for 2 s.
 */
#define NEW_VFDS 100

struct maker {
	int src;
	pthread_barrier_t barrier;
	int next, made_all, stop, wrong, made;
};

static void *maker_thread(void *arg)
{
	struct maker *m = arg;
	int w[NEW_VFDS];

	do {
		for (int k = 0; k < NEW_VFDS; k++) {
			w[k] = api_nonseqfd(m->src, 0);
			if (!is_vfd(w[k]))
				__atomic_store_n(&m->wrong, 1, __ATOMIC_RELAXED);
			else
				__atomic_store_n(&m->next, api_backing_fd(w[k]) + 1,
						 __ATOMIC_RELAXED);
		}
		__atomic_store_n(&m->made_all, 1, __ATOMIC_RELAXED);
		pthread_barrier_wait(&m->barrier);
		for (int k = 0; k < NEW_VFDS; k++) {
			if (is_vfd(w[k]) && (!reads(w[k], "made") || close(w[k]) != 0))
				m->wrong = 1;
			m->made++;
		}
		pthread_barrier_wait(&m->barrier);
	} while (!m->stop);
	return NULL;
}

START_TEST(new_vfd_not_on_app_file)
{
	int app = temp_file("app"), dups = 0, bad = 0;
	struct maker m = { .src = temp_file("made") };
	struct timespec start, now;
	pthread_t thread;

	ck_assert_int_eq(pthread_barrier_init(&m.barrier, NULL, 2), 0);
	ck_assert_int_eq(pthread_create(&thread, NULL, maker_thread, &m), 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		while (!__atomic_load_n(&m.made_all, __ATOMIC_RELAXED)) {
			int n = __atomic_load_n(&m.next, __ATOMIC_RELAXED);

			if (n <= 0)
				continue;
			bad = dup2(app, n) != n ? 1 : !reads(n, "app") ? 2 : close(n) != 0 ? 3 : 0;
			dups++;
			if (bad)
				break;
		}
		pthread_barrier_wait(&m.barrier);
		m.made_all = 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		m.stop = bad || m.wrong ||
			 (now.tv_sec - start.tv_sec) * 1000 +
					 (now.tv_nsec - start.tv_nsec) / 1000000 >=
				 2000;
		pthread_barrier_wait(&m.barrier);
	} while (!m.stop);
	pthread_join(thread, NULL);
	pthread_barrier_destroy(&m.barrier);
	ck_assert_msg(!bad && !m.wrong,
		      "after %d dup2s and %d new virtual descriptors: %s", dups, m.made,
		      bad == 1   ? "the application's dup2 failed"
		      : bad == 2 ? "the application's dup2 target was on another file"
		      : bad == 3 ? "the application's dup2 target was not its own to close"
				 : "a new virtual descriptor was on another file");
	close(app);
	close(m.src);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *regressions_case(void)
{
	return new_case("regressions",
			TESTS(kb_spawn_handoff_chain, kb_spawn_handoff_ls,
			      kb_fork_listing_lock, kb_backing_clofork,
			      kb_freopen_mark, kb_early_variadic,
			      failed_dup2_leaves_target,
			      flags_kept_while_backing_moves,
			      backing_cloexec_after_failed_exec,
			      new_vfd_not_on_app_file), 180);
}
