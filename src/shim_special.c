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

#include <linux/fs.h>
#include <sys/sysmacros.h>
#include <stdarg.h>
#include <string.h>

#include "log.h"
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

/*
 * The result r of a real call that made a descriptor for a call with
 * ufd's own flags (newfd_finish_flagged), as the application gets it.
 */
static int ret_flagged(int r, int virt, unsigned vflags, int added,
		       enum ufd_call call)
{
	return r < 0 ? r : ufd_ret(newfd_finish_flagged(r, virt, vflags, added, call));
}

/* ufd's own open flags: stripped before the kernel sees the call. */
#define OPEN_UFD_FLAGS (O_UNSEQFD | O_CLOFORK)

/*
 * The flags the kernel gets.  For O_UNSEQFD the file is opened as usual,
 * close-on-exec so that a concurrent fork+exec in another thread cannot
 * inherit the temporary descriptor, then moved into the virtual space.
 */
static int open_flags(int flags)
{
	if (!(flags & OPEN_UFD_FLAGS))
		return flags;
	return (flags & ~OPEN_UFD_FLAGS) | (flags & O_UNSEQFD ? O_CLOEXEC : 0);
}

static int open_result(int fd, int flags, int added, enum ufd_call call)
{
	if (fd < 0 || !(flags & OPEN_UFD_FLAGS))
		return ufd_ret_new_fd(fd, added, call);
	return ret_flagged(fd, flags & O_UNSEQFD,
		       (flags & O_CLOEXEC ? VFD_CLOEXEC : 0) |
			       (flags & O_CLOFORK ? VFD_CLOFORK : 0),
		       added, call);
}

/* The body of every open wrapper: rewrite a /dev/fd path, call the real
 * function with args, move the result if O_UNSEQFD asked for it. */
#define OPEN_BODY(name, path, flags, ...)                                    \
	do {                                                                 \
		char path_buf_[ufd_path_size(path)];                         \
		int added_ = newfd_add_cloexec(&flags, O_CLOEXEC);             \
		path = ufd_path(path, path_buf_, sizeof(path_buf_));         \
		return open_result(UFD_REAL(name)(__VA_ARGS__), flags,       \
				   added_, UFD_CALL_##name);                 \
	} while (0)

UFD_PUBLIC int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	OPEN_BODY(open, path, flags, path, open_flags(flags), mode);
}

UFD_PUBLIC int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	OPEN_BODY(open64, path, flags, path, open_flags(flags), mode);
}

UFD_PUBLIC int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	dirfd = vfd_translate(dirfd);
	OPEN_BODY(openat, path, flags, dirfd, path, open_flags(flags), mode);
}

UFD_PUBLIC int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(mode, flags);
	dirfd = vfd_translate(dirfd);
	OPEN_BODY(openat64, path, flags, dirfd, path, open_flags(flags), mode);
}

/* The fortify entry points: open() without a mode argument. */
UFD_PUBLIC int __open_2(const char *path, int flags)
{
	OPEN_BODY(__open_2, path, flags, path, open_flags(flags));
}

UFD_PUBLIC int __open64_2(const char *path, int flags)
{
	OPEN_BODY(__open64_2, path, flags, path, open_flags(flags));
}

UFD_PUBLIC int __openat_2(int dirfd, const char *path, int flags)
{
	dirfd = vfd_translate(dirfd);
	OPEN_BODY(__openat_2, path, flags, dirfd, path, open_flags(flags));
}

UFD_PUBLIC int __openat64_2(int dirfd, const char *path, int flags)
{
	dirfd = vfd_translate(dirfd);
	OPEN_BODY(__openat64_2, path, flags, dirfd, path, open_flags(flags));
}

/* ---- sockets ---- */

/* ufd's own socket type flags: stripped before the kernel sees the call. */
#define SOCK_UFD_FLAGS (SOCK_UNSEQ | SOCK_CLOFORK)

static unsigned sock_vfd_flags(int flags)
{
	return (flags & SOCK_CLOEXEC ? VFD_CLOEXEC : 0) |
	       (flags & SOCK_CLOFORK ? VFD_CLOFORK : 0);
}

/* The type or flags the kernel gets: as open_flags. */
static int sock_flags(int flags)
{
	return (flags & ~SOCK_UFD_FLAGS) | (flags & SOCK_UNSEQ ? SOCK_CLOEXEC : 0);
}

UFD_PUBLIC int socket(int domain, int type, int protocol)
{
	int added = newfd_add_cloexec(&type, SOCK_CLOEXEC);

	if (!(type & SOCK_UFD_FLAGS))
		return ufd_ret_new_fd(UFD_REAL(socket)(domain, type, protocol), added,
				  UFD_CALL_socket);
	return ret_flagged(UFD_REAL(socket)(domain, sock_flags(type), protocol),
		       type & SOCK_UNSEQ, sock_vfd_flags(type), added,
		       UFD_CALL_socket);
}

UFD_PUBLIC int socketpair(int domain, int type, int protocol, int sv[2])
{
	int real[2], v0, v1, added = newfd_add_cloexec(&type, SOCK_CLOEXEC);

	if (!(type & SOCK_UFD_FLAGS)) {
		if (UFD_REAL(socketpair)(domain, type, protocol, sv) < 0)
			return -1;
		return ufd_ret(newfd_finish_pair(sv, added, UFD_CALL_socketpair));
	}
	if (UFD_REAL(socketpair)(domain, sock_flags(type), protocol, real) < 0)
		return -1;
	v0 = newfd_finish_flagged(real[0], type & SOCK_UNSEQ, sock_vfd_flags(type),
				  added, UFD_CALL_socketpair);
	if (v0 < 0) {
		ufd_sys_close(real[1]);
		return ufd_ret(v0);
	}
	v1 = newfd_finish_flagged(real[1], type & SOCK_UNSEQ, sock_vfd_flags(type),
				  added, UFD_CALL_socketpair);
	if (v1 < 0) {
		ufd_close(v0);
		return ufd_ret(v1);
	}
	sv[0] = v0;
	sv[1] = v1;
	return 0;
}

