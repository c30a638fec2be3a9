/* SPDX-License-Identifier: MIT */
/*
 * Description: a real vfork under UFD_MODE=all, UFD_MODE=random,
 * UFD_CLOEXEC and UFD_REPORT, while no virtual descriptor is live; the
 * child makes its descriptors as the kernel does, and nothing it does
 * (opens, dup2, closes, close_range, an exec, a failed exec, _exit) is
 * left in the parent's table, chooser or records:
 *
 *   shares_memory        the child's store is seen by the parent: a real
 *                        vfork (a fork before, under each of these)
 *   child_kernel_numbers the child's open, pipe and F_DUPFD get the
 *                        kernel's lowest free numbers (before: virtual
 *                        ones under all, random ones under random); its
 *                        close of a parent's descriptor leaves the
 *                        parent's open and usable; no report
 *   child_close_range    a CPython-like child: dup2 onto 0-2, close_range
 *                        past them, an exec that fails (ENOENT), _exit:
 *                        the parent's descriptors, and their later use and
 *                        close, raise no report (a close the child made
 *                        recorded as the parent's would: use-after-close,
 *                        double-close)
 *   child_execs          the child opens a descriptor of its own and execs
 *                        a shell that writes to it: the parent's table
 *                        and records as before; the child's descriptor is
 *                        not reported (ufd(7): reports do not cover what
 *                        a vfork child does before its exec)
 *   random_numbers_after UFD_MODE=random with UFD_SEED: the parent's next
 *                        numbers are the same whether or not its vfork
 *                        child drew (opened, closed) meanwhile
 *   leak_forks           UFD_REPORT: a descriptor of the parent's that an
 *                        exec would leak makes vfork a fork, and the
 *                        child's exec reports it, as before
 *
 * Runs under LD_PRELOAD=libufd.so with the setting of its meson test
 * (tests/meson.build); UFD_REPORT names a file, emptied at each case's
 * start and read at its end.  Not a Check suite: Check's runner makes
 * descriptors of its own before each case, which UFD_MODE=all makes
 * virtual (and then every vfork a fork); here each case is a fork of a
 * main that makes none, and says what failed on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_test.h"

extern char **environ;

/* A failed check: said on stderr (fd 2, no descriptor made), the case's
 * process exits 1. */
#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			_exit(1);                                               \
		}                                                               \
	} while (0)
#define CHECK_EQ(a, b) CHECK((a) == (b), "%ld != %ld", (long)(a), (long)(b))

static int mode_is(const char *m)
{
	const char *v = getenv("UFD_MODE");

	return v && !strcmp(v, m);
}

static volatile int stored;
static volatile int results[8], errnos[8];

#define NEEDS_SHARED_VFORK(name)                                                  \
	if (skip_under_emulator(name, "qemu-user runs vfork as fork: the "        \
				"child does not share its parent's memory"))      \
	return
#define START_TEST(name) static void name(void)
#define END_TEST

/* The report file (UFD_REPORT names one), or NULL. */
static const char *report_file(void)
{
	const char *r = getenv("UFD_REPORT");

	return r && *r == '/' ? r : NULL;
}

static void reports_clear(void)
{
	if (report_file())
		CHECK_EQ(truncate(report_file(), 0), 0);
}

/* What the report file holds (at most a page), "" if none. */
static const char *reports_read(void)
{
	static char buf[4096];
	int fd;
	ssize_t n;

	buf[0] = '\0';
	if (!report_file())
		return buf;
	fd = open(report_file(), O_RDONLY | O_CLOEXEC);
	CHECK((fd) >= (0), "%ld", (long)(fd));
	n = read(fd, buf, sizeof(buf) - 1);
	CHECK((n) >= (0), "%ld", (long)(n));
	buf[n] = '\0';
	close(fd);
	return buf;
}

static void no_reports(const char *where)
{
	const char *r = reports_read();

	CHECK(!*r, "%s: reports:\n%s", where, r);
}

/* The numbers below 1024 the kernel has open (seen[n] = 1), and how
 * many, asked with raw system calls (under UFD_MODE=all an open() would
 * make a virtual descriptor, and every later vfork of this process a
 * fork). */
static int kernel_fds(char seen[1024])
{
	char buf[4096];
	int n = 0;
	long dfd = ufd_sys6(SYS_openat, AT_FDCWD, (long)"/proc/self/fd",
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0), got;

	CHECK(dfd >= 0, "/proc/self/fd: %ld", dfd);
	while ((got = ufd_sys6(SYS_getdents64, dfd, (long)buf, sizeof(buf), 0, 0, 0)) > 0)
		for (long off = 0; off < got;) {
			unsigned short reclen = *(unsigned short *)(buf + off + 16);
			int fd = atoi(buf + off + 19);

			if (buf[off + 19] != '.' && fd != dfd && fd < 1024) {
				seen[fd] = 1;
				n++;
			}
			off += reclen;
		}
	ufd_sys6(SYS_close, dfd, 0, 0, 0, 0, 0);
	return n;
}

