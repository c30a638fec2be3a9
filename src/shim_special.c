/* SPDX-License-Identifier: MIT */
/*
 * shim_special.c - the wrappers written by hand: the calls that create,
 * duplicate or close descriptors, and the variadic ones.  Each is a row
 * UFD_HAND or UFD_HANDV in calls.def, which declares and resolves its real
 * function.
 *
 * Every wrapper keeps the kernel's order of checks, so that a call with
 * several faults fails with the errno the kernel would pick.
 */
#include "shim.h"

#include <stdarg.h>

#include "sys.h"
#include "vfd_table.h"

/* Would open() read a mode argument for these flags?  As glibc decides. */
#define OPEN_NEEDS_MODE(flags) \
	(((flags) & O_CREAT) != 0 || ((flags) & O_TMPFILE) == O_TMPFILE)

/* Read open()'s optional mode into mode_var when flags call for it. */
#define OPEN_MODE(mode_var, flags)                        \
	do {                                              \
		if (OPEN_NEEDS_MODE(flags)) {             \
			va_list ap;                       \
			va_start(ap, flags);              \
			mode_var = va_arg(ap, mode_t);    \
			va_end(ap);                       \
		}                                         \
	} while (0)

int ufd_to_virtual(int real_fd, unsigned flags)
{
	int vfd = vfd_create(real_fd, flags, VFD_AT_RANDOM, 0);

	ufd_sys_close(real_fd);
	return vfd;
}

/* ---- open ---- */

/*
 * open/openat with O_UNSEQFD: open for real, then move the descriptor into
 * the virtual space.  The temporary real descriptor is opened close-on-exec
 * so that a concurrent fork+exec in another thread cannot inherit it.
 */
static int open_virtual(int dirfd, const char *path, int flags, mode_t mode)
{
	int fd = UFD_REAL(openat)(dirfd, path, (flags & ~O_UNSEQFD) | O_CLOEXEC,
				  mode);

	if (fd < 0)
		return -1;
	return ufd_ret(ufd_to_virtual(fd, flags & O_CLOEXEC ? VFD_CLOEXEC : 0));
}

UFD_PUBLIC int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	if (flags & O_UNSEQFD)
		return open_virtual(AT_FDCWD, path, flags, mode);
	return UFD_REAL(open)(path, flags, mode);
}

UFD_PUBLIC int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	if (flags & O_UNSEQFD)
		return open_virtual(AT_FDCWD, path, flags, mode);
	return UFD_REAL(open64)(path, flags, mode);
}

UFD_PUBLIC int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	dirfd = vfd_translate(dirfd);
	if (flags & O_UNSEQFD)
		return open_virtual(dirfd, path, flags, mode);
	return UFD_REAL(openat)(dirfd, path, flags, mode);
}

UFD_PUBLIC int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	dirfd = vfd_translate(dirfd);
	if (flags & O_UNSEQFD)
		return open_virtual(dirfd, path, flags, mode);
	return UFD_REAL(openat64)(dirfd, path, flags, mode);
}

/* ---- sockets ---- */

static unsigned sock_vfd_flags(int flags)
{
	return flags & SOCK_CLOEXEC ? VFD_CLOEXEC : 0;
}

UFD_PUBLIC int socket(int domain, int type, int protocol)
{
	int fd;

	if (!(type & SOCK_UNSEQ))
		return UFD_REAL(socket)(domain, type, protocol);
	fd = UFD_REAL(socket)(domain, (type & ~SOCK_UNSEQ) | SOCK_CLOEXEC,
			      protocol);
	if (fd < 0)
		return -1;
	return ufd_ret(ufd_to_virtual(fd, sock_vfd_flags(type)));
}

UFD_PUBLIC int socketpair(int domain, int type, int protocol, int sv[2])
{
	int real[2], v0, v1;

	if (!(type & SOCK_UNSEQ))
		return UFD_REAL(socketpair)(domain, type, protocol, sv);
	if (UFD_REAL(socketpair)(domain, (type & ~SOCK_UNSEQ) | SOCK_CLOEXEC,
				 protocol, real) < 0)
		return -1;
	v0 = ufd_to_virtual(real[0], sock_vfd_flags(type));
	if (v0 < 0) {
		ufd_sys_close(real[1]);
		return ufd_ret(v0);
	}
	v1 = ufd_to_virtual(real[1], sock_vfd_flags(type));
	if (v1 < 0) {
		vfd_close(v0);
		return ufd_ret(v1);
	}
	sv[0] = v0;
	sv[1] = v1;
	return 0;
}

