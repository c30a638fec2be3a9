/* SPDX-License-Identifier: MIT */
/*
 * h06 (healthy): poll with entries switched off by a negative fd (poll(2):
 * "the field events is ignored and the revents field returns zero"), the
 * usual way event loops disable an entry without compacting the array,
 * and select on open descriptors only.
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/select.h>
#include <unistd.h>

#include "bug.h"

int main(void)
{
	struct pollfd pfd[3];
	struct timeval tv = { 0, 0 };
	fd_set set;
	int p[2];

	if (pipe(p) != 0)
		die("pipe");
	pfd[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = -1, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = -p[1] - 1, .events = POLLOUT };
	if (poll(pfd, 3, 0) < 0)
		die("poll");
	FD_ZERO(&set);
	FD_SET(p[0], &set);
	if (select(p[0] + 1, &set, NULL, NULL, &tv) < 0)
		die("select");
	close(p[0]);
	close(p[1]);
	return 0;
}
