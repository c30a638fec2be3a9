/* SPDX-License-Identifier: MIT */
/*
 * fork.c - virtual descriptors across fork: fork while threads churn the
 * table, close-on-fork of virtual and real descriptors, the generator
 * reseeded in a fork child, vfork (tcases forkthreads, clofork, reseed,
 * vfork).
 */
#include "process.h"

/* ---- fork in a threaded program ---- */

struct churn {
	int src;      /* a real descriptor to duplicate */
	int stable;   /* a virtual descriptor that must stay valid */
	int errors;
	int rounds;
};

static volatile int churn_stop;

static void *churn_thread(void *arg)
{
	struct churn *c = arg;

	while (!__atomic_load_n(&churn_stop, __ATOMIC_RELAXED)) {
		int v = c->rounds % 3 ? dup2(c->src, FD_UNSEQ_ALLOC)
				      : fcntl(c->src, F_DUPFD, FD_UNSEQ_BASE + 64);

		if (!is_vfd(v) || fcntl(v, F_SETFD, FD_CLOEXEC) != 0 ||
		    fcntl(v, F_GETFD) != FD_CLOEXEC || fcntl(c->stable, F_GETFD) != 0 ||
		    close(v) != 0)
			c->errors++;
		c->rounds++;
	}
	return NULL;
}

/* What a fork child checks of its table; its exit status. */
static int fork_child_checks(int src, int stable, int clofork)
{
	int v, listed = 0, found = 0;
	struct dirent *e;
	DIR *d;

	if (!reads(stable, "stable") || fcntl(stable, F_GETFD) != 0)
		return 1;
	/* Every virtual descriptor it lists is whole: the stable one, and
	 * those the threads had open at the fork, each with an open backing
	 * descriptor and readable. */
	d = opendir("/proc/self/fd");
	if (!d)
		return 6;
	while ((e = readdir(d))) {
		long n = strtol(e->d_name, NULL, 10);

		if (!is_vfd((int)n))
			continue;
		listed++;
		found += n == stable;
		if (fcntl((int)n, F_GETFD) < 0 || !reads((int)n, "stable") ||
		    !kernel_open(api_backing_fd((int)n)))
			return 7;
	}
	closedir(d);
	if (!found || listed > 3)
		return 8;
	/* The close-on-fork descriptor is gone, and so is its backing. */
	if (!is_ebadf(fcntl(clofork, F_GETFD)))
		return 2;
	v = dup2(src, FD_UNSEQ_ALLOC);
	if (!is_vfd(v) || !reads(v, "stable") || fcntl(v, F_GETFD) != 0)
		return 3;
	if (close(v) != 0 || !is_ebadf(fcntl(v, F_GETFD)))
		return 4;
	v = fcntl(src, F_DUPFD_CLOEXEC, FD_UNSEQ_BASE);
	if (!is_vfd(v) || fcntl(v, F_GETFD) != FD_CLOEXEC || close(v) != 0)
		return 5;
	return 0;
}

/* glibc's _Fork (2.34): fork without the atfork handlers, which POSIX
 * still has close the close-on-fork descriptors.  Declared here: only
 * glibc 2.34's headers do. */
pid_t _Fork(void);

/*
 * Two threads churn virtual descriptors while the main thread forks 300
 * times with forker.  ufd's fork handlers take the table lock around fork,
 * so each child has a consistent table and a free lock; without them a
 * child whose fork caught a thread inside the lock would hang on its first
 * change.  _Fork runs ufd's handlers too, though not the program's.
 */
static void churn_and_fork(pid_t (*forker)(void))
{
	int src = temp_file("stable"), stable = api_nonseqfd(src, 0);
	int clofork = api_nonseqfd(src, NONSEQFD_CLOFORK), before, total = 0;
	struct churn c[2] = { { src, stable, 0, 0 }, { src, stable, 0, 0 } };
	pthread_t t[2];

	ck_assert(is_vfd(stable) && is_vfd(clofork));
	before = kernel_fd_count();
	churn_stop = 0;
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn_thread, &c[i]), 0);
	for (int i = 0; i < 300; i++) {
		pid_t pid = forker();
		int status;

		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(fork_child_checks(src, stable, clofork));
		status = wait_bounded(pid, 10000);
		ck_assert_msg(status != -1, "fork child %d hung", i);
		ck_assert_msg(exited_ok(status), "fork child %d: status %#x", i, status);
	}
	__atomic_store_n(&churn_stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		total += c[i].rounds;
	}
	ck_assert_int_eq(c[0].errors + c[1].errors, 0);
	ck_assert_int_gt(total, 0);
	/* The parent is as it was. */
	ck_assert(reads(stable, "stable"));
	ck_assert_int_eq(fcntl(stable, F_GETFD), 0);
	ck_assert_int_eq(fcntl(clofork, F_GETFD), FD_CLOFORK);
	ck_assert_int_eq(kernel_fd_count(), before);
	close(clofork);
	close(stable);
	close(src);
}

