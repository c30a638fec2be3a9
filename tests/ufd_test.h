/* SPDX-License-Identifier: MIT */
/*
 * ufd_test.h - what the test programs share.
 *
 * ufd's own API is looked up at run time, so that one source serves a test
 * linked against libufd.so and the same test run unlinked under
 * LD_PRELOAD; and the kernel's own view of a descriptor is read from /proc,
 * past any interposed call.
 */
#ifndef UFD_TEST_H
#define UFD_TEST_H

#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
/* Raw system calls, past ufd's wrappers (and past glibc's syscall(),
 * which ufd interposes too). */
#include "../src/sys.h"

/*
 * ufd's API, as load_api() finds it.  A test of one file has these
 * pointers to itself; a test of several files defines UFD_TEST_SHARED_API
 * before including this header, and one of its files defines them.
 */
#ifdef UFD_TEST_SHARED_API
#define UFD_TEST_API extern
#else
#define UFD_TEST_API static
#endif
UFD_TEST_API int (*api_nonseqfd)(int, int);
UFD_TEST_API int (*api_is_virtual)(int);
UFD_TEST_API int (*api_backing_fd)(int);

/* Find nonseqfd, ufd_is_virtual and ufd_backing_fd; when required and ufd
 * is not loaded, say so and exit. */
static inline void load_api(int required)
{
	api_nonseqfd = (int (*)(int, int))dlsym(RTLD_DEFAULT, "nonseqfd");
	api_is_virtual = (int (*)(int))dlsym(RTLD_DEFAULT, "ufd_is_virtual");
	api_backing_fd = (int (*)(int))dlsym(RTLD_DEFAULT, "ufd_backing_fd");
	if (required && (!api_nonseqfd || !api_is_virtual || !api_backing_fd)) {
		fprintf(stderr, "libufd.so is not loaded: run this test under "
				"LD_PRELOAD=libufd.so or link it\n");
		exit(EXIT_FAILURE);
	}
}

/*
 * Under an emulator (UFD_TEST_EMULATOR, set by tests/meson.build in a cross
 * build run under qemu-user): say that WHAT is skipped and WHY, and return
 * 1; natively return 0.  For what the emulator cannot do, nothing else.
 */
static inline int skip_under_emulator(const char *what, const char *why)
{
	const char *emulator = getenv("UFD_TEST_EMULATOR");

	if (!emulator || !*emulator)
		return 0;
	fprintf(stderr, "%s: skipped under %s: %s\n", what, emulator, why);
	return 1;
}

/* N of UFD_MODE=random (random_fd.h): the soft RLIMIT_NOFILE capped at
 * UFD_RANDOM_MAX, else at FD_SETSIZE (1024). */
static inline int random_range_n(void)
{
	const char *max = getenv("UFD_RANDOM_MAX");
	struct rlimit rl;
	int n = max ? atoi(max) : 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n)
		n = (int)rl.rlim_cur;
	return n;
}

/* Is fd a number in the virtual space? */
static inline int is_vfd(int fd)
{
	return (unsigned)fd >= FD_UNSEQ_BASE && (unsigned)fd < FD_UNSEQ_LIMIT;
}

/* The kernel's own close-on-exec flag of real descriptor fd, from
 * /proc/self/fdinfo, with raw system calls (ufd's wrappers treat a backing
 * descriptor's number as not open): 1, 0, or -1 if it is not open. */
static inline int kernel_cloexec(int fd)
{
	char path[64], buf[512], *p;
	long f, n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = ufd_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (f < 0)
		return -1;
	n = ufd_sys6(SYS_read, f, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	ufd_sys6(SYS_close, f, 0, 0, 0, 0, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "flags:");
	return p ? (strtoul(p + 6, NULL, 8) & O_CLOEXEC) != 0 : -1;
}

/*
 * The real descriptors the kernel has open, backing descriptors included:
 * its own listing of /proc/self/fd, read with getdents64 (the shim filters
 * readdir on /proc/self/fd, not the system call), without the listing's
 * own descriptor.  The first max of them go into out, in the listing's
 * order; returns how many there are, or -1 if /proc/self/fd cannot be
 * opened.
 */
static inline int kernel_fd_list(int *out, int max)
{
	char buf[8192];
	int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	long got;

	if (dfd < 0)
		return -1;
	while ((got = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *e = (void *)(buf + off);
			int fd = atoi(e->name);

			if (e->name[0] != '.' && fd != dfd) {
				if (n < max)
					out[n] = fd;
				n++;
			}
			off += e->reclen;
		}
	}
	close(dfd);
	return n;
}

/* Raise the soft RLIMIT_NOFILE to at least want; 0 if the hard limit is
 * too low for that. */
static inline int raise_nofile(rlim_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur >= want)
		return 1;
	if (rl.rlim_max < want)
		return 0;
	rl.rlim_cur = want;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/*
 * Run the program argv[0] with argv and envp, its standard output into
 * out (size bytes, NUL-terminated, cut if longer); returns its wait
 * status.  For tests that run themselves once bare and once under ufd.
 */
static inline int run_capture(char *const argv[], char **envp, char *out,
			      size_t size)
{
	int p[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		exit(2);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[1]);
	while (len < size - 1 && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return status;
}

#endif /* UFD_TEST_H */
