/* SPDX-License-Identifier: MIT */
/*
 * backing.c - backing descriptors are ufd's: the application cannot
 * close, copy or replace them (close, dup2, close_range, closefrom),
 * RLIMIT_NOFILE exhaustion, numbering unchanged by many virtual
 * descriptors, and `ls /proc/self/fd` under the shim listing no backing
 * descriptor (tcases protect and listing).
 */
#include "process.h"

#include <sys/single_threaded.h>

/* ---- backing descriptors are ufd's ---- */

START_TEST(close_of_backing_is_ebadf)
{
	int fd = temp_file("mine"), v = api_nonseqfd(fd, 0), b = api_backing_fd(v);

	ck_assert_int_ge(b, 3);
	ck_assert(is_ebadf(close(b)));
	ck_assert(is_ebadf(dup2(b, b)));
	ck_assert(is_ebadf(syscall(SYS_close, b)));
	/* Nor can its close-on-exec flag be cleared, which would leak it. */
	ck_assert(is_ebadf(ioctl(b, FIONCLEX)));
	/* Nor copied: it is not open, for the application. */
	ck_assert(is_ebadf(dup(b)));
	ck_assert(is_ebadf(dup2(b, 100)));
	ck_assert(is_ebadf(dup2(b, FD_UNSEQ_ALLOC)));
	ck_assert(is_ebadf(dup3(b, 100, 0)));
	ck_assert(is_ebadf(api_nonseqfd(b, 0)));
	ck_assert(is_ebadf(syscall(SYS_dup, b)));
	{
		int self = (int)syscall(SYS_pidfd_open, getpid(), 0);

		if (self >= 0) {
			ck_assert(is_ebadf(syscall(SYS_pidfd_getfd, self, b, 0)));
			close(self);
		}
	}
	ck_assert(is_ebadf(fcntl(100, F_GETFD)));
	ck_assert(is_ebadf(fcntl(b, F_SETFD, 0)));
	ck_assert_int_eq(syscall(SYS_fcntl, b, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert(reads(v, "mine"));
	ck_assert_int_eq(api_backing_fd(v), b);
	ck_assert_int_eq(close(v), 0);
	close(fd);
}
END_TEST

/* dup2 onto a backing number succeeds as onto a free number: the backing
 * descriptor moves first, and the virtual descriptor keeps its file. */
START_TEST(dup2_onto_backing_moves_it)
{
	int fv = temp_file("virtual"), fx = temp_file("other");
	int v = api_nonseqfd(fv, 0), b = api_backing_fd(v), before, b2;

	before = kernel_fd_count();
	ck_assert_int_eq(dup2(fx, b), b);
	ck_assert(reads(b, "other"));
	ck_assert_int_eq(api_is_virtual(b), 0);
	ck_assert(reads(v, "virtual"));
	b2 = api_backing_fd(v);
	ck_assert_int_ne(b2, b);
	ck_assert_int_eq(kernel_cloexec(b2), 1);
	/* b is now the application's, one more descriptor in all. */
	ck_assert_int_eq(kernel_fd_count(), before + 1);
	ck_assert_int_eq(close(b), 0);
	/* dup3 too. */
	ck_assert_int_eq(dup3(fx, b2, O_CLOEXEC), b2);
	ck_assert(reads(b2, "other"));
	ck_assert(reads(v, "virtual"));
	ck_assert_int_ne(api_backing_fd(v), b2);
	ck_assert_int_eq(fcntl(b2, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(close(b2), 0);
	ck_assert_int_eq(close(v), 0);
	close(fv);
	close(fx);
}
END_TEST

static int close_range_child(const int *fds)
{
	int v = fds[0], b = fds[1], kind = fds[2], stdio = 0;

	for (int fd = 0; fd < 3; fd++)
		stdio += syscall(SYS_fcntl, fd, F_GETFD) >= 0;

	if (kind == 0) {
		/* All of the real space from 3: the virtual descriptors are
		 * not in it and their backing descriptors are spared. */
		if (close_range(3, FD_UNSEQ_BASE - 1, 0) != 0)
			return 1;
		if (!reads(v, "kept") || api_backing_fd(v) != b)
			return 2;
		return kernel_fd_count() == stdio + 1 ? 0 : 3;
	}
	/* closefrom(3) and close_range(3, ~0U): every descriptor from 3,
	 * virtual ones included, and no backing descriptor left open. */
	if (kind == 1)
		closefrom(3);
	else if (close_range(3, ~0U, 0) != 0)
		return 4;
	if (!is_ebadf(fcntl(v, F_GETFD)) || !is_ebadf(read(v, (char[1]){ 0 }, 1)))
		return 5;
	return kernel_fd_count() == stdio ? 0 : 6;
}

START_TEST(close_range_and_closefrom)
{
	int fd = temp_file("kept"), v = api_nonseqfd(fd, 0);
	int fds[3] = { v, api_backing_fd(v), 0 };

	/* In fork children: this process's own descriptors from 3 (Check's
	 * among them) must stay. */
	for (int kind = 0; kind < 3; kind++) {
		fds[2] = kind;
		in_fork_child(close_range_child, fds);
	}
	ck_assert(reads(v, "kept"));
	close(v);
	close(fd);
}
END_TEST

/* With RLIMIT_NOFILE used up, the application's numbers and ufd's room
 * above them (as many numbers again, where the hard limit allows), making
 * a virtual descriptor fails with EMFILE (its backing descriptor cannot be
 * made), whatever the call. */
START_TEST(rlimit_exhausted_gives_emfile)
{
	struct rlimit rl, low;
	int fd = temp_file("x"), v, opened = 0, last = -1, made = 0, free_vfd;
	int vfds[128];

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	v = api_nonseqfd(fd, 0); /* placed under the old limit */
	ck_assert(is_vfd(v));
	close(v);
	low = rl;
	low.rlim_cur = 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	for (;;) {
		int r = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (r < 0) {
			ck_assert_int_eq(errno, EMFILE);
			break;
		}
		last = r;
		opened++;
		ck_assert_int_lt(opened, 64);
	}
	/* The room above: at most 64 more (none if the hard limit is 64). */
	while ((v = api_nonseqfd(fd, 0)) >= 0) {
		ck_assert_int_lt(made, 64);
		ck_assert_int_ge(api_backing_fd(v), 64);
		vfds[made++] = v;
	}
	ck_assert_int_eq(errno, EMFILE);
	errno = 0;
	ck_assert_int_eq(api_nonseqfd(fd, 0), -1);
	ck_assert_int_eq(errno, EMFILE);
	errno = 0;
	ck_assert_int_eq(dup2(fd, FD_UNSEQ_ALLOC), -1);
	ck_assert_int_eq(errno, EMFILE);
	errno = 0;
	ck_assert_int_eq(fcntl(fd, F_DUPFD, FD_UNSEQ_BASE), -1);
	ck_assert_int_eq(errno, EMFILE);
	/* An exact number none of those drawn above took (a dup2 onto an
	 * open one replaces it in place, needing no new backing). */
	free_vfd = FD_UNSEQ_BASE + 9;
	while (!is_ebadf(fcntl(free_vfd, F_GETFD)))
		free_vfd++;
	errno = 0;
	ck_assert_int_eq(dup2(fd, free_vfd), -1);
	ck_assert_int_eq(errno, EMFILE);
	ck_assert(is_ebadf(fcntl(free_vfd, F_GETFD)));
	/* One descriptor freed: room for one backing descriptor. */
	ck_assert_int_eq(close(last), 0);
	v = api_nonseqfd(fd, 0);
	ck_assert(is_vfd(v));
	ck_assert(reads(v, "x"));
	ck_assert_int_eq(close(v), 0);
	while (made > 0)
		ck_assert_int_eq(close(vfds[--made]), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	close(fd);
}
END_TEST

/*
 * The numbers a program's own open() calls get are what they would be
 * without ufd, even with a library (many_vfds) holding 1000 virtual
 * descriptors: their backing descriptors sit below the RLIMIT_NOFILE soft
 * limit, out of the lowest-number rule's way.
 */
START_TEST(numbering_unchanged_by_1000_virtual_descriptors)
{
	char plain[256], many[256], want[256];
	char *const argv[] = { "ufd_helper", "open5", NULL };
	char **env_plain, **env_many;
	char lp[PATH_MAX * 2];
	char *space;
	int status;

	if (!raise_nofile(4096)) {
		fprintf(stderr, "numbering: skipped: RLIMIT_NOFILE hard limit "
				"below 4096\n");
		return;
	}
	snprintf(lp, sizeof(lp), "LD_PRELOAD=%s:%s", preload, many_path);
	env_many = env_with((char *[]){ lp, NULL }, NULL);
	env_plain = env_with(NULL, (const char *[]){ "LD_PRELOAD", NULL });

	status = run(helper_path, argv, env_many, -1, many, sizeof(many));
	ck_assert_msg(exited_ok(status), "with many_vfds: %s", many);
	/*
	 * Without ufd at all.  execve here is the shim's, which would add
	 * LD_PRELOAD back; the raw system call is not translated by the
	 * shim's syscall() (no descriptor argument), so it runs the helper
	 * as asked.
	 */
	{
		int p[2];
		size_t len = 0;
		ssize_t n;
		pid_t pid;

		ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			dup2(p[1], 1);
			syscall(SYS_execve, helper_path, argv, env_plain);
			_exit(127);
		}
		close(p[1]);
		while (len + 1 < sizeof(plain) &&
		       (n = read(p[0], plain + len, sizeof(plain) - 1 - len)) > 0)
			len += (size_t)n;
		plain[len] = '\0';
		close(p[0]);
		ck_assert(exited_ok(wait_bounded(pid, 20000)));
	}
	space = strstr(many, " many=");
	ck_assert_msg(space != NULL, "many_vfds did not load: %s", many);
	ck_assert_str_eq(space, " many=1000\n");
	snprintf(want, sizeof(want), "%.*s\n", (int)(space - many), many);
	ck_assert_str_eq(plain, want);
	free(env_many);
	free(env_plain);
}
END_TEST

/* ---- ls /proc/self/fd under the shim ---- */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Numbers in text (one per line) into nums, sorted; their count. */
static int sorted_numbers(const char *text, int *nums, int max)
{
	int n = 0;

	while (*text && n < max) {
		char *end;
		long v = strtol(text, &end, 10);

		if (end == text)
			return -1;
		nums[n++] = (int)v;
		text = end + strspn(end, "\n ");
	}
	qsort(nums, (size_t)n, sizeof(int), cmp_int);
	return n;
}

/*
 * In a fork child holding real and virtual descriptors: what `ls -1
 * /proc/self/fd` must print once it is exec'd there.  The real
 * descriptors it inherits (those without close-on-exec, 1 being the pipe),
 * the directory descriptor ls opens (the lowest free number), and the
 * inherited virtual descriptors that are not hidden; never a backing
 * descriptor, never a hidden or close-on-exec one.
 */
static void expected_listing(char *buf, size_t size, const int *vfds, int nv)
{
	int len = 0, lowest = -1;

	buf[0] = '\0';
	for (int fd = 0; fd < 1024; fd++) {
		int f = (int)syscall(SYS_fcntl, fd, F_GETFD);

		/* Closed, or closed by the exec: free in ls. */
		if (f < 0 || (f & FD_CLOEXEC)) {
			if (lowest < 0)
				lowest = fd;
			continue;
		}
		len += snprintf(buf + len, size - (size_t)len, "%d\n", fd);
	}
	len += snprintf(buf + len, size - (size_t)len, "%d\n", lowest);
	for (int i = 0; i < nv; i++)
		len += snprintf(buf + len, size - (size_t)len, "%d\n", vfds[i]);
}

/* Run ls -1 /proc/self/fd from a child holding descriptors of each kind;
 * through posix_spawn if spawn, else fork and execvp.  Fails unless its
 * listing is exactly the expected set. */
void ls_listing(int spawn)
{
	int out[2], exp[2], status, want[128], got[128], nw, ng;
	char got_text[4096], want_text[4096];
	size_t len;
	ssize_t n;
	pid_t pid;

	if (skip_under_emulator("ls /proc/self/fd", "the host's programs are x86-64 "
				"here: the aarch64 libufd.so cannot be loaded into them"))
		return;

	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(exp, O_CLOEXEC), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), vis[2];
		char buf[4096];
		char *env_extra[] = { "LC_ALL=C", "ASAN_OPTIONS=detect_leaks=0", NULL };
		char *argv[] = { "ls", "-1", "/proc/self/fd", NULL };
		char **env;

		vis[0] = api_nonseqfd(fd, 0);			/* listed */
		api_nonseqfd(fd, NONSEQFD_HIDE);		/* hidden */
		api_nonseqfd(fd, NONSEQFD_CLOEXEC);		/* closed by exec */
		/* listed after an exec; a spawn's child is a fork child */
		vis[1] = api_nonseqfd(fd, NONSEQFD_CLOFORK);
		fcntl(fd, F_DUPFD, 100);			/* a real one */
		if (dup2(out[1], 1) != 1)
			_exit(120);
		expected_listing(buf, sizeof(buf), vis, spawn ? 1 : 2);
		if (write(exp[1], buf, strlen(buf)) < 0)
			_exit(121);
		env = env_with(env_extra, NULL);
		if (spawn) {
			pid_t ls;

			if (posix_spawnp(&ls, "ls", NULL, NULL, argv, env))
				_exit(122);
			_exit(waitpid(ls, &status, 0) == ls && exited_ok(status) ? 0 : 123);
		}
		execvpe("ls", argv, env);
		_exit(124);
	}
	close(out[1]);
	close(exp[1]);
	len = 0;
	while (len + 1 < sizeof(got_text) &&
	       (n = read(out[0], got_text + len, sizeof(got_text) - 1 - len)) > 0)
		len += (size_t)n;
	got_text[len] = '\0';
	len = 0;
	while (len + 1 < sizeof(want_text) &&
	       (n = read(exp[0], want_text + len, sizeof(want_text) - 1 - len)) > 0)
		len += (size_t)n;
	want_text[len] = '\0';
	close(out[0]);
	close(exp[0]);
	status = wait_bounded(pid, 20000);
	ck_assert_msg(exited_ok(status), "ls: status %#x", status);
	nw = sorted_numbers(want_text, want, 128);
	ng = sorted_numbers(got_text, got, 128);
	ck_assert_msg(nw > 0 && ng == nw && !memcmp(want, got, sizeof(int) * (size_t)nw),
		      "ls /proc/self/fd listed:\n%s\nexpected:\n%s", got_text, want_text);
}

START_TEST(ls_proc_self_fd_under_the_shim)
{
	ls_listing(0);
}
END_TEST

/* ---- backing descriptors made outside the table lock ---- */

/*
 * Two threads make and close virtual descriptors of file A while a third,
 * the application, takes the numbers where their backing descriptors go:
 * dup2 of file B onto each, then close or close_range.  ufd makes a
 * backing descriptor before it takes the table lock, so for a moment its
 * number is in no table: the application's calls must wait for it to be
 * recorded (then a dup2 moves it), never replace or close it.  Every
 * virtual descriptor must be file A (its inode) from its making to its
 * close, and every number the application dup2'd onto, file B.
 *
 * With no room above the limit (soft = hard), backing descriptors go
 * below it, where the application may dup2: the limit is lowered for
 * that (the test runs in a child of its own).
 */
#define RACE_MAKES 20000
#define RACE_SPAN  8

static int race_a, race_b, race_first, race_done;
static ino_t race_ino_a, race_ino_b;

static int is_file(int fd, ino_t ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_ino == ino;
}

/*
 * Is virtual descriptor v file ino?  A call on v that looked its backing
 * descriptor up just before the application's dup2 moved it
 * (vfd_real_dup) reaches the application's file, that once: the lookup
 * takes no lock.  So a failed check is made again, a few times (the
 * application may move it more than once meanwhile, and back); a virtual
 * descriptor on the wrong file, or closed, stays so.
 */
static int stays_file(int v, ino_t ino)
{
	for (int tries = 0; tries < 8; tries++) {
		if (is_file(v, ino))
			return 1;
		sched_yield();
	}
	return 0;
}

static void *race_maker(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < RACE_MAKES; i++) {
		int v = api_nonseqfd(race_a, 0);

		if (v < 0 || !stays_file(v, race_ino_a))
			bad++;
		sched_yield();
		if (v >= 0 && (!stays_file(v, race_ino_a) || close(v) != 0))
			bad++;
	}
	return (void *)bad;
}

static void *race_app(void *arg)
{
	long *result = arg; /* [0] bad, [1] dup2s that succeeded */
	unsigned i = 0;

	while (!__atomic_load_n(&race_done, __ATOMIC_ACQUIRE)) {
		int n = race_first + (int)(i % RACE_SPAN);

		if (dup2(race_b, n) != n) {
			result[0]++;
			continue;
		}
		result[1]++;
		if (!is_file(n, race_ino_b))
			result[0]++;
		if (++i % 2)
			result[0] += close(n) != 0;
		else
			result[0] += syscall(SYS_close_range, n, n + RACE_SPAN - 1, 0) != 0;
	}
	return NULL;
}


/* Both races' set-up: the hard limit pinned to the soft one, files A and
 * B (race_a, race_b, their inodes), and race_first, the number where a
 * backing descriptor goes first (below the limit). */
static void race_setup(void)
{
	struct rlimit rl;
	struct stat st;
	int v;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_max = rl.rlim_cur;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	race_a = temp_file("A");
	race_b = temp_file("B");
	ck_assert_int_eq(fstat(race_a, &st), 0);
	race_ino_a = st.st_ino;
	ck_assert_int_eq(fstat(race_b, &st), 0);
	race_ino_b = st.st_ino;
	v = api_nonseqfd(race_a, 0);
	race_first = api_backing_fd(v);
	ck_assert_int_lt(race_first, (int)rl.rlim_cur); /* below the limit */
	ck_assert_int_eq(close(v), 0);
}

START_TEST(makers_race_application_dup2_and_close)
{
	pthread_t makers[2], app;
	long bad = 0, app_result[2] = { 0, 0 };
	void *r;

	race_setup();
	__atomic_store_n(&race_done, 0, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_create(&app, NULL, race_app, app_result), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&makers[i], NULL, race_maker, NULL), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(pthread_join(makers[i], &r), 0);
		bad += (long)r;
	}
	__atomic_store_n(&race_done, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(app, NULL), 0);
	ck_assert_msg(bad == 0, "%ld virtual descriptors were not (or stopped being) file A", bad);
	ck_assert_msg(app_result[0] == 0, "%ld of the application's dup2/close calls failed or "
		      "left another file", app_result[0]);
	ck_assert_int_gt(app_result[1], 0);
	close(race_a);
	close(race_b);
}
END_TEST

