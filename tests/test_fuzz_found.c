/* SPDX-License-Identifier: MIT */
/*
 * Description: what the fuzzer (tests/fuzz) and the review of its round
 * found, each case the smallest program that shows it, against the
 * kernel's answer (what the same calls give without ufd, stated in the
 * case).
 *
 *   dupfd_from_past_limit  F_DUPFD from a number at or past the
 *                          application's soft limit is EINVAL, also when
 *                          ufd has raised the kernel's limit over a
 *                          backing descriptor there (placement_cover) and
 *                          the kernel finds nothing free below it (EMFILE)
 *   rights_past_limit      a descriptor received with SCM_RIGHTS when every
 *                          number under the application's soft limit is
 *                          taken is not installed: MSG_CTRUNC, as the kernel
 *                          does at its own limit (ufd holds the kernel's
 *                          higher, with room for backing descriptors)
 *   fork_in_blocker        a child forked by a signal handler that
 *                          interrupted close_range inside ufd: its first
 *                          virtual descriptor makes no futex call, as in
 *                          any child (ufd's count of blockers went below
 *                          zero there, and every maker saw a blocker)
 *   close_in_dup2_onto     a signal handler closes a virtual descriptor
 *                          while its own thread dup2s onto it: no kernel
 *                          descriptor is left behind (the backing
 *                          descriptor the handler closed was made again by
 *                          the dup3 of replace_in_place, and forgotten)
 *   dup_cloexec_at_limit_0 dup at soft limit 0 under UFD_CLOEXEC is
 *                          EMFILE, the kernel's dup's answer (ufd makes
 *                          it F_DUPFD_CLOEXEC from 0, whose answer there is
 *                          EINVAL)
 *   rights_cloexec_std     under UFD_CLOEXEC a descriptor received with
 *                          SCM_RIGHTS on 0, 1 or 2 is not close-on-exec,
 *                          and msg_flags does not show the
 *                          MSG_CMSG_CLOEXEC ufd added (recvmsg and
 *                          recvmmsg)
 *   reopen_backing_keeps_lock  open("/proc/self/fd/B"), B a backing
 *                          descriptor of a file the process holds a
 *                          POSIX lock on: ENOENT, and the lock stays
 *                          (ufd opened the file and closed it again)
 *
 * A case whose bug is not fixed yet is listed in known_bugs with the
 * reason and left out (the run says so), unless UFD_TEST_KNOWN_BUGS is set
 * in the environment: then it runs, and fails until the fix is in.
 *
 * Runs under LD_PRELOAD=libufd.so (not linked); each case is a fork of its
 * own (Check's default), so the limits it sets stay in it.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_check.h"
#include "ufd_test.h"

/* Set the soft RLIMIT_NOFILE to soft, the hard one as it is. */
static void set_soft(rlim_t soft)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = soft;
	ck_assert_msg(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit(%lu): %s",
		      (unsigned long)soft, strerror(errno));
}

/*
 * Fuzz seed 1014 (--ops 300, UFD_MODE=all), shrunk.  A backing descriptor
 * placed while the soft limit was the hard one sits high; the limit is
 * lowered to 1024, and a dup2 onto its virtual descriptor makes ufd raise
 * the kernel's limit just over it (placement_cover).  F_DUPFD from that
 * number: the kernel, without ufd, answers EINVAL (from >= RLIMIT_NOFILE,
 * before it looks for a free number); under ufd the kernel's own limit let
 * the call through, found nothing free up to it, and its EMFILE came out.
 */
START_TEST(dupfd_from_past_limit)
{
	struct rlimit rl;
	int v, b, r;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 4096 || rl.rlim_max > (1 << 20))
		return; /* the hard limit leaves no room for the case */
	set_soft(rl.rlim_max);
	v = dup2(0, FD_UNSEQ_ALLOC);
	ck_assert_msg(is_vfd(v), "dup2(0, FD_UNSEQ_ALLOC): %d (%s)", v, strerror(errno));
	b = api_backing_fd(v);
	ck_assert_int_ge(b, 2048);
	set_soft(1024);
	ck_assert_int_eq(dup2(1, v), v);
	errno = 0;
	r = fcntl(0, F_DUPFD_CLOEXEC, b);
	ck_assert_msg(r == -1 && errno == EINVAL,
		      "F_DUPFD_CLOEXEC from %d at soft limit 1024: %d (%s), the "
		      "kernel's answer EINVAL", b, r, strerror(errno));
	errno = 0;
	r = fcntl(0, F_DUPFD, b);
	ck_assert_msg(r == -1 && errno == EINVAL,
		      "F_DUPFD from %d at soft limit 1024: %d (%s), the kernel's "
		      "answer EINVAL", b, r, strerror(errno));
}
END_TEST

