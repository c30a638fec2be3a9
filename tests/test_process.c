/* SPDX-License-Identifier: MIT */
/*
 * Description: virtual descriptors across process events: fork in a
 * threaded program, close-on-fork (virtual and real descriptors), the
 * reseeding of the generator in a fork child, vfork, closes from signal
 * handlers, exec (self, a chain of programs through each member of the
 * exec family, failed execs), posix_spawn file actions, the protection of
 * backing descriptors (close, dup2, close_range, closefrom), descriptor
 * numbering with many virtual descriptors, RLIMIT_NOFILE exhaustion, and
 * `ls /proc/self/fd` under the shim.
 *
 * Like test_e2e.c, this file is built twice, linked against libufd.so and
 * not linked but run under LD_PRELOAD; the ufd API is reached through
 * dlsym().  The helper program it runs (ufd_helper, not linked against
 * ufd) and the preload library many_vfds come in through the environment:
 * UFD_TEST_HELPER, UFD_TEST_MANY and UFD_TEST_PRELOAD (the LD_PRELOAD
 * value that loads ufd, with the ASan runtime first in sanitizer builds).
 *
 * The threaded cases (tcases "forkthreads" and "signals") also run alone
 * under ThreadSanitizer (CK_RUN_CASE); they make no virtual descriptor
 * with socketpair or pipe, whose TSan interceptors abort on numbers past
 * 2^20.
 *
 * The tcase "regressions" holds bugs of src/ that these tests (the kb_*
 * ones) or a review found, since fixed; each one's comment says what the
 * bug was.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_test.h"

extern char **environ;


static const char *helper_path, *many_path, *preload;
static char *self_exe;


/* A file holding text, opened read-write and close-on-exec, unlinked. */
static int temp_file(const char *text)
{
	char path[] = "/tmp/ufd-proc-XXXXXX";
	int fd = mkostemp(path, O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Does pread(fd, 0) give exactly text? */
static int reads(int fd, const char *text)
{
	char buf[128] = { 0 };
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n == (ssize_t)strlen(text) && !strcmp(buf, text);
}

/* errno after a call that must fail with EBADF. */
static int is_ebadf(int r)
{
	return r == -1 && errno == EBADF;
}

/*
 * The number of real descriptors the kernel has open, backing descriptors
 * included: its own listing, read with getdents64 (the shim filters
 * readdir on /proc/self/fd, not the system call).
 */
static int kernel_fd_count(void)
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

			if (e->name[0] != '.')
				n++;
			off += e->reclen;
		}
	}
	close(dfd);
	return n - 1; /* the listing's own descriptor */
}


/* Is real descriptor fd open for the kernel?  fstat reaches the kernel for
 * any real number; fcntl on a backing descriptor is refused by ufd. */
static int kernel_open(int fd)
{
	struct stat st;

	/* Raw: through ufd, a backing descriptor is a number not open. */
	return ufd_sys_fstat(fd, &st) == 0;
}

/*
 * Wait for child pid at most ms milliseconds; kill it if it is still
 * running then.  Returns its wait status, or -1 if it had to be killed
 * (a deadlock, for the tests here).
 */