/* The lowest number >= 3 the kernel has free. */
static int kernel_lowest_free(void)
{
	char seen[1024] = { 0 };
	int low = 3;

	kernel_fds(seen);
	while (seen[low])
		low++;
	return low;
}

/* A descriptor of the parent's that no exec leaks (close-on-exec), or -1
 * under UFD_MODE=all, where it would be virtual (and vfork a fork). */
static int parent_fd(void)
{
	int fd;

	if (mode_is("all"))
		return -1;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 3, "%d", fd);
	return fd;
}

static int child_store_seen(void)
{
	int status;
	pid_t pid;

	stored = 0;
	pid = vfork();
	if (pid == 0) {
		stored = 1;
		_exit(0);
	}
	CHECK((pid) > (0), "%ld", (long)(pid));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "no");
	return stored;
}

START_TEST(shares_memory)
{
	NEEDS_SHARED_VFORK("shares_memory");
	int fd;

	reports_clear();
	fd = parent_fd();
	CHECK(child_store_seen(), "vfork did not share the memory");
	if (fd >= 0)
		CHECK_EQ(close(fd), 0);
	no_reports("shares_memory");
}
END_TEST

START_TEST(child_kernel_numbers)
{
	NEEDS_SHARED_VFORK("child_kernel_numbers");
	int fd, low, status;
	pid_t pid;

	reports_clear();
	fd = parent_fd();
	low = kernel_lowest_free();
	memset((void *)results, -1, sizeof(results));
	pid = vfork();
	if (pid == 0) {
		int p[2] = { -1, -1 }, n = open("/dev/null", O_RDONLY);

		results[0] = n;
		results[1] = pipe(p) == 0 ? p[0] : -1;
		results[2] = p[1];
		results[3] = fcntl(n, F_DUPFD, 3);
		results[4] = dup2(n, 60);
		results[5] = fd >= 0 ? close(fd) : 0;
		results[6] = close(n) | close(p[0]) | close(p[1]) | close(results[3]) |
			     close(60);
		stored = 1;
		_exit(0);
	}
	CHECK((pid) > (0), "%ld", (long)(pid));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "no");
	CHECK(stored, "vfork did not share the memory");
	CHECK_EQ(results[0], low);
	CHECK_EQ(results[1], low + 1);
	CHECK_EQ(results[2], low + 2);
	CHECK_EQ(results[3], low + 3);
	CHECK_EQ(results[4], 60);
	CHECK_EQ(results[5], 0);
	CHECK_EQ(results[6], 0);
	/* The parent's descriptor is its own, open; 60 is not. */
	if (fd >= 0) {
		CHECK(fcntl(fd, F_GETFD) >= 0, "parent's %d not open", fd);
		CHECK_EQ(close(fd), 0);
	}
	CHECK_EQ(fcntl(60, F_GETFD), -1);
	CHECK_EQ(errno, EBADF);
	/* Where the parent's next descriptor goes is its mode's business:
	 * under mode all still a virtual one. */
	fd = open("/dev/null", O_RDONLY);
	CHECK((fd) >= (0), "%ld", (long)(fd));
	if (mode_is("all"))
		CHECK(is_vfd(fd), "mode all's next open: %d", fd);
	CHECK_EQ(close(fd), 0);
	no_reports("child_kernel_numbers");
}
END_TEST

START_TEST(child_close_range)
{
	NEEDS_SHARED_VFORK("child_close_range");
	int fd, p[2], status;
	char c;
	pid_t pid;

	reports_clear();
	fd = parent_fd();
	/* Mode all: a pipe would be virtual, and vfork a fork. */
	p[0] = p[1] = -1;
	if (!mode_is("all"))
		CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	stored = 0;
	pid = vfork();
	if (pid == 0) {
		char *const argv[] = { "ufd-no-such-program", NULL };
		int nul = open("/dev/null", O_RDWR);

		dup2(nul, 0);
		if (p[1] >= 0)
			dup2(p[1], 1);
		results[0] = (int)syscall(SYS_close_range, 3, ~0U, 0);
		results[1] = execve("/nonexistent/ufd-no-such-program", argv, environ);
		errnos[1] = errno;
		/* Already closed: a close loop's EBADF, as CPython's
		 * fallback makes. */
		results[2] = close(p[0] >= 0 ? p[0] : 5);
		stored = 1;
		_exit(127);
	}
	CHECK((pid) > (0), "%ld", (long)(pid));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 127, "no");
	CHECK(stored, "vfork did not share the memory");
	CHECK_EQ(results[0], 0);
	CHECK_EQ(results[1], -1);
	CHECK_EQ(errnos[1], ENOENT);
	CHECK_EQ(results[2], -1);
	/* The parent's, open and usable, then closed once each. */
	if (p[0] >= 0) {
		CHECK_EQ(write(p[1], "x", 1), 1);
		CHECK_EQ(read(p[0], &c, 1), 1);
		CHECK_EQ(close(p[0]), 0);
		CHECK_EQ(close(p[1]), 0);
	}
	if (fd >= 0) {
		CHECK_EQ(read(fd, &c, 1), 0);
		CHECK_EQ(close(fd), 0);
	}
	no_reports("child_close_range");
}
END_TEST

