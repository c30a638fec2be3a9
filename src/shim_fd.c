/* SPDX-License-Identifier: MIT */
/*
 * shim_fd.c - the hand-written wrappers of the open family
 * (calls.def's first family, its first rows): open, open64, openat,
 * openat64 and their fortify entry points, with ufd's own flags
 * (O_UNSEQFD, O_CLOFORK) and the paths that name descriptors; creat and
 * mkstemp, their flagged twins for UFD_CLOEXEC.  The rest of the family:
 * shim_create.c (other creating calls), shim_dup.c (dup), shim_fcntl.c
 * (fcntl, lockf), shim_close.c (close, close_range); ioctl is
 * shim_ioctl.c.
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

/* ---- open ---- */

__attribute__((noinline)) int ufd_ret_flagged(int r, int virt, unsigned vflags,
					      int added, enum ufd_call call)
{
	return r < 0 ? r : ufd_ret(newfd_finish_flagged(r, virt, vflags, added, call,
							(vflags & VFD_CLOEXEC) != 0));
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
	return ufd_ret_flagged(fd, 0, open_vflags(flags), added, call);
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
 * Must an open with these flags, while the process holds virtual
 * descriptors, have its path looked at before the call (ufd_path_before:
 * one system call to read it) rather than after?  So if it may create or
 * truncate (through a backing descriptor's number, the file would be
 * changed), or if the process may hold POSIX record locks: opened through
 * a backing descriptor's number, the descriptor would be closed again,
 * and that close would drop the process's locks on the file (fuzz seeds
 * 795, 2534).
 */
static inline int open_path_first(int flags)
{
	return (flags & (O_CREAT | O_TRUNC)) || !newfd_locks_none();
}

/*
 * The rest of every open wrapper, out of line: call the real function
 * with args, on the path rewritten if it names a descriptor (shim.h), and
 * finish the result (UFD_CLOEXEC, the limit, mode all, O_UNSEQFD).  An
 * open that open_path_first says has its path looked at first; any
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
		if (vfd_any() && open_path_first(flags) &&                     \
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
 * whose path open_path_first says to look at first while virtual
 * descriptors exist is the slow function's.  name##_made: after
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
		if (vfd_any() && open_path_first(flags))                       \
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
