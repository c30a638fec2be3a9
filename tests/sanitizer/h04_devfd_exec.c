/* SPDX-License-Identifier: MIT */
/*
 * h04 (healthy): a descriptor handed to the next program by name, as
 * bash's process substitution does (cat <(...) runs cat /dev/fd/63): the
 * pipe's read end is left without close-on-exec on purpose, and the
 * program is told its number in its arguments.
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"

int main(void)
{
	char path[32];
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		die("pipe2");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int in = fcntl(p[0], F_DUPFD, 10); /* no close-on-exec */

		if (in < 0)
			_exit(126);
		snprintf(path, sizeof(path), "/dev/fd/%d", in);
		execl("/bin/cat", "cat", path, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (write(p[1], "through /dev/fd\n", 16) != 16)
		die("write");
	close(p[1]);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		die("child");
	return 0;
}
