/* SPDX-License-Identifier: MIT */
/*
 * Description: vfork under ufd.  A real vfork (the child runs in its
 * parent's memory, as the kernel's vfork does without ufd) while nothing
 * of ufd's is in play; fork while the process holds a virtual descriptor
 * or a close-on-fork mark, or has had a second thread; and in a child
 * that shares the memory, nothing ufd does outlives the child there:
 *
 *   shares_memory            nothing in play: the child's store is seen
 *                            by the parent (the kernel's vfork, as
 *                            without ufd)
 *   forks_with_virtual       a virtual descriptor open: a fork (the
 *                            child's store is not seen); still once it is
 *                            closed, since the kernel's limit stays raised
 *                            over the room for backing descriptors
 *   forks_with_mark          a close-on-fork mark on a real descriptor
 *   forks_with_threads       a second thread was ever made
 *   child_cannot_make        the child's nonseqfd, open(O_UNSEQFD),
 *                            dup2(FD_UNSEQ_ALLOC), FD_CLOFORK, dup3
 *                            (O_CLOFORK) fail with EBUSY; the parent's
 *                            table and descriptors are as before
 *   child_siginfo_handler    the child's SA_SIGINFO handler runs in the
 *                            child and does not replace the parent's
 *   child_exec               the child execs with an environment ufd
 *                            must rewrite (a stale UFD_HANDOFF): the parent's
 *                            table is not left locked and the mapping the
 *                            child made for it is freed
 *   nested_vfork_forks       a vfork child's own vfork is a fork: the
 *                            grandchild has memory of its own and may
 *                            make virtual descriptors
 *   child_killed_in_call     a child killed inside close_range (the
 *                            table lock held) leaves nothing held in the
 *                            parent
 *   failure_sets_errno       vfork refused: -1 and the kernel's errno,
 *                            the signal mask as it was
 *   handler_in_window        a parent's handler that would run between
 *                            vfork's decision and its system call (made
 *                            to, with a seccomp supervisor) runs after it:
 *                            the child never shares its virtual descriptor
 *   child_tid_not_kept       the thread id the child looks up is not
 *                            kept as the parent thread's (root: a pid
 *                            namespace gives a new thread the child's id)
 *   child_mask_not_parent    a child's own vfork leaves its parent's
 *                            signal mask alone
 *   mask_kept                the caller's signal mask in the child and,
 *                            after, in the parent
 *   child_killed_in_sigaction  a child killed inside ufd's sigaction
 *                            (holding the lock of the table of handlers)
 *                            leaves the lock free for the parent and its
 *                            later threads
 *   child_killed_in_fast_sigaction  children killed inside sigaction to
 *                            SIG_IGN leave the parent's lock-free change
 *                            to SIG_DFL/SIG_IGN as it was
 *
 * Runs under LD_PRELOAD=libufd.so (not linked); each case is a fork of its
 * own (Check's default), a single-threaded process with no virtual
 * descriptor when it starts.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_check.h"
#include "ufd_test.h"

extern char **environ;

/* What a vfork child stores, for its parent to read if they share. */
static volatile int stored;

/* vfork; the child stores 1 in `stored` and exits.  Returns whether the
 * parent sees the store: whether the two shared their memory. */
/* qemu-user runs vfork as fork, and has no seccomp: a case that needs
 * the child in its parent's memory, or a seccomp filter, is skipped there
 * (saying so); the others run, through ufd's vfork stub all the same. */
#define NEEDS_SHARED_VFORK(name)                                                  \
	if (skip_under_emulator(name, "qemu-user runs vfork as fork: the "        \
				"child does not share its parent's memory"))      \
	return
#define NEEDS_SECCOMP(name)                                                       \
	if (skip_under_emulator(name, "qemu-user has no seccomp"))                \
	return

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
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return stored;
}

START_TEST(shares_memory)
{
	/* Under qemu-user the vfork (through ufd's stub) runs, as a fork. */
	ck_assert_msg(child_store_seen() ||
		      skip_under_emulator("shares_memory's store", "qemu-user runs "
					  "vfork as fork: the child does not "
					  "share its parent's memory"),
		      "vfork did not share the memory");
}
END_TEST

