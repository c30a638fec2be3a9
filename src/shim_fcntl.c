/* SPDX-License-Identifier: MIT */
/*
 * shim_fcntl.c - the hand-written wrappers of fcntl (and
 * fcntl64), lockf and fsconfig (calls.def's first family): F_DUPFD into
 * the virtual space or a random number, the descriptor flags ufd keeps
 * (close-on-exec of a virtual descriptor, close-on-fork), and the record
 * locks the process takes (newfd_note_posix_lock).
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
								 added, call, argi,
								 cmd == F_DUPFD_CLOEXEC));
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
