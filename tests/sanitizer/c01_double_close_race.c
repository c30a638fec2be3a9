/* SPDX-License-Identifier: MIT */
/*
 * c01: a double close racing another thread's open (CWE-1341).  The shape
 * of Go issue 7970 and of libraries sharing one descriptor: a connection
 * object closes its socket on error and again in its destructor; between
 * the two, another thread opened a file and got the number, and the
 * second close closes that thread's file.  Here the threads take turns
 * (joins), so the interleaving is the bug's every time.
 *
 * expect: double-close in conn_destroy
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "bug.h"

static int conn_fd, other_fd;

static NOINLINE void conn_error(void)
{
	close(conn_fd);
	NO_TAIL();
}

static NOINLINE void conn_destroy(void)
{
	if (close(conn_fd) == 0)
		printf("second close closed the other thread's file\n");
	NO_TAIL();
}

static void *opener(void *arg)
{
	(void)arg;
	other_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return NULL;
}

int main(void)
{
	pthread_t t;

	conn_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (conn_fd < 0)
		die("open");
	conn_error();
	if (pthread_create(&t, NULL, opener, NULL) || pthread_join(t, NULL))
		die("pthread");
	conn_destroy();
	close(other_fd);
	return 0;
}
