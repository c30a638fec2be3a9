/* SPDX-License-Identifier: MIT */
/*
 * chain_app.c - chain_preload.sh's program: makes descriptors in the ways
 * count_preload.c counts (open, openat, dup, dup2 onto a free number,
 * dup3, F_DUPFD, socket, pipe) and closes every one.  The first is marked
 * close-on-fork (FD_CLOFORK: ufd's, which the kernel ignores), which has
 * ufd's close, not libc's, close it and every real descriptor after it.
 * With an argument, close_range instead (ranges()).  Exit 1 if a call
 * fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ufd.h"

/* "range": descriptors closed with close_range: a virtual one under
 * UFD_MODE=all alone in its range, and two real ones at numbers of the
 * program's choice (dup2 targets stay real in every mode). */
static int ranges(void)
{
	int a = open("/dev/null", O_RDONLY), b = open("/dev/zero", O_RDONLY);

	if (a < 0 || b < 0 || dup2(a, 300) != 300 || dup2(b, 301) != 301 ||
	    close_range((unsigned)a, (unsigned)a, 0) != 0 || close(b) != 0 ||
	    close_range(300, 301, 0) != 0) {
		perror("range");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fds[9], p[2], n = 0, bad = 0;

	if (argc > 1)
		return ranges();

	fds[n++] = open("/dev/null", O_RDONLY);
	fds[n++] = openat(AT_FDCWD, "/dev/zero", O_RDONLY | O_CLOEXEC);
	fds[n++] = dup(fds[0]);
	fds[n++] = dup2(fds[1], 200);
	fds[n++] = dup3(fds[0], 201, O_CLOEXEC);
	/* After the dup2 and dup3: onto a number past a mark, ufd makes
	 * them with its own dup3, inside its table lock (ufd(7)). */
	if (fcntl(fds[0], F_SETFD, FD_CLOFORK) != 0)
		bad = 1;
	fds[n++] = fcntl(fds[1], F_DUPFD, 10);
	fds[n++] = socket(AF_UNIX, SOCK_STREAM, 0);
	if (pipe(p) == 0) {
		fds[n++] = p[0];
		fds[n++] = p[1];
	}
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0 || close(fds[i]) != 0) {
			fprintf(stderr, "call %d failed\n", i);
			bad = 1;
		}
	}
	return bad || n != 9;
}
