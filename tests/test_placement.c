/* SPDX-License-Identifier: MIT */
/*
 * Description: where backing descriptors are, and that the application
 * cannot reach them (ufd(7), "Where backing descriptors live").
 *
 *   sequence_*   the application's lowest-available sequence is what it is
 *                without ufd, whatever virtual descriptors come and go:
 *                after a thousand made and closed, after close(0), after
 *                the soft limit is lowered and raised back; with room above
 *                the soft limit (backings above it) and without (soft =
 *                hard: a region below it that moves back up), and with
 *                more than the room above holds (back above it after)
 *   limit_*      the application sees its own RLIMIT_NOFILE (getrlimit,
 *                prlimit, sysconf, getdtablesize), gets EMFILE, EBADF and
 *                EINVAL at it as from the kernel, and a child that does not
 *                run ufd gets that limit; at soft limit 0 a virtual
 *                descriptor gets EMFILE, as dup does
 *   no_way_in    a backing descriptor's number is a number the process
 *                does not have: EBADF from every call that only translates,
 *                ENOENT as /proc/self/fd/N and /dev/fd/N, EBADF through
 *                SCM_RIGHTS and posix_spawn file actions
 *
 * Runs under LD_PRELOAD=libufd.so (not linked); each case is a fork of its
 * own (Check's default), so the limits it sets stay in it.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_check.h"
#include "ufd_test.h"

/* The number the application's next open() gets (opened and closed). */
static int next_number(void)
{
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(close(fd), 0);
	return fd;
}

/* Set the soft limit to soft and the hard one to hard (0: keep it). */
static void set_nofile(rlim_t soft, rlim_t hard)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = soft;
	if (hard)
		rl.rlim_max = hard;
	ck_assert_msg(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit(%lu, %lu): %s",
		      (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max,
		      strerror(errno));
}

/* A new virtual descriptor on /dev/null. */
static int new_vfd(void)
{
	int fd = open("/dev/null", O_RDWR | O_UNSEQFD);

	ck_assert_msg(is_vfd(fd), "open(O_UNSEQFD): %d (%s)", fd, strerror(errno));
	return fd;
}

/* The kernel's soft RLIMIT_NOFILE of process pid, from /proc/pid/limits. */
static long kernel_soft_limit(pid_t pid)
{
	char path[64], buf[4096], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "Max open files");
	ck_assert_ptr_nonnull(p);
	return strtol(p + strlen("Max open files"), NULL, 10);
}

/*
 * Make n virtual descriptors, close them all, then check that the next
 * virtual descriptor's backing is at lo or above (where the region starts
 * when it is empty), and that the application's next number is what it
 * was before.
 */
static void churn_and_check(int n, int lo)
{
	int *v = calloc((size_t)n, sizeof(int)), before = next_number(), one;

	ck_assert_ptr_nonnull(v);
	for (int i = 0; i < n; i++)
		v[i] = new_vfd();
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(close(v[i]), 0);
	free(v);
	one = new_vfd();
	ck_assert_int_ge(api_backing_fd(one), lo);
	ck_assert_int_eq(next_number(), before);
	ck_assert_int_eq(close(one), 0);
}

/* With room above the soft limit: every backing descriptor is above it. */
START_TEST(sequence_above_limit)
{
	struct rlimit rl;
	int v;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 2048)
		return; /* no room: sequence_no_room covers it */
	set_nofile(1024, 0);
	churn_and_check(1000, 1024);
	v = new_vfd();
	ck_assert_int_ge(api_backing_fd(v), 1024);
	/* The application still sees 1024. */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(rl.rlim_cur, 1024);
}
END_TEST

/* More virtual descriptors than the room above holds: the rest go below
 * the limit, and once they are closed the next backing descriptor is
 * above it again (a close there sends placement back up). */
START_TEST(sequence_room_full)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 1024)
		return; /* no room: sequence_no_room covers it */
	/* Room above: as much as the soft limit, 256 numbers. */
	set_nofile(256, 0);
	churn_and_check(400, 256);
	churn_and_check(400, 256);
}
END_TEST

/* close(0), then open(): the application's file gets 0 back, and no
 * backing descriptor ever takes a standard stream's number. */
START_TEST(sequence_after_close_0)
{
	int v, fd, held = open("/dev/null", O_RDONLY);

	set_nofile(1024, 0);
	churn_and_check(1000, 3);
	ck_assert_int_eq(close(0), 0);
	/* nonseqfd makes no temporary descriptor that would take 0 first. */
	v = api_nonseqfd(held, 0);
	ck_assert(is_vfd(v));
	ck_assert_int_gt(api_backing_fd(v), 2);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(fd, 0);
}
END_TEST

/* The soft limit lowered and raised back: backing descriptors made under
 * the low limit move out of the application's way again. */