UFD_PUBLIC int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags)
{
	int added = newfd_add_cloexec(&flags, SOCK_CLOEXEC);

	fd = vfd_translate(fd);
	if (!(flags & SOCK_UFD_FLAGS))
		return ufd_ret_new_fd(UFD_REAL(accept4)(fd, addr, len, flags), added,
				  UFD_CALL_accept4);
	return ret_flagged(UFD_REAL(accept4)(fd, addr, len, sock_flags(flags)),
		       flags & SOCK_UNSEQ, sock_vfd_flags(flags), added,
		       UFD_CALL_accept4);
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
		return vfd_in_space(oldfd) && vfd_slot(oldfd) ? newfd : -EBADF;
	if ((unsigned)newfd == FD_UNSEQ_ALLOC)
		return vfd_create(real, flags | (ufd_settings.cloexec ? VFD_CLOEXEC : 0),
				  VFD_AT_RANDOM, 0);
	return vfd_create(real, flags, VFD_AT_EXACT, newfd);
}

/*
 * Is oldfd open, as dup2 checks it: a virtual descriptor in the table, a
 * real one for the kernel (the raw call, so that no flag of ufd's and no
 * interposed function is involved).
 */
static int dup_source_open(int oldfd)
{
	if (vfd_in_space(oldfd))
		return vfd_slot(oldfd) != 0;
	return ufd_sys_fcntl(oldfd, F_GETFD, 0) >= 0;
}

/*
 * dup2/dup3 onto real descriptor newfd (not oldfd) that ufd guards: a
 * backing descriptor or a marked one may be there, so vfd_real_dup makes
 * the call.  A backing descriptor there is not the application's: it
 * moves out of the way, so that the virtual descriptor it backs stays
 * intact, and the application's dup2 succeeds as onto a free number.
 * Returns newfd or -errno.
 *
 * The kernel checks oldfd before it touches newfd, so a dup2 that fails
 * with EBADF leaves newfd as it was: oldfd is checked here first, and
 * nothing is moved or unmarked for a call that is going to fail.
 */
static int dup_onto_guarded(int oldfd, int newfd, int kflags, unsigned mark)
{
	if (!dup_source_open(oldfd))
		return -EBADF;
	/* Past the application's limit: the kernel's EBADF (its own limit,
	 * which ufd holds higher, would let the call through). */
	if ((unsigned)newfd >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED))
		return -EBADF;
	return vfd_real_dup(oldfd, newfd, kflags, mark);
}

UFD_PUBLIC int dup2(int oldfd, int newfd)
{
	/* A backing descriptor is not open, for the application: no copy
	 * of it (the kernel checks oldfd first). */
	if (vfd_is_backing(oldfd))
		return ufd_ret(-EBADF);
	if (is_virtual_target(newfd))
		return ufd_ret(dup_to_virtual(oldfd, newfd, 0));
	if (oldfd != newfd && vfd_guarded(newfd))
		return ufd_ret(dup_onto_guarded(oldfd, newfd, 0, 0));
	return UFD_REAL(dup2)(vfd_translate(oldfd), newfd);
}

UFD_PUBLIC int dup3(int oldfd, int newfd, int flags)
{
	unsigned vflags = (flags & O_CLOEXEC ? VFD_CLOEXEC : 0) |
			  (flags & O_CLOFORK ? VFD_CLOFORK : 0);

	/* The kernel's order: flags, then oldfd == newfd, then oldfd. */
	if (flags & ~(O_CLOEXEC | O_CLOFORK))
		return ufd_ret(-EINVAL);
	if (oldfd == newfd)
		return ufd_ret(-EINVAL);
	if (vfd_is_backing(oldfd))
		return ufd_ret(-EBADF);
	if (is_virtual_target(newfd))
		return ufd_ret(dup_to_virtual(oldfd, newfd, vflags));
	/* The number asked for, real: not a new descriptor for
	 * UFD_MODE=all to move. */
	if (vfd_guarded(newfd))
		return ufd_ret(dup_onto_guarded(oldfd, newfd, flags & ~O_CLOFORK,
						vflags & VFD_CLOFORK));
	if (UFD_REAL(dup3)(vfd_translate(oldfd), newfd, flags & ~O_CLOFORK) < 0)
		return -1;
	if (vflags & VFD_CLOFORK)
		return ufd_ret(vfd_real_set_flags(newfd, VFD_CLOFORK) ?: newfd);
	return newfd;
}

/* ---- fcntl ---- */

/* FD_CLOEXEC/FD_CLOFORK <-> VFD_CLOEXEC/VFD_CLOFORK */
static int fd_flags_of(unsigned vflags)
{
	return (vflags & VFD_CLOEXEC ? FD_CLOEXEC : 0) |
	       (vflags & VFD_CLOFORK ? FD_CLOFORK : 0);
}

static unsigned vflags_of(int fd_flags)
{
	return (fd_flags & FD_CLOEXEC ? VFD_CLOEXEC : 0) |
	       (fd_flags & FD_CLOFORK ? VFD_CLOFORK : 0);
}

/*
 * What fcntl must do itself: F_DUPFD into the virtual space, F_DUPFD_CLOFORK
 * (which the kernel does not know), and the descriptor flags, which for a
 * virtual descriptor live in ufd's table (its backing descriptor is always
 * close-on-exec for the kernel) and for a real one are the kernel's
 * FD_CLOEXEC and ufd's FD_CLOFORK.  Everything else goes to the kernel.
 */