START_TEST(child_execs)
{
	NEEDS_SHARED_VFORK("child_execs");
	int fd, status, before, after;
	pid_t pid;

	reports_clear();
	fd = parent_fd();
	before = kernel_fds((char[1024]){ 0 });
	stored = 0;
	pid = vfork();
	if (pid == 0) {
		/* Its own descriptor, crossing the exec: the shell writes
		 * to it. */
		int own = open("/dev/null", O_WRONLY);
		char num[16];

		fcntl(own, F_SETFD, 0); /* UFD_CLOEXEC set it */
		if (fd >= 0)
			close(fd);
		snprintf(num, sizeof(num), "%d", own);
		stored = 1;
		execve("/bin/sh", (char *const[]){ "sh", "-c", "echo x >&$1 && exit 3",
						   "sh", num, NULL },
		       environ);
		_exit(126);
	}
	CHECK((pid) > (0), "%ld", (long)(pid));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x", status);
	CHECK(stored, "vfork did not share the memory");
	after = kernel_fds((char[1024]){ 0 });
	CHECK_EQ(after, before);
	if (fd >= 0) {
		CHECK(fcntl(fd, F_GETFD) >= 0, "parent's %d not open", fd);
		CHECK_EQ(close(fd), 0);
	}
	no_reports("child_execs");
}
END_TEST

/* In a fork of this process: a vfork child that opens and closes (busy)
 * or does nothing, then the next n numbers the fork gets, written to
 * pipe p.  Both forks start alike: the pipes are made before either. */
static pid_t numbers_after(int busy, int p[2], int n)
{
	int status, fds[8];
	pid_t pid, v;

	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid)
		return pid;
	v = vfork();
	if (v == 0) {
		for (int i = 0; busy && i < 20; i++) {
			int t = open("/dev/null", O_RDONLY);

			if (i % 2)
				close(t);
		}
		_exit(0);
	}
	if (v < 0 || waitpid(v, &status, 0) != v)
		_exit(2);
	for (int i = 0; i < n; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	_exit(write(p[1], fds, sizeof(int) * (size_t)n) == (ssize_t)sizeof(int) * n ? 0 : 1);
}

static void numbers_read(pid_t pid, int p[2], int out[], int n)
{
	int status;

	CHECK_EQ(read(p[0], out, sizeof(int) * (size_t)n), (ssize_t)sizeof(int) * n);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

START_TEST(random_numbers_after)
{
	int quiet[8], busy[8], pq[2], pb[2];
	pid_t q, b;

	if (!mode_is("random") || !getenv("UFD_SEED")) {
		fprintf(stderr, "random_numbers_after: skipped: for UFD_MODE=random "
			"with UFD_SEED\n");
		return;
	}
	CHECK_EQ(pipe(pq), 0);
	CHECK_EQ(pipe(pb), 0);
	q = numbers_after(0, pq, 8);
	b = numbers_after(1, pb, 8);
	numbers_read(q, pq, quiet, 8);
	numbers_read(b, pb, busy, 8);
	for (int i = 0; i < 8; i++)
		CHECK(quiet[i] == busy[i], "number %d: %d after a quiet child, "
			      "%d after a busy one", i, quiet[i], busy[i]);
}
END_TEST

START_TEST(leak_forks)
{
	int fd, status;
	pid_t pid;

	if (!report_file()) {
		fprintf(stderr, "leak_forks: skipped: for UFD_REPORT=file\n");
		return;
	}
	reports_clear();
	fd = open("/dev/null", O_RDONLY); /* crosses an exec */
	CHECK((fd) >= (3), "%ld", (long)(fd));
	stored = 0;
	pid = vfork();
	if (pid == 0) {
		stored = 1;
		execl("/bin/true", "true", (char *)NULL);
		_exit(126);
	}
	CHECK((pid) > (0), "%ld", (long)(pid));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "no");
	CHECK(!stored, "shared the memory with a descriptor that leaks");
	CHECK(strstr(reports_read(), "exec-leak"), "no exec-leak report: %s",
		      reports_read());
	CHECK_EQ(close(fd), 0);
}
END_TEST

static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{ "shares_memory", shares_memory },
	{ "child_kernel_numbers", child_kernel_numbers },
	{ "child_close_range", child_close_range },
	{ "child_execs", child_execs },
	{ "random_numbers_after", random_numbers_after },
	{ "leak_forks", leak_forks },
};

/* Each case in a fork of its own, from a process that has made no
 * descriptor. */
int main(void)
{
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			cases[i].run();
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: FAILED (status %#x)\n", cases[i].name, status);
			failed++;
		} else {
			fprintf(stderr, "%s: ok\n", cases[i].name);
		}
	}
	return failed ? 1 : 0;
}
