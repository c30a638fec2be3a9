/* SPDX-License-Identifier: MIT */
/*
 * procfs.c - the /proc reader (procfs.h).
 */
#include "procfs.h"

#include <fcntl.h>
#include <string.h>

#include "sys.h"
#include "text.h"

static int open_proc(const char *path)
{
	return (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC,
			     0, 0, 0);
}

long ufd_proc_read(const char *path, char *buf, size_t size)
{
	int fd = open_proc(path);
	long n;

	if (fd < 0)
		return fd;
	n = ufd_sys6(SYS_read, fd, (long)buf, (long)(size - 1), 0, 0, 0);
	ufd_sys_close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

long ufd_proc_fd_link(int fd, char *buf, size_t size)
{
	char path[32] = "/proc/self/fd/";
	long n;

	*ufd_put_decimal(path + strlen(path), (unsigned long)(unsigned)fd) = '\0';
	n = ufd_sys6(SYS_readlinkat, AT_FDCWD, (long)path, (long)buf,
		     (long)(size - 1), 0, 0);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int ufd_proc_lines(const char *path, int (*line)(const char *text, void *ctx),
		   void *ctx)
{
	char buf[1024];
	size_t len = 0;
	int fd = open_proc(path), found = 0;
	long n;

	if (fd < 0)
		return fd;
	/* A line cut by a read is carried over to the next. */
	while (!found && (n = ufd_sys6(SYS_read, fd, (long)(buf + len),
				       (long)(sizeof(buf) - 1 - len), 0, 0, 0)) > 0) {
		char *text = buf, *end;

		len += (size_t)n;
		buf[len] = '\0';
		while (!found && (end = strchr(text, '\n'))) {
			*end = '\0';
			found = line(text, ctx);
			text = end + 1;
		}
		len -= (size_t)(text - buf);
		memmove(buf, text, len);
		if (len == sizeof(buf) - 1) { /* longer than the buffer: cut */
			found = line(buf, ctx);
			len = 0;
		}
	}
	ufd_sys_close(fd);
	return found;
}

/* The kernel's struct linux_dirent64, which getdents64 fills. */
struct dirent64_raw {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

int ufd_proc_fds(void (*each)(int n, void *ctx), void *ctx)
{
	char buf[512] __attribute__((aligned(8)));
	int dir = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)"/proc/self/fd",
				O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	long n;

	if (dir < 0)
		return dir;
	while ((n = ufd_sys6(SYS_getdents64, dir, (long)buf, sizeof(buf), 0, 0,
			     0)) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
			unsigned long fd;
			const char *end = ufd_parse_decimal(d->name, 0x7fffffffUL, &fd);

			if (end && !*end && (int)fd != dir)
				each((int)fd, ctx);
			off += d->reclen;
		}
	}
	ufd_sys_close(dir);
	return n < 0 ? (int)n : 0;
}
