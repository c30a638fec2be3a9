/* SPDX-License-Identifier: MIT */
/*
 * unseq_demo - a plain program that asks for non-sequential descriptors
 * through the 2007 ABI only: dup2(fd, FD_UNSEQ_ALLOC), an exact dup2 above
 * FD_UNSEQ_BASE, and F_DUPFD from FD_UNSEQ_BASE.  It is not linked against
 * ufd (it takes the constants from ufd.h and nothing else), so it shows
 * what LD_PRELOAD=libufd.so gives an unmodified program:
 *
 *   ./unseq_demo                           the kernel says EBADF / EINVAL
 *   LD_PRELOAD=libufd.so ./unseq_demo      random virtual descriptors
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ufd.h"

static void show(const char *what, int fd)
{
	if (fd < 0)
		printf("  %-36s -> -1 (%s)\n", what, strerror(errno));
	else
		printf("  %-36s -> %d%s\n", what, fd,
		       (unsigned)fd >= FD_UNSEQ_BASE ? "  (virtual)" : "");
}

int main(void)
{
	int p[2], fd, w;
	char buf[64] = { 0 };

	if (pipe(p) < 0) {
		perror("pipe");
		return 1;
	}
	printf("pipe() -> %d, %d (the kernel's lowest-numbered rule)\n", p[0], p[1]);
	for (int i = 0; i < 5; i++)
		show("dup2(p[1], FD_UNSEQ_ALLOC)", dup2(p[1], FD_UNSEQ_ALLOC));
	show("dup2(p[1], FD_UNSEQ_BASE + 42)", dup2(p[1], FD_UNSEQ_BASE + 42));
	show("fcntl(p[1], F_DUPFD, FD_UNSEQ_BASE)", fcntl(p[1], F_DUPFD, FD_UNSEQ_BASE));
	show("fcntl(p[1], F_DUPFD, FD_UNSEQ_BASE)", fcntl(p[1], F_DUPFD, FD_UNSEQ_BASE));

	w = dup2(p[1], FD_UNSEQ_ALLOC);
	if (w < 0) {
		printf("no virtual descriptors here: run me under LD_PRELOAD=libufd.so\n");
		return 0;
	}
	if (write(w, "hello through a virtual descriptor", 34) != 34 ||
	    read(p[0], buf, sizeof(buf) - 1) != 34) {
		perror("write/read");
		return 1;
	}
	printf("write(%d, ...) then read(%d) -> \"%s\"\n", w, p[0], buf);
	fd = open("/dev/null", O_RDONLY);
	printf("open(\"/dev/null\") -> %d: the program's own numbers are untouched\n", fd);
	return 0;
}