/*
 * Review of this round.  Once ufd has raised the kernel's limit (its first
 * backing descriptor), the kernel's own limit is above the application's.
 * Every call that makes a descriptor checks the new number against the
 * application's (EMFILE past it), but recvmsg in transparent mode is a
 * tail call: a descriptor received when the numbers below the application's
 * limit are all taken lands past it.  The kernel alone installs none:
 * MSG_CTRUNC, no SCM_RIGHTS header, msg_controllen 0 (scm_detach_fds).
 */
START_TEST(rights_past_limit)
{
	char cbuf[CMSG_SPACE(sizeof(int))], rbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec io = { "x", 1 }, rio = { &b, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof cbuf };
	struct msghdr rm = { .msg_iov = &rio, .msg_iovlen = 1,
			     .msg_control = rbuf, .msg_controllen = sizeof rbuf };
	struct cmsghdr *c;
	int sv[2], v, fd, got;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	/* the first backing descriptor: ufd raises the kernel's limit */
	v = dup2(0, FD_UNSEQ_ALLOC);
	ck_assert_msg(is_vfd(v), "dup2(0, FD_UNSEQ_ALLOC): %d (%s)", v, strerror(errno));
	set_soft(64);
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		ck_assert_int_lt(fd, 64);
	ck_assert_int_eq(errno, EMFILE);
	memset(cbuf, 0, sizeof cbuf);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &(int){ 0 }, sizeof(int));
	ck_assert_int_eq(sendmsg(sv[0], &m, 0), 1);
	memset(rbuf, 0, sizeof rbuf);
	ck_assert_int_eq(recvmsg(sv[1], &rm, MSG_CMSG_CLOEXEC), 1);
	c = CMSG_FIRSTHDR(&rm);
	got = -1;
	if (c && c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(sizeof(int)))
		memcpy(&got, CMSG_DATA(c), sizeof(int));
	ck_assert_msg((rm.msg_flags & MSG_CTRUNC) && got < 0 && rm.msg_controllen == 0,
		      "recvmsg at a full table (soft limit 64): msg_flags %#x, "
		      "msg_controllen %zu, received descriptor %d; the kernel's "
		      "answer MSG_CTRUNC, 0, none", rm.msg_flags,
		      (size_t)rm.msg_controllen, got);
}
END_TEST

/*
 * Review of this round.  fork_child sets `making` (vfd_table.c) to zero:
 * the other threads' makers and blockers are not in the child.  But a
 * fork from a signal handler that interrupted this thread between
 * block_makers and unblock_makers leaves that blocker in the child, and
 * its unblock_makers took BLOCKER_ONE off zero: 0xffff0000, "65535
 * blockers".  From then on every maker in the child sees a blocker (makes
 * its backing descriptor inside the lock and wakes the futex for nobody);
 * and a blocker's BLOCKER_ONE wraps the word to zero, so that while it
 * runs, makers in other threads see none and make outside the lock: the
 * race the word is there to close.
 *
 * Deterministic here: closing a pipe's write end sends SIGIO to the owner
 * of its O_ASYNC read end, delivered as close_range returns, inside ufd's
 * blocker section; the handler forks.  The child then makes a virtual
 * descriptor under a seccomp filter that kills it at a futex call, which
 * an uncontended maker never makes.
 */
static pid_t forked = -1;

static void fork_on_sigio(int sig)
{
	(void)sig;
	if (forked < 0)
		forked = fork();
}