START_TEST(forks_with_virtual)
{
	int v = api_nonseqfd(0, 0);

	ck_assert_int_ge(v, FD_UNSEQ_BASE);
	ck_assert_msg(!child_store_seen(), "shared with a virtual descriptor open");
	ck_assert_int_eq(close(v), 0);
	ck_assert_msg(!child_store_seen(), "shared with the limit raised");
}
END_TEST

START_TEST(forks_with_mark)
{
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_SETFD, FD_CLOFORK), 0);
	ck_assert_msg(!child_store_seen(), "shared with a close-on-fork mark");
	ck_assert_int_eq(close(fd), 0);
}
END_TEST

static void *idle(void *arg)
{
	return arg;
}

START_TEST(forks_with_threads)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, idle, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(!child_store_seen(), "shared in a process that had threads");
}
END_TEST

/* The child's results, in the memory it shares with the parent. */
static volatile int results[5], errnos[5];

START_TEST(child_cannot_make)
{
	NEEDS_SHARED_VFORK("child_cannot_make");
	int fd = open("/dev/null", O_RDONLY), before, status, v;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	before = kernel_fd_list(NULL, 0);
	ck_assert_int_ge(before, 0);
	pid = vfork();
	if (pid == 0) {
		int r[5];

		errno = 0;
		r[0] = api_nonseqfd(fd, 0);
		errnos[0] = errno;
		r[1] = open("/dev/null", O_RDONLY | O_UNSEQFD);
		errnos[1] = errno;
		r[2] = dup2(fd, (int)FD_UNSEQ_ALLOC);
		errnos[2] = errno;
		r[3] = fcntl(fd, F_SETFD, FD_CLOFORK);
		errnos[3] = errno;
		r[4] = dup3(fd, 100, O_CLOFORK);
		errnos[4] = errno;
		for (int i = 0; i < 5; i++)
			results[i] = r[i];
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 0; i < 5; i++) {
		ck_assert_msg(results[i] == -1 && errnos[i] == EBUSY,
			      "call %d in the vfork child: %d (%s)", i, results[i],
			      strerror(errnos[i]));
	}
	/* Nothing in the parent's table or descriptors. */
	ck_assert_int_eq(kernel_fd_list(NULL, 0), before);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOFORK, 0);
	ck_assert_int_eq(fcntl(100, F_GETFD), -1);
	ck_assert_msg(child_store_seen(), "the child's attempts left something in play");
	v = api_nonseqfd(fd, 0);
	ck_assert_int_ge(v, FD_UNSEQ_BASE);
	ck_assert_int_eq(close(v), 0);
	ck_assert_int_eq(close(fd), 0);
}
END_TEST

static volatile int parent_ran, child_ran;

static void parent_handler(int sig, siginfo_t *info, void *uc)
{
	(void)sig, (void)info, (void)uc;
	parent_ran++;
}

static void child_handler(int sig, siginfo_t *info, void *uc)
{
	(void)sig, (void)info, (void)uc;
	child_ran++;
}

