/* SPDX-License-Identifier: MIT */
/*
 * Description: a child made with CLONE_FILES and without CLONE_VM shares
 * the kernel's descriptor table with its parent but not ufd's (issue 25,
 * item 2; LTP's close_range01).  The child closes a descriptor, with
 * close or close_range; the parent then asks about it with F_GETFD,
 * F_SETFD, FIOCLEX or close, and must get the kernel's EBADF, though its
 * own ufd table still held the descriptor (ufd answers those calls from
 * its flags: it now asks the kernel whether the backing descriptor is
 * still open, vfd_shared.h).
 *
 * Each case, in a process of its own: a descriptor of /dev/null, made by
 * open (virtual under UFD_MODE=all) or by nonseqfd (virtual in every mode;
 * only under ufd); a child made by glibc's clone() or by
 * syscall(SYS_clone) (fork-like: it returns in the child, on a copy of
 * the stack), which closes it; the parent's question.
 *
 * The child may also close it and open another file, which under ufd
 * may take the number the close freed: the parent's descriptor is still
 * closed (fstat, F_GETFD say EBADF), also after the parent opens a file
 * itself.  Or the child sets or clears close-on-exec (close_range with
 * CLOSE_RANGE_CLOEXEC, F_SETFD): the parent's F_GETFD, and its exec,
 * see it (ufd(7), "Processes": the kernel's flag of the backing
 * descriptor is the virtual descriptor's while the table is shared).
 *
 * Also, a child made by either method without CLONE_FILES (nor CLONE_VM)
 * has memory of its own, though no fork handler ran in it: its exec
 * hands its descriptor on to the new program (this program's --check),
 * as a fork child's does.
 *
 * The meson tests run it under LD_PRELOAD=libufd.so in each mode, and
 * without ufd (the kernel's answers, which the same checks must accept).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ufd_test.h"

#define STACK_SIZE (256 * 1024)
#define CASE_SECONDS 10

enum kind { K_OPEN, K_NONSEQFD, K_COUNT };
static const char *const kind_name[K_COUNT] = { "open", "nonseqfd" };

enum method { M_GLIBC, M_SYSCALL, M_COUNT };
static const char *const method_name[M_COUNT] = { "clone()", "syscall(SYS_clone)" };

/* What the child does to the descriptor. */
enum act { A_CLOSE, A_CLOSE_RANGE, A_CLOSE_OPEN, A_RANGE_CLOEXEC, A_SETFD_CLOEXEC,
	   A_SETFD_0, A_COUNT };
static const char *const act_name[A_COUNT] = { "close", "close_range",
					       "close+open(/dev/zero)",
					       "close_range(CLOEXEC)",
					       "F_SETFD(FD_CLOEXEC)", "F_SETFD(0)" };

/* What the parent asks afterwards (after a close: EBADF expected, also
 * once the parent has opened a file itself, which may get the number
 * the close freed; after the close-on-exec ones, F_GETFD says what the
 * child set, and so does an exec: the new program has the descriptor or
 * not). */
enum ask { Q_GETFD, Q_SETFD, Q_FIOCLEX, Q_CLOSE, Q_FSTAT, Q_OPEN_FSTAT, Q_EXEC, Q_COUNT };
static const char *const ask_name[Q_COUNT] = { "F_GETFD", "F_SETFD", "FIOCLEX",
					       "close", "fstat", "open+fstat", "exec" };

static int the_fd = -1;
static enum act the_act;
static char self[4096], fd_s[16];

/* The child that execs: this program's --check of the_fd. */
static int child_exec(void *arg)
{
	char *argv[] = { self, "--check", fd_s, NULL };

	(void)arg;
	execv(self, argv);
	return 126;
}

/* A child by method m without CLONE_FILES execs; 0 if the new program has
 * the descriptor, else 1. */
