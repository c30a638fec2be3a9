/* SPDX-License-Identifier: MIT */
/*
 * h02 (healthy): a fork child's close-all loop.  The parent opened and
 * closed files before the fork; the child closes every number from 3 to
 * 1023 before it execs a helper, as shells and spawn libraries do.  The
 * parent's closes are the parent's history, and a close that fails with
 * EBADF in a sweep over numbers is not a double close.
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"

int main(void)
{
	int status, keep;
	pid_t pid;

	for (int i = 0; i < 8; i++) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die("open");
		close(fd);
	}
	keep = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (int i = 3; i < 1024; i++)
			close(i);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || status != 0)
		die("child");
	close(keep);
	return 0;
}
