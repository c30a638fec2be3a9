/* SPDX-License-Identifier: MIT */
/*
 * shim_dup.c - the hand-written wrappers of dup, dup2 and dup3
 * (calls.def's first family): a duplicate is a new descriptor (newfd.h),
 * and a target that is virtual, or a backing descriptor, is ufd's to
 * replace.
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