/*
 * The same race in a single-threaded process, where ufd makes and closes
 * backing descriptors inside the table lock, unannounced: the
 * application's dup2 and close of those numbers come from a SIGALRM
 * handler, which can interrupt the making itself.  A dup2 there may fail
 * with EBUSY (it cannot wait for its own thread); one that succeeds must
 * leave file B, and every virtual descriptor stays file A.
 */
#define ALONE_MAKES 20000

static volatile long alone_bad, alone_dup2s, alone_busy;
static volatile unsigned alone_i;

static void alone_app(int sig)
{
	int saved = errno, n = race_first + (int)(alone_i++ % RACE_SPAN);

	(void)sig;
	if (dup2(race_b, n) == n) {
		alone_dup2s++;
		if (!is_file(n, race_ino_b) || close(n) != 0)
			alone_bad++;
	} else if (errno == EBUSY) {
		alone_busy++;
	} else {
		alone_bad++;
	}
	errno = saved;
}

START_TEST(makers_alone_race_handler_dup2_and_close)
{
	struct sigaction sa = { .sa_handler = alone_app };
	struct itimerval it = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
	long bad = 0;
	int v;

	if (!__libc_single_threaded) {
		fprintf(stderr, "makers_alone_race_handler_dup2_and_close: skipped: "
				"the test process has threads\n");
		return;
	}
	race_setup();
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	for (int i = 0; i < ALONE_MAKES; i++) {
		v = api_nonseqfd(race_a, 0);
		if (v < 0 || !stays_file(v, race_ino_a))
			bad++;
		if (v >= 0 && (!stays_file(v, race_ino_a) || close(v) != 0))
			bad++;
	}
	ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);
	ck_assert(__libc_single_threaded);
	ck_assert_msg(bad == 0, "%ld virtual descriptors were not (or stopped being) file A", bad);
	ck_assert_msg(alone_bad == 0, "%ld of the handler's dup2/close calls failed or "
		      "left another file", alone_bad);
	ck_assert_int_gt(alone_dup2s, 0);
	fprintf(stderr, "makers_alone_race_handler_dup2_and_close: %ld dup2s, %ld EBUSY\n",
		alone_dup2s, alone_busy);
	close(race_a);
	close(race_b);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *protect_case(void)
{
	return new_case("protect",
			TESTS(close_of_backing_is_ebadf, dup2_onto_backing_moves_it,
			      close_range_and_closefrom,
			      rlimit_exhausted_gives_emfile,
			      numbering_unchanged_by_1000_virtual_descriptors), 60);
}

TCase *makers_case(void)
{
	return new_case("makers", TESTS(makers_race_application_dup2_and_close,
					makers_alone_race_handler_dup2_and_close), 120);
}

TCase *listing_case(void)
{
	return new_case("listing",
			TESTS(ls_proc_self_fd_under_the_shim), 60);
}