static int fcntl_common(int (*real)(int, int, ...), enum ufd_call call, int fd,
			int cmd, void *arg)
{
	/* The kernel reads the argument of these commands as an int. */
	int argi = (int)(long)arg, r;

	/* A backing descriptor is not the application's: no flags to read or
	 * clear (that would leak it into children), nothing to duplicate. */
	if (vfd_is_backing(fd))
		return ufd_ret(-EBADF);
	if (cmd == F_SETLK || cmd == F_SETLKW)
		newfd_note_posix_lock();
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
	case F_DUPFD_CLOFORK: {
		unsigned vflags = cmd == F_DUPFD_CLOEXEC ? VFD_CLOEXEC
				  : cmd == F_DUPFD_CLOFORK ? VFD_CLOFORK
							   : 0;
		int added = ufd_settings.cloexec && cmd != F_DUPFD_CLOEXEC;

		if (added) {
			vflags |= VFD_CLOEXEC;
			cmd = F_DUPFD_CLOEXEC;
		}
		/* From FD_UNSEQ_LIMIT on the kernel's own answer is right:
		 * EBADF for a bad fd, else EINVAL (past RLIMIT_NOFILE). */
		if ((unsigned)argi >= FD_UNSEQ_BASE &&
		    (unsigned)argi < FD_UNSEQ_LIMIT)
			return ufd_ret(vfd_create(vfd_translate(fd), vflags,
						  VFD_AT_LOWEST, argi));
		/* F_DUPFD_CLOFORK is F_DUPFD_CLOEXEC under UFD_CLOEXEC. */
		r = real(vfd_translate(fd), cmd == F_DUPFD_CLOFORK ? F_DUPFD : cmd,
			 arg);
		/* From the application's limit on: the kernel's EINVAL (its
		 * own limit, which ufd holds higher, let the call through). */
		if (r >= 0 && (unsigned)argi >= ufd_app_nofile) {
			ufd_sys_close(r);
			return ufd_ret(-EINVAL);
		}
		return ret_flagged(r, 0, vflags & VFD_CLOFORK, added, call);
	}
	case F_GETFD:
		if (vfd_in_space(fd)) {
			r = vfd_get_flags(fd);
			return r < 0 ? ufd_ret(r) : fd_flags_of((unsigned)r);
		}
		r = real(fd, cmd, arg);
		return r < 0 ? r : r | fd_flags_of(vfd_real_get_flags(fd));
	case F_SETFD:
		if (vfd_in_space(fd))
			return ufd_ret(vfd_set_flags(fd, VFD_CLOEXEC | VFD_CLOFORK,
						     vflags_of(argi)));
		r = real(fd, cmd, (void *)(long)(argi & FD_CLOEXEC));
		if (r == 0)
			r = ufd_ret(vfd_real_set_flags(fd, vflags_of(argi)));
		return r;
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
	return fcntl_common(UFD_REAL(fcntl), UFD_CALL_fcntl, fd, cmd, arg);
}

UFD_PUBLIC int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(UFD_REAL(fcntl64), UFD_CALL_fcntl64, fd, cmd, arg);
}

/* glibc's lockf takes its locks with an internal fcntl, unseen. */
UFD_PUBLIC int lockf(int fd, int cmd, off_t len)
{
	if (cmd != F_ULOCK && cmd != F_TEST)
		newfd_note_posix_lock();
	return UFD_REAL(lockf)(vfd_translate(fd), cmd, len);
}

UFD_PUBLIC int lockf64(int fd, int cmd, off64_t len)
{
	if (cmd != F_ULOCK && cmd != F_TEST)
		newfd_note_posix_lock();
	return UFD_REAL(lockf64)(vfd_translate(fd), cmd, len);
}

/* ---- close ---- */

__attribute__((noinline)) int ufd_close(int fd)
{
	if (vfd_in_space(fd))
		return vfd_close(fd);
	/* EBADF for a backing descriptor; drops a close-on-fork mark. */
	if (vfd_guarded(fd))
		return vfd_real_close(fd);
	/* libc's, so that interposers after ufd (a sanitizer's) see it. */
	return UFD_REAL(close)(fd) < 0 ? -errno : 0;
}

/*
 * The hot path: below vfd_guard_from there is neither a virtual nor a
 * backing descriptor nor a mark (every virtual descriptor has a backing
 * descriptor, which lowered the guard below FD_UNSEQ_BASE), so one
 * comparison sends a close straight to libc.
 */
UFD_PUBLIC int close(int fd)
{
	if (__builtin_expect(vfd_guarded(fd), 0))
		return ufd_ret(ufd_close(fd));
	return UFD_REAL(close)(fd);
}

UFD_PUBLIC int close_range(unsigned int first, unsigned int last, int flags)
{
	return ufd_ret(vfd_close_range(first, last, (unsigned)flags));
}

/*
 * glibc's closefrom is close_range(lowfd, ~0U, 0) with a fallback through
 * /proc/self/fd for kernels without close_range, which would close backing
 * descriptors too; ufd needs close_range (Linux 5.9), and like glibc it
 * aborts rather than leave a descriptor open that the caller wanted closed.
 */
UFD_PUBLIC void closefrom(int lowfd)
{
	int r = vfd_close_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0U, 0);

	if (r < 0) {
		static const char msg[] = "ufd: closefrom: close_range failed\n";

		ufd_sys6(SYS_write, 2, (long)msg, sizeof(msg) - 1, 0, 0, 0);
		abort();
	}
}

/* ---- descriptors inside other calls' arguments ---- */

UFD_PUBLIC int signalfd(int fd, const sigset_t *mask, int flags)
{
	int real = vfd_translate(fd), r;

	if (fd == -1) {
		int added = newfd_add_cloexec(&flags, SFD_CLOEXEC);

		return ufd_ret_new_fd(UFD_REAL(signalfd)(fd, mask, flags), added,
				  UFD_CALL_signalfd);
	}
	r = UFD_REAL(signalfd)(real, mask, flags);

	/* Given an existing descriptor, signalfd returns it: the virtual one
	 * the caller named, not its backing descriptor. */
	return r >= 0 && real != fd && r == real ? fd : r;
}

/* ---- pidfd_getfd ---- */

