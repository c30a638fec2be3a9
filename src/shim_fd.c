/* SPDX-License-Identifier: MIT */
/*
 * shim_fd.c - the hand-written wrappers of calls.def's first family: the
 * calls that create, duplicate and close descriptors (open, pipe, socket,
 * accept, dup, dup2, dup3, fcntl, pidfd_getfd, close, close_range), in
 * the table's order, and lockf, which notes the process's record locks
 * (ioctl has a file of its own, shim_ioctl.c).  What happens to each new
 * descriptor is newfd.h's; these wrappers strip ufd's own flags
 * (O_UNSEQFD, SOCK_UNSEQ, O_CLOFORK) before the kernel sees them and keep
 * the kernel's order of checks, so that a call with several faults fails
 * with the errno the kernel would pick.
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

/* ---- open ---- */

/*
 * The result r of a real call that made a descriptor for a call with
 * ufd's own flags (newfd_finish_flagged), as the application gets it.
 * Out of line: its callers' common case (no ufd flag) then needs no frame.
 */
static __attribute__((noinline)) int ret_flagged(int r, int virt, unsigned vflags, int added,
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

/* The VFD_* flags an open's flags ask for. */
static unsigned open_vflags(int flags)
{
	return (flags & O_CLOEXEC ? VFD_CLOEXEC : 0) | (flags & O_CLOFORK ? VFD_CLOFORK : 0);
}

/* The descriptor fd (or -1) an open with these flags made, as the
 * application gets it. */
static inline __attribute__((always_inline)) int
open_result(int fd, int flags, int added, enum ufd_call call)
{
	if (fd < 0 || !(flags & OPEN_UFD_FLAGS))
		return ufd_ret_new_fd_known(fd, added, call, (flags & O_CLOEXEC) != 0);
	/* newfd_finish_flagged's first case, without the detour. */
	if (flags & O_UNSEQFD)
		return ufd_ret(newfd_virtual_or_close(fd, open_vflags(flags), call));
	return ret_flagged(fd, 0, open_vflags(flags), added, call);
}

/*
 * Where an open goes from its entry point (fwd: its parameters' names):
 * straight to libc when none of ufd's flags, settings or limits is in
 * play and the process holds no virtual descriptor (which a /dev/fd path
 * or a directory descriptor could name), the common case, at a few
 * loads; to name##_unseq for O_UNSEQFD without O_CLOFORK while no setting
 * concerns new descriptors (newfd_work: no UFD_CLOEXEC, no mode, no
 * reports), where the flags' only work is the kernel's O_CLOEXEC and
 * VFD_CLOEXEC; else to name##_slow.  route_ is both tests in one value
 * (newfd_work is 0 or 1, never a flag).
 */
#define OPEN_ROUTE(name, fwd)                                                  \
	do {                                                                   \
		int route_ = (flags & OPEN_UFD_FLAGS) | ufd_settings.newfd_work; \
		if (__builtin_expect(!route_ && newfd_plain() && !vfd_any(), 1)) \
			return UFD_REAL(name) fwd;                             \
		if (route_ == O_UNSEQFD)                                       \
			return name##_unseq fwd;                               \
		return name##_slow fwd;                                        \
	} while (0)

/*
 * The rest of every open wrapper, out of line: call the real function
 * with args, on the path rewritten if it names a descriptor (shim.h), and
 * finish the result (UFD_CLOEXEC, the limit, mode all, O_UNSEQFD).  An
 * open that may create or truncate has its path looked at first; any
 * other, after (opened through a backing descriptor's number, the
 * descriptor is not the application's: closed, and the call made on the
 * rewritten path for the kernel's ENOENT).  The rewriting is name's
 * OPEN_REWRITTEN function, called with the slow function's own
 * parameters, fwd.
 */
#define OPEN_SLOW(name, path, flags, fwd, ...)                                 \
	do {                                                                   \
		int added_ = newfd_add_cloexec(&flags, O_CLOEXEC), r_;         \
		size_t n_;                                                     \
		if (vfd_any() && (flags & (O_CREAT | O_TRUNC)) &&              \
		    (n_ = ufd_path_before(path)))                              \
			return name##_rewritten(0, 0, n_, added_, UFD_UNPAREN fwd); \
		r_ = UFD_REAL(name)(__VA_ARGS__);                              \
		OPEN_MADE(name, path, r_, added_, fwd);                        \
		return open_result(r_, flags, added_, UFD_CALL_##name);        \
	} while (0)

/*
 * After the real call made r (a descriptor or -1): if the process holds
 * virtual descriptors and the path may have named one (or the call
 * failed, perhaps on a path naming one), ufd_path_after says whether it
 * must be made again on the rewritten path: then name##_rewritten does.
 * After a success the kernel has read the path: its first test (text.h)
 * is made here, without a call.
 */
#define OPEN_MADE(name, path, r, added, fwd)                                   \
	do {                                                                   \
		size_t m_;                                                     \
		if (vfd_any() && (r < 0 || ufd_path_may_name_fd(path)) &&      \
		    (m_ = ufd_path_after(path, r < 0 ? errno : 0)))            \
			return name##_rewritten(1, r, m_, added, UFD_UNPAREN fwd); \
	} while (0)

/* ufd_ret of an error, out of line (tail-called). */
static __attribute__((noinline, cold)) int ufd_ret_cold(int r)
{
	return ufd_ret(r);
}

/* open_flags for an open that goes to name##_unseq (OPEN_ROUTE). */
#define UNSEQ_FLAGS(flags) (((flags) & ~O_UNSEQFD) | O_CLOEXEC)

/*
 * An open's arguments, kept in memory by name##_unseq: it needs them after
 * the real call only in the rare case (name##_made), and so saves no
 * registers for them.
 */
struct open_call {
	const char *path;
	int dirfd;
	int flags;
	mode_t mode;
};

/*
 * name##_unseq(params): an open that OPEN_ROUTE sends there, with the
 * real function's arguments __VA_ARGS__ (flags there: UNSEQ_FLAGS),
 * after prep (the arguments but path and flags put in c_; openat's dirfd
 * translated, as the slow function does; fwd: params' names).  One
 * frame from the entry point to the real call and the table.  An open
 * that may create or truncate a path while virtual descriptors exist is
 * the slow function's (the path looked at first).  name##_made: after
 * the real call, while the process holds virtual descriptors, OPEN_MADE's
 * test, and the result finished as the slow function would, also that of
 * a failed call or of a descriptor not newfd_movable; cfwd: the
 * rewritten function's parameters from c.
 */
#define OPEN_UNSEQ(name, params, fwd, prep, cfwd, ...)                        \
	static __attribute__((noinline, cold)) int name##_made(                \
		int r, const struct open_call *c)                              \
	{                                                                      \
		OPEN_MADE(name, c->path, r, 0, cfwd);                          \
		return open_result(r, c->flags, 0, UFD_CALL_##name);           \
	}                                                                      \
	static __attribute__((noinline)) int name##_unseq(UFD_UNPAREN params)  \
	{                                                                      \
		struct open_call c_;                                           \
		int r_;                                                        \
		if ((flags & (O_CREAT | O_TRUNC)) && vfd_any())                \
			return name##_slow fwd;                                \
		c_.path = path;                                                \
		c_.flags = flags;                                              \
		prep;                                                          \
		r_ = UFD_REAL(name)(__VA_ARGS__);                              \
		/* A failed call (-1 is not newfd_movable) goes there too. */  \
		if (vfd_any() || !newfd_movable(r_))                           \
			return name##_made(r_, &c_);                           \
		r_ = newfd_move_virtual(r_, c_.flags & O_CLOEXEC ? VFD_CLOEXEC : 0, \
					UFD_CALL_##name);                      \
		/* errno out of line: the result is kept in no saved         \
		 * register for it. */                                         \
		return __builtin_expect(r_ >= 0, 1) ? r_ : ufd_ret_cold(r_);   \
	}

/*
 * name##_rewritten(made, r, n, added, params...): OPEN_SLOW's rare part,
 * out of line, so that the common one needs no frame for the buffer (n
 * bytes, as ufd_path_before or ufd_path_after said): the call made on the
 * rewritten path (made 0), or made again if the path was rewritten (made
 * 1, r the first call's result, a descriptor it made closed first).
 * __VA_ARGS__: the real function's arguments.
 */
#define OPEN_REWRITTEN(name, params, ...)                                      \
	static __attribute__((noinline, cold)) int name##_rewritten(           \
		int made, int r, size_t n, int added, UFD_UNPAREN params)      \
	{                                                                      \
		char buf[n];                                                   \
		const char *was = path;                                        \
		path = ufd_path(path, buf, n);                                 \
		if (!made || path != was) {                                    \
			if (made && r >= 0)                                    \
				ufd_sys_close(r);                              \
			r = UFD_REAL(name)(__VA_ARGS__);                       \
		}                                                              \
		return open_result(r, flags, added, UFD_CALL_##name);          \
	}

/*
 * The entry points that take an optional mode.  libc declares them
 * variadic; on the ABIs ufd is built for, a variadic function finds its
 * arguments where one with named parameters does, so they are defined
 * with the mode named: the caller's when it passed one, and whatever that
 * register held when it did not, which is passed on and read only where
 * the flags call for a mode, as libc's own open reads its va_arg.  That
 * spares every open the variadic prologue.  Elsewhere, va_arg as usual.
 */
#if defined(__x86_64__) || defined(__aarch64__)
#define OPEN_ENTRY(name, ...)                                                 \
	UFD_PUBLIC int ufd_open_entry_##name(__VA_ARGS__, mode_t mode)        \
		__asm__(#name);                                               \
	UFD_PUBLIC int ufd_open_entry_##name(__VA_ARGS__, mode_t mode)
#define OPEN_MODE(flags) (void)0
#else
#define OPEN_ENTRY(name, ...) UFD_PUBLIC int name(__VA_ARGS__, ...)
/* Would open() read a mode argument for these flags?  As glibc decides. */
#define OPEN_MODE(flags)                                                 \
	mode_t mode = 0;                                                 \
	if (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE) { \
		va_list ap;                                              \
		va_start(ap, flags);                                     \
		mode = va_arg(ap, mode_t);                               \
		va_end(ap);                                              \
	}
#endif

OPEN_REWRITTEN(open, (const char *path, int flags, mode_t mode),
	       path, open_flags(flags), mode)

__attribute__((noinline)) static int open_slow(const char *path, int flags, mode_t mode)
{
	OPEN_SLOW(open, path, flags, (path, flags, mode), path, open_flags(flags), mode);
}

OPEN_UNSEQ(open, (const char *path, int flags, mode_t mode),
	   (path, flags, mode), (c_.mode = mode),
	   (c->path, c->flags, c->mode),
	   path, UNSEQ_FLAGS(flags), mode)

OPEN_ENTRY(open, const char *path, int flags)
{
	OPEN_MODE(flags);
	OPEN_ROUTE(open, (path, flags, mode));
}

OPEN_REWRITTEN(open64, (const char *path, int flags, mode_t mode),
	       path, open_flags(flags), mode)

__attribute__((noinline)) static int open64_slow(const char *path, int flags, mode_t mode)
{
	OPEN_SLOW(open64, path, flags, (path, flags, mode), path, open_flags(flags), mode);
}

OPEN_UNSEQ(open64, (const char *path, int flags, mode_t mode),
	   (path, flags, mode), (c_.mode = mode),
	   (c->path, c->flags, c->mode),
	   path, UNSEQ_FLAGS(flags), mode)

OPEN_ENTRY(open64, const char *path, int flags)
{
	OPEN_MODE(flags);
	OPEN_ROUTE(open64, (path, flags, mode));
}

/* With no virtual descriptor, dirfd cannot be one, nor a backing one. */
OPEN_REWRITTEN(openat, (int dirfd, const char *path, int flags, mode_t mode),
	       dirfd, path, open_flags(flags), mode)

__attribute__((noinline)) static int openat_slow(int dirfd, const char *path,
						 int flags, mode_t mode)
{
	dirfd = vfd_translate(dirfd);
	OPEN_SLOW(openat, path, flags, (dirfd, path, flags, mode), dirfd, path,
		  open_flags(flags), mode);
}

OPEN_UNSEQ(openat, (int dirfd, const char *path, int flags, mode_t mode),
	   (dirfd, path, flags, mode),
	   (c_.dirfd = dirfd = vfd_translate(dirfd), c_.mode = mode),
	   (c->dirfd, c->path, c->flags, c->mode),
	   dirfd, path, UNSEQ_FLAGS(flags), mode)

OPEN_ENTRY(openat, int dirfd, const char *path, int flags)
{
	OPEN_MODE(flags);
	OPEN_ROUTE(openat, (dirfd, path, flags, mode));
}

OPEN_REWRITTEN(openat64, (int dirfd, const char *path, int flags, mode_t mode),
	       dirfd, path, open_flags(flags), mode)

__attribute__((noinline)) static int openat64_slow(int dirfd, const char *path,
						   int flags, mode_t mode)
{
	dirfd = vfd_translate(dirfd);
	OPEN_SLOW(openat64, path, flags, (dirfd, path, flags, mode), dirfd, path,
		  open_flags(flags), mode);
}

OPEN_UNSEQ(openat64, (int dirfd, const char *path, int flags, mode_t mode),
	   (dirfd, path, flags, mode),
	   (c_.dirfd = dirfd = vfd_translate(dirfd), c_.mode = mode),
	   (c->dirfd, c->path, c->flags, c->mode),
	   dirfd, path, UNSEQ_FLAGS(flags), mode)

OPEN_ENTRY(openat64, int dirfd, const char *path, int flags)
{
	OPEN_MODE(flags);
	OPEN_ROUTE(openat64, (dirfd, path, flags, mode));
}

/* The fortify entry points: open() without a mode argument. */
OPEN_REWRITTEN(__open_2, (const char *path, int flags), path, open_flags(flags))

__attribute__((noinline)) static int __open_2_slow(const char *path, int flags)
{
	OPEN_SLOW(__open_2, path, flags, (path, flags), path, open_flags(flags));
}

OPEN_UNSEQ(__open_2, (const char *path, int flags),
	   (path, flags), (void)0,
	   (c->path, c->flags),
	   path, UNSEQ_FLAGS(flags))

UFD_PUBLIC int __open_2(const char *path, int flags)
{
	OPEN_ROUTE(__open_2, (path, flags));
}

OPEN_REWRITTEN(__open64_2, (const char *path, int flags), path, open_flags(flags))

__attribute__((noinline)) static int __open64_2_slow(const char *path,
						    int flags)
{
	OPEN_SLOW(__open64_2, path, flags, (path, flags), path, open_flags(flags));
}

OPEN_UNSEQ(__open64_2, (const char *path, int flags),
	   (path, flags), (void)0,
	   (c->path, c->flags),
	   path, UNSEQ_FLAGS(flags))

UFD_PUBLIC int __open64_2(const char *path, int flags)
{
	OPEN_ROUTE(__open64_2, (path, flags));
}

OPEN_REWRITTEN(__openat_2, (int dirfd, const char *path, int flags),
	       dirfd, path, open_flags(flags))

__attribute__((noinline)) static int __openat_2_slow(int dirfd, const char *path,
						    int flags)
{
	dirfd = vfd_translate(dirfd);
	OPEN_SLOW(__openat_2, path, flags, (dirfd, path, flags), dirfd, path,
		  open_flags(flags));
}

OPEN_UNSEQ(__openat_2, (int dirfd, const char *path, int flags),
	   (dirfd, path, flags),
	   (c_.dirfd = dirfd = vfd_translate(dirfd)),
	   (c->dirfd, c->path, c->flags),
	   dirfd, path, UNSEQ_FLAGS(flags))

UFD_PUBLIC int __openat_2(int dirfd, const char *path, int flags)
{
	OPEN_ROUTE(__openat_2, (dirfd, path, flags));
}

OPEN_REWRITTEN(__openat64_2, (int dirfd, const char *path, int flags),
	       dirfd, path, open_flags(flags))

__attribute__((noinline)) static int __openat64_2_slow(int dirfd,
						      const char *path, int flags)
{
	dirfd = vfd_translate(dirfd);
	OPEN_SLOW(__openat64_2, path, flags, (dirfd, path, flags), dirfd, path,
		  open_flags(flags));
}

OPEN_UNSEQ(__openat64_2, (int dirfd, const char *path, int flags),
	   (dirfd, path, flags),
	   (c_.dirfd = dirfd = vfd_translate(dirfd)),
	   (c->dirfd, c->path, c->flags),
	   dirfd, path, UNSEQ_FLAGS(flags))

UFD_PUBLIC int __openat64_2(int dirfd, const char *path, int flags)
{
	OPEN_ROUTE(__openat64_2, (dirfd, path, flags));
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


/* pipe and pipe2 when a new descriptor is not the application's as the
 * kernel makes it (newfd_plain), each under its own name for UFD_EXCLUDE.
 * Returns what they return (-1 and errno on failure). */
static int make_pipe(int fds[2], int flags, enum ufd_call call)
{
	int added = newfd_add_cloexec(&flags, O_CLOEXEC);

	if (UFD_REAL(pipe2)(fds, flags) < 0)
		return -1;
	if (newfd_finish_pair(fds, added, call) < 0)
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
	if (newfd_finish_pair(fds, added, UFD_CALL_openpty) < 0)
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
	return ret_flagged(UFD_REAL(socket)(domain, sock_flags(type), protocol),
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
	return ret_flagged(UFD_REAL(accept4)(fd, addr, len, sock_flags(flags)),
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


/* ---- dup, dup2, dup3 ---- */

UFD_PUBLIC int dup(int fd)
{
	/* Below vfd_guard_from fd is neither virtual nor backing. */
	if (__builtin_expect(newfd_plain() && !vfd_guarded(fd), 1))
		return UFD_REAL(dup)(fd);
	if (vfd_is_backing(fd))
		return ufd_ret(-EBADF);
	if (ufd_settings.cloexec) {
		int r = UFD_REAL(fcntl)(vfd_translate(fd), F_DUPFD_CLOEXEC, 0);

		/* F_DUPFD from 0 is EINVAL only at limit 0, where dup says
		 * EMFILE. */
		if (r < 0 && errno == EINVAL)
			errno = EMFILE;
		return ufd_ret_new_fd_known(r, 1, UFD_CALL_dup, 1);
	}
	return ufd_ret_new_fd_known(UFD_REAL(dup)(vfd_translate(fd)), 0, UFD_CALL_dup, 0);
}


static int is_virtual_target(int newfd)
{
	return vfd_in_space(newfd) || (unsigned)newfd == FD_UNSEQ_ALLOC;
}

/*
 * dup2/dup3 onto a virtual number: FD_UNSEQ_ALLOC picks one at random, any
 * other number is taken exactly, replacing what it held.  Returns the new
 * descriptor or -errno.
 */
static inline __attribute__((always_inline)) int dup_to_virtual(int oldfd, int newfd,
							   unsigned flags)
{
	int real = vfd_translate(oldfd);

	if (oldfd == newfd) /* dup2(x, x): x if it is open (dup3 said EINVAL) */
		return vfd_in_space(oldfd) && vfd_slot(oldfd) ? newfd : -EBADF;
	if ((unsigned)newfd == FD_UNSEQ_ALLOC)
		return vfd_create(real, flags | (ufd_settings.cloexec ? VFD_CLOEXEC : 0),
				  VFD_AT_RANDOM, 0);
	return vfd_create(real, flags, VFD_AT_EXACT, newfd);
}

/* dup_to_virtual as dup3 returns it (-1 and errno), out of line so that
 * dup3_slow reaches it with a tail call. */
__attribute__((noinline)) static int ret_dup_to_virtual(int oldfd, int newfd,
							unsigned flags)
{
	return ufd_ret(dup_to_virtual(oldfd, newfd, flags));
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

/*
 * dup2 (flags 0) or dup3 (call) onto a virtual or guarded target, the
 * paths that do not reach the real function's pointer, under the
 * sanitizer, out of line (the wrappers' one test of ufd_settings.report
 * tail-calls this): newfd, about to be replaced, may be ufd's backing
 * descriptor or a library's hidden one (reported); the result is recorded
 * as made by call, a number the program chose (meant to be inherited).
 */
static __attribute__((noinline, cold)) int dup_reported(int oldfd, int newfd,
							 int flags,
							 enum ufd_call call)
{
	unsigned vflags = (flags & O_CLOEXEC ? VFD_CLOEXEC : 0) |
			  (flags & O_CLOFORK ? VFD_CLOFORK : 0);
	int f, r;

	if (oldfd != newfd)
		report_out_make_way(newfd);
	if (oldfd != newfd && vfd_is_backing(newfd))
		report_not_owned(newfd, call, 0);
	else if (oldfd != newfd && vfd_in_space(newfd) &&
		 (f = vfd_get_flags(newfd)) >= 0 && (f & VFD_HIDDEN))
		report_not_owned(newfd, call, 1);
	if (is_virtual_target(newfd))
		r = dup_to_virtual(oldfd, newfd, vflags);
	else
		r = dup_onto_guarded(oldfd, newfd, flags & ~O_CLOFORK,
				     vflags & VFD_CLOFORK);
	if (r == -EBADF)
		report_ebadf(oldfd, call);
	if (r >= 0) {
		fdname_pending(call, report_name_of(oldfd), 0, 1);
		report_created(r, call, 1);
	}
	return ufd_ret(r);
}

#define REPORTING() __builtin_expect(ufd_settings.report != NULL, 0)

UFD_PUBLIC int dup2(int oldfd, int newfd)
{
	/* A backing descriptor is not open, for the application: no copy
	 * of it (the kernel checks oldfd first). */
	if (vfd_is_backing(oldfd))
		return ufd_ret(-EBADF);
	if (is_virtual_target(newfd)) {
		if (REPORTING())
			return dup_reported(oldfd, newfd, 0, UFD_CALL_dup2);
		return ufd_ret(dup_to_virtual(oldfd, newfd, 0));
	}
	if (oldfd != newfd && vfd_guarded(newfd)) {
		if (REPORTING())
			return dup_reported(oldfd, newfd, 0, UFD_CALL_dup2);
		return ufd_ret(dup_onto_guarded(oldfd, newfd, 0, 0));
	}
	return UFD_REAL(dup2)(vfd_translate(oldfd), newfd);
}

/* dup3 for what its fast path below leaves: ufd's numbers, O_CLOFORK, a
 * failure.  The kernel's order: flags, then oldfd == newfd, then oldfd. */
__attribute__((noinline)) static int dup3_slow(int oldfd, int newfd, int flags)
{
	unsigned clofork = flags & O_CLOFORK ? VFD_CLOFORK : 0;

	if (flags & ~(O_CLOEXEC | O_CLOFORK))
		return ufd_ret(-EINVAL);
	if (oldfd == newfd)
		return ufd_ret(-EINVAL);
	if (vfd_is_backing(oldfd))
		return ufd_ret(-EBADF);
	if (is_virtual_target(newfd)) {
		if (REPORTING())
			return dup_reported(oldfd, newfd, flags, UFD_CALL_dup3);
		return ret_dup_to_virtual(oldfd, newfd, clofork |
					  (flags & O_CLOEXEC ? VFD_CLOEXEC : 0));
	}
	/* The number asked for, real: not a new descriptor for
	 * UFD_MODE=all to move. */
	if (vfd_guarded(newfd)) {
		if (REPORTING())
			return dup_reported(oldfd, newfd, flags, UFD_CALL_dup3);
		return ufd_ret(dup_onto_guarded(oldfd, newfd, flags & ~O_CLOFORK, clofork));
	}
	if (!clofork)
		return UFD_REAL(dup3)(vfd_translate(oldfd), newfd, flags);
	if (UFD_REAL(dup3)(vfd_translate(oldfd), newfd, flags & ~O_CLOFORK) < 0)
		return -1;
	return ufd_ret(vfd_real_set_flags(newfd, VFD_CLOFORK) ?: newfd);
}

/* Without O_CLOFORK, both numbers below vfd_guard_from and the virtual
 * space (neither virtual, backing nor marked; newfd not FD_UNSEQ_ALLOC):
 * the kernel's call, its checks included. */
UFD_PUBLIC int dup3(int oldfd, int newfd, int flags)
{
	if (__builtin_expect(!vfd_guarded(oldfd | newfd) && !(flags & ~O_CLOEXEC) &&
			     (unsigned)newfd < FD_UNSEQ_BASE, 1))
		return UFD_REAL(dup3)(oldfd, newfd, flags);
	return dup3_slow(oldfd, newfd, flags);
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
 * The body of fcntl and fcntl64: returns what they return (-1 and errno on
 * failure).
 */
__attribute__((noinline)) static int fcntl_common(int (*real)(int, int, ...),
						  enum ufd_call call, int fd,
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
		{
			r = vfd_create(vfd_translate(fd), vflags, VFD_AT_LOWEST, argi);
			if (r >= 0 && ufd_settings.report) {
				fdname_pending(call, report_name_of(fd), 0, 1);
				report_created(r, call, 0);
			}
			return ufd_ret(r);
		}
		/* F_DUPFD_CLOFORK is F_DUPFD_CLOEXEC under UFD_CLOEXEC. */
		r = real(vfd_translate(fd), cmd == F_DUPFD_CLOFORK ? F_DUPFD : cmd,
			 arg);
		/* From the application's limit on: the kernel's EINVAL (its
		 * own limit, which ufd holds higher, let the call through, to
		 * a number or to EMFILE when none was free up to it). */
		if ((unsigned)argi >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED) &&
		    (r >= 0 || errno == EMFILE)) {
			if (r >= 0)
				ufd_sys_close(r);
			return ufd_ret(-EINVAL);
		}
		/* UFD_MODE=random draws from argi up, as F_DUPFD asks. */
		return r < 0 ? r
			     : ufd_ret(newfd_finish_flagged_from(r, 0, vflags & VFD_CLOFORK,
								 added, call, argi));
	}
	case F_GETFD:
		if (vfd_in_space(fd)) {
			r = vfd_shared_gone(fd);
			if (r == 0)
				r = vfd_get_flags(fd);
			if (r == -EBADF && ufd_settings.report)
				report_ebadf_args(fd, call, cmd, NULL);
			return r < 0 ? ufd_ret(r) : fd_flags_of((unsigned)r);
		}
		r = real(fd, cmd, arg);
		return r < 0 ? r : r | fd_flags_of(vfd_real_get_flags(fd));
	case F_SETFD:
		if (vfd_in_space(fd)) {
			r = vfd_shared_gone(fd);
			if (r == 0)
				r = vfd_set_flags(fd, VFD_CLOEXEC | VFD_CLOFORK,
						  vflags_of(argi));
			if (r == 0 && !(argi & FD_CLOEXEC) && ufd_settings.report)
				report_inherit(fd);
			if (r == -EBADF && ufd_settings.report)
				report_ebadf(fd, call);
			return ufd_ret(r);
		}
		r = real(fd, cmd, (void *)(long)(argi & FD_CLOEXEC));
		if (r == 0)
			r = ufd_ret(vfd_real_set_flags(fd, vflags_of(argi)));
		return r;
	}
	return real(vfd_translate(fd), cmd, arg);
}

/*
 * Can fcntl(fd, cmd, arg) go straight to libc, as fcntl_common would make
 * it?  So for fd below vfd_guard_from (neither virtual nor backing, and
 * without a close-on-fork mark: marking lowers the guard) and a command
 * that asks nothing of ufd: not F_DUPFD_CLOFORK, not F_SETFD with
 * FD_CLOFORK, not F_SETLK(W) (noted, for record locks), and F_DUPFD and
 * F_DUPFD_CLOEXEC only below the virtual space and while a new descriptor
 * is the application's as the kernel makes it (newfd_plain).
 */
static inline int fcntl_plain(int fd, int cmd, void *arg)
{
	if (vfd_guarded(fd))
		return 0;
	if (__builtin_expect(cmd == F_GETFD, 1)) /* the commonest, first */
		return 1;
	switch (cmd) {
	case F_SETFD:
		return !((int)(long)arg & FD_CLOFORK);
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return (unsigned)(int)(long)arg < FD_UNSEQ_BASE && newfd_plain();
	case F_DUPFD_CLOFORK:
	case F_SETLK:
	case F_SETLKW:
		return 0;
	}
	return 1;
}

/*
 * fcntl's entry points, with the argument named as open's mode is (see
 * OPEN_ENTRY): the caller's, or whatever the register held for a command
 * without one, passed on as it is, as libc's own fcntl reads it only for
 * the commands that take one.  Elsewhere, va_arg as usual.
 */
#if defined(__x86_64__) || defined(__aarch64__)
#define FCNTL_ENTRY(name)                                                      \
	UFD_PUBLIC int ufd_fcntl_entry_##name(int fd, int cmd, void *arg)      \
		__asm__(#name);                                                \
	UFD_PUBLIC int ufd_fcntl_entry_##name(int fd, int cmd, void *arg)
#define FCNTL_ARG() (void)0
#else
#define FCNTL_ENTRY(name) UFD_PUBLIC int name(int fd, int cmd, ...)
#define FCNTL_ARG()                     \
	void *arg;                      \
	do {                            \
		va_list ap;             \
		va_start(ap, cmd);      \
		arg = va_arg(ap, void *); \
		va_end(ap);             \
	} while (0)
#endif

FCNTL_ENTRY(fcntl)
{
	FCNTL_ARG();
	if (__builtin_expect(fcntl_plain(fd, cmd, arg), 1))
		return UFD_REAL(fcntl)(fd, cmd, arg);
	return fcntl_common(UFD_REAL(fcntl), UFD_CALL_fcntl, fd, cmd, arg);
}

FCNTL_ENTRY(fcntl64)
{
	FCNTL_ARG();
	if (__builtin_expect(fcntl_plain(fd, cmd, arg), 1))
		return UFD_REAL(fcntl64)(fd, cmd, arg);
	return fcntl_common(UFD_REAL(fcntl64), UFD_CALL_fcntl64, fd, cmd, arg);
}

/* glibc's lockf takes its locks with an internal fcntl, unseen. */
/* ---- descriptors inside other calls' arguments ---- */

UFD_PUBLIC int signalfd(int fd, const sigset_t *mask, int flags)
{
	int real = vfd_translate(fd), r;

	if (fd == -1) {
		int added = newfd_add_cloexec(&flags, SFD_CLOEXEC);

		r = ufd_ret_new_fd(UFD_REAL(signalfd)(fd, mask, flags), added,
				   UFD_CALL_signalfd);
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

/* ---- close ---- */

/* The sanitizer: the closes of ufd_close that do not reach the real
 * close's pointer, where its checking close would see them
 * (shim_report.c); out of line, tail-called. */
static __attribute__((noinline, cold)) int close_reported(int fd)
{
	int r, recorded;

	if (fd == report_out_fd())
		return -EBADF; /* the reports' destination: ufd's */
	if (vfd_is_backing(fd)) {
		report_not_owned(fd, UFD_CALL_close, 0);
		return ufd_close_real(fd);
	}
	recorded = report_closing(fd, UFD_CALL_close);
	if (vfd_in_space(fd))
		return ufd_close_virtual(fd);
	r = ufd_close_real(fd);
	if (recorded && r == -EBADF)
		report_close_failed(fd);
	return r;
}

/* A close of a virtual descriptor while streams are on virtual ones: the
 * stream table closes it, keeping its backing number if a stream holds
 * it (shim.h). */
static __attribute__((noinline, cold)) int close_streamed(int fd)
{
	if (REPORTING())
		report_closing(fd, UFD_CALL_close);
	return ufd_stream_vfd_close(fd);
}

int ufd_close_slow;

__attribute__((noinline)) int ufd_close(int fd)
{
	if (vfd_in_space(fd)) {
		if (__builtin_expect(ufd_close_slow & UFD_CLOSE_STREAMS, 0))
			return close_streamed(fd);
		if (REPORTING())
			return close_reported(fd);
		return ufd_close_virtual(fd);
	}
	/* EBADF for a backing descriptor; drops a close-on-fork mark. */
	if (vfd_guarded(fd)) {
		int r = REPORTING() ? close_reported(fd) : ufd_close_real(fd);

		/* A raw close, which close_random below does not see. */
		if (__builtin_expect(ufd_settings.mode_random, 0) && r != -EBADF)
			random_fd_closed(fd);
		return r;
	}
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
	if (__builtin_expect(vfd_guarded(fd), 0)) {
		/* A virtual descriptor's common case straight to the table,
		 * not through ufd_close's tests (no reports, no stream on a
		 * virtual descriptor). */
		if (vfd_in_space(fd) && __builtin_expect(!ufd_close_slow, 1))
			return ufd_ret(ufd_close_virtual(fd));
		return ufd_ret(ufd_close(fd));
	}
	return UFD_REAL(close)(fd);
}

/*
 * UFD_MODE=random sees the application's closes here: close_random is put
 * in front of libc's close at start-up (ufd_random_init), so that close
 * pays nothing for it in the other modes.  It chains to the function that
 * was there, which need not be libc's.
 */
static int (*close_before_random)(int);

static int close_random(int fd)
{
	int r = close_before_random(fd);

	/* Linux frees the number even when close fails, except for EBADF. */
	if (r == 0 || errno != EBADF)
		random_fd_closed(fd);
	return r;
}

void ufd_random_init(void)
{
	if (!ufd_settings.mode_random)
		return;
	random_fd_init();
	UFD_REAL_PUT_FRONT(close, close_random, close_before_random);
}

/* close_range and closefrom: what they closed, for UFD_MODE=random. */
static int closed_range(int r, unsigned first, unsigned last, unsigned flags)
{
	if (__builtin_expect(ufd_settings.mode_random, 0) && r == 0 &&
	    !(flags & CLOSE_RANGE_CLOEXEC))
		random_fd_closed_range(first, last);
	return r;
}

/* vfd_close_range, through the next close when a preload follows ufd
 * (shim_chain.c). */
static int close_range_any(unsigned first, unsigned last, unsigned flags)
{
	if (__builtin_expect(ufd_close_chained, 0))
		return ufd_chain_close_range(first, last, flags);
	return vfd_close_range(first, last, flags);
}

/* close_range_any, but for the sanitizer's report destination (ufd's
 * own, report_out.h), which stays open: the range is closed on each side
 * of it. */
static int close_range_keeping(unsigned first, unsigned last, unsigned flags)
{
	int keep = ufd_settings.report ? report_out_fd() : -1, r = 0;

	if (keep < 0 || (unsigned)keep < first || (unsigned)keep > last)
		return close_range_any(first, last, flags);
	if ((unsigned)keep > first)
		r = close_range_any(first, (unsigned)keep - 1, flags);
	if (r == 0 && (unsigned)keep < last)
		r = close_range_any((unsigned)keep + 1, last, flags);
	return r;
}

/*
 * The sanitizer: close_range or closefrom (call) over [first, last]
 * spans ufd's backing descriptors and libraries' hidden ones (which it
 * leaves alone: reported), and closes the program's (recorded).
 */
static void close_range_report(unsigned first, unsigned last, unsigned flags,
			       enum ufd_call call)
{
	int fd;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC) || first > last)
		return;
	/* A backing descriptor whose virtual one the range closes goes with
	 * it; one left behind is refused, silently but for this. */
	for (fd = vfd_next_backing((int)(first < INT_MAX ? first : INT_MAX));
	     fd >= 0 && (unsigned)fd <= last; fd = vfd_next_backing(fd + 1)) {
		int owner = vfd_owner(fd);

		if (owner < 0 || (unsigned)owner < first || (unsigned)owner > last)
			report_not_owned(fd, call, 0);
	}
	for (fd = vfd_next_hidden(first > FD_UNSEQ_BASE ? (int)first - 1 : -1);
	     fd >= 0 && (unsigned)fd <= last; fd = vfd_next_hidden(fd))
		report_not_owned(fd, call, 1);
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		report_closing_range(first, last, call);
}

UFD_PUBLIC int close_range(unsigned int first, unsigned int last, int flags)
{
	if (ufd_settings.report)
		close_range_report(first, last, (unsigned)flags, UFD_CALL_close_range);
	return ufd_ret(closed_range(close_range_keeping(first, last, (unsigned)flags),
				    first, last, (unsigned)flags));
}

/*
 * glibc's closefrom is close_range(lowfd, ~0U, 0) with a fallback through
 * /proc/self/fd for kernels without close_range, which would close backing
 * descriptors too; ufd needs close_range (Linux 5.9), and like glibc it
 * aborts rather than leave a descriptor open that the caller wanted closed.
 */
UFD_PUBLIC void closefrom(int lowfd)
{
	unsigned first = lowfd < 0 ? 0 : (unsigned)lowfd;
	int r;

	if (ufd_settings.report)
		close_range_report(first, ~0U, 0, UFD_CALL_closefrom);
	r = closed_range(close_range_keeping(first, ~0U, 0), first, ~0U, 0);

	if (r < 0) {
		static const char msg[] = "ufd: closefrom: close_range failed\n";

		ufd_sys6(SYS_write, 2, (long)msg, sizeof(msg) - 1, 0, 0, 0);
		abort();
	}
}

/* ---- file state: record locks (ioctl is shim_ioctl.c) ---- */

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

/* fsconfig: aux is a descriptor for FSCONFIG_SET_FD and the directory of
 * FSCONFIG_SET_PATH(_EMPTY). */
UFD_PUBLIC int fsconfig(int fd, unsigned int cmd, const char *key,
			const void *value, int aux)
{
	if (cmd == FSCONFIG_SET_FD || cmd == FSCONFIG_SET_PATH ||
	    cmd == FSCONFIG_SET_PATH_EMPTY)
		aux = vfd_translate(aux);
	return UFD_REAL(fsconfig)(vfd_translate(fd), cmd, key, value, aux);
}
