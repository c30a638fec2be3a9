/* SPDX-License-Identifier: MIT */
/*
 * given.c - the descriptors a process was given when it started: which
 * are open, and what each is, read without /proc where fstat can say it
 * (given.h).  For the sanitizer's records of them (report.c).
 */
#include "given.h"

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <linux/magic.h>

#include "procfs.h"
#include "sys.h"
#include "text.h"

/* The path of a character device that fstat may say without /proc:
 * /dev/null, a pseudo-terminal's /dev/pts/N; or NULL. */
static const char *device_path(dev_t rdev, char *buf)
{
	unsigned ma = major(rdev), mi = minor(rdev);

	if (ma == 1 && mi == 3)
		return "/dev/null";
	if (ma >= 136 && ma <= 143) { /* UNIX98_PTY_SLAVE_MAJOR and on */
		*ufd_put_decimal(stpcpy(buf, "/dev/pts/"), (ma - 136) * 256 + mi) = '\0';
		return buf;
	}
	return NULL;
}

/*
 * What the kernel's /proc/self/fd link of fd says, into buf: its length,
 * or -errno.  Made without /proc where fstat tells it: a pipe's and a
 * socket's "pipe:[INODE]", "socket:[INODE]"; /dev/null or a terminal's
 * /dev/pts/N when that path is the same file.  The first readlink of
 * /proc/self/... makes the kernel build the process's /proc entries, and
 * its exit tear them down.
 */
long given_name(int fd, char *buf, size_t size)
{
	struct stat st, at;
	struct statfs fs;
	char dev[32];
	const char *path;

	if (ufd_sys_fstat(fd, &st) < 0)
		return ufd_proc_fd_link(fd, buf, size);
	if (S_ISSOCK(st.st_mode) ||
	    (S_ISFIFO(st.st_mode) && /* not a FIFO of a file system */
	     ufd_sys6(SYS_fstatfs, fd, (long)&fs, 0, 0, 0, 0) == 0 &&
	     fs.f_type == PIPEFS_MAGIC)) {
		char *p = stpcpy(buf, S_ISSOCK(st.st_mode) ? "socket:[" : "pipe:[");

		p = ufd_put_decimal(p, (unsigned long)st.st_ino);
		*p++ = ']';
		*p = '\0';
		return p - buf;
	}
	if (S_ISCHR(st.st_mode) && (path = device_path(st.st_rdev, dev)) &&
	    ufd_sys6(SYS_newfstatat, AT_FDCWD, (long)path, (long)&at, 0, 0, 0) == 0 &&
	    at.st_dev == st.st_dev && at.st_ino == st.st_ino && strlen(path) < size)
		return stpcpy(buf, path) - buf;
	return ufd_proc_fd_link(fd, buf, size);
}

/*
 * each(fd, ctx) on each open descriptor below GIVEN_BELOW (or the soft
 * RLIMIT_NOFILE if lower), in ascending order.  One ppoll that asks for
 * no event and waits for nothing, where a number that is not open says
 * POLLNVAL: no /proc, whose listing and the entries it made for the
 * process were a fifth of what reports on added to a fork + exec.  A
 * descriptor given higher is not seen, nor an O_PATH one (poll says
 * POLLNVAL for it too).  0, or -errno.
 */
int given_each(void (*each)(int fd, void *ctx), void *ctx)
{
	struct pollfd p[GIVEN_BELOW];
	struct timespec zero = { 0, 0 };
	int n = GIVEN_BELOW;
	long r;

	for (int i = 0; i < GIVEN_BELOW; i++)
		p[i] = (struct pollfd){ .fd = i, .events = 0 };
	/* (nfds past the soft limit is EINVAL: fewer then) */
	while ((r = ufd_sys6(SYS_ppoll, (long)p, n, (long)&zero, 0, 0, 0)) == -EINVAL &&
	       n > 4)
		n /= 2;
	if (r < 0)
		return (int)r;
	for (int i = 0; i < n; i++)
		if (!(p[i].revents & POLLNVAL))
			each(i, ctx);
	return 0;
}