static int wait_bounded(pid_t pid, int ms)
{
	int status;

	for (int waited = 0; waited < ms; waited++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		ck_assert_msg(r == 0 || errno == EINTR, "waitpid: %s", strerror(errno));
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static int exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- running the helper ---- */

/* Copy of environ with extra "NAME=value" entries set (replacing any
 * entry of the same name) and names in `drop` removed. */
static char **env_with(char *const *extra, const char *const *drop)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	for (size_t i = 0; extra && extra[i]; i++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	ck_assert_ptr_nonnull(env);
	for (size_t i = 0; environ[i]; i++) {
		int skip = 0;
		size_t len = strcspn(environ[i], "=");

		for (size_t j = 0; extra && extra[j]; j++)
			skip |= !strncmp(environ[i], extra[j], len) && extra[j][len] == '=';
		for (size_t j = 0; drop && drop[j]; j++)
			skip |= strlen(drop[j]) == len && !strncmp(environ[i], drop[j], len);
		if (!skip)
			env[k++] = environ[i];
	}
	for (size_t i = 0; extra && extra[i]; i++)
		env[k++] = extra[i];
	env[k] = NULL;
	return env;
}

/*
 * Run path with argv and env (environ if NULL) through fork and execve,
 * stdout into out (NUL-terminated, at most size - 1 bytes); in_fd, if not
 * -1, becomes its stdin.  Returns the wait status, -1 if it had to be
 * killed after 20 s.  The child's execve is the shim's, so this process's
 * inheritable virtual descriptors go along.
 */
static int run(const char *path, char *const argv[], char *const env[],
	       int in_fd, char *out, size_t size)
{
	int p[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (dup2(p[1], 1) < 0 || (in_fd >= 0 && dup2(in_fd, 0) < 0))
			_exit(126);
		execve(path, argv, env ? env : environ);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < size && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	status = wait_bounded(pid, 20000);
	return status;
}

/* ---- 1. fork in a threaded program ---- */

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

/*
 * Two threads churn virtual descriptors while the main thread forks 300
 * times.  ufd's fork handlers take the table lock around fork, so each
 * child has a consistent table and a free lock; without them a child whose
 * fork caught a thread inside the lock would hang on its first change.
 */
START_TEST(fork_while_threads_churn)
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
		pid_t pid = fork();
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
END_TEST

/* ---- 2. close-on-fork ---- */

/* Fork; the child runs check(arg) and exits with its result, which must
 * be 0. */
static void in_fork_child(int (*check)(const int *), const int *arg)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(check(arg));
	status = wait_bounded(pid, 10000);
	ck_assert_msg(exited_ok(status), "fork child failed: status %#x (exit %d)",
		      status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

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

/*
 * The mark belongs to the descriptor, not to its number: once it is
 * closed (close, close_range, fclose of a stream on it) the next
 * descriptor to get that number starts without it.
 */
START_TEST(clofork_mark_not_inherited_by_reuse)
{
	int fds[8], n = 0, fd, again;
	FILE *fp;

	fd = open("/dev/null", O_RDONLY | O_CLOFORK);
	ck_assert_int_eq(close(fd), 0);
	again = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(again, fd);
	ck_assert_int_eq(fcntl(again, F_GETFD), 0);
	fds[++n] = again;

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
	again = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(again, fd);
	ck_assert_int_eq(fcntl(again, F_GETFD), 0);
	fds[++n] = again;

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

/* ---- 3. the generator is reseeded in a fork child ---- */

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

/* ---- 4. vfork ---- */

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
/* Read fd to its end, or size - 1 bytes, into out as a string. */
static void read_all(int fd, char *out, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && (n = read(fd, out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
}

/* Run the helper with argv by fork (or vfork) and execve, its stdout into
 * out; the exit status. */
static int exec_helper(int by_vfork, char *const argv[], char *out, size_t size)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	fflush(NULL);
	pid = by_vfork ? vfork() : fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execve(helper_path, argv, environ);
		_exit(127);
	}
	ck_assert_int_ge(pid, 0);
	close(p[1]);
	read_all(p[0], out, size);
	close(p[0]);
	return wait_bounded(pid, 20000);
}

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

/* More virtual descriptors than one environment string can list (the
 * kernel takes 128 KiB): the hand-off goes through a memfd, and the exec'd
 * program has them all, the first and the last checked by number and
 * data, and no memfd left open. */
#define MANY_HANDED 5000

START_TEST(exec_hands_off_more_than_an_env_string_holds)
{
	int fd = temp_file("many"), v[MANY_HANDED];
	char first[64], last[64], data[64], out[512] = "";
	int status, i;

	if (!raise_nofile(2 * MANY_HANDED + 256)) {
		fprintf(stderr, "exec_hands_off_more_than_an_env_string_holds: "
				"skipped: hard RLIMIT_NOFILE below %d\n",
			2 * MANY_HANDED + 256);
		close(fd);
		return;
	}
	for (i = 0; i < MANY_HANDED; i++) {
		v[i] = api_nonseqfd(fd, 0);
		ck_assert(is_vfd(v[i]));
	}
	snprintf(first, sizeof(first), "v:%d:-1:0", v[0]);
	snprintf(last, sizeof(last), "v:%d:-1:0", v[MANY_HANDED - 1]);
	snprintf(data, sizeof(data), "d:%d:many", v[MANY_HANDED / 2]);
	status = exec_helper(0, (char *const[]){ "ufd_helper", "check", first, last,
						 data, "nomemfd", NULL },
			     out, sizeof(out));
	ck_assert_msg(exited_ok(status), "helper: %s", out);
	for (i = 0; i < MANY_HANDED; i++)
		ck_assert_int_eq(close(v[i]), 0);
	close(fd);
}
END_TEST

/* ---- 5. closes from signal handlers ---- */

#define HANDLER_VFDS 400

static int handler_vfd[HANDLER_VFDS];
static int handler_result[HANDLER_VFDS];
static volatile int handler_next;
static volatile int handler_errno;

/* Close the next virtual descriptor made for the handler. */
static void closing_handler(int sig)
{
	int i = handler_next, saved = errno;

	(void)sig;
	if (i < HANDLER_VFDS) {
		handler_result[i] = close(handler_vfd[i]);
		if (handler_result[i] != 0)
			handler_errno = errno;
		handler_next = i + 1;
	}
	errno = saved;
}

/* The main thread's side: make and close virtual descriptors in every way
 * until the handler has closed all of its own, or 10 s pass.  Returns the
 * number of failed calls. */
static int churn_until_handled(int src)
{
	struct timespec start, now;
	int errors = 0, i = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (handler_next < HANDLER_VFDS) {
		int v;

		switch (i++ % 4) {
		case 0:
			v = dup2(src, FD_UNSEQ_ALLOC);
			break;
		case 1:
			v = fcntl(src, F_DUPFD_CLOEXEC, FD_UNSEQ_BASE + 1000);
			break;
		case 2:
			v = api_nonseqfd(src, NONSEQFD_CLOFORK);
			break;
		default:
			v = dup3(src, FD_UNSEQ_BASE + 5 + i % 64, 0);
			break;
		}
		if (!is_vfd(v) || close(v) != 0)
			errors++;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 10)
			break;
	}
	return errors;
}

/* Make the handler's descriptors; returns the kernel's descriptor count
 * from before. */
static int prepare_handler_vfds(int src)
{
	int before = kernel_fd_count();

	handler_next = 0;
	handler_errno = 0;
	for (int i = 0; i < HANDLER_VFDS; i++) {
		/* Not among the exact numbers churn_until_handled takes. */
		for (;;) {
			int v = api_nonseqfd(src, i % 2 ? NONSEQFD_CLOEXEC : 0);

			handler_vfd[i] = v;
			if (v < (int)FD_UNSEQ_BASE + 5 || v >= (int)FD_UNSEQ_BASE + 5 + 64)
				break;
			close(v);
		}
		ck_assert(is_vfd(handler_vfd[i]));
		handler_result[i] = -2;
	}
	return before;
}

static void check_handler_closes(int before, int src)
{
	ck_assert_int_eq(handler_next, HANDLER_VFDS);
	for (int i = 0; i < HANDLER_VFDS; i++) {
		ck_assert_msg(handler_result[i] == 0, "handler close %d: %d (%s)", i,
			      handler_result[i], strerror(handler_errno));
		ck_assert(is_ebadf(fcntl(handler_vfd[i], F_GETFD)));
	}
	/* No backing descriptor left behind. */
	ck_assert_int_eq(kernel_fd_count(), before);
	/* Every number is free again: a close that a handler made inside
	 * the table lock leaves the slot to the interrupted holder, which
	 * must have released it.  F_DUPFD takes the lowest free number from
	 * its argument: the number itself if its slot is free. */
	for (int i = 0; i < HANDLER_VFDS; i++) {
		int v = fcntl(src, F_DUPFD, handler_vfd[i]);

		ck_assert_msg(v == handler_vfd[i], "slot %d (handler close %d of %d) not freed (got %d)",
			      handler_vfd[i], i, handler_next, v);
		ck_assert_int_eq(close(v), 0);
	}
}

START_TEST(sigalrm_handler_closes)
{
	int src = temp_file("x"), before;
	struct sigaction sa = { .sa_handler = closing_handler };
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };

	if (!raise_nofile(2 * HANDLER_VFDS + 256)) {
		fprintf(stderr, "sigalrm_handler_closes: skipped: RLIMIT_NOFILE\n");
		return;
	}
	before = prepare_handler_vfds(src);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	ck_assert_int_eq(churn_until_handled(src), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);
	check_handler_closes(before, src);
	close(src);
}
END_TEST

static volatile int killer_stop;

static void *killer_thread(void *arg)
{
	pthread_t target = *(pthread_t *)arg;

	while (!__atomic_load_n(&killer_stop, __ATOMIC_RELAXED)) {
		pthread_kill(target, SIGUSR1);
		for (volatile int spin = 0; spin < 2000; spin++)
			;
	}
	return NULL;
}

START_TEST(pthread_kill_handler_closes)
{
	int src = temp_file("x"), before;
	struct sigaction sa = { .sa_handler = closing_handler };
	pthread_t self = pthread_self(), killer;

	if (!raise_nofile(2 * HANDLER_VFDS + 256)) {
		fprintf(stderr, "pthread_kill_handler_closes: skipped: RLIMIT_NOFILE\n");
		return;
	}
	before = prepare_handler_vfds(src);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	killer_stop = 0;
	ck_assert_int_eq(pthread_create(&killer, NULL, killer_thread, &self), 0);
	ck_assert_int_eq(churn_until_handled(src), 0);
	__atomic_store_n(&killer_stop, 1, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(killer, NULL), 0);
	signal(SIGUSR1, SIG_IGN);
	check_handler_closes(before, src);
	close(src);
}
END_TEST

static int flag_vfd;
static volatile int flag_calls, flag_errors;

/* Toggle the descriptor flags of a virtual descriptor and read it. */
static void flag_handler(int sig)
{
	int saved = errno, want = flag_calls % 2 ? FD_CLOEXEC : FD_CLOFORK;
	char c = 0;

	(void)sig;
	if (fcntl(flag_vfd, F_SETFD, want) != 0 || fcntl(flag_vfd, F_GETFD) != want ||
	    pread(flag_vfd, &c, 1, 2) != 1 || c != 'g' || read(flag_vfd, &c, 0) != 0)
		flag_errors++;
	flag_calls++;
	errno = saved;
}

/* A fork from a signal handler that may have interrupted ufd inside its
 * table lock: in the child, whose only thread is the interrupted one,
 * still inside the handler, making a virtual descriptor must answer at
 * once (made, or EBUSY when the handler interrupted a table change, as in
 * the parent), not wait forever for the lock of a thread id that is not
 * in the child.  A child that hangs is killed by its alarm and counted. */
static int forked_hung, forked_children;

static void forking_handler(int sig)
{
	int saved = errno, status;
	pid_t pid = fork();

	(void)sig;
	if (pid == 0) {
		int v;

		alarm(5);
		v = open("/dev/null", O_RDONLY | O_UNSEQFD);
		_exit((v >= 0 && close(v) == 0) || (v < 0 && errno == EBUSY) ? 0 : 1);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid) {
		forked_children++;
		forked_hung += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	errno = saved;
}

START_TEST(fork_in_handler_child_uses_table)
{
	struct sigaction sa = { .sa_handler = forking_handler, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct timespec start, now;

	forked_hung = forked_children = 0;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGPROF, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_PROF, &it, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int v = open("/dev/null", O_RDONLY | O_UNSEQFD);

		ck_assert(is_vfd(v));
		ck_assert_int_eq(close(v), 0);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!forked_hung && now.tv_sec - start.tv_sec < 2);
	setitimer(ITIMER_PROF, &off, NULL);
	signal(SIGPROF, SIG_IGN);
	ck_assert_msg(forked_hung == 0, "%d of %d children forked in a handler hung or failed",
		      forked_hung, forked_children);
	ck_assert_int_gt(forked_children, 0);
}
END_TEST

START_TEST(handler_fcntl_and_read)
{
	int src = temp_file("signal"), errors = 0, before;
	struct sigaction sa = { .sa_handler = flag_handler };
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
	struct timespec start, now;

	flag_vfd = api_nonseqfd(src, 0);
	flag_calls = flag_errors = 0;
	before = kernel_fd_count();
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int v = dup2(src, FD_UNSEQ_ALLOC);

		if (!is_vfd(v) || close(v) != 0)
			errors++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (flag_calls < 300 && now.tv_sec - start.tv_sec < 10);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);
	ck_assert_int_eq(errors, 0);
	ck_assert_int_ge(flag_calls, 300);
	ck_assert_int_eq(flag_errors, 0);
	ck_assert_int_ne(fcntl(flag_vfd, F_GETFD), -1);
	ck_assert(reads(flag_vfd, "signal"));
	ck_assert_int_eq(kernel_fd_count(), before);
	close(flag_vfd);
	close(src);
}
END_TEST

/* ---- 11. O_CLOEXEC on a virtual descriptor, across exec of self ---- */

/* Fork; the child opens /proc/self/exe as a virtual descriptor with
 * flags, and execs this program with mode and the number.  The exit status
 * of the new program. */
static int self_exec(int flags, const char *mode)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char num[16];
		int fd = open("/proc/self/exe", O_RDONLY | O_UNSEQFD | flags);

		if (!is_vfd(fd))
			_exit(100);
		snprintf(num, sizeof(num), "%d", fd);
		printf("%s: virtual descriptor %s\n", mode, num);
		fflush(stdout);
		execl(self_exe, "test_process", mode, num, (char *)NULL);
		_exit(101);
	}
	status = wait_bounded(pid, 20000);
	ck_assert_int_ne(status, -1);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(cloexec_virtual_closed_by_exec)
{
	ck_assert_int_eq(self_exec(O_CLOEXEC, "--closed"), 0);
	ck_assert_int_eq(self_exec(0, "--open"), 0);
}
END_TEST

/* The two modes of main() for the above: exit 0 when fd is as expected. */
static int self_exec_mode(const char *mode, int fd)
{
	char buf[4];

	errno = 0;
	if (!strcmp(mode, "--closed"))
		return is_ebadf(fcntl(fd, F_GETFD)) ? 0 : 1;
	/* --open: the executable, still at its virtual number. */
	return api_is_virtual(fd) == 1 && fcntl(fd, F_GETFD) == 0 &&
			       pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "\177ELF", 4)
		       ? 0
		       : 1;
}

/* ---- 6. a chain of three programs through the exec family ---- */

static const char *const exec_members[] = {
	"execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
	"fexecve", "execveat",
};

static const char *const spawn_members[] = {
	"posix_spawn", "posix_spawnp", "system", "popen",
};

/* The environment of the chains: the helper's directory first in PATH. */
static char **chain_env(void)
{
	static char path[PATH_MAX * 2];
	const char *slash = strrchr(helper_path, '/');

	snprintf(path, sizeof(path), "PATH=%.*s:%s", (int)(slash - helper_path),
		 helper_path, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	return env_with((char *[]){ path, NULL }, NULL);
}

/* Run chain1 with hop1 and hop2; fail unless it says "chain ok". */
static void run_chain(const char *hop1, const char *hop2)
{
	char out[4096];
	char **env = chain_env();
	char *const argv[] = { "ufd_helper", "chain1", (char *)hop1, (char *)hop2, NULL };
	int status = run(helper_path, argv, env, -1, out, sizeof(out));

	ck_assert_msg(exited_ok(status) && !strcmp(out, "chain ok\n"),
		      "chain %s -> %s: status %#x, output:\n%s", hop1, hop2, status, out);
	free(env);
}

/*
 * Program 1 makes A (inheritable), B (close-on-exec), C (close-on-fork)
 * and a real close-on-fork R, and reaches program 2 through hop1, which
 * checks A (same number, same file, F_GETFD 0), B (closed), C and R (open,
 * FD_CLOFORK) and that UFD_HANDOFF is gone from its environment, then
 * reaches program 3 through hop2, which checks again.  Every exec member
 * is hop1 once and hop2 once (execle with an environment without
 * LD_PRELOAD: the shim must put itself back).
 */
START_TEST(exec_chain_through_exec_family)
{
	size_t n = sizeof(exec_members) / sizeof(exec_members[0]);

	for (size_t i = 0; i < n; i++)
		run_chain(exec_members[i], exec_members[(i + 1) % n]);
}
END_TEST

/* ---- 7. failed exec ---- */

struct exec_state {
	int v[4];	/* virtual: plain, close-on-exec, close-on-fork, hidden */
	int flags[4];	/* their F_GETFD */
	int backing[4];
	int marked;	/* a real close-on-fork descriptor */
};

static void make_exec_state(struct exec_state *s, int src)
{
	static const int nflags[4] = { 0, NONSEQFD_CLOEXEC, NONSEQFD_CLOFORK,
				       NONSEQFD_HIDE };

	for (int i = 0; i < 4; i++) {
		s->v[i] = api_nonseqfd(src, nflags[i]);
		ck_assert(is_vfd(s->v[i]));
		s->flags[i] = fcntl(s->v[i], F_GETFD);
		s->backing[i] = api_backing_fd(s->v[i]);
	}
	s->marked = fcntl(src, F_DUPFD_CLOFORK, 30);
	ck_assert_int_ge(s->marked, 30);
}

/* After an exec or spawn: every descriptor as it was, every backing
 * descriptor close-on-exec for the kernel, the table unlocked. */
static void check_exec_state(const struct exec_state *s, const char *call)
{
	int v;

	for (int i = 0; i < 4; i++) {
		ck_assert_msg(fcntl(s->v[i], F_GETFD) == s->flags[i],
			      "%s: flags of %d", call, s->v[i]);
		ck_assert_int_eq(api_backing_fd(s->v[i]), s->backing[i]);
		ck_assert_msg(kernel_cloexec(s->backing[i]) == 1,
			      "%s: backing %d of %d lost FD_CLOEXEC", call,
			      s->backing[i], s->v[i]);
		ck_assert(reads(s->v[i], "state"));
	}
	ck_assert_int_eq(fcntl(s->marked, F_GETFD), FD_CLOFORK);
	/* A table left locked would answer EBUSY here (the lock is this
	 * thread's). */
	v = dup2(s->marked, FD_UNSEQ_ALLOC);
	ck_assert_msg(is_vfd(v), "%s: dup2(FD_UNSEQ_ALLOC) = %d (%s)", call, v,
		      strerror(errno));
	ck_assert_int_eq(close(v), 0);
}

#define ck_assert_exec_fails(call, err)                                     \
	do {                                                                \
		errno = 0;                                                  \
		ck_assert_int_eq((call), -1);                               \
		ck_assert_msg(errno == (err), "%s: errno %s", #call,        \
			      strerror(errno));                             \
		check_exec_state(&s, #call);                                \
	} while (0)

START_TEST(failed_exec_restores_the_table)
{
	struct exec_state s;
	int src = temp_file("state"), noexec, dir, r;
	char noexec_path[] = "/tmp/ufd-noexec-XXXXXX", *dirname_end;
	char *const argv[] = { "x", NULL };
	char dirpath[PATH_MAX];
	pid_t pid;

	make_exec_state(&s, src);
	noexec = mkostemp(noexec_path, O_CLOEXEC);
	ck_assert_int_ge(noexec, 0);
	ck_assert_int_eq(write(noexec, "#!/bin/sh\n", 10), 10);
	ck_assert_int_eq(fchmod(noexec, 0644), 0);
	/* A virtual descriptor of the file, for fexecve. */
	noexec = api_nonseqfd(noexec, NONSEQFD_CLOEXEC | NONSEQFD_CLOSE);
	strcpy(dirpath, noexec_path);
	dirname_end = strrchr(dirpath, '/');
	*dirname_end = '\0';
	dir = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_UNSEQFD);
	ck_assert(is_vfd(dir));

	check_exec_state(&s, "start");
	ck_assert_exec_fails(execve("/nonexistent/ufd-x", argv, environ), ENOENT);
	ck_assert_exec_fails(execve(noexec_path, argv, environ), EACCES);
	ck_assert_exec_fails(execv("/nonexistent/ufd-x", argv), ENOENT);
	ck_assert_exec_fails(execvp("ufd-no-such-program", argv), ENOENT);
	ck_assert_exec_fails(execvpe("ufd-no-such-program", argv, environ), ENOENT);
	ck_assert_exec_fails(execl(noexec_path, "x", (char *)NULL), EACCES);
	ck_assert_exec_fails(execlp("ufd-no-such-program", "x", (char *)NULL), ENOENT);
	ck_assert_exec_fails(execle("/nonexistent/ufd-x", "x", (char *)NULL, environ),
			     ENOENT);
	ck_assert_exec_fails(fexecve(noexec, argv, environ), EACCES);
	ck_assert_exec_fails(execveat(dir, "ufd-no-such-file", argv, environ, 0), ENOENT);
	ck_assert_exec_fails(execveat(dir, strrchr(noexec_path, '/') + 1, argv,
				      environ, 0),
			     EACCES);
	r = posix_spawn(&pid, "/nonexistent/ufd-x", NULL, NULL, argv, environ);
	ck_assert_int_eq(r, ENOENT);
	check_exec_state(&s, "posix_spawn");
	r = posix_spawnp(&pid, "ufd-no-such-program", NULL, NULL, argv, environ);
	ck_assert_int_eq(r, ENOENT);
	check_exec_state(&s, "posix_spawnp");
	/* system's shell runs, its command does not: exit status 127. */
	r = system("exec /nonexistent/ufd-x 2>/dev/null");
	ck_assert(WIFEXITED(r) && WEXITSTATUS(r) == 127);
	check_exec_state(&s, "system");

	unlink(noexec_path);
	close(noexec);
	close(dir);
	for (int i = 0; i < 4; i++)
		close(s.v[i]);
	close(s.marked);
	close(src);
}
END_TEST

/* A successful spawn leaves the backing descriptors close-on-exec again
 * and the table unlocked too.  (The spawned programs print "ufd: ignoring
 * UFD_HANDOFF": the known bug kb_spawn_handoff.) */
START_TEST(spawn_restores_the_table)
{
	struct exec_state s;
	int src = temp_file("state"), status;
	char *const argv[] = { "ufd_helper", "print", "", NULL };
	pid_t pid;

	make_exec_state(&s, src);
	ck_assert_int_eq(posix_spawn(&pid, helper_path, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(wait_bounded(pid, 20000) == -1, 0);
	check_exec_state(&s, "posix_spawn");
	status = system("exit 3");
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	check_exec_state(&s, "system");
	for (int i = 0; i < 4; i++)
		close(s.v[i]);
	close(s.marked);
	close(src);
}
END_TEST

/* ---- 8. posix_spawn file actions naming virtual descriptors ---- */

/* Spawn the helper with actions (and stdout into out, unless the actions
 * redirect it); the exit status. */
static int spawn_helper(posix_spawn_file_actions_t *fa, char *const argv[],
			char *out, size_t size)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	if (out)
		ck_assert_int_eq(posix_spawn_file_actions_adddup2(fa, p[1], 1), 0);
	ck_assert_int_eq(posix_spawn(&pid, helper_path, fa, NULL, argv, environ), 0);
	close(p[1]);
	if (out)
		read_all(p[0], out, size);
	close(p[0]);
	return wait_bounded(pid, 20000);
}

START_TEST(spawn_file_actions_with_virtual_descriptors)
{
	posix_spawn_file_actions_t fa;
	int fd = temp_file(""), v = api_nonseqfd(fd, NONSEQFD_CLOEXEC), b, dv;
	char out[512], spec1[64], spec2[64], path[64];
	char tmpdir[] = "/tmp/ufd-spawn-dir-XXXXXX";

	/* adddup2(vfd, 1): the child's stdout is the virtual descriptor's
	 * file. */
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, v, 1), 0);
	ck_assert(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "print",
							       "into-vfd", NULL },
					 NULL, 0)));
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(reads(v, "into-vfd"));

	/* addclose(vfd): its backing descriptor is closed in the child
	 * before the program starts, so the program has neither. */
	close(v);
	v = api_nonseqfd(fd, 0);
	b = api_backing_fd(v);
	snprintf(spec1, sizeof(spec1), "n:%d", v);
	snprintf(spec2, sizeof(spec2), "n:%d", b);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addclose(&fa, v), 0);
	ck_assert_msg(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "check",
								   spec1, spec2, NULL },
					     out, sizeof(out))),
		      "addclose: %s", out);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(reads(v, "into-vfd")); /* the parent's is untouched */
	close(v);

	/* adddup2(another file, b) onto the backing number b of a virtual
	 * descriptor the child would inherit: for the application b was a
	 * free number, so the child has the other file there, and the
	 * virtual descriptor, whose file is no longer in the child, is not
	 * taken over onto it. */
	v = api_nonseqfd(fd, 0);
	b = api_backing_fd(v);
	dv = open("/dev/null", O_RDONLY | O_CLOEXEC);
	snprintf(spec1, sizeof(spec1), "n:%d", v);
	snprintf(spec2, sizeof(spec2), "r:%d:0", b);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, dv, b), 0);
	ck_assert_msg(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "check",
								   spec1, spec2, NULL },
					     out, sizeof(out))),
		      "adddup2 onto a backing number: %s", out);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(reads(v, "into-vfd"));
	close(dv);
	close(v);

	/* addopen of /dev/fd/<vfd>: the child's stdin is the file. */
	v = api_nonseqfd(fd, NONSEQFD_CLOEXEC);
	snprintf(path, sizeof(path), "/dev/fd/%d", v);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addopen(&fa, 0, path, O_RDONLY, 0), 0);
	ck_assert(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "cat", NULL },
					 out, sizeof(out))));
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_str_eq(out, "into-vfd");
	close(v);

	/* addfchdir_np(virtual directory descriptor). */
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	dv = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_UNSEQFD);
	ck_assert(is_vfd(dv));
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addfchdir_np(&fa, dv), 0);
	ck_assert(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "pwd", NULL },
					 out, sizeof(out))));
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(strlen(out) > 0);
	out[strlen(out) - 1] = '\0';
	ck_assert_str_eq(out, tmpdir);
	close(dv);
	rmdir(tmpdir);
	close(fd);
}
END_TEST

