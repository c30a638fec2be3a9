/* SPDX-License-Identifier: MIT */
/*
 * report_sandbox.c - a program under a seccomp filter, as OpenSSH's
 * pre-authentication child is, that misuses descriptors: the sanitizer
 * must report each misuse without a system call the filter does not
 * allow (issue 23, item 1), so the program lives and exits as it does
 * without ufd.
 *
 * Usage: report_sandbox DIR [NAME [full|fsize0|sweep|late|bigframe]]
 *        report_sandbox --filtered-exec PROGRAM [ARG...]
 *   The second form puts in a filter that allows every call and execs
 *   PROGRAM under it: a process that starts under a filter.
 *   With "late", the filter also allows openat, and the program opens
 *   DIR/NAME once more under it (and leaks that too): recording a new
 *   descriptor makes no system call either (in UFD_MODE=transparent,
 *   where ufd itself does nothing to a new descriptor).
 *   With "fsize0", sets RLIMIT_FSIZE to 0 with SIGXFSZ left at its
 *   default action, as OpenSSH's sandboxed child does: a report written
 *   to a file would kill the process.
 *   With "bigframe", the double close is made in a function with a frame
 *   of over 16 KiB (built without frame pointers): the first stack whose
 *   capture needs libgcc's unwinder, which loads it (openat, mmap), comes
 *   under the filter, so ufd must have loaded it before the filter went
 *   in.
 *   With "sweep", first closes every descriptor from 3 up as daemons do
 *   (close_range, a close loop to the limit) and dup2s stdout onto the
 *   top number under the limit (closing it again): the report
 *   destination must survive all of it.  Opens DIR/NAME (NAME defaults
 *   to "file"; a crafted name tests the reports' escaping) twice; with
 *   "full", sets its RLIMIT_FSIZE to 64 bytes with SIGXFSZ ignored, so
 *   that writes past that fail (EFBIG), a report destination that stops
 *   taking reports; then installs a filter that allows only
 *   write, close, exit and exit_group and kills the process on anything
 *   else (SECCOMP_RET_KILL_PROCESS), then: closes the first descriptor
 *   twice (a double close), writes to it (a use after close), and exits
 *   with the second one still open (a leak at exit).  Prints
 *   "sandboxed" and "done" with write(2) only; exits 0.  Exits 77 when the
 *   kernel has no seccomp filters.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

#define ALLOW(nr)                                              \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),       \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static void say(const char *s)
{
	(void)!write(1, s, strlen(s));
}

/* Allow write, close, exit, exit_group (and openat if late); kill the
 * process on the rest. */
static int sandbox(int late)
{
#ifdef ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(__NR_write),
		ALLOW(__NR_close),
		ALLOW(__NR_exit),
		ALLOW(__NR_exit_group),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, late ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Over 16 KiB of locals: without a frame pointer, no unwind rule of the
 * simple kind ufd caches (src/unwind.h). */
static __attribute__((noinline)) void close_with_big_buffer(int fd)
{
	volatile char buf[40000];

	buf[0] = 1;
	buf[sizeof(buf) - 1] = (char)fd;
	close(fd);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

int main(int argc, char **argv)
{
	char path[4096];
	int a, b, late = argc > 3 && !strcmp(argv[3], "late");

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "--filtered-exec") && argc > 2) {
#ifdef ARCH
		struct sock_filter all[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
		struct sock_fprog prog = { .len = 1, .filter = all };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			return 77;
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
#else
		return 77;
#endif
	}
	if (argc > 3 && !strcmp(argv[3], "sweep")) {
		long max = sysconf(_SC_OPEN_MAX);

		syscall(SYS_close_range, 3U, ~0U, 0);
		for (long i = 3; i < max; i++)
			close((int)i);
		if (dup2(1, (int)max - 1) != (int)max - 1) {
			perror("dup2");
			return 1;
		}
		close((int)max - 1);
	}
	snprintf(path, sizeof(path), "%s/%s", argv[1], argc > 2 ? argv[2] : "file");
	a = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	b = open(path, O_RDONLY);
	if (a < 0 || b < 0) {
		perror(path);
		return 1;
	}
	if (argc > 3 && !strcmp(argv[3], "full")) {
		struct rlimit rl = { 64, 64 };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0) {
			perror("setrlimit");
			return 1;
		}
	}
	if (argc > 3 && !strcmp(argv[3], "fsize0")) {
		struct rlimit rl = { 0, 0 };

		if (setrlimit(RLIMIT_FSIZE, &rl) < 0) {
			perror("setrlimit");
			return 1;
		}
	}
	if (sandbox(late) < 0) {
		printf("no seccomp filter: %s\n", strerror(errno));
		return 77;
	}
	say("sandboxed\n");
	if (argc > 3 && !strcmp(argv[3], "bigframe")) {
		close_with_big_buffer(a);
		close_with_big_buffer(a); /* double close */
	} else {
		close(a);
		close(a);	/* double close */
	}
	(void)!write(a, "x", 1); /* use after close */
	if (late && open(path, O_RDONLY) < 0)
		say("late open failed\n");
	say("done\n");
	return 0;		/* b leaks */
}