static int exec_case(enum kind k, enum method m)
{
	char *stack;
	int status;
	pid_t pid;

	the_fd = open("/dev/null", O_RDONLY);
	if (the_fd < 0)
		return perror("open"), 1;
	if (k == K_NONSEQFD) {
		int v;

		if (!api_nonseqfd)
			return 77;
		v = api_nonseqfd(the_fd, 0);
		if (v < 0)
			return perror("nonseqfd"), 1;
		close(the_fd);
		the_fd = v;
	}
	snprintf(fd_s, sizeof(fd_s), "%d", the_fd);
	if (m == M_GLIBC) {
		stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			return perror("mmap"), 1;
		pid = clone(child_exec, stack + STACK_SIZE, SIGCHLD, NULL);
	} else {
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
		if (pid == 0)
			_exit(child_exec(NULL));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return perror("clone"), 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	fprintf(stderr, "the exec'd program has not %d (status %#x)\n", the_fd, status);
	return 1;
}

static int child_act(void *arg)
{
	(void)arg;
	switch (the_act) {
	case A_CLOSE:
		return close(the_fd) == 0 ? 0 : 1;
	case A_CLOSE_RANGE:
		return close_range((unsigned)the_fd, (unsigned)the_fd, 0) == 0 ? 0 : 1;
	case A_RANGE_CLOEXEC:
		return close_range((unsigned)the_fd, (unsigned)the_fd,
				   CLOSE_RANGE_CLOEXEC) == 0 ? 0 : 1;
	case A_SETFD_CLOEXEC:
		return fcntl(the_fd, F_SETFD, FD_CLOEXEC) == 0 ? 0 : 1;
	case A_SETFD_0:
		return fcntl(the_fd, F_SETFD, 0) == 0 ? 0 : 1;
	case A_CLOSE_OPEN:
		/* Kept open: the child's exit does not close it, the table
		 * being its parent's too.  Under ufd it may be made on the
		 * backing number the close freed. */
		return close(the_fd) == 0 && open("/dev/zero", O_RDONLY) >= 0 ? 0 : 1;
	default:
		return 1;
	}
}

/* The child by method m, run to its end: 0, or 1 (said why). */
static int run_child(enum method m)
{
	char *stack;
	int status;
	pid_t pid;

	if (m == M_GLIBC) {
		stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			return perror("mmap"), 1;
		pid = clone(child_act, stack + STACK_SIZE, CLONE_FILES | SIGCHLD, NULL);
	} else {
		pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
		if (pid == 0)
			_exit(child_act(NULL));
	}
	if (pid < 0)
		return perror("clone"), 1;
	if (waitpid(pid, &status, 0) != pid)
		return perror("waitpid"), 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "the child's %s failed (status %#x)\n",
			act_name[the_act], status);
		return 1;
	}
	return 0;
}

static int ebadf(int r, const char *what)
{
	if (r == -1 && errno == EBADF)
		return 0;
	fprintf(stderr, "%s: %d (%s), not EBADF\n", what, r, r < 0 ? strerror(errno) : "-");
	return 1;
}

/* The parent execs this program's --check of the_fd: 1 if the new
 * program has it, 0 if not, -1 on failure. */
static int exec_has(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { self, "--check", fd_s, NULL };

		execv(self, argv);
		_exit(126);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1)
		return -1;
	return WEXITSTATUS(status) == 0;
}

