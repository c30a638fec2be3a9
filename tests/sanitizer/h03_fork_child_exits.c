/* SPDX-License-Identifier: MIT */
/*
 * h03 (healthy): fork children that just exit.  The parent holds ten
 * descriptors, which every child inherits and leaves open when it calls
 * exit(0) -- their owner is the parent, which closes them.  A child made
 * nothing, so it leaked nothing (UFD_REPORT_LEAKS=1 is on).
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"

int main(void)
{
	int fds[10], status;

	for (int i = 0; i < 10; i++)
		if ((fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			die("open");
	for (int n = 0; n < 3; n++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
			exit(0);
		if (waitpid(pid, &status, 0) != pid || status != 0)
			die("child");
	}
	for (int i = 0; i < 10; i++)
		close(fds[i]);
	return 0;
}
