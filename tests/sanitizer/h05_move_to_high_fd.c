/* SPDX-License-Identifier: MIT */
/*
 * h05 (healthy): bash's move_to_high_fd (general.c): to put a script's
 * descriptor out of the way, it probes numbers from high down with
 * fcntl(F_GETFD) until one is not open, dup2()s onto it and closes the
 * original.  The probes fail with EBADF by design.
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "bug.h"

static int move_to_high_fd(int fd, int maxfd)
{
	int nfd;

	for (nfd = maxfd - 1; nfd > 3; nfd--)
		if (fcntl(nfd, F_GETFD) < 0 && errno == EBADF)
			break;
	if (nfd <= 3 || dup2(fd, nfd) != nfd)
		return fd;
	close(fd);
	return nfd;
}

int main(void)
{
	int fd = open("/dev/null", O_RDONLY), high;

	if (fd < 0)
		die("open");
	/* A number bash used before and closed, then probes again. */
	high = move_to_high_fd(fd, 256);
	close(high);
	fd = open("/dev/null", O_RDONLY);
	high = move_to_high_fd(fd, 256);
	fcntl(high, F_SETFD, FD_CLOEXEC);
	close(high);
	return 0;
}