START_TEST(fork_while_threads_churn)
{
	churn_and_fork(fork);
}
END_TEST

START_TEST(_Fork_while_threads_churn)
{
#if defined(__SANITIZE_THREAD__)
	/* TSan (GCC 12's) does not intercept _Fork: its child keeps the
	 * runtime's record of the parent's other threads, and ufd's fork
	 * handlers' writes in it race, for TSan, with those threads' last
	 * atomic ones (exit 66 in every run).  fork is TSan's own, and
	 * fork_while_threads_churn runs under it. */
	fprintf(stderr, "_Fork_while_threads_churn: skipped: TSan does not "
			"intercept _Fork\n");
	return;
#endif
	churn_and_fork(_Fork);
}
END_TEST

/* ---- close-on-fork ---- */

/* fds[0] is n; then n descriptors that must be closed in the child (and
 * their backing descriptors, if virtual: fds[n+1..2n]), then the number of
 * descriptors that must stay open, and those. */
static int clofork_child(const int *fds)
{
	int n = fds[0], m = fds[2 * n + 1];

	for (int i = 1; i <= n; i++) {
		if (!is_ebadf(fcntl(fds[i], F_GETFD)))
			return 10 + i;
		if (fds[n + i] != fds[i] && kernel_open(fds[n + i]))
			return 40 + i; /* the backing descriptor is still open */
	}
	for (int i = 0; i < m; i++) {
		int fd = fds[2 * n + 2 + i];

		if (fcntl(fd, F_GETFD) < 0 || (fcntl(fd, F_GETFD) & FD_CLOFORK))
			return 70 + i;
	}
	return 0;
}

/*
 * Fork: in the child, closed[0..n) must be closed (and the backing
 * descriptors of the virtual ones with them) and keep[0..m) open without
 * close-on-fork; in the parent all stay open, closed[] with close-on-fork.
 * Then closes them all.
 */
static void check_clofork_fork(const int *closed, int n, const int *keep, int m)
{
	int fds[64];

	ck_assert_int_le(2 * n + 2 + m, 64);
	fds[0] = n;
	for (int i = 0; i < n; i++) {
		fds[1 + i] = closed[i];
		/* a real one has no backing to check: itself */
		fds[1 + n + i] = is_vfd(closed[i]) ? api_backing_fd(closed[i]) : closed[i];
	}
	fds[2 * n + 1] = m;
	for (int i = 0; i < m; i++)
		fds[2 * n + 2 + i] = keep[i];
	in_fork_child(clofork_child, fds);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(fcntl(closed[i], F_GETFD) & FD_CLOFORK, FD_CLOFORK);
		ck_assert_int_eq(close(closed[i]), 0);
	}
	for (int i = 0; i < m; i++)
		ck_assert_int_eq(close(keep[i]), 0);
}

START_TEST(virtual_clofork_closed_in_child_only)
{
	int fd = temp_file("v"), n = 0, keep[4], m = 0, v;
	int closed[8];

	/* The ways to make a close-on-fork virtual descriptor. */
	closed[n++] = api_nonseqfd(fd, NONSEQFD_CLOFORK);
	closed[n++] = dup3(fd, FD_UNSEQ_BASE + 4242, O_CLOFORK);
	ck_assert_int_eq(closed[n - 1], FD_UNSEQ_BASE + 4242);
	closed[n++] = dup3(fd, FD_UNSEQ_ALLOC, O_CLOFORK | O_CLOEXEC);
	closed[n++] = fcntl(fd, F_DUPFD_CLOFORK, FD_UNSEQ_BASE + 100000);
	ck_assert_int_ge(closed[n - 1], FD_UNSEQ_BASE + 100000);
	v = api_nonseqfd(fd, 0);
	ck_assert_int_eq(fcntl(v, F_SETFD, FD_CLOFORK), 0);
	closed[n++] = v;
	closed[n++] = open("/dev/null", O_RDONLY | O_UNSEQFD | O_CLOFORK);
	/* F_GETFD reports the flag, beside FD_CLOEXEC where set. */
	for (int i = 0; i < n; i++) {
		ck_assert(is_vfd(closed[i]));
		ck_assert_int_eq(fcntl(closed[i], F_GETFD) & FD_CLOFORK, FD_CLOFORK);
	}
	ck_assert_int_eq(fcntl(closed[2], F_GETFD), FD_CLOFORK | FD_CLOEXEC);
	ck_assert_int_eq(fcntl(closed[1], F_GETFD), FD_CLOFORK);
	/* Kept: plain, and one whose flag was cleared again. */
	keep[m++] = api_nonseqfd(fd, 0);
	v = api_nonseqfd(fd, NONSEQFD_CLOFORK);
	ck_assert_int_eq(fcntl(v, F_SETFD, 0), 0);
	ck_assert_int_eq(fcntl(v, F_GETFD), 0);
	keep[m++] = v;
	v = api_nonseqfd(fd, NONSEQFD_CLOFORK);
	ck_assert_int_eq(fcntl(v, F_SETFD, FD_CLOEXEC), 0); /* replaces both */
	ck_assert_int_eq(fcntl(v, F_GETFD), FD_CLOEXEC);
	keep[m++] = v;

	for (int i = 0; i < n; i++)
		ck_assert(is_vfd(closed[i]));
	check_clofork_fork(closed, n, keep, m);
	close(fd);
}
END_TEST

