/* SPDX-License-Identifier: MIT */
/*
 * c04: close_range in a fork child over a library's descriptor.  A child
 * that will not exec cleans up with close_range(3, ~0U) (as systemd's and
 * many daemons' helpers do), then calls into a library that keeps a
 * descriptor of its own -- OpenOnload issue 111 and proxychains-ng issue
 * 439 are this with closefrom.  The library's write fails with EBADF, or
 * lands in whatever got the number.
 *
 * expect: use-after-close in lib_log
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"

#ifndef SYS_close_range
#include <sys/syscall.h>
#endif

static int lib_fd = -1;

static NOINLINE void lib_init(void)
{
	lib_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (lib_fd < 0)
		die("open");
	NO_TAIL();
}

static NOINLINE void lib_log(const char *s)
{
	if (write(lib_fd, s, strlen(s)) < 0)
		perror("library's write");
	NO_TAIL();
}

static NOINLINE void child_cleanup(void)
{
	if (close_range(3, ~0U, 0) != 0)
		die("close_range");
	NO_TAIL();
}

int main(void)
{
	pid_t pid;
	int status;

	lib_init();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		child_cleanup();
		lib_log("child started\n");
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	close(lib_fd);
	return 0;
}