/* ---- 12. backing descriptors are ufd's ---- */

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

/* ---- 13. ls /proc/self/fd under the shim ---- */

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
static void ls_listing(int spawn)
{
	int out[2], exp[2], status, want[128], got[128], nw, ng;
	char got_text[4096], want_text[4096];
	size_t len;
	ssize_t n;
	pid_t pid;

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
 * backing_cloexec_after_failed_exec.  After a failed exec, vfd_exec_done
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

/* ---- the suite ---- */

static void add_case(Suite *s, const char *name, const TTest *const *tests,
		     int timeout)
{
	TCase *tc = tcase_create(name);

	for (int i = 0; tests[i]; i++)
		tcase_add_test(tc, tests[i]);
	tcase_set_timeout(tc, timeout);
	suite_add_tcase(s, tc);
}

#define TESTS(...) ((const TTest *const[]){ __VA_ARGS__, NULL })

static Suite *process_suite(void)
{
	Suite *s = suite_create("process");

	add_case(s, "forkthreads", TESTS(fork_while_threads_churn), 120);
	add_case(s, "signals",
		 TESTS(sigalrm_handler_closes, pthread_kill_handler_closes,
		       fork_in_handler_child_uses_table,
		       handler_fcntl_and_read),
		 60);
	add_case(s, "clofork",
		 TESTS(virtual_clofork_closed_in_child_only,
		       real_clofork_closed_in_child_only,
		       clofork_mark_not_inherited_by_reuse),
		 30);
	add_case(s, "reseed", TESTS(fork_reseeds_the_generator), 60);
	add_case(s, "vfork",
		 TESTS(vfork_child_leaves_parent_table, vfork_then_exec_hands_off), 30);
	add_case(s, "exec",
		 TESTS(cloexec_virtual_closed_by_exec, exec_chain_through_exec_family,
		       failed_exec_restores_the_table, spawn_restores_the_table,
		       spawn_file_actions_with_virtual_descriptors,
		       exec_hands_off_more_than_an_env_string_holds),
		 120);
	add_case(s, "protect",
		 TESTS(close_of_backing_is_ebadf, dup2_onto_backing_moves_it,
		       close_range_and_closefrom, rlimit_exhausted_gives_emfile,
		       numbering_unchanged_by_1000_virtual_descriptors),
		 60);
	add_case(s, "listing", TESTS(ls_proc_self_fd_under_the_shim), 60);
	add_case(s, "regressions",
		 TESTS(kb_spawn_handoff_chain, kb_spawn_handoff_ls,
		       kb_fork_listing_lock, kb_backing_clofork, kb_freopen_mark,
		       kb_early_variadic, failed_dup2_leaves_target,
		       flags_kept_while_backing_moves,
		       backing_cloexec_after_failed_exec, new_vfd_not_on_app_file),
		 180);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	load_api(1);
	self_exe = realpath("/proc/self/exe", NULL);
	if (argc == 3)
		return self_exec_mode(argv[1], atoi(argv[2]));
	helper_path = getenv("UFD_TEST_HELPER");
	many_path = getenv("UFD_TEST_MANY");
	preload = getenv("UFD_TEST_PRELOAD");
	if (!helper_path || !many_path || !preload || !self_exe) {
		fprintf(stderr, "UFD_TEST_HELPER, UFD_TEST_MANY and "
				"UFD_TEST_PRELOAD must be set (tests/meson.build)\n");
		return EXIT_FAILURE;
	}
	/* The programs this test runs get ufd (and, in a sanitizer build,
	 * the ASan runtime before it) through the environment, also when
	 * this test is linked against ufd rather than preloaded. */
	if (!getenv("LD_PRELOAD"))
		setenv("LD_PRELOAD", preload, 1);
	sr = srunner_create(process_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