/* The process a pidfd refers to, from its fdinfo; -1 if unknown. */
static long pidfd_pid(int pidfd)
{
	char path[48], buf[512], *p;
	long n, fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	fd = ufd_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	n = ufd_sys6(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	ufd_sys_close((int)fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nPid:");
	return p ? strtol(p + 5, NULL, 10) : -1;
}

/*
 * targetfd is a number in the process pidfd refers to.  When that process
 * is this one, a virtual targetfd is translated like any other; another
 * process's virtual descriptors are its own ufd's, unknown here, so they
 * reach the kernel as they are (EBADF).
 */
UFD_PUBLIC int pidfd_getfd(int pidfd, int targetfd, unsigned int flags)
{
	/* The kernel checks the flags first, then pidfd; the raw call also
	 * serves syscall(SYS_pidfd_getfd) where libc has no wrapper. */
	pidfd = vfd_translate(pidfd);
	if (flags == 0 && (vfd_in_space(targetfd) || vfd_is_backing(targetfd)) &&
	    pidfd_pid(pidfd) == (long)getpid()) {
		/* A backing descriptor is not this process's, for it. */
		if (vfd_is_backing(targetfd))
			return ufd_ret(-EBADF);
		targetfd = vfd_translate(targetfd);
	}
	return ufd_ret_new_fd(ufd_ret((int)ufd_sys6(SYS_pidfd_getfd, pidfd, targetfd,
						flags, 0, 0, 0)),
			  0, UFD_CALL_pidfd_getfd);
}

/* waitid(P_PIDFD, fd, ...) names a process by a pidfd: a descriptor in an
 * id_t. */
UFD_PUBLIC int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	if (idtype == P_PIDFD)
		id = (id_t)vfd_translate((int)id);
	return UFD_REAL(waitid)(idtype, id, info, options);
}

/* ---- ioctl ---- */

UFD_PUBLIC int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	/* A backing descriptor is not the application's, as for fcntl:
	 * FIONCLEX on it would leak it into every child. */
	if (vfd_is_backing(fd))
		return ufd_ret(-EBADF);
	/* The close-on-exec flag of a virtual descriptor is ufd's, as for
	 * fcntl(F_SETFD); its backing descriptor stays close-on-exec. */
	if ((request == FIOCLEX || request == FIONCLEX) && vfd_in_space(fd))
		return ufd_ret(vfd_set_flags(fd, VFD_CLOEXEC,
					     request == FIOCLEX ? VFD_CLOEXEC : 0));
	fd = vfd_translate(fd);
	if (request == FICLONE) {
		arg = (void *)(long)vfd_translate((int)(long)arg);
	} else if (request == FICLONERANGE && arg) {
		struct file_clone_range range = *(struct file_clone_range *)arg;

		range.src_fd = vfd_translate((int)range.src_fd);
		return UFD_REAL(ioctl)(fd, request, &range);
	}
	return UFD_REAL(ioctl)(fd, request, arg);
}

/*
 * The one walk over the SCM_RIGHTS descriptors in msg's control data:
 * counts those that map() changes and, with store, writes the new value in
 * place (only ever into a message ufd may write: its own copy, or one that
 * recvmsg filled).
 */
static size_t map_rights(const struct msghdr *msg, int (*map)(int fd), int store)
{
	struct cmsghdr *c;
	size_t changed = 0;

	if (ufd_unmapped(msg) || ufd_unmapped(msg->msg_control) ||
	    msg->msg_controllen < sizeof(struct cmsghdr))
		return 0;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		int *fds = (int *)CMSG_DATA(c);
		char *end = (char *)msg->msg_control + msg->msg_controllen;
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		/* A header may claim more than the buffer holds (the kernel says
		 * EINVAL): never walk past msg_controllen. */
		if ((char *)fds > end)
			break;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > (size_t)(end - (char *)fds) / sizeof(int))
			n = (size_t)(end - (char *)fds) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd = map(fds[i]);

			if (fd != fds[i]) {
				changed++;
				if (store)
					fds[i] = fd;
			}
		}
	}
	return changed;
}

/* UFD_MODE=all: a descriptor received with SCM_RIGHTS is a new one too. */
static int received_msg(int fd)
{
	return ufd_ret_new_fd(fd, 0, UFD_CALL_recvmsg);
}

static int received_mmsg(int fd)
{
	return ufd_ret_new_fd(fd, 0, UFD_CALL_recvmmsg);
}

UFD_PUBLIC ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t r;

	newfd_add_cloexec(&flags, MSG_CMSG_CLOEXEC);
	r = UFD_REAL(recvmsg)(vfd_translate(fd), msg, flags);
	if (r >= 0 && __builtin_expect(ufd_settings.mode_all, 0))
		map_rights(msg, received_msg, 1);
	return r;
}

UFD_PUBLIC int recvmmsg(int fd, struct mmsghdr *vec, unsigned int n, int flags,
			struct timespec *timeout)
{
	int r;

	newfd_add_cloexec(&flags, MSG_CMSG_CLOEXEC);
	r = UFD_REAL(recvmmsg)(vfd_translate(fd), vec, n, flags, timeout);
	for (int i = 0; __builtin_expect(ufd_settings.mode_all, 0) && i < r; i++)
		map_rights(&vec[i].msg_hdr, received_mmsg, 1);
	return r;
}

/* The kernel refuses control data past net.core.optmem_max (20 KiB by
 * default), so a copy on the stack up to this size covers every message it
 * would accept; larger ones go to the kernel as they are, to be refused. */
#define CONTROL_COPY_MAX 65536

UFD_PUBLIC ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	fd = vfd_translate(fd);
	if (ufd_unmapped(msg) || msg->msg_controllen > CONTROL_COPY_MAX ||
	    !map_rights(msg, vfd_translate, 0))
		return UFD_REAL(sendmsg)(fd, msg, flags);

	/* Translate in a copy: the caller's message is const. */
	union {
		struct cmsghdr align;
		char bytes[msg->msg_controllen];
	} control;
	struct msghdr copy = *msg;

	memcpy(control.bytes, msg->msg_control, msg->msg_controllen);
	copy.msg_control = control.bytes;
	map_rights(&copy, vfd_translate, 1);
	return UFD_REAL(sendmsg)(fd, &copy, flags);
}

/*
 * sendmmsg with virtual SCM_RIGHTS descriptors: one sendmsg per message,
 * with sendmmsg's own result rules (the count sent, or -1 if the first
 * message failed).
 */