/*
 * _Fork runs none of the program's fork handlers, but close-on-fork is
 * fork's, not theirs: the child has neither the close-on-fork virtual
 * descriptors nor a marked real one (ufd's own handlers ran in neither,
 * and the child kept them all); it keeps the others and makes a virtual
 * descriptor of its own.
 */
START_TEST(clofork_closed_by__Fork)
{
	int fd = temp_file("f"), closed[2], keep[2], fds[8], status;
	pid_t pid;

	closed[0] = api_nonseqfd(fd, NONSEQFD_CLOFORK);
	closed[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(closed[1], 0);
	ck_assert_int_eq(fcntl(closed[1], F_SETFD, FD_CLOFORK), 0);
	keep[0] = api_nonseqfd(fd, 0);
	keep[1] = fd;
	ck_assert(is_vfd(closed[0]) && is_vfd(keep[0]));
	fds[0] = 2;
	fds[1] = closed[0];
	fds[2] = closed[1];
	fds[3] = api_backing_fd(closed[0]);
	fds[4] = closed[1];
	fds[5] = 2;
	fds[6] = keep[0];
	fds[7] = keep[1];
	fflush(NULL);
	pid = _Fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int r = clofork_child(fds), v;

		if (r == 0) {
			v = api_nonseqfd(fd, 0);
			r = is_vfd(v) && close(v) == 0 ? 0 : 100;
		}
		_exit(r);
	}
	status = wait_bounded(pid, 10000);
	ck_assert_msg(exited_ok(status), "_Fork child: status %#x (exit %d)", status,
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(fcntl(closed[i], F_GETFD) & FD_CLOFORK, FD_CLOFORK);
		ck_assert_int_eq(close(closed[i]), 0);
		ck_assert_int_eq(close(keep[i]), 0);
	}
}
END_TEST

/* A connected pair through a listening socket: *acc gets the accepted
 * end, made by accept4 with flags. */
static int unix_listener(struct sockaddr_un *addr)
{
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(l, 0);
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	/* An abstract address: nothing to clean up. */
	snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "ufd-proc-%d",
		 (int)getpid());
	ck_assert_int_eq(bind(l, (struct sockaddr *)addr, sizeof(*addr)), 0);
	ck_assert_int_eq(listen(l, 4), 0);
	return l;
}

