/* SPDX-License-Identifier: MIT */
/*
 * h01 (healthy): a daemon's clean-up by number, then probes.  It closes
 * every number from 3 to 63 whether open or not (most fail with EBADF),
 * then asks of each whether it is open with fcntl(F_GETFD), F_GETFL and
 * fstat -- the standard way to ask, which bash's move_to_high_fd, the
 * GCC driver's jobserver check and git's "is stdout closed?" use.  None
 * is a misuse.
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bug.h"

int main(void)
{
	struct stat st;
	int open_ones = 0;

	for (int i = 3; i < 64; i++)
		close(i);
	for (int i = 3; i < 64; i++) {
		if (fcntl(i, F_GETFD) >= 0)
			open_ones++;
		if (fcntl(i, F_GETFL) >= 0)
			open_ones++;
		if (fstat(i, &st) == 0)
			open_ones++;
	}
	printf("%d open\n", open_ones);
	return 0;
}