UFD_PUBLIC int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	int conn;

	fd = vfd_translate(fd);
	if (!(flags & SOCK_UNSEQ))
		return UFD_REAL(accept4)(fd, addr, len, flags);
	conn = UFD_REAL(accept4)(fd, addr, len,
				 (flags & ~SOCK_UNSEQ) | SOCK_CLOEXEC);
	if (conn < 0)
		return -1;
	return ufd_ret(ufd_to_virtual(conn, sock_vfd_flags(flags)));
}

/* ---- dup2, dup3 ---- */

static int is_virtual_target(int newfd)
{
	return vfd_in_space(newfd) || (unsigned)newfd == FD_UNSEQ_ALLOC;
}

/*
 * dup2/dup3 onto a virtual number: FD_UNSEQ_ALLOC picks one at random, any
 * other number is taken exactly, replacing what it held.  Returns the new
 * descriptor or -errno.
 */
static int dup_to_virtual(int oldfd, int newfd, unsigned flags)
{
	int real = vfd_translate(oldfd);

	if (oldfd == newfd) /* dup2(x, x): x if it is open (dup3 said EINVAL) */
		return vfd_slot(oldfd) ? newfd : -EBADF;
	if ((unsigned)newfd == FD_UNSEQ_ALLOC)
		return vfd_create(real, flags, VFD_AT_RANDOM, 0);
	return vfd_create(real, flags, VFD_AT_EXACT, newfd);
}

UFD_PUBLIC int dup2(int oldfd, int newfd)
{
	if (is_virtual_target(newfd))
		return ufd_ret(dup_to_virtual(oldfd, newfd, 0));
	return UFD_REAL(dup2)(vfd_translate(oldfd), newfd);
}

UFD_PUBLIC int dup3(int oldfd, int newfd, int flags)
{
	/* The kernel's order: flags, then oldfd == newfd, then oldfd. */
	if (!is_virtual_target(newfd))
		return UFD_REAL(dup3)(vfd_translate(oldfd), newfd, flags);
	if (flags & ~O_CLOEXEC)
		return ufd_ret(-EINVAL);
	if (oldfd == newfd)
		return ufd_ret(-EINVAL);
	return ufd_ret(dup_to_virtual(oldfd, newfd,
				      flags & O_CLOEXEC ? VFD_CLOEXEC : 0));
}

/* ---- fcntl ---- */

/*
 * What fcntl must do itself for a virtual descriptor: F_DUPFD into the
 * virtual space, and the descriptor flags, which live in ufd's table (the
 * backing descriptor is always close-on-exec for the kernel).  Everything
 * else goes to the kernel on the backing descriptor.
 */
static int fcntl_common(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	/* The kernel reads the argument of these commands as an int. */
	int argi = (int)(long)arg;

	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		/* From FD_UNSEQ_LIMIT on the kernel's own answer is right:
		 * EBADF for a bad fd, else EINVAL (past RLIMIT_NOFILE). */
		if ((unsigned)argi >= FD_UNSEQ_BASE &&
		    (unsigned)argi < FD_UNSEQ_LIMIT)
			return ufd_ret(vfd_create(
				vfd_translate(fd),
				cmd == F_DUPFD_CLOEXEC ? VFD_CLOEXEC : 0,
				VFD_AT_LOWEST, argi));
		break;
	case F_GETFD:
		if (vfd_in_space(fd)) {
			int flags = vfd_get_flags(fd);

			if (flags < 0)
				return ufd_ret(flags);
			return flags & VFD_CLOEXEC ? FD_CLOEXEC : 0;
		}
		break;
	case F_SETFD:
		if (vfd_in_space(fd))
			return ufd_ret(vfd_set_flags(
				fd, VFD_CLOEXEC,
				argi & FD_CLOEXEC ? VFD_CLOEXEC : 0));
		break;
	}
	return real(vfd_translate(fd), cmd, arg);
}

UFD_PUBLIC int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(UFD_REAL(fcntl), fd, cmd, arg);
}

UFD_PUBLIC int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(UFD_REAL(fcntl64), fd, cmd, arg);
}

/* ---- close ---- */

int ufd_close(int fd)
{
	if (vfd_in_space(fd))
		return ufd_ret(vfd_close(fd));
	return UFD_REAL(close)(fd);
}

UFD_PUBLIC int close(int fd)
{
	return ufd_close(fd);
}
