/* SPDX-License-Identifier: MIT */
/*
 * h08 (healthy): findutils' fdleak.c (find -exec and xargs, at start-up,
 * visit_open_fds): the highest number in /proc/self/fd read with opendir,
 * closedir, then every number up to it polled, 64 consecutive numbers a
 * call, without waiting, to learn which are open: POLLNVAL answers "not
 * open", as F_GETFD's EBADF does.  The directory's own number, just
 * closed, is among them: a probe, no use after close.  Then again with
 * the directory's number polled alone after the sweep below it, as the
 * last call is when the number ends the listing and follows a multiple
 * of 64.
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "bug.h"

static int dir_fd;

static NOINLINE int proc_max_fd(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	int max = -1;

	if (!dir)
		die("opendir");
	dir_fd = dirfd(dir);
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' && atoi(d->d_name) > max)
			max = atoi(d->d_name);
	closedir(dir);
	return max;
}

static NOINLINE int visit_open_fds(int fd_min, int fd_max)
{
	struct pollfd p[64];
	int open = 0;

	while (fd_min < fd_max) {
		int n = fd_max - fd_min > 64 ? 64 : fd_max - fd_min;

		for (int i = 0; i < n; i++)
			p[i] = (struct pollfd){ .fd = fd_min + i, .events = POLLIN | POLLOUT };
		if (poll(p, (nfds_t)n, 0) < 0)
			die("poll");
		for (int i = 0; i < n; i++)
			open += p[i].revents != POLLNVAL;
		fd_min += n;
	}
	return open;
}

int main(void)
{
	if (visit_open_fds(0, proc_max_fd() + 1) <= 0)
		return 2;
	return visit_open_fds(0, dir_fd) + visit_open_fds(dir_fd, dir_fd + 1) > 0 ? 0 : 2;
}