UFD_PUBLIC int sendmmsg(int fd, struct mmsghdr *vec, unsigned int n, int flags)
{
	unsigned int i;

	for (i = 0; !ufd_unmapped(vec) && i < n; i++)
		if (map_rights(&vec[i].msg_hdr, vfd_translate, 0))
			break;
	if (ufd_unmapped(vec) || i == n)
		return UFD_REAL(sendmmsg)(vfd_translate(fd), vec, n, flags);
	for (i = 0; i < n; i++) {
		ssize_t r = sendmsg(fd, &vec[i].msg_hdr, flags);

		if (r < 0)
			return i ? (int)i : -1;
		vec[i].msg_len = (unsigned int)r;
	}
	return (int)n;
}

/* ---- poll, select ---- */

/* Entries translated on the stack; larger arrays get a private mapping
 * (no malloc: poll is async-signal-safe). */
#define POLL_STACK 64

/*
 * A copy of fds with the virtual descriptors translated, in stack (room for
 * POLL_STACK) or a new mapping (*mapped set to its length), or fds itself
 * when no entry is virtual.  Entries naming a closed virtual number keep it,
 * so that the kernel answers POLLNVAL for them as for any closed
 * descriptor.  NULL if the mapping fails.
 */
static struct pollfd *poll_translate(struct pollfd *fds, nfds_t n,
				     struct pollfd *stack, size_t *mapped)
{
	struct pollfd *copy = stack;
	nfds_t i;

	*mapped = 0;
	/* Past the kernel's default nr_open the call is an EINVAL for the
	 * kernel to give; the array may not even be that long. */
	if (ufd_unmapped(fds) || n > (1U << 20))
		return fds;
	for (i = 0; i < n && !vfd_in_space(fds[i].fd); i++)
		;
	if (i == n)
		return fds;
	if (n > POLL_STACK) {
		*mapped = n * sizeof(*fds);
		copy = ufd_sys_mmap(NULL, *mapped, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ufd_sys_is_error((long)copy))
			return NULL;
	}
	for (i = 0; i < n; i++) {
		copy[i] = fds[i];
		copy[i].fd = vfd_translate(fds[i].fd);
	}
	return copy;
}

/* Give the caller the revents of the copy, and free the copy. */
static int poll_finish(struct pollfd *fds, struct pollfd *copy, nfds_t n,
		       size_t mapped, int ret)
{
	int saved = errno;

	if (copy != fds) {
		for (nfds_t i = 0; ret >= 0 && i < n; i++)
			fds[i].revents = copy[i].revents;
		if (mapped)
			ufd_sys_munmap(copy, mapped);
	}
	errno = saved;
	return ret;
}

/* The body of the four poll wrappers: translate, call name with args in
 * which the array is `copy`, hand back revents. */
#define POLL_BODY(name, fds, n, ...)                                          \
	do {                                                                  \
		struct pollfd stack_[POLL_STACK], *copy;                       \
		size_t mapped_;                                                \
		copy = poll_translate(fds, n, stack_, &mapped_);               \
		if (!copy && !ufd_unmapped(fds)) /* no room for a copy */      \
			return ufd_ret(-ENOMEM);                               \
		return poll_finish(fds, copy, n, mapped_,                      \
				   UFD_REAL(name)(__VA_ARGS__));               \
	} while (0)

UFD_PUBLIC int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	POLL_BODY(poll, fds, n, copy, n, timeout);
}

UFD_PUBLIC int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		     const sigset_t *mask)
{
	POLL_BODY(ppoll, fds, n, copy, n, timeout, mask);
}

UFD_PUBLIC int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	POLL_BODY(__poll_chk, fds, n, copy, n, timeout, fdslen);
}

UFD_PUBLIC int __ppoll_chk(struct pollfd *fds, nfds_t n,
			   const struct timespec *timeout, const sigset_t *mask,
			   size_t fdslen)
{
	POLL_BODY(__ppoll_chk, fds, n, copy, n, timeout, mask, fdslen);
}

/*
 * An fd_set holds FD_SETSIZE descriptors, so a virtual one cannot be in it:
 * FD_SET of it has already written past the set (glibc's fortified FD_SET
 * aborts instead).  select() with nfds reaching the virtual space fails
 * with EBADF, what the kernel says of a set naming a closed descriptor,
 * rather than having the kernel read and write that far past the sets.
 */
static int select_reaches_virtual(int nfds)
{
	return nfds > (int)FD_UNSEQ_BASE;
}

static int select_refused(const char *call, int nfds)
{
	UFD_LOG("refused %s with nfds %d: virtual descriptors do not fit in "
		"an fd_set (EBADF)", call, nfds);
	return ufd_ret(-EBADF);
}

/*
 * Does one of the sets name a backing descriptor (below nfds)?  Only
 * numbers from vfd_guard_from up can be one, so this reads nothing for the
 * usual nfds: it matters below the limit, where backing descriptors go
 * when there is no room above it.
 */
static int select_names_backing(int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	fd_set *sets[3] = { r, w, e };

	if (nfds <= 0)
		return 0;
	for (unsigned fd = __atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED);
	     fd < (unsigned)nfds; fd++)
		for (int i = 0; i < 3; i++)
			if (!ufd_unmapped(sets[i]) &&
			    ((unsigned long)sets[i]->fds_bits[fd / __NFDBITS] >>
			     (fd % __NFDBITS) & 1) &&
			    vfd_is_backing((int)fd))
				return 1;
	return 0;
}

UFD_PUBLIC int select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		      struct timeval *timeout)
{
	if (select_reaches_virtual(nfds))
		return select_refused("select", nfds);
	if (select_names_backing(nfds, r, w, e))
		return ufd_ret(-EBADF);
	return UFD_REAL(select)(nfds, r, w, e, timeout);
}

UFD_PUBLIC int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		       const struct timespec *timeout, const sigset_t *mask)
{
	if (select_reaches_virtual(nfds))
		return select_refused("pselect", nfds);
	if (select_names_backing(nfds, r, w, e))
		return ufd_ret(-EBADF);
	return UFD_REAL(pselect)(nfds, r, w, e, timeout, mask);
}

