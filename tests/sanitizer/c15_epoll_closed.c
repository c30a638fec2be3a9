/* SPDX-License-Identifier: MIT */
/*
 * c15: epoll on a closed descriptor: a connection is closed while still
 * registered, and the event loop then removes it with EPOLL_CTL_DEL,
 * which fails with EBADF (epoll(7), "Questions and answers", Q6: closing
 * a descriptor removes it from the interest list only once every
 * duplicate is closed; code that closes first and unregisters second has
 * the order backwards).
 *
 * expect: use-after-close in unwatch_connection
 */
#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE void drop_connection(int fd)
{
	close(fd);
	NO_TAIL();
}

static NOINLINE void unwatch_connection(int ep, int fd)
{
	if (epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL) != 0)
		perror("epoll_ctl(EPOLL_CTL_DEL)");
	NO_TAIL();
}

int main(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), sv[2];

	if (ep < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("epoll_create1/socketpair");
	ev.data.fd = sv[0];
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev) != 0)
		die("epoll_ctl");
	drop_connection(sv[0]);
	unwatch_connection(ep, sv[0]);
	close(sv[1]);
	close(ep);
	return 0;
}
