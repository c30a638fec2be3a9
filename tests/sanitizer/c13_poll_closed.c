/* SPDX-License-Identifier: MIT */
/*
 * c13: poll on a closed descriptor.  The same event-loop bug as c12 with
 * poll: the kernel answers POLLNVAL for the closed entry rather than an
 * error, and a loop that does not check revents for it spins at 100 %
 * CPU (a recurring bug in event loops; Valgrind 3.27 reports it).
 *
 * expect: use-after-close in poll_events
 */
#define _GNU_SOURCE
#include <poll.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE void on_hangup(int fd)
{
	close(fd);
	NO_TAIL();
}

static NOINLINE int poll_events(struct pollfd *pfd, int n)
{
	int r = poll(pfd, n, 0);

	NO_TAIL();
	return r;
}

int main(void)
{
	struct pollfd pfd[2];
	int p[2];

	if (pipe(p) != 0)
		die("pipe");
	pfd[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	on_hangup(p[0]);
	if (poll_events(pfd, 2) > 0 && (pfd[0].revents & POLLNVAL))
		printf("poll: POLLNVAL for the closed descriptor\n");
	close(p[1]);
	return 0;
}