START_TEST(child_siginfo_handler)
{
	NEEDS_SHARED_VFORK("child_siginfo_handler");
	struct sigaction act = { .sa_sigaction = parent_handler,
				 .sa_flags = SA_SIGINFO }, old;
	int status;
	pid_t pid;

	ck_assert_int_eq(sigaction(SIGUSR1, &act, NULL), 0);
	pid = vfork();
	if (pid == 0) {
		struct sigaction mine = { .sa_sigaction = child_handler,
					  .sa_flags = SA_SIGINFO };

		if (sigaction(SIGUSR1, &mine, NULL) != 0 || raise(SIGUSR1) != 0)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(child_ran, 1);
	ck_assert_int_eq(parent_ran, 0);
	ck_assert_int_eq(sigaction(SIGUSR1, NULL, &old), 0);
	ck_assert(old.sa_sigaction == parent_handler);
	ck_assert_int_eq(raise(SIGUSR1), 0);
	ck_assert_int_eq(parent_ran, 1);
	ck_assert_int_eq(child_ran, 1);
}
END_TEST

/* The bytes of this process's mappings, from /proc/self/maps read with
 * raw calls (no stdio buffer mapped meanwhile). */
static unsigned long mapped_bytes(void)
{
	static char buf[1 << 16];
	unsigned long total = 0, from, to;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps",
			      O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	long got;

	ck_assert_int_ge(fd, 0);
	while ((got = syscall(SYS_read, fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)got;
	syscall(SYS_close, fd);
	ck_assert_uint_lt(len, sizeof(buf) - 1);
	buf[len] = '\0';
	for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%lx-%lx", &from, &to) == 2)
			total += to - from;
	return total;
}

START_TEST(child_exec)
{
	NEEDS_SHARED_VFORK("child_exec");
	/* A stale hand-off entry, which ufd drops: a new environment. */
	char preload[4096], *argv[] = { "true", NULL },
			    *envp[] = { preload, "UFD_HANDOFF=2;1;", NULL };
	unsigned long before;
	int status, v;
	pid_t pid;

	/* ufd's LD_PRELOAD as it is (the ASan runtime first, in that build). */
	ck_assert_ptr_nonnull(getenv("LD_PRELOAD"));
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", getenv("LD_PRELOAD"));
	stored = 0;
	before = mapped_bytes();
	pid = vfork();
	if (pid == 0) {
		stored = 1;
		execve("/bin/true", argv, envp);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "/bin/true: status %#x", status);
	ck_assert_msg(stored, "vfork did not share the memory");
	ck_assert_uint_eq(mapped_bytes(), before);
	/* The table is not held by the child's exec. */
	v = api_nonseqfd(0, 0);
	ck_assert_int_ge(v, FD_UNSEQ_BASE);
	ck_assert_int_eq(close(v), 0);
}
END_TEST

static volatile int grandchild_stored, grandchild_made;

START_TEST(nested_vfork_forks)
{
	int status;
	pid_t pid;

	NEEDS_SHARED_VFORK("nested_vfork_forks");

	grandchild_stored = 0;
	grandchild_made = -1;
	pid = vfork();
	if (pid == 0) {
		int inner_status;
		pid_t inner = vfork();

		if (inner == 0) {
			int v = api_nonseqfd(0, 0);

			grandchild_stored = 1;
			_exit(v >= (int)FD_UNSEQ_BASE ? 0 : 1);
		}
		if (inner < 0 || waitpid(inner, &inner_status, 0) != inner)
			_exit(2);
		grandchild_made = WIFEXITED(inner_status) && WEXITSTATUS(inner_status) == 0;
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(!grandchild_stored, "the inner vfork shared the memory");
	ck_assert_msg(grandchild_made == 1, "the grandchild could not make a virtual descriptor");
	ck_assert_msg(child_store_seen(), "the outer vfork left something in play");
}
END_TEST

/* SIGUSR2 blocked in the caller's mask; *usr2 the set of it alone. */
static void block_usr2(sigset_t *usr2)
{
	sigemptyset(usr2);
	sigaddset(usr2, SIGUSR2);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, usr2, NULL), 0);
}

/* From now on, system call nr in this task (not its parent: a filter is
 * the calling task's) gets action, a SECCOMP_RET_ value.  Raw calls;
 * seccomp's result (with flags SECCOMP_FILTER_FLAG_NEW_LISTENER, the
 * listener). */
static int filter_call_flags(long nr, unsigned action, unsigned long flags)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };

	if (ufd_sys6(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) != 0)
		return -1;
	return (int)ufd_sys6(SYS_seccomp, SECCOMP_SET_MODE_FILTER, (long)flags,
			     (long)&prog, 0, 0, 0);
}

static int filter_call(long nr, unsigned action)
{
	return filter_call_flags(nr, action, 0);
}

/* A filter that answers action to a clone with CLONE_VFORK (ufd's vfork
 * is one: shim_vfork.c) and lets the other clones through (a sanitizer's
 * runtime makes its own, LeakSanitizer's at exit). */
static int filter_vfork(unsigned action)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
		/* The flags' low word (little-endian: x86_64, aarch64). */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_VFORK, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };

	if (ufd_sys6(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) != 0)
		return -1;
	return (int)ufd_sys6(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&prog, 0, 0, 0);
}