START_TEST(fork_in_blocker)
{
	struct sock_filter insns[] = {
		/* only the number is looked at, on every architecture */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_futex, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };
	struct sigaction sa = { .sa_handler = fork_on_sigio };
	pid_t parent = getpid();
	int p[2], st;

	if (skip_under_emulator("fork_in_blocker", "qemu-user has no seccomp"))
		return;

	ck_assert_int_eq(sigaction(SIGIO, &sa, NULL), 0);
	/* a virtual descriptor: close_range goes through ufd's table */
	ck_assert(is_vfd(api_nonseqfd(0, 0)));
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(fcntl(p[0], F_SETOWN, getpid()), 0);
	ck_assert_int_eq(fcntl(p[0], F_SETFL, O_ASYNC), 0);
	ck_assert_int_eq(close_range((unsigned)p[1], (unsigned)p[1], 0), 0);
	if (getpid() != parent) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
			_exit(3);
		_exit(is_vfd(api_nonseqfd(0, 0)) ? 0 : 4);
	}
	ck_assert_msg(forked > 0, "no SIGIO, or fork failed");
	ck_assert_int_eq(waitpid(forked, &st, 0), forked);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "the child of a fork from a handler inside close_range: %s %d "
		      "(SIGSYS: a futex call making a virtual descriptor)",
		      WIFSIGNALED(st) ? "killed by signal" : "exit status",
		      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}
END_TEST

/*
 * Review of this round.  dup2(x, v) onto an open virtual descriptor v is
 * replace_in_place (vfd_table.c): with the table lock held, dup3(x, its
 * backing B).  A signal handler that interrupts that thread between the
 * slot's read and the dup3 and closes v (release_deferred: the slot marked
 * closed, B closed) sees its close stand, but the dup3 then makes B again
 * (a free number now) and nobody closes it: the slot's pending close drops
 * B from the reverse map, and B stays open in the kernel for good.  Timer
 * signals land in that window a few times in a thousand; the case counts
 * the kernel's descriptors (raw getdents64, backing ones included) before
 * and after 2,000 such closes.  An asynchronous window: no deterministic
 * trigger, but at that rate 2,000 closes leak a dozen or so.
 */
static volatile int closing_vfd = -1;
static volatile long handler_closes;

static void close_on_timer(int sig)
{
	int saved = errno;

	(void)sig;
	if (closing_vfd >= 0 && close(closing_vfd) == 0)
		handler_closes++;
	errno = saved;
}

START_TEST(close_in_dup2_onto)
{
	struct sigaction sa = { .sa_handler = close_on_timer, .sa_flags = SA_RESTART };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	struct itimerspec it = { { 0, 50000 }, { 0, 50000 } };
	int x = open("/dev/null", O_RDONLY | O_CLOEXEC), v, before, after, fds[4096];
	timer_t t;

	ck_assert_int_ge(x, 0);
	v = dup2(x, FD_UNSEQ_ALLOC);
	ck_assert(is_vfd(v));
	before = kernel_fd_list(fds, 4096);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	closing_vfd = v;
	ck_assert_int_eq(timer_create(CLOCK_MONOTONIC, &ev, &t), 0);
	ck_assert_int_eq(timer_settime(t, 0, &it, NULL), 0);
	/* replaced in place, or made again where the handler closed it */
	for (long i = 0; handler_closes < 2000 && i < 50000000; i++) {
		int r = dup2(x, v);

		ck_assert_msg(r == v || (r < 0 && errno == EBUSY), "dup2 onto %d: %d (%s)",
			      v, r, strerror(errno));
	}
	timer_delete(t);
	closing_vfd = -1;
	if (fcntl(v, F_GETFD) < 0)
		ck_assert_int_eq(dup2(x, v), v);
	after = kernel_fd_list(fds, 4096);
	ck_assert_msg(after == before,
		      "%d kernel descriptors before, %d after %ld closes of %d by a "
		      "signal handler during dup2 onto it", before, after,
		      handler_closes, v);
}
END_TEST

/* Is there a POSIX lock on path's whole file, as another process sees
 * it (F_GETLK from a child: a process never conflicts with its own)? */
