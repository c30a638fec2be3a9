/* SPDX-License-Identifier: MIT */
/*
 * bench_shim - the cost the shim adds to a descriptor call.
 *
 * Calls read(fd, buf, 0) in a loop (a real system call that moves no data)
 * on a real descriptor and, when libufd.so is loaded, on a virtual one, and
 * prints nanoseconds per call (best of 3 loops).  Arguments: the number of
 * calls per loop, and which descriptor: real, virtual or both.  Run it with and without LD_PRELOAD to get
 * the ratio side by side; bench/shim.sh does both, and counts instructions
 * with callgrind, which is stable on a noisy machine:
 *
 *   bench/shim.sh build
 *
 * Not linked against ufd: it is an unmodified program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ufd.h"

/* The measured loop, kept out of line so callgrind can count it alone
 * (--toggle-collect=bench_loop). */
__attribute__((noinline)) long bench_loop(int fd, long n);

__attribute__((noinline)) long bench_loop(int fd, long n)
{
	char buf[1];
	long bad = 0;

	for (long i = 0; i < n; i++)
		bad += read(fd, buf, 0) != 0;
	return bad;
}

static double ns_per_call(int fd, long n)
{
	struct timespec a, b;
	double best = 1e30;

	for (int rep = 0; rep < 3; rep++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (bench_loop(fd, n)) {
			fprintf(stderr, "bench_shim: read(%d) failed\n", fd);
			exit(1);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
		if (ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *which = argc > 2 ? argv[2] : "both";
	int fd = open("/dev/zero", O_RDONLY), vfd;

	if (fd < 0 || n <= 0) {
		fprintf(stderr, "usage: bench_shim [calls [real|virtual|both]]\n");
		return 2;
	}
	if (which[0] != 'v')
		printf("real descriptor     %7.1f ns/call\n", ns_per_call(fd, n));
	if (which[0] == 'r')
		return 0;
	vfd = dup2(fd, FD_UNSEQ_ALLOC);
	if (vfd < 0) {
		printf("virtual descriptor  (none: libufd.so is not loaded)\n");
		return which[0] == 'v';
	}
	printf("virtual descriptor  %7.1f ns/call\n", ns_per_call(vfd, n));
	return 0;
}