START_TEST(sequence_limit_lowered_and_raised)
{
	int before, v[20];
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 2048)
		return; /* no room above: sequence_no_room covers it */
	set_nofile(1024, 0);
	before = next_number();
	set_nofile(64, 0);
	for (int i = 0; i < 20; i++)
		v[i] = new_vfd();
	set_nofile(1024, 0);
	ck_assert_int_eq(next_number(), before);
	for (int i = 0; i < 20; i++) {
		/* Above the application's limit again. */
		ck_assert_int_ge(api_backing_fd(v[i]), 1024);
		/* still usable, on the same file */
		ck_assert_int_eq(write(v[i], "x", 1), 1);
	}
}
END_TEST

/* soft = hard: no room above, a region below the limit that never reaches
 * 0-2 and moves back up once its descriptors are closed. */
START_TEST(sequence_no_room)
{
	int v, fd;

	set_nofile(1024, 1024);
	churn_and_check(1000, 1024 - 256);
	v = new_vfd();
	ck_assert_int_ge(api_backing_fd(v), 1024 - 256);
	ck_assert_int_lt(api_backing_fd(v), 1024);
	/* Below FD_SETSIZE a backing descriptor fits in an fd_set: select
	 * takes it for a number not open, as the kernel would. */
	{
		fd_set set;
		struct timeval tv = { 0, 0 };

		FD_ZERO(&set);
		FD_SET(api_backing_fd(v), &set);
		errno = 0;
		ck_assert_int_eq(select(api_backing_fd(v) + 1, &set, NULL, NULL, &tv), -1);
		ck_assert_int_eq(errno, EBADF);
	}
	ck_assert_int_eq(close(0), 0);
	churn_and_check(900, 1024 - 256);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(fd, 0);
}
END_TEST

/* The application's view of its limit, and the kernel's answers at it. */
START_TEST(limit_view)
{
	struct rlimit rl, got;
	int v, fd, n = 0, fds[64], p[2];

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 128)
		return;
	set_nofile(64, 0);
	v = new_vfd();
	ck_assert_int_ge(api_backing_fd(v), 64);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &got), 0);
	ck_assert_int_eq(got.rlim_cur, 64);
	ck_assert_int_eq(got.rlim_max, rl.rlim_max);
	ck_assert_int_eq(prlimit(0, RLIMIT_NOFILE, NULL, &got), 0);
	ck_assert_int_eq(got.rlim_cur, 64);
	ck_assert_int_eq(prlimit(getpid(), RLIMIT_NOFILE, NULL, &got), 0);
	ck_assert_int_eq(got.rlim_cur, 64);
	ck_assert_int_eq(sysconf(_SC_OPEN_MAX), 64);
	ck_assert_int_eq(getdtablesize(), 64);
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(syscall(SYS_getrlimit, RLIMIT_NOFILE, &got), 0);
	ck_assert_int_eq(got.rlim_cur, 64);
	ck_assert_int_eq(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &got), 0);
	ck_assert_int_eq(got.rlim_cur, 64);
	/* Past the application's limit: the kernel's errors. */
	errno = 0;
	ck_assert_int_eq(dup2(0, 64), -1);
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_int_eq(fcntl(0, F_DUPFD, 64), -1);
	ck_assert_int_eq(errno, EINVAL);
	while ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		ck_assert_int_lt(fd, 64);
		fds[n++] = fd;
	}
	ck_assert_int_eq(errno, EMFILE);
	errno = 0;
	ck_assert_int_eq(dup(0), -1);
	ck_assert_int_eq(errno, EMFILE);
	errno = 0;
	ck_assert_int_eq(pipe(p), -1);
	ck_assert_int_eq(errno, EMFILE);
	close(fds[--n]);
	/* One free number: a pipe needs two. */
	errno = 0;
	ck_assert_int_eq(pipe(p), -1);
	ck_assert_int_eq(errno, EMFILE);
	ck_assert_int_eq(next_number(), fds[n]);
	while (n > 0)
		close(fds[--n]);
	/* prlimit sets it too; a soft limit over the hard one is EINVAL. */
	got.rlim_cur = 100;
	got.rlim_max = rl.rlim_max;
	ck_assert_int_eq(prlimit(0, RLIMIT_NOFILE, &got, NULL), 0);
	ck_assert_int_eq(sysconf(_SC_OPEN_MAX), 100);
	got.rlim_cur = rl.rlim_max + 1;
	errno = 0;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &got), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(sysconf(_SC_OPEN_MAX), 100);
	ck_assert_int_eq(write(v, "x", 1), 1);
}
END_TEST

