/* SPDX-License-Identifier: MIT */
/*
 * c11: dup2 onto a number another thread has just reused.  A thread
 * closes its descriptor, another thread's open gets the number, and the
 * first thread then dup2()s onto the number it still thinks is its own
 * -- which silently closes the other thread's file (dup2(2): "the steps
 * of closing and reusing the file descriptor newfd are performed
 * atomically", so nothing fails).  The threads take turns here.
 *
 * missed: close-not-owned in redirect_output (issue 23 item 14: dup2 over an open descriptor that another thread made since)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "bug.h"

static int out_fd, other_fd;

static void *opener(void *arg)
{
	(void)arg;
	other_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return NULL;
}

static NOINLINE void redirect_output(int to)
{
	dup2(to, out_fd);
	NO_TAIL();
}

int main(void)
{
	pthread_t t;
	int to = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (to < 0 || out_fd < 0)
		die("open");
	close(out_fd);
	if (pthread_create(&t, NULL, opener, NULL) || pthread_join(t, NULL))
		die("pthread");
	redirect_output(to);
	if (other_fd == out_fd)
		printf("dup2 replaced the other thread's file\n");
	close(out_fd);
	if (other_fd != out_fd)
		close(other_fd);
	close(to);
	return 0;
}
