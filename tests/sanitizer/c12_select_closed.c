/* SPDX-License-Identifier: MIT */
/*
 * c12: select on a closed descriptor.  An event loop keeps a closed
 * connection in its read set (the connection was closed by a callback,
 * the set was built before); select fails with EBADF, and loops that
 * retry on error spin -- or, once the number is reused, watch another
 * file.
 *
 * expect: use-after-close in wait_readable
 */
#define _GNU_SOURCE
#include <sys/select.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE void on_hangup(int fd)
{
	close(fd);
	NO_TAIL();
}

static NOINLINE int wait_readable(const int *fds, int n)
{
	struct timeval tv = { 0, 0 };
	fd_set set;
	int max = -1;

	FD_ZERO(&set);
	for (int i = 0; i < n; i++) {
		FD_SET(fds[i], &set);
		if (fds[i] > max)
			max = fds[i];
	}
	max = select(max + 1, &set, NULL, NULL, &tv);
	NO_TAIL();
	return max;
}

int main(void)
{
	int p[2], fds[2];

	if (pipe(p) != 0)
		die("pipe");
	fds[0] = p[0];
	fds[1] = p[1];
	on_hangup(p[0]);
	if (wait_readable(fds, 2) < 0)
		perror("select");
	close(p[1]);
	return 0;
}