START_TEST(real_clofork_closed_in_child_only)
{
	int fd = temp_file("r"), closed[16], n = 0, keep[8], m = 0;
	int sv[2], l, c, plain, marked;
	struct sockaddr_un addr;

	closed[n++] = open("/dev/null", O_RDONLY | O_CLOFORK);
	closed[n++] = open("/dev/null", O_RDONLY | O_CLOFORK | O_CLOEXEC);
	closed[n++] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOFORK, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOFORK, 0, sv), 0);
	closed[n++] = sv[0];
	closed[n++] = sv[1];
	l = unix_listener(&addr);
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(connect(c, (struct sockaddr *)&addr, sizeof(addr)), 0);
	closed[n++] = accept4(l, NULL, NULL, SOCK_CLOFORK);
	closed[n++] = fcntl(fd, F_DUPFD_CLOFORK, 50);
	ck_assert_int_ge(closed[n - 1], 50);
	closed[n++] = dup3(fd, 70, O_CLOFORK);
	ck_assert_int_eq(closed[n - 1], 70);
	closed[n++] = dup(fd);
	ck_assert_int_eq(fcntl(closed[n - 1], F_SETFD, FD_CLOFORK), 0);
	for (int i = 0; i < n; i++) {
		ck_assert_int_ge(closed[i], 0);
		ck_assert(!is_vfd(closed[i]));
		ck_assert_int_eq(fcntl(closed[i], F_GETFD) & FD_CLOFORK, FD_CLOFORK);
	}
	ck_assert_int_eq(fcntl(closed[1], F_GETFD), FD_CLOFORK | FD_CLOEXEC);
	ck_assert_int_eq(fcntl(closed[0], F_GETFD), FD_CLOFORK);

	/* Kept: a plain one; one whose flag was cleared; one marked and
	 * then replaced by dup2, which starts a new descriptor without the
	 * flag (as dup2 clears FD_CLOEXEC). */
	keep[m++] = plain = dup(fd);
	marked = open("/dev/null", O_RDONLY | O_CLOFORK);
	ck_assert_int_eq(fcntl(marked, F_SETFD, 0), 0);
	ck_assert_int_eq(fcntl(marked, F_GETFD), 0);
	keep[m++] = marked;
	marked = fcntl(fd, F_DUPFD_CLOFORK, 90);
	ck_assert_int_eq(dup2(plain, marked), marked);
	ck_assert_int_eq(fcntl(marked, F_GETFD), 0);
	keep[m++] = marked;

	for (int i = 0; i < n; i++)
		ck_assert(!is_vfd(closed[i]));
	check_clofork_fork(closed, n, keep, m);
	close(c);
	close(l);
	close(fd);
}
END_TEST

static int reuse_child(const int *fds)
{
	for (int i = 1; i <= fds[0]; i++)
		if (fcntl(fds[i], F_GETFD) != 0)
			return i;
	return 0;
}

/* The next open, after fd was closed: fd again, without a mark. */
static int reopened_unmarked(int fd)
{
	int again = open("/dev/null", O_RDONLY);

	ck_assert_int_eq(again, fd);
	ck_assert_int_eq(fcntl(again, F_GETFD), 0);
	return again;
}

/*
 * The mark belongs to the descriptor, not to its number: once it is
 * closed (close, close_range, fclose or closedir of a stream on it) the
 * next descriptor to get that number starts without it.
 */
START_TEST(clofork_mark_not_inherited_by_reuse)
{
	int fds[8], n = 0, fd, again;
	FILE *fp;
	DIR *dir;

	fd = open("/dev/null", O_RDONLY | O_CLOFORK);
	ck_assert_int_eq(close(fd), 0);
	fds[++n] = reopened_unmarked(fd);

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOFORK, 0);
	ck_assert_int_eq(close_range((unsigned)fd, (unsigned)fd, 0), 0);
	again = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_eq(again, fd);
	ck_assert_int_eq(fcntl(again, F_GETFD), 0);
	fds[++n] = again;

	fd = open("/dev/null", O_RDONLY | O_CLOFORK);
	fp = fdopen(fd, "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fclose(fp), 0);
	fds[++n] = reopened_unmarked(fd);

	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOFORK);
	dir = fdopendir(fd);
	ck_assert_ptr_nonnull(dir);
	ck_assert_int_eq(closedir(dir), 0);
	fds[++n] = again = reopened_unmarked(fd);

	/* A virtual number too: closed, then taken again exactly. */
	fd = dup3(again, FD_UNSEQ_BASE + 777, O_CLOFORK);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(dup2(again, FD_UNSEQ_BASE + 777), FD_UNSEQ_BASE + 777);
	ck_assert_int_eq(fcntl(FD_UNSEQ_BASE + 777, F_GETFD), 0);
	fds[++n] = FD_UNSEQ_BASE + 777;

	fds[0] = n;
	in_fork_child(reuse_child, fds);
	for (int i = 1; i <= n; i++)
		close(fds[i]);
}
END_TEST

/* ---- the generator is reseeded in a fork child ---- */

/* The parent's numbers the helper printed, one per line. */
static int parse_numbers(const char *out, long *nums, int max)
{
	int n = 0;
	char *end;

	while (n < max && *out) {
		nums[n++] = strtol(out, &end, 10);
		if (end == out)
			break;
		out = end;
		while (*out == '\n')
			out++;
	}
	return n;
}

