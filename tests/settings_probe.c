/* SPDX-License-Identifier: MIT */
/*
 * Description: an unmodified program (not linked against ufd) for the
 * settings test, run under LD_PRELOAD=libufd.so.
 *
 *   settings_probe events FILE   makes each event UFD_LOG records: a
 *                                virtual descriptor made and closed, a
 *                                select() on it refused, a close() of its
 *                                backing descriptor refused, a dup2 onto
 *                                one that moves it, and an exec
 *                                that hands one off to "settings_probe
 *                                check FD"
 *   settings_probe check FD      exits 0 if FD is open
 *   settings_probe numbers FILE  prints the descriptors pipe(), open() and
 *                                dup() return, one line: "pipe R W open O
 *                                dup D"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "ufd.h"

static void die(const char *what)
{
	fprintf(stderr, "settings_probe: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int events(const char *file, const char *self)
{
	int (*backing_fd)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "ufd_backing_fd");
	int fd = open(file, O_RDONLY), vfd, kept;
	struct timeval zero = { 0, 0 };
	char arg[16];

	if (fd < 0 || !backing_fd)
		die(fd < 0 ? "open" : "no ufd_backing_fd: not under ufd?");
	vfd = dup2(fd, (int)FD_UNSEQ_ALLOC);
	if (vfd < 0)
		die("dup2(FD_UNSEQ_ALLOC)");
	/* The application cannot know this number, but may close it by
	 * accident (a close-all loop): refused. */
	if (close(backing_fd(vfd)) == 0 || errno != EBADF)
		die("close of a backing descriptor not refused");
	if (select(vfd + 1, NULL, NULL, NULL, &zero) != -1 || errno != EBADF)
		die("select past FD_SETSIZE not refused");
	if (close(vfd) != 0)
		die("close");
	kept = dup2(fd, (int)FD_UNSEQ_ALLOC);
	if (kept < 0)
		die("dup2(FD_UNSEQ_ALLOC)");
	/* A dup2 onto a backing number moves the backing descriptor, under
	 * the table lock (the log line waits for the unlock). */
	if (dup2(fd, backing_fd(kept)) < 0)
		die("dup2 onto a backing descriptor");
	snprintf(arg, sizeof(arg), "%d", kept);
	execl(self, self, "check", arg, (char *)NULL);
	die("execl");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "events"))
		return events(argv[2], argv[0]);
	if (argc == 3 && !strcmp(argv[1], "check"))
		return fcntl(atoi(argv[2]), F_GETFD) >= 0 ? 0 : 1;
	if (argc == 3 && !strcmp(argv[1], "numbers")) {
		int p[2], o, d;

		if (pipe(p) != 0 || (o = open(argv[2], O_RDONLY)) < 0 ||
		    (d = dup(o)) < 0)
			die("pipe, open or dup");
		printf("pipe %d %d open %d dup %d\n", p[0], p[1], o, d);
		return 0;
	}
	fprintf(stderr, "usage: settings_probe events FILE | check FD | numbers FILE\n");
	return 2;
}