/*
 * A vfork child killed by a signal in the middle of a call that ufd's
 * wrapper makes under its table lock (close_range, as CPython's subprocess
 * makes between vfork and exec; a terminal's SIGINT reaches the child
 * too): here the kernel kills it in the system call itself.  Whatever ufd
 * held in the shared memory must not stay held in the parent.
 */
START_TEST(child_killed_in_call)
{
	struct rlimit no_core = { 0, 0 };
	int status, v;
	pid_t pid;

	NEEDS_SECCOMP("child_killed_in_call");

	stored = 0;
	pid = vfork();
	if (pid == 0) {
		stored = 1;
		if (ufd_sys6(SYS_prlimit64, 0, RLIMIT_CORE, (long)&no_core, 0, 0, 0) != 0 ||
		    filter_call(SYS_close_range, SECCOMP_RET_KILL_PROCESS) != 0)
			_exit(2);
		close_range(1000, ~0U, 0);
		_exit(3);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "child status %#x", status);
	ck_assert_msg(stored, "vfork did not share the memory");
	v = api_nonseqfd(0, 0);
	ck_assert_msg(v >= (int)FD_UNSEQ_BASE, "nonseqfd after the child's death: %d (%s)",
		      v, strerror(errno));
	ck_assert_int_eq(close(v), 0);
	ck_assert_int_eq(close_range(1000, ~0U, 0), 0);
}
END_TEST

/* vfork's system call refused (EAGAIN, as for RLIMIT_NPROC): -1 and the
 * kernel's errno, nothing left in play. */
START_TEST(failure_sets_errno)
{
	NEEDS_SECCOMP("failure_sets_errno");
	sigset_t usr2, now;
	pid_t pid;
	int v;

	block_usr2(&usr2);
	ck_assert_int_eq(filter_vfork(SECCOMP_RET_ERRNO | EAGAIN), 0);
	errno = 0;
	pid = vfork();
	ck_assert_int_eq(pid, -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* The caller's signal mask, as it was. */
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	ck_assert(sigismember(&now, SIGUSR2) && !sigismember(&now, SIGUSR1));
	v = api_nonseqfd(0, 0);
	ck_assert_int_ge(v, FD_UNSEQ_BASE);
	ck_assert_int_eq(close(v), 0);
}
END_TEST

/* What the SIGUSR1 handler of handler_in_window made. */
static volatile int handler_made = -1;

static void make_one(int sig)
{
	(void)sig;
	handler_made = api_nonseqfd(0, 0);
}

/* The supervisor of handler_in_window: takes the listener of the
 * tracee's filter from sock; at the tracee's first rt_sigprocmask, sends
 * it SIGUSR1 (which interrupts the call before it changes the mask, runs
 * its handler, and restarts it); lets every other rt_sigprocmask go on,
 * until killed.  Raw calls. */
static void supervise(int sock, pid_t tracee)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int listener, first = 1;

	if (ufd_sys6(SYS_recvmsg, sock, (long)&msg, 0, 0, 0, 0) != 1 ||
	    !CMSG_FIRSTHDR(&msg))
		_exit(2);
	memcpy(&listener, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ufd_sys6(SYS_ioctl, listener, (long)SECCOMP_IOCTL_NOTIF_RECV,
			     (long)&req, 0, 0, 0) != 0)
			continue;
		if (first && req.pid == (unsigned)tracee) {
			/* Not let go: the signal abandons the call, which
			 * comes back, with a new id, once the handler has
			 * run.  Let go now, the call could block the signal
			 * before it is delivered. */
			first = 0;
			ufd_sys6(SYS_kill, tracee, SIGUSR1, 0, 0, 0, 0);
			continue;
		}
		resp = (struct seccomp_notif_resp){ .id = req.id,
						    .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
		ufd_sys6(SYS_ioctl, listener, (long)SECCOMP_IOCTL_NOTIF_SEND,
			 (long)&resp, 0, 0, 0);
	}
}

/*
 * A signal handler of the parent that runs after vfork has found a real
 * one possible (vfd_vfork_allowed), before the signals are blocked (an
 * asynchronous signal, delivered at vfork's rt_sigprocmask, made to wait
 * for a supervisor), and makes a virtual descriptor: the second look,
 * with the signals blocked, must see it and fork, or the child shares a
 * table with it in and its close takes the parent's.
 */
