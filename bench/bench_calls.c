/* SPDX-License-Identifier: MIT */
/*
 * bench_calls - creating and closing descriptors, for callgrind.
 *
 *   bench_calls N OPERATION
 *
 * runs one operation N times in bench_calls_loop, which callgrind counts
 * alone (--toggle-collect); bench/calls.sh runs it for N and 2N, with and
 * without ufd, and prints the difference per operation, so that start-up
 * cancels out.  Operations: open (open of /dev/null and close), pipe (and
 * two closes), socket (and close), dup (and close), vdup
 * (dup2(0, FD_UNSEQ_ALLOC): a virtual descriptor made and closed; under
 * ufd only), poll (poll of 64 pipe ends, none ready, timeout 0; vpoll: the
 * same ends made virtual first, under ufd only).  Not linked against ufd:
 * an unmodified program.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ufd.h"

#define NPOLL 64
static struct pollfd fds[NPOLL];

__attribute__((noinline)) long bench_calls_loop(long n, int op);

__attribute__((noinline)) long bench_calls_loop(long n, int op)
{
	long bad = 0;

	for (long i = 0; i < n && op >= 5; i++)
		bad += poll(fds, NPOLL, 0) != 0;
	for (long i = 0; i < n && op < 5; i++) {
		int fd = -1, p[2];

		switch (op) {
		case 0:
			fd = open("/dev/null", O_RDONLY);
			break;
		case 1:
			if (pipe(p) == 0) {
				close(p[0]);
				fd = p[1];
			}
			break;
		case 2:
			fd = socket(AF_UNIX, SOCK_STREAM, 0);
			break;
		case 3:
			fd = dup(0);
			break;
		default:
			fd = dup2(0, (int)FD_UNSEQ_ALLOC);
			break;
		}
		bad += fd < 0 || close(fd) != 0;
	}
	return bad;
}

int main(int argc, char **argv)
{
	static const char *const ops[] = { "open", "pipe", "socket", "dup",
					   "vdup", "poll", "vpoll" };
	int op = -1;

	for (int i = 0; argc == 3 && i < 7; i++)
		if (!strcmp(argv[2], ops[i]))
			op = i;
	if (op < 0) {
		fprintf(stderr, "usage: bench_calls N open|pipe|socket|dup|vdup|poll|vpoll\n");
		return 2;
	}
	for (int i = 0; op >= 5 && i < NPOLL; i += 2) {
		int p[2];

		if (pipe(p) != 0)
			return 2;
		fds[i].fd = op == 6 ? dup2(p[0], (int)FD_UNSEQ_ALLOC) : p[0];
		fds[i + 1].fd = op == 6 ? dup2(p[1], (int)FD_UNSEQ_ALLOC) : p[1];
		fds[i].events = POLLIN;
		fds[i + 1].events = POLLIN;
		if (fds[i].fd < 0 || fds[i + 1].fd < 0)
			return 2;
	}
	return bench_calls_loop(atol(argv[1]), op) != 0;
}
