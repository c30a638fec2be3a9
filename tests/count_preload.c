/* SPDX-License-Identifier: MIT */
/*
 * count_preload.c - a descriptor-tracking preload for chain_preload.sh:
 * counts the descriptors it sees made (open, openat and their 64-bit
 * twins, dup, dup2, dup3, fcntl and fcntl64 F_DUPFD, socket, pipe, pipe2)
 * and closed, calling on through RTLD_NEXT, and prints "count: made N
 * closed M" at exit.  A tracker after libufd.so in LD_PRELOAD sees what
 * ufd does through the chain.
 */
#undef _FILE_OFFSET_BITS /* open and open64 are two functions here */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/close_range.h>
#include <sys/socket.h>
#include <unistd.h>

static int made, closed;

#define NEXT(name)                                             \
	static __typeof__(name) *next;                        \
	if (!next)                                            \
		next = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static int counted(int r, int *n)
{
	if (r >= 0)
		(*n)++;
	return r;
}

static mode_t mode_of(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	NEXT(open);

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return counted(next(path, flags, mode), &made);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	NEXT(open64);

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return counted(next(path, flags, mode), &made);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	NEXT(openat);

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return counted(next(dirfd, path, flags, mode), &made);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	NEXT(openat64);

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return counted(next(dirfd, path, flags, mode), &made);
}

int dup(int fd)
{
	NEXT(dup);
	return counted(next(fd), &made);
}

int dup2(int fd, int to)
{
	NEXT(dup2);
	return counted(next(fd, to), &made);
}

int dup3(int fd, int to, int flags)
{
	NEXT(dup3);
	return counted(next(fd, to, flags), &made);
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;
	NEXT(fcntl);

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return counted(next(fd, cmd, arg), &made);
	return next(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	long arg;
	NEXT(fcntl64);

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return counted(next(fd, cmd, arg), &made);
	return next(fd, cmd, arg);
}

int socket(int domain, int type, int protocol)
{
	NEXT(socket);
	return counted(next(domain, type, protocol), &made);
}

int pipe(int fds[2])
{
	int r;
	NEXT(pipe);

	r = next(fds);
	if (r == 0)
		made += 2;
	return r;
}

/* ufd makes pipe's descriptors with pipe2 when it has work to do. */
int pipe2(int fds[2], int flags)
{
	int r;
	NEXT(pipe2);

	r = next(fds, flags);
	if (r == 0)
		made += 2;
	return r;
}

int close(int fd)
{
	NEXT(close);
	return counted(next(fd), &closed);
}

/* The descriptors it closes: those open in [first, last] before, as the
 * next fcntl sees them (the test's ranges are a few numbers). */
int close_range(unsigned first, unsigned last, int flags)
{
	int (*getfd)(int, int, ...) = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	int open_before = 0, r;
	NEXT(close_range);

	for (unsigned n = first; n <= last && n - first < 64 && n <= 0x7fffffff; n++)
		open_before += getfd((int)n, F_GETFD) >= 0;
	r = next(first, last, flags);
	if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
		closed += open_before;
	return r;
}

__attribute__((destructor)) static void report(void)
{
	/* the fuzzer's runs (fuzz-chain) want the chain, not the counts */
	if (!getenv("COUNT_PRELOAD_QUIET"))
		fprintf(stderr, "count: made %d closed %d\n", made, closed);
}
