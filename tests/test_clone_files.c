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
 * Known, not fixed (ufd(7), "Processes"): a close-on-exec flag that the
 * child sets on a virtual descriptor (close_range with
 * CLOSE_RANGE_CLOEXEC, F_SETFD) is in its copy of ufd's table only, so
 * the parent does not see it.  Those cases run, and a failure on a
 * virtual descriptor is printed as "known" and not counted.
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
enum act { A_CLOSE, A_CLOSE_RANGE, A_RANGE_CLOEXEC, A_SETFD_CLOEXEC, A_COUNT };
static const char *const act_name[A_COUNT] = { "close", "close_range",
					       "close_range(CLOEXEC)",
					       "F_SETFD(FD_CLOEXEC)" };

/* What the parent asks afterwards (after a close: EBADF expected; after
 * the close-on-exec ones, F_GETFD says FD_CLOEXEC). */
enum ask { Q_GETFD, Q_SETFD, Q_FIOCLEX, Q_CLOSE, Q_COUNT };
static const char *const ask_name[Q_COUNT] = { "F_GETFD", "F_SETFD", "FIOCLEX",
					       "close" };

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

/* One case: 0 pass, 1 fail, 2 a known failure, 77 skipped. */
static int run_case(enum kind k, enum method m, enum act a, enum ask q)
{
	int virt, r;

	the_fd = open("/dev/null", O_RDONLY);
	if (the_fd < 0)
		return perror("open"), 1;
	if (k == K_NONSEQFD) {
		if (!api_nonseqfd)
			return 77;
		r = api_nonseqfd(the_fd, 0);
		if (r < 0)
			return perror("nonseqfd"), 1;
		close(the_fd);
		the_fd = r;
	}
	virt = api_is_virtual && api_is_virtual(the_fd) == 1;
	the_act = a;
	if (run_child(m))
		return 1;
	if (a == A_RANGE_CLOEXEC || a == A_SETFD_CLOEXEC) {
		r = fcntl(the_fd, F_GETFD);
		if (r >= 0 && (r & FD_CLOEXEC))
			return 0;
		fprintf(stderr, "F_GETFD: %d, not FD_CLOEXEC\n", r);
		return virt ? 2 : 1;
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

					/* The close-on-exec acts have one
					 * question: F_GETFD. */
					if (a >= A_RANGE_CLOEXEC && q != Q_GETFD)
						continue;
					r = run_bounded((enum kind)k, (enum method)m,
							(enum act)a, (enum ask)q);
					if (r == 77)
						continue;
					printf("%-5s %-8s %-18s child %-20s parent %s\n",
					       r == 0 ? "ok" : r == 2 ? "known" : "FAIL",
					       kind_name[k], method_name[m], act_name[a],
					       ask_name[q]);
					fflush(stdout);
					failed += r != 0 && r != 2;
				}
	return failed ? 1 : 0;
}
