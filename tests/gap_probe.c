/* SPDX-License-Identifier: MIT */
/*
 * Description: a program with a descriptor call ufd cannot see: it opens a
 * file and hands the descriptor to a system call that ufd's syscall() does
 * not know (process_mrelease), so under UFD_MODE=all the virtual number
 * reaches the kernel untranslated.  ufd-compare --strace must report that
 * call as a gap.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/etc/hostname", O_RDONLY);

	/* Not a pidfd, so the kernel refuses it either way (EBADF or EINVAL):
	 * the output is the same with and without ufd. */
	syscall(SYS_process_mrelease, fd, 0);
	puts("done");
	return 0;
}
