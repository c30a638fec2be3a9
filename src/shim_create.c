/* SPDX-License-Identifier: MIT */
/*
 * shim_create.c - the hand-written wrappers of the calls that
 * create descriptors other than by a path (calls.def's first family, in
 * its order): pipe, epoll_create, inotify_init, getpt, openpty, forkpty,
 * login_tty, mq_open, socket, socketpair, accept, and the calls that take
 * or make descriptors inside their arguments (signalfd, pidfd_getfd,
 * waitid).
 * What happens to each new descriptor is newfd.h's; these wrappers strip
 * ufd's own flags before the kernel sees the call and keep the kernel's
 * order of checks, so that a call with several faults fails with the
 * errno the kernel would pick.
 */
#include "shim.h"

#include <linux/fs.h>
#include <stdarg.h>
#include <string.h>

#include "fdname.h"
#include "procfs.h"
#include "report.h"
#include "report_out.h"
#include "sys.h"
#include "text.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* ---- pipes, epoll, inotify, terminals, message queues ---- */

/* pipe and pipe2 when a new descriptor is not the application's as the
 * kernel makes it (newfd_plain), each under its own name for UFD_EXCLUDE.
 * Returns what they return (-1 and errno on failure). */
static int make_pipe(int fds[2], int flags, enum ufd_call call)
{
	int added = newfd_add_cloexec(&flags, O_CLOEXEC);

	if (UFD_REAL(pipe2)(fds, flags) < 0)
		return -1;
	if (newfd_finish_pair(fds, added, call, (flags & O_CLOEXEC) != 0) < 0)
		return ufd_ret(-EMFILE); /* its only failure */
	return 0;
}

UFD_PUBLIC int pipe2(int fds[2], int flags)
{
	if (__builtin_expect(newfd_plain(), 1))
		return UFD_REAL(pipe2)(fds, flags);
	return make_pipe(fds, flags, UFD_CALL_pipe2);
}