/* A child gets the application's limit, not the one ufd raised. */
START_TEST(limit_child)
{
	struct rlimit rl;
	pid_t pid;
	int status, p[2];

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 128)
		return;
	set_nofile(64, 0);
	new_vfd();
	/* The process itself runs with more room than it sees. */
	ck_assert_int_gt(kernel_soft_limit(getpid()), 64);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Stopped in the new program by reading a pipe that never
		 * gets data: the parent reads its limits meanwhile. */
		dup2(p[0], 0);
		close(p[1]);
		execl("/bin/cat", "cat", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	/* Wait until cat is running: its /proc/pid/exe changes. */
	for (int i = 0; i < 2000; i++) {
		char exe[64], target[256];
		ssize_t n;

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
		n = readlink(exe, target, sizeof(target) - 1);
		if (n > 0 && (target[n] = '\0', strstr(target, "cat")))
			break;
		usleep(1000);
	}
	ck_assert_int_eq(kernel_soft_limit(pid), 64);
	close(p[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* At soft limit 0 a virtual descriptor gets EMFILE, as dup does. */
START_TEST(limit_zero)
{
	int fd = open("/dev/null", O_RDONLY);
	struct rlimit rl;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	set_nofile(0, 0);
	errno = 0;
	ck_assert_int_eq(dup(fd), -1);
	ck_assert_int_eq(errno, EMFILE);
	errno = 0;
	ck_assert_int_eq(dup2(fd, (int)FD_UNSEQ_ALLOC), -1);
	ck_assert_int_eq(errno, EMFILE);
	errno = 0;
	ck_assert_int_eq(api_nonseqfd(fd, 0), -1);
	ck_assert_int_eq(errno, EMFILE);
	/* Back, for LeakSanitizer's check at exit, which opens files. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}
END_TEST

/* Expect call (an int expression) to fail with err. */
#define FAILS(call, err)                                                     \
	do {                                                                 \
		errno = 0;                                                   \
		long r_ = (long)(call);                                      \
		ck_assert_msg(r_ == -1 && errno == (err),                    \
			      "%s: %ld, errno %d (%s), expected %s", #call, r_, \
			      errno, strerror(errno), #err);                 \
	} while (0)

/* A backing descriptor's number is a number the process does not have. */
START_TEST(no_way_in)
{
	char path[64], buf[4] = "abc";
	struct stat st;
	int v = open("/tmp", O_TMPFILE | O_RDWR | O_UNSEQFD, 0600), b, sv[2];
	posix_spawn_file_actions_t fa;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { buf, 1 };
	struct msghdr msg = { 0 };
	struct cmsghdr *c;

	ck_assert(is_vfd(v));
	ck_assert_int_eq(write(v, "data", 4), 4);
	b = api_backing_fd(v);
	ck_assert_int_ge(b, 3);
	FAILS(fstat(b, &st), EBADF);
	FAILS(pread(b, buf, 1, 0), EBADF);
	FAILS(pwrite(b, "x", 1, 0), EBADF);
	FAILS(ftruncate(b, 0), EBADF);
	FAILS(read(b, buf, 1), EBADF);
	FAILS(lseek(b, 0, SEEK_SET), EBADF);
	FAILS(fchmod(b, 0644), EBADF);
	FAILS(fsync(b), EBADF);
	FAILS(fcntl(b, F_GETFL), EBADF);
	FAILS(openat(b, "x", O_RDONLY), EBADF);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", b);
	FAILS(open(path, O_RDONLY), ENOENT);
	FAILS(stat(path, &st), ENOENT);
	snprintf(path, sizeof(path), "/dev/fd/%d", b);
	FAILS(open(path, O_RDONLY), ENOENT);
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), b);
	FAILS(open(path, O_RDONLY), ENOENT);
	/* SCM_RIGHTS */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.space;
	msg.msg_controllen = sizeof(ctl.space);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &b, sizeof(int));
	FAILS(sendmsg(sv[0], &msg, 0), EBADF);
	/* posix_spawn file actions: refused when added. */
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, b, 5), EBADF);
	ck_assert_int_eq(posix_spawn_file_actions_destroy(&fa), 0);
	/* The library's file is untouched. */
	ck_assert_int_eq(pread(v, buf, 4, 0), 4);
	ck_assert_int_eq(memcmp(buf, "data", 4), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("placement");

	load_api(1);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, sequence_above_limit);
	tcase_add_test(tc, sequence_after_close_0);
	tcase_add_test(tc, sequence_limit_lowered_and_raised);
	tcase_add_test(tc, sequence_no_room);
	tcase_add_test(tc, sequence_room_full);
	tcase_add_test(tc, limit_view);
	tcase_add_test(tc, limit_child);
	tcase_add_test(tc, limit_zero);
	tcase_add_test(tc, no_way_in);
	suite_add_tcase(s, tc);
	return ufd_test_run_suite(s);
}
