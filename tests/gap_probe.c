/* SPDX-License-Identifier: MIT */
/*
 * Description: a program with a descriptor call ufd cannot see: it opens a
 * file and hands the descriptor to a system call (process_mrelease) made
 * with the system call instruction itself, as a program that does not go
 * through libc makes it (Go's), so under UFD_MODE=all the virtual number
 * reaches the kernel untranslated.  ufd-compare --strace must report that
 * call as a gap.  (Through libc's syscall() ufd translates it.)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The system call without libc. */
static long raw_syscall2(long number, long a, long b)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(number), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return r;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = number;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	return x0;
#else
	return syscall(number, a, b); /* translated by ufd: no gap here */
#endif
}

int main(void)
{
	int fd = open("/etc/hostname", O_RDONLY);

	/* Not a pidfd, so the kernel refuses it either way (EBADF or EINVAL):
	 * the output is the same with and without ufd. */
	raw_syscall2(SYS_process_mrelease, fd, 0);
	puts("done");
	return 0;
}