static int locked_from_child(const char *path)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(path, O_RDWR);

		_exit(fd >= 0 && fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

/*
 * Fuzz seeds 795 and 2534 (every mode), shrunk: a lock taken on a file;
 * open("/proc/self/fd/B") with B a backing descriptor of that file.  The
 * kernel, without ufd, answers ENOENT for a number the process does not
 * have, and the lock stays.  ufd opened the file, saw the path named a
 * backing descriptor, and closed what it had opened: that close dropped
 * the process's lock (the path was looked at after the open, and that
 * close asked nothing about locks).  Now, while the process may hold
 * record locks (posix_locks.h), an open's path is looked at before the
 * call (shim_fd.c's open_path_first: one process_vm_readv), so nothing is
 * opened.  Also: a path ending in an ordinary symbolic link (to a file,
 * to a directory with O_DIRECTORY) opens.
 */
START_TEST(reopen_backing_keeps_lock)
{
	char path[] = "/tmp/ufd-lock-XXXXXX", link[64], dirlink[64], by[64];
	const char *form[] = { "/proc/self/fd/", "/dev/fd/", "/proc/thread-self/fd/" };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = mkstemp(path), v, b, r;

	ck_assert_int_ge(fd, 0);
	v = api_nonseqfd(fd, 0);
	ck_assert_int_ge(v, 0);
	close(fd);
	b = api_backing_fd(v);
	ck_assert_int_ge(b, 0);
	ck_assert_int_eq(fcntl(v, F_SETLK, &fl), 0);
	ck_assert(locked_from_child(path));
	for (size_t i = 0; i < sizeof(form) / sizeof(form[0]); i++) {
		for (int flags = O_RDONLY; flags <= O_RDWR; flags++) {
			snprintf(by, sizeof(by), "%s%d", form[i], b);
			r = open(by, flags);
			ck_assert_msg(r < 0 && errno == ENOENT, "open(%s, %d): %d (%s)", by,
				      flags, r, strerror(errno));
			r = open(by, flags | O_DIRECTORY);
			ck_assert_msg(r < 0 && errno == ENOENT, "open(%s, %d|O_DIRECTORY): %d (%s)",
				      by, flags, r, strerror(errno));
			ck_assert_msg(locked_from_child(path), "lock lost after open(%s)", by);
		}
	}
	snprintf(link, sizeof(link), "%s.l", path);
	snprintf(dirlink, sizeof(dirlink), "%s.d", path);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(symlink("/tmp", dirlink), 0);
	r = open(link, O_RDONLY);
	ck_assert_msg(r >= 0, "open(link to a file): %s", strerror(errno));
	close(r); /* drops the lock: the application's own close */
	r = open(dirlink, O_RDONLY | O_DIRECTORY);
	ck_assert_msg(r >= 0, "open(link to a directory, O_DIRECTORY): %s", strerror(errno));
	close(r);
	r = open(link, O_RDONLY | O_DIRECTORY);
	ck_assert_msg(r < 0 && errno == ENOTDIR, "open(link to a file, O_DIRECTORY): %d (%s)",
		      r, strerror(errno));
	r = open(link, O_RDONLY | O_NOFOLLOW);
	ck_assert_msg(r < 0 && errno == ELOOP, "open(link, O_NOFOLLOW): %d (%s)", r,
		      strerror(errno));
	unlink(link);
	unlink(dirlink);
	unlink(path);
	close(v);
}
END_TEST

/*
 * Fuzz seed 87 (configuration cloexec), shrunk: setrlimit(soft 0);
 * dup(0).  The kernel's dup gives EMFILE; under UFD_CLOEXEC ufd made it
 * fcntl(0, F_DUPFD_CLOEXEC, 0), which gives EINVAL there (from >= the
 * limit).  Run in a program of its own, UFD_CLOEXEC being read at start-up:
 * this one again, with DUP_AT_LIMIT_0 (its exit status: 0, or the errno
 * that differed from the kernel's).
 */
#define DUP_AT_LIMIT_0 "--dup-at-limit-0"

static int dup_at_limit_0(void)
{
	struct rlimit rl;
	long kernel;
	int r, e;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 100;
	rl.rlim_cur = 0;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 101;
	errno = 0;
	r = dup(0);
	e = errno;
	kernel = ufd_sys6(SYS_dup, 0, 0, 0, 0, 0, 0);
	/* back, for what runs at exit (LeakSanitizer's reading of /proc) */
	rl.rlim_cur = rl.rlim_max < 1024 ? rl.rlim_max : 1024;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 104;
	if (kernel != -EMFILE)
		return 102;
	return r == -1 && e == EMFILE ? 0 : r >= 0 ? 103 : e;
}

/* This program again, with UFD_CLOEXEC=1 and mode (its first argument);
 * its wait status. */
static int run_with_cloexec(const char *mode)
{
	char *argv[] = { "test_fuzz_found", (char *)mode, NULL };
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("UFD_CLOEXEC", "1", 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(dup_cloexec_at_limit_0)
{
	int status = run_with_cloexec(DUP_AT_LIMIT_0);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "dup(0) at soft limit 0 under UFD_CLOEXEC: status %#x (exit %d: %s, "
		      "the kernel's dup says EMFILE)", status,
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		      WIFEXITED(status) ? strerrorname_np(WEXITSTATUS(status)) : "");
}
END_TEST

/*
 * Fuzz seeds 38 and 46 (configuration cloexec, op SCM_RIGHTS), shrunk:
 * under UFD_CLOEXEC ufd adds MSG_CMSG_CLOEXEC to recvmsg's flags.  The
 * kernel then echoes the flag in msg_flags, which the program's call
 * without it never shows (without ufd: 0); and a descriptor received on
 * 0, 1 or 2 kept the close-on-exec flag, which UFD_CLOEXEC never sets
 * there (ufd(7); without ufd: no flag).  Once with recvmsg, once with
 * recvmmsg; the exit status says which check failed, 0 if none.
 */
#define RIGHTS_STD "--rights-cloexec-std"

static int rights_cloexec_std_run(void)
{
	for (int mm = 0; mm < 2; mm++) {
		union {
			struct cmsghdr align;
			char bytes[CMSG_SPACE(sizeof(int))];
		} control;
		char byte = 'x';
		struct iovec iov = { &byte, 1 };
		struct mmsghdr m = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1,
						  .msg_control = control.bytes,
						  .msg_controllen = sizeof(control.bytes) } };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m.msg_hdr);
		int sv[2], fd = open("/dev/null", O_RDONLY), got = -1;
		long r;

		if (fd < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			return 10;
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
		if (sendmsg(sv[0], &m.msg_hdr, 0) != 1 || close(0) != 0)
			return 11;
		memset(&control, 0, sizeof(control));
		m.msg_hdr.msg_flags = 0;
		r = mm ? recvmmsg(sv[1], &m, 1, 0, NULL) : recvmsg(sv[1], &m.msg_hdr, 0);
		c = CMSG_FIRSTHDR(&m.msg_hdr);
		if (r != 1 || !c || c->cmsg_type != SCM_RIGHTS)
			return 12;
		memcpy(&got, CMSG_DATA(c), sizeof(int));
		if (got != 0)
			return 13;
		if (m.msg_hdr.msg_flags != 0)
			return 20 + mm; /* MSG_CMSG_CLOEXEC shown */
		if (fcntl(0, F_GETFD) != 0)
			return 30 + mm; /* close-on-exec on 0 */
		close(fd);
		close(sv[0]);
		close(sv[1]);
	}
	return 0;
}