UFD_PUBLIC int pipe(int fds[2])
{
	if (!newfd_plain())
		return make_pipe(fds, 0, UFD_CALL_pipe);
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


UFD_PUBLIC int getpt(void)
{
	if (ufd_settings.cloexec)
		return ufd_ret_new_fd(UFD_REAL(posix_openpt)(O_RDWR | O_NOCTTY | O_CLOEXEC),
				      1, UFD_CALL_getpt);
	if (newfd_plain())
		return UFD_REAL(getpt)();
	return ufd_ret_new_fd(UFD_REAL(getpt)(), 0, UFD_CALL_getpt);
}

/* openpty: both descriptors new ones, as a pipe's (there is no flag for
 * UFD_CLOEXEC to add: FD_CLOEXEC is set after, undone on 0, 1 and 2). */
UFD_PUBLIC int openpty(int *amaster, int *aslave, char *name,
		       const struct termios *termp, const struct winsize *winp)
{
	int fds[2], added = 0;

	if (UFD_REAL(openpty)(amaster, aslave, name, termp, winp) != 0)
		return -1;
	if (newfd_plain())
		return 0;
	fds[0] = *amaster;
	fds[1] = *aslave;
	if (ufd_settings.cloexec) {
		ufd_sys_fcntl(fds[0], F_SETFD, FD_CLOEXEC);
		ufd_sys_fcntl(fds[1], F_SETFD, FD_CLOEXEC);
		added = 1;
	}
	if (newfd_finish_pair(fds, added, UFD_CALL_openpty, -1) < 0)
		return ufd_ret(-EMFILE);
	*amaster = fds[0];
	*aslave = fds[1];
	return 0;
}

/* forkpty: the parent's master is a new descriptor (the child's terminal
 * is its 0, 1 and 2).  The fork has happened: never fails for ufd. */
UFD_PUBLIC pid_t forkpty(int *amaster, char *name, const struct termios *termp,
			 const struct winsize *winp)
{
	pid_t pid = UFD_REAL(forkpty)(amaster, name, termp, winp);
	int added = 0;

	if (pid > 0 && !newfd_plain()) {
		if (ufd_settings.cloexec) {
			ufd_sys_fcntl(*amaster, F_SETFD, FD_CLOEXEC);
			added = 1;
		}
		*amaster = newfd_finish(*amaster, added, UFD_CALL_forkpty);
	}
	return pid;
}

/* login_tty makes fd the process's 0, 1 and 2 and closes it: for a
 * virtual fd, on a real copy of its backing descriptor (which glibc
 * closes), then the virtual one is closed. */
UFD_PUBLIC int login_tty(int fd)
{
	int real = vfd_translate(fd), copy;

	if (real == fd)
		return UFD_REAL(login_tty)(fd);
	copy = ufd_sys_fcntl(real, F_DUPFD_CLOEXEC, 3);
	if (copy < 0)
		return ufd_ret(copy);
	if (UFD_REAL(login_tty)(copy) != 0) {
		int err = errno;

		ufd_sys_close(copy);
		errno = err;
		return -1;
	}
	ufd_close(fd);
	return 0;
}

/* mq_open: a new descriptor, always close-on-exec. */
UFD_PUBLIC mqd_t mq_open(const char *name, int oflag, ...)
{
	mode_t mode = 0;
	struct mq_attr *attr = NULL;

	if (oflag & O_CREAT) {
		va_list ap;

		va_start(ap, oflag);
		mode = va_arg(ap, mode_t);
		attr = va_arg(ap, struct mq_attr *);
		va_end(ap);
	}
	if (newfd_plain())
		return UFD_REAL(mq_open)(name, oflag, mode, attr);
	return ufd_ret_new_fd(UFD_REAL(mq_open)(name, oflag, mode, attr), 0,
			      UFD_CALL_mq_open);
}

UFD_PUBLIC int mq_close(mqd_t mqdes)
{
	return ufd_ret(ufd_close(mqdes));
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

/*
 * The creating wrappers below go straight to libc when none of ufd's
 * flags or settings is in play (newfd_plain) and the descriptor they
 * take, if any, is below vfd_guard_from (neither virtual nor backing);
 * the rest is out of line, so that the plain case pays no prologue.
 */
__attribute__((noinline)) static int socket_slow(int domain, int type, int protocol)
{
	int added = newfd_add_cloexec(&type, SOCK_CLOEXEC);

	if (!(type & SOCK_UFD_FLAGS))
		return ufd_ret_new_fd_known(UFD_REAL(socket)(domain, type, protocol),
					    added, UFD_CALL_socket,
					    (type & SOCK_CLOEXEC) != 0);
	return ufd_ret_flagged(UFD_REAL(socket)(domain, sock_flags(type), protocol),
		       type & SOCK_UNSEQ, sock_vfd_flags(type), added,
		       UFD_CALL_socket);
}

UFD_PUBLIC int socket(int domain, int type, int protocol)
{
	if (__builtin_expect(!(type & SOCK_UFD_FLAGS) && newfd_plain(), 1))
		return UFD_REAL(socket)(domain, type, protocol);
	return socket_slow(domain, type, protocol);
}

__attribute__((noinline)) static int socketpair_slow(int domain, int type,
						     int protocol, int sv[2])
{
	int real[2], v0, v1, added = newfd_add_cloexec(&type, SOCK_CLOEXEC);

	if (!(type & SOCK_UFD_FLAGS)) {
		if (UFD_REAL(socketpair)(domain, type, protocol, sv) < 0)
			return -1;
		return ufd_ret(newfd_finish_pair(sv, added, UFD_CALL_socketpair,
						 (type & SOCK_CLOEXEC) != 0));
	}
	if (UFD_REAL(socketpair)(domain, sock_flags(type), protocol, real) < 0)
		return -1;
	v0 = newfd_finish_flagged(real[0], type & SOCK_UNSEQ, sock_vfd_flags(type),
				  added, UFD_CALL_socketpair, (type & SOCK_CLOEXEC) != 0);
	if (v0 < 0) {
		ufd_sys_close(real[1]);
		return ufd_ret(v0);
	}
	v1 = newfd_finish_flagged(real[1], type & SOCK_UNSEQ, sock_vfd_flags(type),
				  added, UFD_CALL_socketpair, (type & SOCK_CLOEXEC) != 0);
	if (v1 < 0) {
		ufd_close(v0);
		return ufd_ret(v1);
	}
	sv[0] = v0;
	sv[1] = v1;
	return 0;
}

UFD_PUBLIC int socketpair(int domain, int type, int protocol, int sv[2])
{
	if (__builtin_expect(!(type & SOCK_UFD_FLAGS) && newfd_plain(), 1))
		return UFD_REAL(socketpair)(domain, type, protocol, sv);
	return socketpair_slow(domain, type, protocol, sv);
}

__attribute__((noinline)) static int accept4_slow(int fd, __SOCKADDR_ARG addr,
						  socklen_t *len, int flags)
{
	int added = newfd_add_cloexec(&flags, SOCK_CLOEXEC);

	fd = vfd_translate(fd);
	if (!(flags & SOCK_UFD_FLAGS))
		return ufd_ret_new_fd_known(UFD_REAL(accept4)(fd, addr, len, flags),
					    added, UFD_CALL_accept4,
					    (flags & SOCK_CLOEXEC) != 0);
	return ufd_ret_flagged(UFD_REAL(accept4)(fd, addr, len, sock_flags(flags)),
		       flags & SOCK_UNSEQ, sock_vfd_flags(flags), added,
		       UFD_CALL_accept4);
}

UFD_PUBLIC int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags)
{
	if (__builtin_expect(!(flags & SOCK_UFD_FLAGS) && newfd_plain() &&
			     !vfd_guarded(fd), 1))
		return UFD_REAL(accept4)(fd, addr, len, flags);
	return accept4_slow(fd, addr, len, flags);
}


UFD_PUBLIC int accept(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	if (__builtin_expect(newfd_plain() && !vfd_guarded(fd), 1))
		return UFD_REAL(accept)(fd, addr, len);
	return accept4(fd, addr, len, 0);
}


/* ---- descriptors inside other calls' arguments ---- */

UFD_PUBLIC int signalfd(int fd, const sigset_t *mask, int flags)
{
	int real = vfd_translate(fd), r;

	if (fd == -1) {
		int added = newfd_add_cloexec(&flags, SFD_CLOEXEC);

		r = ufd_ret_new_fd_known(UFD_REAL(signalfd)(fd, mask, flags), added,
					 UFD_CALL_signalfd, (flags & SFD_CLOEXEC) != 0);
	} else {
		r = UFD_REAL(signalfd)(real, mask, flags);
		/* Given an existing descriptor, signalfd returns it: the
		 * virtual one the caller named, not its backing descriptor. */
		if (r >= 0 && real != fd && r == real)
			r = fd;
	}
	if (r >= 0)
		ufd_signalfd_made(r);
	return r;
}

/* ---- pidfd_getfd ---- */

/* The process a pidfd refers to, from its fdinfo ("Pid:\t<pid>"); -1 if
 * unknown (or -1 there: the process has been reaped). */
static long pidfd_pid(int pidfd)
{
	char path[48], buf[512];
	const char *p;
	unsigned long pid;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (ufd_proc_read(path, buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "\nPid:")))
		return -1;
	for (p += strlen("\nPid:"); *p == ' ' || *p == '\t'; p++)
		;
	return ufd_parse_decimal(p, INT_MAX, &pid) ? (long)pid : -1;
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
