/* SPDX-License-Identifier: MIT */
/*
 * Description: POSIX record locks that ufd did not see taken survive its
 * moves.  Making a new descriptor virtual (UFD_MODE=all, O_UNSEQFD) or
 * moving it (UFD_MODE=random) duplicates it and closes the kernel's
 * number, and any close drops every POSIX lock the process holds on the
 * file.  ufd must not close one for a file the process holds a lock on,
 * whoever took the lock:
 *
 *   exec      a write lock taken through fcntl, then an exec of this
 *             program (locks survive exec; the hand-off says the new
 *             program may hold some);
 *   exec-bare the same in a process without ufd, which execs this
 *             program under it (no hand-off: /proc/locks says);
 *   lckpwdf   glibc's lckpwdf(), which locks /etc/.pwd.lock through
 *             glibc's own fcntl, past ufd (needs root: skipped otherwise);
 *   syscall   glibc's syscall(SYS_fcntl, fd, F_SETLK, ...);
 *   raw       the system call instruction itself (as a Go runtime or a
 *             static library would make it), before the process's first
 *             new descriptor (then /proc/locks says; one taken so after
 *             that is not seen: ufd(7)).
 *
 * Except in raw, a descriptor is made and closed first (with O_UNSEQFD
 * in the default mode), which settles ufd's record-lock state (no lock
 * held), so that the lock must be seen as it is taken.
 *
 * Then the file is opened again eight times, and a child process must
 * still see the lock (F_GETLK from another process: a process never
 * sees its own locks there).
 *
 *   rlimit    the file opened (virtual in the default mode and under
 *             UFD_MODE=all: its backing descriptor past the soft limit,
 *             1024), then locked as in raw, then the soft limit raised
 *             over the backing descriptor, which moves out of the
 *             application's way: the lock must survive that (found by
 *             the fuzzer's OP_LOCK, seed 220).
 *
 * This program is neither linked against ufd nor preloaded: for each case
 * it runs itself ("case CASE MODE") bare, and under LD_PRELOAD (from
 * UFD_TEST_PRELOAD) in the default mode (the opens ask for O_UNSEQFD),
 * UFD_MODE=random and UFD_MODE=all.  The bare run shows the harness sees
 * the lock the kernel keeps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <shadow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "../src/sys.h"

static const char *const cases[] = { "exec", "exec-bare", "lckpwdf", "syscall", "raw",
				     "rlimit" };
static const char *const modes[] = { "bare", "default", "random", "all" };
#define N(a) (int)(sizeof(a) / sizeof((a)[0]))

static const char *self;

/* Does another process see a lock on path (one that conflicts with a
 * write lock over the whole file)?  1, 0, or -1 if it cannot tell. */
static int seen_from_child(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(path, O_RDONLY);

		if (fd < 0 || fcntl(fd, F_GETLK, &probe) < 0)
			_exit(2);
		_exit(probe.l_type == F_UNLCK ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1)
		return -1;
	return WEXITSTATUS(status) == 0;
}

/* The opens that ufd may move, then the child's look.  Exit status: 0 the
 * lock is still there, 1 it was dropped. */
static int reopen_and_check(const char *path, const char *mode)
{
	int flags = O_RDONLY | (strcmp(mode, "default") ? 0 : O_UNSEQFD);
	int before = seen_from_child(path);

	if (before != 1) {
		fprintf(stderr, "no lock to start with (%d)\n", before);
		return 2;
	}
	for (int i = 0; i < 8; i++) {
		int fd = open(path, flags);

		if (fd < 0) {
			perror("open");
			return 2;
		}
		if (seen_from_child(path) != 1) {
			fprintf(stderr, "the lock is gone after open %d (%d)\n", i + 1, fd);
			return 1;
		}
	}
	return 0;
}

/* The rlimit case, fd the raw descriptor: exit status as
 * reopen_and_check's. */
static int raise_over(const char *path, int fd, const char *mode)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct rlimit rl;
	int v;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max < 4096) {
		fprintf(stderr, "rlimit: the hard limit is under 4096\n");
		return 2;
	}
	rl.rlim_cur = 1024;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		perror("setrlimit");
		return 2;
	}
	v = open(path, O_RDONLY | (strcmp(mode, "default") ? 0 : O_UNSEQFD));
	if (v < 0 || ufd_sys6(SYS_fcntl, fd, F_SETLK, (long)&fl, 0, 0, 0) != 0) {
		fprintf(stderr, "rlimit: open or F_SETLK failed\n");
		return 2;
	}
	rl.rlim_cur = 4096;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		perror("setrlimit");
		return 2;
	}
	if (seen_from_child(path) != 1) {
		fprintf(stderr, "the lock is gone after the limit went over %d\n", v);
		return 1;
	}
	return 0;
}

/* A descriptor of path made and closed, as ufd moves it in mode: ufd's
 * record-lock state is settled (no lock held).  0, or 2 if it fails. */
static int settle_first(const char *path, const char *mode)
{
	int fd = open(path, O_RDONLY | (strcmp(mode, "default") ? 0 : O_UNSEQFD));

	if (fd < 0) {
		perror("settle_first");
		return 2;
	}
	close(fd);
	return 0;
}

/* exec-bare, in a process without ufd: the lock taken on fd, then this
 * program exec'd under ufd in mode (or bare), to check the lock. */