/* ---- stdio and directory streams ----
 *
 * glibc's streams call read, write, lseek and close through internal
 * aliases that no interposer sees, so a stream made on a virtual descriptor
 * is made on its backing descriptor instead.  fileno and dirfd map the
 * backing descriptor back to the virtual one, and fclose and closedir drop
 * the virtual descriptor before glibc closes the backing one.
 */

UFD_PUBLIC FILE *fdopen(int fd, const char *mode)
{
	FILE *fp = UFD_REAL(fdopen)(vfd_translate(fd), mode);

	/* glibc applies mode "e" to the backing descriptor's kernel flag;
	 * close-on-exec of a virtual descriptor is ufd's flag. */
	if (fp && vfd_in_space(fd) && mode && strchr(mode, 'e'))
		vfd_set_flags(fd, VFD_CLOEXEC, VFD_CLOEXEC);
	return fp;
}

/* The virtual descriptor real_fd backs, or real_fd. */
static int owner_or_self(int real_fd)
{
	int vfd = real_fd >= 0 ? vfd_owner(real_fd) : -1;

	return vfd >= 0 ? vfd : real_fd;
}

UFD_PUBLIC int fileno(FILE *fp)
{
	return owner_or_self(UFD_REAL(fileno)(fp));
}

UFD_PUBLIC int fileno_unlocked(FILE *fp)
{
	return owner_or_self(UFD_REAL(fileno_unlocked)(fp));
}

/* A stream's descriptor real_fd is about to be closed by glibc: drop the
 * virtual descriptor it backs, or its close-on-fork mark. */
static void forget_owner(int real_fd)
{
	int vfd = real_fd >= 0 ? vfd_owner(real_fd) : -1;

	if (vfd >= 0)
		vfd_forget(vfd);
	else if (real_fd >= 0 && vfd_guarded(real_fd))
		vfd_real_closing(real_fd);
}

UFD_PUBLIC int fclose(FILE *fp)
{
	int saved = errno;

	/* fileno fails (EBADF) for streams with no descriptor. */
	forget_owner(UFD_REAL(fileno)(fp));
	errno = saved;
	return UFD_REAL(fclose)(fp);
}

/* popen's stream: a real pipe, possibly with a close-on-fork mark. */
UFD_PUBLIC int pclose(FILE *fp)
{
	int saved = errno;

	forget_owner(UFD_REAL(fileno)(fp));
	errno = saved;
	return UFD_REAL(pclose)(fp);
}

/* Does real descriptor fd name the directory listing this process's
 * descriptors?  Asks where /proc/self/fd/<fd> points. */
static int is_fd_dir(int fd)
{
	char link[32], target[64];
	long n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = ufd_sys6(SYS_readlinkat, AT_FDCWD, (long)link, (long)target,
		     sizeof(target) - 1, 0, 0);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	return ufd_path_is_fd_dir(target);
}

UFD_PUBLIC DIR *fdopendir(int fd)
{
	int real = vfd_translate(fd);
	DIR *dir = UFD_REAL(fdopendir)(real);

	if (dir && is_fd_dir(real))
		ufd_listing_track(dir);
	return dir;
}

UFD_PUBLIC int dirfd(DIR *dir)
{
	return owner_or_self(UFD_REAL(dirfd)(dir));
}

UFD_PUBLIC int closedir(DIR *dir)
{
	int saved = errno;

	/* glibc answers closedir(NULL) with EINVAL, but declares dir nonnull:
	 * hide the pointer from the optimiser so the NULL test stays. */
	__asm__("" : "+r"(dir));
	if (dir) {
		forget_owner(UFD_REAL(dirfd)(dir));
		ufd_listing_forget(dir);
	}
	errno = saved;
	return UFD_REAL(closedir)(dir);
}

/* ---- raw system calls ---- */

#define A(i) (1U << (i)) /* argument i (from 0) is a descriptor */

/*
 * Which arguments of a system call are descriptors.  The calls that do
 * more than translate (close, dup2, fcntl, poll, sendmsg, ...) are routed
 * to their wrappers by ufd_syscall instead.  Numbers not listed pass
 * through unchanged.
 */
static unsigned syscall_fd_args(long number)
{
	switch (number) {
	case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
	case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
	case SYS_preadv2: case SYS_pwritev2: case SYS_lseek: case SYS_fstat:
	case SYS_fstatfs: case SYS_fsync: case SYS_fdatasync: case SYS_syncfs:
	case SYS_ftruncate: case SYS_fallocate: case SYS_fadvise64:
	case SYS_readahead: case SYS_flock: case SYS_fchmod: case SYS_fchown:
	case SYS_fchdir: case SYS_getdents64: case SYS_sendto: case SYS_recvfrom:
	case SYS_recvmsg: case SYS_recvmmsg: case SYS_bind: case SYS_connect:
	case SYS_listen: case SYS_accept: case SYS_accept4: case SYS_shutdown:
	case SYS_getsockname: case SYS_getpeername: case SYS_getsockopt:
	case SYS_setsockopt: case SYS_epoll_pwait: case SYS_epoll_pwait2:
	case SYS_inotify_add_watch: case SYS_inotify_rm_watch:
	case SYS_timerfd_settime: case SYS_timerfd_gettime: case SYS_fgetxattr:
	case SYS_fsetxattr: case SYS_flistxattr: case SYS_fremovexattr:
	case SYS_sync_file_range: case SYS_vmsplice: case SYS_pidfd_send_signal:
	case SYS_setns:
	/* the *at calls: the directory descriptor first */
	case SYS_mkdirat: case SYS_mknodat: case SYS_fchownat: case SYS_newfstatat:
	case SYS_unlinkat: case SYS_readlinkat: case SYS_fchmodat:
	case SYS_faccessat: case SYS_faccessat2: case SYS_utimensat: case SYS_statx:
	case SYS_name_to_handle_at: case SYS_open_by_handle_at: case SYS_execveat:
	case SYS_openat2:
#ifdef SYS_getdents
	case SYS_getdents:
#endif
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
#ifdef SYS_futimesat
	case SYS_futimesat:
#endif
		return A(0);
	case SYS_symlinkat:
		return A(1);
	case SYS_mmap:
		return A(4);
	case SYS_sendfile: case SYS_tee:
		return A(0) | A(1);
	case SYS_splice: case SYS_copy_file_range: case SYS_epoll_ctl:
	case SYS_renameat2: case SYS_linkat:
#ifdef SYS_renameat
	case SYS_renameat:
#endif
		return A(0) | A(2);
	case SYS_fanotify_mark:
		return A(0) | A(3);
	}
	return 0;
}

