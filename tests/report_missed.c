/* SPDX-License-Identifier: MIT */
/*
 * Description: the reproducers of issue 23's missed and misleading
 * reports (items 7, 9, 10, 11, 13), one per argument; run by
 * tests/report_missed.sh under UFD_REPORT, which checks the reports.
 * Built twice: unfortified (FD_SET writes wherever its number says, as
 * in a program built without _FORTIFY_SOURCE) and fortified (FD_SET
 * calls __fdelt_chk, which aborts past FD_SETSIZE).  Like report_cases.c,
 * without -rdynamic: the functions named are static, found in .symtab.
 *
 *   select-closed   select on a set naming a descriptor the program
 *                   closed: EBADF, a use after close (item 9)
 *   pselect-closed  the same with pselect
 *   poll-closed     poll on a closed descriptor beside an open one:
 *                   POLLNVAL for it, a use after close, once (item 10)
 *   ppoll-closed    the same with ppoll
 *   fd-set-wide     FD_SET(1024) into a set with room after it, then
 *                   select(1025): descriptor 1024 is the one past
 *                   FD_SETSIZE, not nfds (item 11; unfortified)
 *   fd-set-virtual  FD_SET on a virtual descriptor (UFD_MODE=all):
 *                   fortified, __fdelt_chk's report then glibc's abort;
 *                   unfortified, into memory mapped that far, then
 *                   select, reported there (item 13)
 *   exec-named F    a descriptor without close-on-exec named to the new
 *                   program in form F, and one not named: one exec-leak
 *                   report, for the second (item 7).  F: devfd, procfd,
 *                   fd-eq, fd-space, status-fd, fds-list, makeflags,
 *                   jobserver-fds, listen, inherit-ok, spawn-devfd, none
 *                   (both leak)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif
#define NO_TAIL() __asm__ volatile("" ::: "memory")

static const char *file; /* a scratch file, argv[2] */

static NOINLINE int open_file(int flags)
{
	int fd = open(file, flags | O_RDWR | O_CREAT, 0600);

	if (fd < 0) {
		perror(file);
		exit(2);
	}
	return fd;
}

/* ---- select, pselect on a closed descriptor ---- */

static NOINLINE void close_early(int fd)
{
	close(fd);
	NO_TAIL();
}

static NOINLINE int select_on(int fd, int use_pselect)
{
	struct timeval tv = { 0, 0 };
	struct timespec ts = { 0, 0 };
	fd_set rs, ws;
	int r;

	FD_ZERO(&rs);
	FD_ZERO(&ws);
	FD_SET(fd, &rs);
	FD_SET(fd, &ws); /* in two sets: still one report */
	r = use_pselect ? pselect(fd + 1, &rs, &ws, NULL, &ts, NULL)
			: select(fd + 1, &rs, &ws, NULL, &tv);
	printf("%s: %s\n", use_pselect ? "pselect" : "select",
	       r < 0 ? strerror(errno) : "no error");
	NO_TAIL();
	return r;
}

static int select_closed(int use_pselect)
{
	int fd = open_file(0);

	close_early(fd);
	select_on(fd, use_pselect);
	return 0;
}

/* ---- poll, ppoll on a closed descriptor ---- */

static NOINLINE void poll_on(int closed, int open_fd, int use_ppoll)
{
	struct pollfd p[2] = { { closed, POLLIN, 0 }, { open_fd, POLLIN, 0 } };
	struct timespec ts = { 0, 0 };
	int r = use_ppoll ? ppoll(p, 2, &ts, NULL) : poll(p, 2, 0);

	printf("%s: %s, revents %s %s\n", use_ppoll ? "ppoll" : "poll",
	       r == 2 ? "both" : "not both",
	       p[0].revents & POLLNVAL ? "POLLNVAL" : "other",
	       p[1].revents & POLLNVAL ? "POLLNVAL" : "other");
	NO_TAIL();
}

static int poll_closed(int use_ppoll)
{
	int fd = open_file(0), other = open_file(0);

	close_early(fd);
	poll_on(fd, other, use_ppoll);
	return 0;
}

/* ---- FD_SET past FD_SETSIZE ---- */

static NOINLINE int make_wide(int fd, int to)
{
	int r = dup2(fd, to);

	NO_TAIL();
	return r;
}

/* A set with room after it: FD_SET(1024), unfortified, writes the word
 * after the set, here `more`. */
static struct {
	fd_set set;
	__fd_mask more[16];
} wide;

/* The write past the set is the bug reproduced: not UBSan's to report. */
static NOINLINE __attribute__((no_sanitize("undefined"))) void select_wide_set(int fd)
{
	struct timeval tv = { 0, 0 };

	FD_SET(fd, &wide.set);
	select(fd + 1, &wide.set, NULL, NULL, &tv);
	NO_TAIL();
}

static int fd_set_wide(void)
{
	struct rlimit rl;
	int fd = open_file(0);

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 1100) {
		printf("hard RLIMIT_NOFILE %lu < 1100\n", (unsigned long)rl.rlim_max);
		return 77;
	}
	if (rl.rlim_cur < 1100) {
		rl.rlim_cur = 1100;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (make_wide(fd, 1024) != 1024) {
		perror("dup2 1024");
		return 2;
	}
	select_wide_set(1024);
	return 0;
}

