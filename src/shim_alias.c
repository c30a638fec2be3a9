/* SPDX-License-Identifier: MIT */
/*
 * shim_alias.c - glibc's second names of interposed calls (calls.def's
 * family of them): __fcntl, __open, __close, __read, _IO_fdopen and the
 * rest, which glibc exports for programs and libraries built against its
 * older headers and which reach the same code as the first name.  Each is
 * ufd's wrapper of its first name, called (a tail call), so that it does
 * all the first name does: translation, new descriptors, the record locks
 * noted, the sanitizer's checks.  __clone and __vfork are aliases in
 * shim_clone.c and shim_vfork.c (a vfork cannot return through a frame
 * of its own), __xmknodat a generated row.
 */
#include "shim.h"

#include <stdarg.h>

#include <execinfo.h>
#include <unistd.h>

/* ---- descriptors created, duplicated and closed ---- */

/* The mode read as open reads it: whatever the caller gave or not. */
UFD_PUBLIC int __open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	return open(path, flags, mode);
}

UFD_PUBLIC int __open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	return open64(path, flags, mode);
}

UFD_PUBLIC int __pipe(int fds[2])
{
	return pipe(fds);
}

/* glibc's own with O_CREAT: it aborts (no mode nor attributes given). */
UFD_PUBLIC mqd_t __mq_open_2(const char *name, int oflag)
{
	if (oflag & O_CREAT)
		return UFD_REAL(__mq_open_2)(name, oflag);
	return mq_open(name, oflag);
}

UFD_PUBLIC int __dup2(int oldfd, int newfd)
{
	return dup2(oldfd, newfd);
}

UFD_PUBLIC int __fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}

UFD_PUBLIC int __close(int fd)
{
	return close(fd);
}

/* ---- data ---- */

UFD_PUBLIC ssize_t __read(int fd, void *buf, size_t count)
{
	return read(fd, buf, count);
}

UFD_PUBLIC ssize_t __write(int fd, const void *buf, size_t count)
{
	return write(fd, buf, count);
}

UFD_PUBLIC ssize_t __pread64(int fd, void *buf, size_t count, off64_t off)
{
	return pread64(fd, buf, count, off);
}

UFD_PUBLIC ssize_t __pwrite64(int fd, const void *buf, size_t count, off64_t off)
{
	return pwrite64(fd, buf, count, off);
}

UFD_PUBLIC off_t __lseek(int fd, off_t off, int whence)
{
	return lseek(fd, off, whence);
}

UFD_PUBLIC off64_t llseek(int fd, off64_t off, int whence)
{
	return lseek64(fd, off, whence);
}

/* ---- sockets, poll and select ---- */

UFD_PUBLIC int __connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	return connect(fd, addr, len);
}

UFD_PUBLIC ssize_t __send(int fd, const void *buf, size_t len, int flags)
{
	return send(fd, buf, len, flags);
}

UFD_PUBLIC int __poll(struct pollfd *fds, nfds_t n, int timeout)
{
	return poll(fds, n, timeout);
}

UFD_PUBLIC int __select(int nfds, fd_set *r, fd_set *w, fd_set *e,
			struct timeval *timeout)
{
	return select(nfds, r, w, e, timeout);
}

/* ---- stdio, the descriptor limit ---- */

UFD_PUBLIC void __backtrace_symbols_fd(void *const *buffer, int size, int fd)
{
	backtrace_symbols_fd(buffer, size, fd);
}

UFD_PUBLIC FILE *_IO_fopen(const char *path, const char *mode)
{
	return fopen(path, mode);
}

UFD_PUBLIC FILE *_IO_fdopen(int fd, const char *mode)
{
	return fdopen(fd, mode);
}

UFD_PUBLIC int _IO_fclose(FILE *fp)
{
	return fclose(fp);
}

UFD_PUBLIC FILE *_IO_popen(const char *command, const char *mode)
{
	return popen(command, mode);
}

/* glibc's 64-bit names: the same function at the same address, struct
 * dirent64 being struct dirent (shim_dir.c checks) and glob64_t glob_t. */
_Static_assert(sizeof(glob64_t) == sizeof(glob_t), "glob64_t and glob_t differ");

UFD_PUBLIC int scandir64(const char *path, struct dirent64 ***list,
			 int (*filter)(const struct dirent64 *),
			 int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	return scandir(path, (struct dirent ***)list,
		       (int (*)(const struct dirent *))filter,
		       (int (*)(const struct dirent **, const struct dirent **))compar);
}

UFD_PUBLIC int glob64(const char *pattern, int flags,
		      int (*errfunc)(const char *, int), glob64_t *pglob)
{
	return glob(pattern, flags, errfunc, (glob_t *)pglob);
}

UFD_PUBLIC long __sysconf(int name)
{
	return sysconf(name);
}