START_TEST(handler_in_window)
{
	NEEDS_SECCOMP("handler_in_window");
	char data = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int sv[2], listener, status;
	pid_t me = getpid(), sup, pid;

	ck_assert_ptr_ne(signal(SIGUSR1, make_one), SIG_ERR);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	sup = fork();
	ck_assert_int_ge(sup, 0);
	if (sup == 0) {
		/* Until the tracee is gone: every rt_sigprocmask of its, to
		 * the sanitizers' at its exit, waits for this process. */
		ufd_sys6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
		supervise(sv[1], me);
	}
	listener = filter_call_flags(SYS_rt_sigprocmask, SECCOMP_RET_USER_NOTIF,
				     SECCOMP_FILTER_FLAG_NEW_LISTENER);
	ck_assert_int_ge(listener, 0);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof(int));
	ck_assert_int_eq(ufd_sys6(SYS_sendmsg, sv[0], (long)&msg, 0, 0, 0, 0), 1);
	ufd_sys6(SYS_close, listener, 0, 0, 0, 0, 0);

	pid = vfork();
	if (pid == 0) {
		/* The parent's, if its handler has run. */
		if (handler_made >= 0)
			close(handler_made);
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(handler_made >= (int)FD_UNSEQ_BASE, "the handler made %d",
		      handler_made);
	ck_assert_msg(fcntl(handler_made, F_GETFD) >= 0,
		      "the child closed the parent's virtual descriptor %d",
		      handler_made);
	ck_assert_int_eq(close(handler_made), 0);
}
END_TEST

/* child_tid_not_kept's FIFO, and the thread that spawns with it. */
static char fifo[64];

/* This thread's directory in /proc, whose pid namespace is not this
 * process's: "/proc/<pid>/task/<tid>". */
static void task_dir(char *dir, size_t size)
{
	long n;

	memcpy(dir, "/proc/", 6);
	n = ufd_sys6(SYS_readlinkat, AT_FDCWD, (long)"/proc/thread-self",
		     (long)dir + 6, (long)size - 7, 0, 0);
	dir[n > 0 ? 6 + n : 6] = '\0';
}

static char main_dir[64], spawner_dir[64];
static volatile int spawner_known;

static void *spawn_blocked(void *arg)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "true", NULL };
	pid_t pid;
	int status;

	(void)arg;
	task_dir(spawner_dir, sizeof(spawner_dir));
	spawner_known = 1;
	/* The spawn's child blocks in its open of the FIFO until a writer
	 * comes, and this thread with it, in posix_spawn: ufd's table lock
	 * held, under this thread's id. */
	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 0, fifo, O_RDONLY, 0) != 0 ||
	    posix_spawn(&pid, "/bin/true", &fa, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) != pid)
		return (void *)1;
	return NULL;
}