START_TEST(rights_cloexec_std)
{
	int status = run_with_cloexec(RIGHTS_STD);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "a descriptor received on 0 under UFD_CLOEXEC: status %#x (exit %d: "
		      "20/21 recvmsg/recvmmsg showed MSG_CMSG_CLOEXEC in msg_flags, 30/31 "
		      "left 0 close-on-exec)", status,
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
END_TEST

/* Cases not fixed yet: left out unless UFD_TEST_KNOWN_BUGS is set. */
static const struct {
	const TTest *test;
	const char *why;
} known_bugs[] = {
	{ NULL, NULL },
};

static int is_known_bug(const TTest *t)
{
	for (size_t i = 0; known_bugs[i].test; i++)
		if (known_bugs[i].test == t) {
			if (getenv("UFD_TEST_KNOWN_BUGS"))
				return 0;
			printf("SKIP %s: known bug: %s (UFD_TEST_KNOWN_BUGS=1 runs it)\n",
			       t->name, known_bugs[i].why);
			return 1;
		}
	return 0;
}

static void add(TCase *tc, const TTest *t)
{
	if (!is_known_bug(t))
		tcase_add_test(tc, t);
}

int main(int argc, char **argv)
{
	Suite *s;
	TCase *tc;

	if (argc > 1 && !strcmp(argv[1], DUP_AT_LIMIT_0))
		return dup_at_limit_0();
	if (argc > 1 && !strcmp(argv[1], RIGHTS_STD))
		return rights_cloexec_std_run();
	s = suite_create("fuzz-found");
	tc = tcase_create("fuzz-found");

	load_api(1);
	tcase_set_timeout(tc, 60);
	add(tc, dupfd_from_past_limit);
	add(tc, rights_past_limit);
	add(tc, fork_in_blocker);
	add(tc, close_in_dup2_onto);
	add(tc, dup_cloexec_at_limit_0);
	add(tc, rights_cloexec_std);
	add(tc, reopen_backing_keeps_lock);
	suite_add_tcase(s, tc);
	return ufd_test_run_suite(s);
}