static NOINLINE void select_virtual(int fd)
{
	struct timeval tv = { 0, 0 };
	/* Unfortified, FD_SET writes fd / 8 bytes past the set: mapped
	 * here, so the program lives on to call select.  (A set on the
	 * stack would crash in FD_SET itself, before any call.) */
	size_t len = (size_t)fd / 8 + 4096;
	fd_set *set = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (set == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	FD_SET(fd, set); /* fortified: __fdelt_chk, then glibc's abort */
	printf("select: %d\n", select(fd + 1, set, NULL, NULL, &tv));
	NO_TAIL();
}

static NOINLINE int open_virtual(void)
{
	int fd = open_file(0);

	NO_TAIL();
	return fd;
}

static int fd_set_virtual(void)
{
	int fd = open_virtual();

	if (fd < FD_SETSIZE) {
		printf("not a virtual descriptor: %d\n", fd);
		return 77;
	}
	select_virtual(fd);
	return 0;
}

/* ---- descriptors named to the new program ---- */

static NOINLINE int open_named(void)
{
	int fd = open_file(0); /* no O_CLOEXEC: meant for the new program */

	NO_TAIL();
	return fd;
}

static NOINLINE int open_unnamed(void)
{
	int fd = open_file(0); /* no O_CLOEXEC, and not named: a leak */

	NO_TAIL();
	return fd;
}

static int exec_named(const char *form)
{
	char a[64], e1[64], e2[64];
	char *argv[8] = { "true", NULL }, *envp[8] = { NULL };
	int fd = open_named(), fd2 = -1;
	pid_t pid;

	if (!strcmp(form, "listen") || !strcmp(form, "makeflags") ||
	    !strcmp(form, "jobserver-fds") || !strcmp(form, "fds-list"))
		fd2 = open_named();
	open_unnamed();
	if (!strcmp(form, "devfd") || !strcmp(form, "spawn-devfd")) {
		snprintf(a, sizeof(a), "/dev/fd/%d", fd);
		argv[1] = "--input";
		argv[2] = a;
	} else if (!strcmp(form, "procfd")) {
		snprintf(a, sizeof(a), "--config=/proc/self/fd/%d", fd);
		argv[1] = a;
	} else if (!strcmp(form, "fd-eq")) {
		snprintf(a, sizeof(a), "--fd=%d", fd);
		argv[1] = a;
	} else if (!strcmp(form, "fd-space")) {
		snprintf(a, sizeof(a), "%d", fd);
		argv[1] = "--fd";
		argv[2] = a;
	} else if (!strcmp(form, "status-fd")) {
		snprintf(a, sizeof(a), "%d", fd);
		argv[1] = "--batch";
		argv[2] = "--status-fd";
		argv[3] = a;
	} else if (!strcmp(form, "fds-list")) {
		snprintf(a, sizeof(a), "--pass-fds=%d,%d", fd, fd2);
		argv[1] = a;
	} else if (!strcmp(form, "makeflags")) {
		snprintf(e1, sizeof(e1), "MAKEFLAGS= -j2 --jobserver-auth=%d,%d", fd, fd2);
		envp[0] = e1;
	} else if (!strcmp(form, "jobserver-fds")) {
		snprintf(e1, sizeof(e1), "MFLAGS=-j --jobserver-fds=%d,%d", fd, fd2);
		envp[0] = e1;
	} else if (!strcmp(form, "listen")) {
		/* sd_listen_fds: descriptors 3 and 4, the first two opened */
		if (fd != 3 || fd2 != 4) {
			printf("listen: got %d and %d, not 3 and 4\n", fd, fd2);
			return 77;
		}
		snprintf(e1, sizeof(e1), "LISTEN_PID=%d", (int)getpid());
		envp[0] = e1;
		envp[1] = "LISTEN_FDS=2";
	} else if (!strcmp(form, "inherit-ok")) {
		snprintf(e2, sizeof(e2), "UFD_INHERIT_OK=1,%d", fd);
		envp[0] = "PATH=/bin";
		envp[1] = e2;
	} else if (strcmp(form, "none")) {
		fprintf(stderr, "exec-named: no form %s\n", form);
		return 2;
	}
	/* The preloads carried on (a sanitizer's runtime must come first
	 * in the new program too). */
	if (getenv("LD_PRELOAD")) {
		static char preload[4096];
		int k = 0;

		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", getenv("LD_PRELOAD"));
		while (envp[k])
			k++;
		envp[k] = preload;
	}
	if (!strcmp(form, "spawn-devfd")) {
		int status;

		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, envp) != 0)
			return 2;
		waitpid(pid, &status, 0);
		return 0;
	}
	execve("/bin/true", argv, envp);
	perror("execve");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: report_missed CASE SCRATCH-FILE [FORM]\n");
		return 2;
	}
	file = argv[2];
	if (!strcmp(argv[1], "select-closed"))
		return select_closed(0);
	if (!strcmp(argv[1], "pselect-closed"))
		return select_closed(1);
	if (!strcmp(argv[1], "poll-closed"))
		return poll_closed(0);
	if (!strcmp(argv[1], "ppoll-closed"))
		return poll_closed(1);
	if (!strcmp(argv[1], "fd-set-wide"))
		return fd_set_wide();
	if (!strcmp(argv[1], "fd-set-virtual"))
		return fd_set_virtual();
	if (!strcmp(argv[1], "exec-named") && argc == 4)
		return exec_named(argv[3]);
	fprintf(stderr, "report_missed: no case %s\n", argv[1]);
	return 2;
}