/* Reads six arguments whatever the caller passed, as glibc's syscall()
 * reads six registers: not an overflow for AddressSanitizer to flag. */
__attribute__((no_sanitize_address)) UFD_PUBLIC long syscall(long number, ...)
{
	va_list ap;
	long a[6];
	unsigned fds;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	switch (number) {
	case SYS_close:
		return close((int)a[0]);
	case SYS_close_range:
		return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
	case SYS_dup:
		return dup((int)a[0]);
	case SYS_pidfd_getfd:
		return pidfd_getfd((int)a[0], (int)a[1], (unsigned)a[2]);
	case SYS_dup3:
		return dup3((int)a[0], (int)a[1], (int)a[2]);
#ifdef SYS_dup2
	case SYS_dup2:
		return dup2((int)a[0], (int)a[1]);
#endif
	case SYS_fcntl:
		return fcntl((int)a[0], (int)a[1], a[2]);
	case SYS_ioctl:
		return ioctl((int)a[0], (unsigned long)a[1], a[2]);
	case SYS_openat:
		return openat((int)a[0], (const char *)a[1], (int)a[2], (mode_t)a[3]);
#ifdef SYS_open
	case SYS_open:
		return open((const char *)a[0], (int)a[1], (mode_t)a[2]);
#endif
	case SYS_signalfd4: {
		/* As signalfd(): the virtual descriptor given comes back. */
		int fd = (int)a[0], real = vfd_translate(fd);
		long r = UFD_REAL(syscall)(number, (long)real, a[1], a[2], a[3]);

		return r >= 0 && real != fd && r == real ? fd : r;
	}
	case SYS_waitid:
		if (a[0] == P_PIDFD)
			a[1] = vfd_translate((int)a[1]);
		return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4]);
	/* The application's view of its descriptor limit (shim_limits.c). */
	case SYS_prlimit64:
		return prlimit64((pid_t)a[0], (__rlimit_resource_t)a[1],
				 (const struct rlimit64 *)a[2], (struct rlimit64 *)a[3]);
#ifdef SYS_getrlimit
	case SYS_getrlimit: {
		long r = UFD_REAL(syscall)(number, a[0], a[1]);
		unsigned shown = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

		/* The kernel wrote the limits (EFAULT otherwise). */
		if (r == 0 && a[0] == RLIMIT_NOFILE && shown != UINT_MAX)
			((struct rlimit *)a[1])->rlim_cur = shown;
		return r;
	}
	case SYS_setrlimit:
		return setrlimit((__rlimit_resource_t)a[0], (const struct rlimit *)a[1]);
#endif
	case SYS_sendmsg:
		return sendmsg((int)a[0], (const struct msghdr *)a[1], (int)a[2]);
	case SYS_sendmmsg:
		return sendmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2],
				(int)a[3]);
	case SYS_ppoll:
		return ppoll((struct pollfd *)a[0], (nfds_t)a[1],
			     (const struct timespec *)a[2], (const sigset_t *)a[3]);
#ifdef SYS_poll
	case SYS_poll:
		return poll((struct pollfd *)a[0], (nfds_t)a[1], (int)a[2]);
#endif
	}
	fds = syscall_fd_args(number);
	for (int i = 0; fds; i++, fds >>= 1)
		if (fds & 1)
			a[i] = vfd_translate((int)a[i]);
	return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- vfork ---- */

/*
 * A vfork child shares the parent's memory, ufd's table included, so a
 * close or dup2 it makes through ufd (CPython's subprocess does, between
 * vfork and exec) would change the parent's table.  POSIX lets vfork be
 * fork, and so it is here.  (posix_spawn's internal vfork-style child runs
 * only glibc's internal calls, which ufd does not see.)
 */
UFD_PUBLIC pid_t vfork(void)
{
	return fork();
}

/* ---- creating calls without a close-on-exec flag, for UFD_CLOEXEC ----
 *
 * Each is its flagged twin with the flag set when UFD_CLOEXEC=1, so that
 * the flag is there from the first instant (no window for a concurrent
 * fork+exec, which a later fcntl would leave).
 */