/*
 * With a seed from the kernel and with UFD_SEED fixed, the parent's and
 * the child's next dup2(fd, FD_UNSEQ_ALLOC) differ, 20 forks in a row
 * (the helper checks each).  With UFD_SEED fixed the parent's sequence is
 * reproducible from run to run; with a kernel seed it is not.
 */
START_TEST(fork_reseeds_the_generator)
{
	char out1[4096], out2[4096];
	long a[20], b[20];
	char **fixed = env_with((char *[]){ "UFD_SEED=12345", NULL }, NULL);
	char **random = env_with(NULL, (const char *[]){ "UFD_SEED", NULL });
	char *const argv[] = { "ufd_helper", "reseed", "20", NULL };
	int status;

	status = run(helper_path, argv, fixed, -1, out1, sizeof(out1));
	ck_assert_msg(exited_ok(status), "fixed seed: %s", out1);
	status = run(helper_path, argv, fixed, -1, out2, sizeof(out2));
	ck_assert_msg(exited_ok(status), "fixed seed: %s", out2);
	ck_assert_int_eq(parse_numbers(out1, a, 20), 20);
	ck_assert_int_eq(parse_numbers(out2, b, 20), 20);
	ck_assert_msg(memcmp(a, b, sizeof(a)) == 0, "UFD_SEED runs differ");

	status = run(helper_path, argv, random, -1, out1, sizeof(out1));
	ck_assert_msg(exited_ok(status), "kernel seed: %s", out1);
	status = run(helper_path, argv, random, -1, out2, sizeof(out2));
	ck_assert_msg(exited_ok(status), "kernel seed: %s", out2);
	ck_assert_int_eq(parse_numbers(out1, a, 20), 20);
	ck_assert_int_eq(parse_numbers(out2, b, 20), 20);
	ck_assert_msg(memcmp(a, b, sizeof(a)) != 0, "kernel-seeded runs agree");
	free(fixed);
	free(random);
}
END_TEST

/* ---- vfork ---- */

/*
 * A vfork child shares its parent's memory; ufd's vfork is fork, so a
 * close or dup2 the child makes through ufd (as CPython's subprocess
 * does between vfork and exec) leaves the parent's table alone.
 */
START_TEST(vfork_child_leaves_parent_table)
{
	int fa = temp_file("first"), fb = temp_file("second"), fc = temp_file("third");
	int a = api_nonseqfd(fa, 0), b = api_nonseqfd(fb, 0);
	int ba = api_backing_fd(a), bb = api_backing_fd(b), before, status;
	pid_t pid;

	before = kernel_fd_count();
	pid = vfork();
	if (pid == 0) {
		if (close(a) != 0 || dup2(fc, b) != b || dup2(fc, FD_UNSEQ_ALLOC) < 0)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_ge(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(exited_ok(status));
	ck_assert(reads(a, "first"));
	ck_assert(reads(b, "second"));
	ck_assert_int_eq(api_backing_fd(a), ba);
	ck_assert_int_eq(api_backing_fd(b), bb);
	ck_assert_int_eq(kernel_fd_count(), before);
	close(a);
	close(b);
	close(fa);
	close(fb);
	close(fc);
}
END_TEST

/* And a vfork child that execs hands its descriptors on as fork+exec. */
START_TEST(vfork_then_exec_hands_off)
{
	int fd = temp_file("handed"), a = api_nonseqfd(fd, 0), status;
	char spec[64], data[64], out[256] = "";

	snprintf(spec, sizeof(spec), "v:%d:-1:0", a);
	snprintf(data, sizeof(data), "d:%d:handed", a);
	status = exec_helper(1, (char *const[]){ "ufd_helper", "check", spec, data, NULL },
			     out, sizeof(out));
	ck_assert_msg(exited_ok(status), "helper: %s", out);
	ck_assert(reads(a, "handed"));
	close(a);
	close(fd);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *forkthreads_case(void)
{
	return new_case("forkthreads",
			TESTS(fork_while_threads_churn, _Fork_while_threads_churn), 120);
}

TCase *clofork_case(void)
{
	return new_case("clofork",
			TESTS(virtual_clofork_closed_in_child_only,
			      real_clofork_closed_in_child_only,
			      clofork_mark_not_inherited_by_reuse,
			      clofork_closed_by__Fork), 30);
}

TCase *reseed_case(void)
{
	return new_case("reseed",
			TESTS(fork_reseeds_the_generator), 60);
}

TCase *vfork_case(void)
{
	return new_case("vfork",
			TESTS(vfork_child_leaves_parent_table,
			      vfork_then_exec_hands_off), 30);
}