static int exec_under_ufd(int fd, const char *mode, const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *argv[] = { (char *)self, "after-exec", (char *)mode, (char *)path, NULL };

	if (fcntl(fd, F_SETLK, &fl) != 0) {
		perror("F_SETLK");
		return 2;
	}
	if (strcmp(mode, "bare")) {
		setenv("LD_PRELOAD", getenv("UFD_TEST_PRELOAD"), 1);
		setenv("UFD_SEED", "1", 1);
		if (strcmp(mode, "default"))
			setenv("UFD_MODE", mode, 1);
	}
	execv(self, argv);
	perror("execv");
	return 2;
}

/* One case in this process: take the lock, open again, check. */
static int run_case(const char *what, const char *mode, const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd;

	if (strcmp(what, "raw") && strcmp(what, "exec-bare") &&
	    settle_first(path, mode) != 0)
		return 2;
	if (!strcmp(what, "lckpwdf")) {
		int r;

		if (lckpwdf() != 0) {
			perror("lckpwdf");
			return 2;
		}
		r = reopen_and_check("/etc/.pwd.lock", mode);
		ulckpwdf();
		return r;
	}
	/* The raw and rlimit cases make their descriptor raw too: under UFD_MODE=all a
	 * number from open() is virtual, which the kernel does not know. */
	fd = strcmp(what, "raw") && strcmp(what, "rlimit") ? open(path, O_RDWR)
				 : (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path,
						 O_RDWR, 0, 0, 0);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	if (!strcmp(what, "exec-bare"))
		return exec_under_ufd(fd, mode, path);
	if (!strcmp(what, "exec")) {
		char *argv[] = { (char *)self, "after-exec", (char *)mode,
				 (char *)path, NULL };

		if (fcntl(fd, F_SETLK, &fl) != 0) {
			perror("F_SETLK");
			return 2;
		}
		execv(self, argv);
		perror("execv");
		return 2;
	}
	if (!strcmp(what, "rlimit"))
		return raise_over(path, fd, mode);
	if ((!strcmp(what, "syscall") ? syscall(SYS_fcntl, fd, F_SETLK, &fl)
				       : ufd_sys6(SYS_fcntl, fd, F_SETLK, (long)&fl,
						  0, 0, 0)) != 0) {
		fprintf(stderr, "%s: F_SETLK failed\n", what);
		return 2;
	}
	return reopen_and_check(path, mode);
}

/* Does the log at path say the hand-off told the new program that it may
 * hold record locks (so that it did not have to ask /proc/locks)? */
static int log_says_carried(const char *path)
{
	char buf[8192], *carried;
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	/* (Before the exec, the look that settled the state is logged.) */
	carried = strstr(buf, "record locks may be held");
	return carried && !strstr(carried, "/proc/locks says");
}

/* Run case what in mode as a child of its own: its exit status, or -1.
 * For exec under ufd, the lock state must also have come through the
 * hand-off (UFD_LOG's record). */
static int spawn_case(const char *what, const char *mode, const char *path)
{
	const char *preload = getenv("UFD_TEST_PRELOAD");
	char log[64];
	int status, carried = !strcmp(what, "exec") && strcmp(mode, "bare");
	pid_t pid;

	snprintf(log, sizeof(log), "%s.log", path);
	unlink(log);
	pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *argv[] = { (char *)self, "case", (char *)what, (char *)mode,
				 (char *)path, NULL };

		/* exec-bare starts without ufd, whatever the mode. */
		if (strcmp(mode, "bare") && strcmp(what, "exec-bare")) {
			setenv("LD_PRELOAD", preload, 1);
			setenv("UFD_SEED", "1", 1);
			if (strcmp(mode, "default"))
				setenv("UFD_MODE", mode, 1);
			if (carried)
				setenv("UFD_LOG", log, 1);
		}
		execv(self, argv);
		_exit(2);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	if (carried && WEXITSTATUS(status) == 0 && !log_says_carried(log)) {
		fprintf(stderr, "exec %s: the hand-off did not carry the lock state\n",
			mode);
		status = 3 << 8;
	}
	unlink(log);
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/ufd-locks-XXXXXX";
	int failed = 0, fd;

	self = argv[0];
	if (argc == 5 && !strcmp(argv[1], "case"))
		return run_case(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "after-exec"))
		return reopen_and_check(argv[3], argv[2]);
	if (!getenv("UFD_TEST_PRELOAD")) {
		fprintf(stderr, "UFD_TEST_PRELOAD is not set\n");
		return 1;
	}
	fd = mkstemp(path);
	if (fd < 0 || write(fd, "lock", 4) != 4) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	for (int c = 0; c < N(cases); c++) {
		if (!strcmp(cases[c], "lckpwdf") && geteuid() != 0) {
			printf("skip lckpwdf: needs root (/etc/.pwd.lock)\n");
			continue;
		}
		for (int m = 0; m < N(modes); m++) {
			int r = spawn_case(cases[c], modes[m], path);

			printf("%s %-7s %-7s %s\n", r == 0 ? "ok  " : "FAIL", cases[c],
			       modes[m],
			       r == 0 ? "the lock survived"
			       : r == 1 ? "the lock was dropped"
			       : r == 3 ? "the hand-off did not say locks may be held"
					: "the case could not run");
			failed |= r != 0;
		}
	}
	unlink(path);
	return failed;
}
