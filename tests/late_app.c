/* SPDX-License-Identifier: MIT */
/*
 * Description: a program not linked against libufd.so, using a library
 * that is (tests/late_lib.c).  Exit 0 if nonseqfd() failed with ENOSYS and
 * a second call did too (the message comes once); 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

int late_lib_nonseqfd(void);

int main(void)
{
	for (int i = 0; i < 2; i++) {
		int vfd = late_lib_nonseqfd();

		if (vfd >= 0 || errno != ENOSYS) {
			printf("late_app: nonseqfd gave %d (%s), want -1 ENOSYS\n",
			       vfd, vfd < 0 ? strerror(errno) : "no error");
			return 1;
		}
	}
	puts("late_app: nonseqfd refused with ENOSYS");
	return 0;
}
