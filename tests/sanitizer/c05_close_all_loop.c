/* SPDX-License-Identifier: MIT */
/*
 * c05: a close-all loop over a library's descriptor.  A program about to
 * daemonize closes every number from 3 to its limit (the loop of
 * Stevens' daemon_init, still in many programs), under a library that
 * opened a descriptor in its constructor; the library's next use fails.
 *
 * expect: use-after-close in lib_send
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bug.h"

static int lib_sock = -1;

static NOINLINE void lib_connect(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("socketpair");
	lib_sock = sv[0];
	NO_TAIL();
}

static NOINLINE void lib_send(const char *s)
{
	if (send(lib_sock, s, strlen(s), 0) < 0)
		perror("library's send");
	NO_TAIL();
}

static NOINLINE void daemon_init(void)
{
	for (int i = 3; i < 1024; i++)
		close(i);
	NO_TAIL();
}

int main(void)
{
	lib_connect();
	daemon_init();
	lib_send("daemon started");
	return 0;
}