UFD_PUBLIC int creat(const char *path, mode_t mode)
{
	return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

UFD_PUBLIC int creat64(const char *path, mode_t mode)
{
	return open64(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

UFD_PUBLIC int mkstemp(char *template)
{
	return mkostemp(template, 0);
}

UFD_PUBLIC int mkstemp64(char *template)
{
	return mkostemp64(template, 0);
}

UFD_PUBLIC int mkstemps(char *template, int suffixlen)
{
	return mkostemps(template, suffixlen, 0);
}

UFD_PUBLIC int mkstemps64(char *template, int suffixlen)
{
	return mkostemps64(template, suffixlen, 0);
}

UFD_PUBLIC int accept(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
}

UFD_PUBLIC int dup(int fd)
{
	if (vfd_is_backing(fd))
		return ufd_ret(-EBADF);
	if (ufd_settings.cloexec)
		return ufd_ret_new_fd(UFD_REAL(fcntl)(vfd_translate(fd), F_DUPFD_CLOEXEC, 0),
				  1, UFD_CALL_dup);
	return ufd_ret_new_fd(UFD_REAL(dup)(vfd_translate(fd)), 0, UFD_CALL_dup);
}

/* pipe and pipe2, each under its own name for UFD_EXCLUDE.  Returns 0
 * or -errno. */
static int make_pipe(int fds[2], int flags, enum ufd_call call)
{
	int added = newfd_add_cloexec(&flags, O_CLOEXEC);

	if (UFD_REAL(pipe2)(fds, flags) < 0)
		return -errno;
	return newfd_finish_pair(fds, added, call);
}

UFD_PUBLIC int pipe2(int fds[2], int flags)
{
	return ufd_ret(make_pipe(fds, flags, UFD_CALL_pipe2));
}

UFD_PUBLIC int pipe(int fds[2])
{
	if (ufd_settings.cloexec || ufd_settings.mode_all ||
	    __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED) != UINT_MAX)
		return ufd_ret(make_pipe(fds, 0, UFD_CALL_pipe));
	return UFD_REAL(pipe)(fds);
}

/* Under UFD_CLOEXEC these two are their flagged successors, called
 * directly so that the result is still epoll_create's (inotify_init's). */
UFD_PUBLIC int epoll_create(int size)
{
	if (!ufd_settings.cloexec)
		return ufd_ret_new_fd(UFD_REAL(epoll_create)(size), 0, UFD_CALL_epoll_create);
	if (size <= 0) /* what epoll_create checks and epoll_create1 cannot */
		return ufd_ret(-EINVAL);
	return ufd_ret_new_fd(UFD_REAL(epoll_create1)(EPOLL_CLOEXEC), 1,
			  UFD_CALL_epoll_create);
}

UFD_PUBLIC int inotify_init(void)
{
	if (ufd_settings.cloexec)
		return ufd_ret_new_fd(UFD_REAL(inotify_init1)(IN_CLOEXEC), 1,
				  UFD_CALL_inotify_init);
	return ufd_ret_new_fd(UFD_REAL(inotify_init)(), 0, UFD_CALL_inotify_init);
}

/* A mode string with 'e' (O_CLOEXEC) added, in buf, under UFD_CLOEXEC;
 * *added says whether it was. */
static const char *mode_cloexec(const char *mode, char *buf, size_t size,
				int *added)
{
	*added = 0;
	if (!ufd_settings.cloexec || !mode || strchr(mode, 'e') ||
	    strlen(mode) + 2 > size)
		return mode;
	snprintf(buf, size, "%se", mode);
	*added = 1;
	return buf;
}

/*
 * A stream the fopen family just opened: one that landed on 0, 1 or 2 is
 * left without close-on-exec.  freopen on a stream of a virtual descriptor
 * reopens the backing descriptor in place (glibc dup3s the new file onto
 * the old number) with the close-on-exec flag of the new mode: that is the
 * virtual descriptor's flag now, and the backing descriptor must be
 * close-on-exec again, or every child would inherit it.
 */
static void stream_opened(FILE *fp, const char *mode, int added)
{
	int fd = UFD_REAL(fileno)(fp), vfd;

	newfd_std_fixup(fd, added);
	vfd = fd >= 0 && vfd_guarded(fd) ? vfd_owner(fd) : -1;
	if (vfd >= 0) {
		ufd_sys_fcntl(fd, F_SETFD, FD_CLOEXEC);
		/* The new file's descriptor has no close-on-fork either. */
		vfd_set_flags(vfd, VFD_CLOEXEC | VFD_CLOFORK,
			      mode && strchr(mode, 'e') ? VFD_CLOEXEC : 0);
	}
}

/* The body of the fopen wrappers: path rewritten, mode with 'e' under
 * UFD_CLOEXEC, then stream_opened. */
#define FOPEN_BODY(name, path, mode, on_failure, ...)                      \
	do {                                                               \
		char path_buf_[ufd_path_size(path)], mode_buf_[16];        \
		FILE *fp_;                                                 \
		int added_;                                                \
		path = ufd_path(path, path_buf_, sizeof(path_buf_));       \
		mode = mode_cloexec(mode, mode_buf_, sizeof(mode_buf_),    \
				    &added_);                              \
		fp_ = UFD_REAL(name)(__VA_ARGS__);                         \
		if (fp_)                                                   \
			stream_opened(fp_, mode, added_);                  \
		else                                                       \
			on_failure;                                        \
		return fp_;                                                \
	} while (0)

UFD_PUBLIC FILE *fopen(const char *path, const char *mode)
{
	FOPEN_BODY(fopen, path, mode, (void)0, path, mode);
}

UFD_PUBLIC FILE *fopen64(const char *path, const char *mode)
{
	FOPEN_BODY(fopen64, path, mode, (void)0, path, mode);
}

/*
 * freopen closes the stream's descriptor inside glibc and opens the new
 * file at the same number: a real number's close-on-fork mark must go.
 * Returns the virtual descriptor whose backing descriptor the stream is
 * on, or -1.
 */
static int freopen_start(FILE *fp)
{
	int saved = errno, fd = fp ? UFD_REAL(fileno)(fp) : -1, owner = -1;

	if (fd >= 0 && vfd_guarded(fd)) {
		owner = vfd_owner(fd);
		if (owner < 0)
			vfd_real_closing(fd);
	}
	errno = saved;
	return owner;
}

/* A failed freopen leaves the stream closed, its descriptor with it: if
 * that was the backing descriptor of virtual descriptor owner, owner is
 * gone too (else the next backing descriptor made at that number would
 * be owner's file). */
static void freopen_failed(int owner)
{
	int saved = errno;

	if (owner >= 0 && ufd_sys_fcntl(vfd_translate(owner), F_GETFD, 0) < 0)
		vfd_forget(owner);
	errno = saved;
}

UFD_PUBLIC FILE *freopen(const char *path, const char *mode, FILE *fp)
{
	int owner = freopen_start(fp);

	FOPEN_BODY(freopen, path, mode, freopen_failed(owner), path, mode, fp);
}

UFD_PUBLIC FILE *freopen64(const char *path, const char *mode, FILE *fp)
{
	int owner = freopen_start(fp);

	FOPEN_BODY(freopen64, path, mode, freopen_failed(owner), path, mode, fp);
}
