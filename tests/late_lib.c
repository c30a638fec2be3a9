/* SPDX-License-Identifier: MIT */
/*
 * Description: a library linked against libufd.so, for a program that is
 * not (tests/late_app.c): libufd.so then loads after libc, the program's
 * descriptor calls never reach ufd, and nonseqfd() must say so (ENOSYS and
 * one message) rather than hand out a descriptor nothing can use.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "ufd.h"

int late_lib_nonseqfd(void);

/* nonseqfd on /dev/null: the virtual descriptor, or -1 with errno. */
int late_lib_nonseqfd(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), vfd;

	if (fd < 0)
		return -1;
	vfd = nonseqfd(fd, NONSEQFD_CLOSE);
	if (vfd < 0)
		close(fd);
	return vfd;
}