/* The state letter of the thread of task_dir dir, or '?'. */
static char task_state(const char *dir)
{
	char path[96], buf[256], *p;
	int fd;
	long n;

	snprintf(path, sizeof(path), "%s/stat", dir);
	fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return '?';
	n = ufd_sys6(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	ufd_sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

static volatile int main_done;

/* Lets the FIFO's reader go once the main thread sleeps (waiting for the
 * lock, as it should), or once it is done (refused at once). */
static void *release_fifo(void *arg)
{
	int fd;

	(void)arg;
	while (!main_done && task_state(main_dir) != 'S')
		sched_yield();
	fd = open(fifo, O_WRONLY);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* In a new pid namespace, its pid 1: see child_tid_not_kept. */
static int tid_case(void)
{
	pthread_t spawner, releaser;
	void *spawn_failed;
	int status, fd, v, err;
	pid_t pid;

	pid = vfork();
	if (pid == 0) {
		close_range(1000, ~0U, 0); /* ufd looks up its thread id */
		_exit(0);
	}
	if (pid != 2 || waitpid(pid, &status, 0) != pid)
		return 2;
	/* The next thread gets the child's id, 2. */
	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		return 3;
	close(fd);
	task_dir(main_dir, sizeof(main_dir));
	if (pthread_create(&spawner, NULL, spawn_blocked, NULL) != 0)
		return 4;
	/* Until the spawner waits in posix_spawn (for its child, in open). */
	while (!spawner_known || task_state(spawner_dir) != 'D')
		sched_yield();
	if (pthread_create(&releaser, NULL, release_fifo, NULL) != 0)
		return 5;
	v = api_nonseqfd(0, 0);
	err = errno;
	main_done = 1;
	if (pthread_join(releaser, NULL) != 0 ||
	    pthread_join(spawner, &spawn_failed) != 0 || spawn_failed)
		return 6;
	if (v < (int)FD_UNSEQ_BASE) {
		fprintf(stderr, "nonseqfd while another thread held the lock: %d (%s)\n", v,
		       strerror(err));
		return 1;
	}
	return 0;
}

/*
 * ufd looks up a thread's id once and keeps it in a thread-local, which a
 * vfork child shares with its parent's thread: the child's id, kept,
 * became the parent thread's, and once a new thread got that id (pids are
 * reused), each took the other's hold of the table lock for its own
 * (EBUSY).  In a pid namespace of its own (root), where the next id can be
 * chosen.
 */
START_TEST(child_tid_not_kept)
{
	int status;
	pid_t pid;

	NEEDS_SHARED_VFORK("child_tid_not_kept");

	snprintf(fifo, sizeof(fifo), "/tmp/ufd-test-vfork-%d", (int)getpid());
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* The namespace's maker in a child of its own: once the
	 * namespace's pid 1 is gone, the maker can make no process (nor
	 * LeakSanitizer's thread at exit). */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pid_t init;

		if (unshare(CLONE_NEWPID) != 0) {
			printf("skipped: child_tid_not_kept: unshare(CLONE_NEWPID): %s\n",
			       strerror(errno));
			fflush(stdout);
			_exit(77);
		}
		init = fork();
		if (init == 0)
			_exit(tid_case());
		_exit(init > 0 && waitpid(init, &status, 0) == init && WIFEXITED(status)
			      ? WEXITSTATUS(status) : 10);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	unlink(fifo);
	ck_assert_msg(WIFEXITED(status) &&
			      (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77),
		      "status %#x", status);
}
END_TEST

/* The caller's signal mask, in the child (ufd blocks every signal until
 * the system call) and in the parent after a real vfork. */
START_TEST(mask_kept)
{
	static volatile int child_mask_ok;
	sigset_t usr2, now;
	int status;
	pid_t pid;

	NEEDS_SHARED_VFORK("mask_kept");

	block_usr2(&usr2);
	child_mask_ok = 0;
	stored = 0;
	pid = vfork();
	if (pid == 0) {
		sigset_t mine;

		stored = 1;
		child_mask_ok = sigprocmask(SIG_BLOCK, NULL, &mine) == 0 &&
				sigismember(&mine, SIGUSR2) && !sigismember(&mine, SIGUSR1);
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(stored, "vfork did not share the memory");
	ck_assert_msg(child_mask_ok, "the child's mask is not the caller's");
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	ck_assert(sigismember(&now, SIGUSR2) && !sigismember(&now, SIGUSR1));
}
END_TEST

/* A vfork child that blocks a signal and vforks (a fork, there): its
 * parent's signal mask is its own still. */
START_TEST(child_mask_not_parent)
{
	sigset_t usr2, now;
	int status;
	pid_t pid;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pid = vfork();
	if (pid == 0) {
		pid_t inner;

		if (sigprocmask(SIG_BLOCK, &usr2, NULL) != 0)
			_exit(2);
		inner = vfork();
		if (inner == 0)
			_exit(0);
		_exit(inner > 0 && waitpid(inner, &status, 0) == inner ? 0 : 3);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	ck_assert_msg(!sigismember(&now, SIGUSR2), "the child's mask is the parent's");
}
END_TEST

/*
 * A vfork child killed inside sigaction: ufd's sigaction holds its own
 * lock (sig_lock_word, every signal blocked) around the real call; the
 * kernel kills the child in rt_sigaction itself (as a SIGKILL could).  The
 * parent's next sigaction must not wait for it forever.
 */
static void ignore_signal(int sig)
{
	(void)sig;
}

static void *install_in_thread(void *arg)
{
	struct sigaction act = { .sa_handler = ignore_signal };

	*(int *)arg = sigaction(SIGUSR2, &act, NULL) == 0;
	return NULL;
}

/* A vfork child that the kernel kills in rt_sigaction, inside ufd's
 * sigaction(SIGUSR1, act). */
static void child_killed_in(const struct sigaction *act)
{
	struct rlimit no_core = { 0, 0 };
	int status;
	pid_t pid = vfork();

	if (pid == 0) {
		if (ufd_sys6(SYS_prlimit64, 0, RLIMIT_CORE, (long)&no_core, 0, 0, 0) != 0 ||
		    filter_call(SYS_rt_sigaction, SECCOMP_RET_KILL_PROCESS) != 0)
			_exit(2);
		sigaction(SIGUSR1, act, NULL);
		_exit(3);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "child status %#x", status);
}

START_TEST(child_killed_in_sigaction)
{
	struct timespec until;
	int done = 0;
	pthread_t t;
	/* A handler: SIG_DFL and SIG_IGN take no lock. */
	struct sigaction act = { .sa_handler = ignore_signal };

	NEEDS_SECCOMP("child_killed_in_sigaction");

	child_killed_in(&act);
	ck_assert_int_eq(sigaction(SIGUSR1, &act, NULL), 0);
	/* And another thread's: the lock is not left held in this thread's
	 * name either. */
	ck_assert_int_eq(pthread_create(&t, NULL, install_in_thread, &done), 0);
	ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &until), 0);
	until.tv_sec += 10;
	ck_assert_msg(pthread_timedjoin_np(t, NULL, &until) == 0,
		      "another thread's sigaction still waits for the child's lock");
	ck_assert_int_eq(done, 1);
}
END_TEST

/*
 * sigaction to SIG_DFL or SIG_IGN takes no lock and blocks no signal in a
 * single-threaded process (shim_signal.c, "the fast change"): it keeps a
 * record of the change in the thread's memory, one deeper per nested
 * change, at most FAST_MAX (4) deep, past which it takes the slow change
 * (rt_sigprocmask around a lock).  A vfork child runs on its parent's
 * thread memory: one killed inside the fast change left the parent's
 * depth one higher, and after four such children the parent's thread
 * blocked signals for every later change.  Seen from a fork child in
 * which rt_sigprocmask kills the process.
 */
START_TEST(child_killed_in_fast_sigaction)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct rlimit no_core = { 0, 0 };
	int status;
	pid_t pid;

	NEEDS_SECCOMP("child_killed_in_fast_sigaction");

	for (int i = 0; i < 5; i++)
		child_killed_in(&ign);
	pid = fork();
	if (pid == 0) {
		if (ufd_sys6(SYS_prlimit64, 0, RLIMIT_CORE, (long)&no_core, 0, 0, 0) != 0 ||
		    filter_call(SYS_rt_sigprocmask, SECCOMP_RET_KILL_PROCESS) != 0)
			_exit(2);
		_exit(sigaction(SIGUSR1, &ign, NULL) == 0 ? 0 : 3);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "sigaction(SIG_IGN) after the children: status %#x (SIGSYS: it "
		      "blocked signals)", status);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vfork");
	TCase *tc = tcase_create("vfork");

	load_api(1);
	tcase_add_test(tc, shares_memory);
	tcase_add_test(tc, forks_with_virtual);
	tcase_add_test(tc, forks_with_mark);
	tcase_add_test(tc, forks_with_threads);
	tcase_add_test(tc, child_cannot_make);
	tcase_add_test(tc, child_siginfo_handler);
	tcase_add_test(tc, child_exec);
	tcase_add_test(tc, nested_vfork_forks);
	tcase_add_test(tc, child_killed_in_call);
	tcase_add_test(tc, failure_sets_errno);
	tcase_add_test(tc, handler_in_window);
	tcase_add_test(tc, child_tid_not_kept);
	tcase_add_test(tc, child_mask_not_parent);
	tcase_add_test(tc, mask_kept);
	tcase_add_test(tc, child_killed_in_sigaction);
	tcase_add_test(tc, child_killed_in_fast_sigaction);
	suite_add_tcase(s, tc);
	return ufd_test_run_suite(s);
}
