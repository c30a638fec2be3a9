/* SPDX-License-Identifier: MIT */
/*
 * h09 (healthy): Python's subprocess child (_posixsubprocess.c,
 * _close_range_except): every descriptor from 3 up is closed but those
 * it keeps (pass_fds, the pipe that reports an exec's failure), with one
 * close_range per gap between them, [3, keep - 1] and [keep + 1, ~0U].
 * Under UFD_MODE=all the kept descriptors are virtual and the first range
 * spans ufd's backing descriptors, that of a kept one among them: the
 * program cannot name those, and closes exactly what it means to.
 *
 * env: UFD_MODE=all
 * expect: none
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE void close_range_except(int keep)
{
	if (close_range(3, (unsigned)keep - 1, 0) != 0 ||
	    close_range((unsigned)keep + 1, ~0U, 0) != 0)
		die("close_range");
	NO_TAIL();
}

int main(void)
{
	int errpipe[2], other[2], status;
	pid_t pid;

	if (pipe2(errpipe, O_CLOEXEC) != 0 || pipe2(other, O_CLOEXEC) != 0)
		die("pipe2");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close_range_except(errpipe[1]);
		_exit(write(errpipe[1], "", 1) == 1 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("child");
	close(errpipe[0]);
	close(errpipe[1]);
	close(other[0]);
	close(other[1]);
	return 0;
}
