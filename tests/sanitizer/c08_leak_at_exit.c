/* SPDX-License-Identifier: MIT */
/*
 * c08: a descriptor leaked at exit (CWE-775): a function opens a file on
 * every call and returns early on one path without closing it -- the
 * most common descriptor bug, and what Valgrind's --track-fds=yes lists
 * as "open file descriptor ... at exit".
 *
 * expect: exit-leak in load_settings
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE int load_settings(const char *path)
{
	char buf[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf)) < (ssize_t)sizeof(buf))
		return 0; /* short file: returns without closing fd */
	close(fd);
	return 1;
}

int main(void)
{
	return load_settings("/dev/null") < 0;
}