/* One case: 0 pass, 1 fail, 77 skipped. */
static int run_case(enum kind k, enum method m, enum act a, enum ask q)
{
	struct stat st, zero;
	int r, want, virt;

	the_fd = open("/dev/null", O_RDONLY | (a == A_SETFD_0 ? O_CLOEXEC : 0));
	if (the_fd < 0)
		return perror("open"), 1;
	if (k == K_NONSEQFD) {
		if (!api_nonseqfd)
			return 77;
		r = api_nonseqfd(the_fd, a == A_SETFD_0 ? 0x1 /* NONSEQFD_CLOEXEC */ : 0);
		if (r < 0)
			return perror("nonseqfd"), 1;
		close(the_fd);
		the_fd = r;
	}
	snprintf(fd_s, sizeof(fd_s), "%d", the_fd);
	virt = api_is_virtual && api_is_virtual(the_fd) == 1;
	the_act = a;
	if (run_child(m))
		return 1;
	if (a == A_RANGE_CLOEXEC || a == A_SETFD_CLOEXEC || a == A_SETFD_0) {
		want = a == A_SETFD_0 ? 0 : FD_CLOEXEC;
		if (q == Q_EXEC) {
			r = exec_has();
			if (r == !want)
				return 0;
			fprintf(stderr, "exec: the new program %s it\n",
				r < 0 ? "failed on" : r ? "has" : "has not");
			return 1;
		}
		r = fcntl(the_fd, F_GETFD);
		if (r >= 0 && (r & FD_CLOEXEC) == want)
			return 0;
		fprintf(stderr, "F_GETFD: %d, not %d\n", r, want);
		return 1;
	}
	if (q == Q_OPEN_FSTAT) {
		r = open("/dev/zero", O_RDONLY);
		if (r < 0)
			return perror("the parent's open of /dev/zero"), 1;
	}
	/* A real number the kernel has given /dev/zero since (the lowest
	 * free one) is that file now (under UFD_MODE=random, which gives
	 * real numbers at random, it may also still be closed); a virtual
	 * one only ufd gives, at random: still closed. */
	if (!virt && (a == A_CLOSE_OPEN || q == Q_OPEN_FSTAT)) {
		const char *mode = getenv("UFD_MODE");

		r = fstat(the_fd, &st);
		if (r == 0 && stat("/dev/zero", &zero) == 0 && st.st_rdev == zero.st_rdev)
			return 0;
		if (r < 0 && errno == EBADF && mode && !strcmp(mode, "random"))
			return 0;
		return fprintf(stderr, "%d is not /dev/zero\n", the_fd), 1;
	}
	switch (q) {
	case Q_GETFD:
		return ebadf(fcntl(the_fd, F_GETFD), "F_GETFD");
	case Q_SETFD:
		return ebadf(fcntl(the_fd, F_SETFD, FD_CLOEXEC), "F_SETFD");
	case Q_FIOCLEX:
		return ebadf(ioctl(the_fd, FIOCLEX), "FIOCLEX");
	case Q_CLOSE:
		return ebadf(close(the_fd), "close");
	case Q_FSTAT:
		return ebadf(fstat(the_fd, &st), "fstat");
	case Q_OPEN_FSTAT:
		return ebadf(fstat(the_fd, &st), "fstat") |
		       ebadf(fcntl(the_fd, F_GETFD), "F_GETFD");
	default:
		return 1;
	}
}

/* Run a case in a child of its own; its result, or 1 if it did not end
 * in time. */
static int run_bounded(enum kind k, enum method m, enum act a, enum ask q)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(run_case(k, m, a, q));
	if (pid < 0)
		return perror("fork"), 1;
	for (int i = 0; i < CASE_SECONDS * 100; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	fprintf(stderr, "hung for %d s (killed)\n", CASE_SECONDS);
	return 1;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc == 3 && !strcmp(argv[1], "--check"))
		return fcntl(atoi(argv[2]), F_GETFD) >= 0 ? 0 : 1;
	load_api(0);
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		return perror("readlink"), 1;
	for (int k = 0; k < K_COUNT; k++)
		for (int m = 0; m < M_COUNT; m++) {
			int r = exec_case((enum kind)k, (enum method)m);

			if (r == 77)
				continue;
			printf("%-5s %-8s %-18s child exec (no CLONE_FILES)\n",
			       r == 0 ? "ok" : "FAIL", kind_name[k], method_name[m]);
			failed += r != 0;
		}
	if (skip_under_emulator("the CLONE_FILES children", "qemu-user refuses "
				"clone with CLONE_FILES but not CLONE_VM (EINVAL)"))
		return failed ? 1 : 77;
	for (int k = 0; k < K_COUNT; k++)
		for (int m = 0; m < M_COUNT; m++)
			for (int a = 0; a < A_COUNT; a++)
				for (int q = 0; q < Q_COUNT; q++) {
					int r;

					/* The close-on-exec acts have two
					 * questions: F_GETFD and exec; the
					 * closes all but exec. */
					if (a >= A_RANGE_CLOEXEC
						    ? q != Q_GETFD && q != Q_EXEC
						    : q == Q_EXEC)
						continue;
					r = run_bounded((enum kind)k, (enum method)m,
							(enum act)a, (enum ask)q);
					if (r == 77)
						continue;
					printf("%-5s %-8s %-18s child %-21s parent %s\n",
					       r == 0 ? "ok" : "FAIL",
					       kind_name[k], method_name[m], act_name[a],
					       ask_name[q]);
					fflush(stdout);
					failed += r != 0;
				}
	return failed ? 1 : 0;
}
