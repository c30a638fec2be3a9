/* SPDX-License-Identifier: MIT */
/*
 * shim_clone.c - glibc's clone(): a child that shares the memory is
 * counted (vfd_shared.h).
 *
 * A child made with CLONE_VM and without CLONE_THREAD runs in this
 * process's memory, ufd's table included, and is not one of its threads:
 * it must take none of the table's locks and write none of its entries.
 * It is known by its pid (vfd_shared_child); counting such children here
 * lets the paths that make and close virtual descriptors ask only while
 * one may be running.  The child runs the caller's fn on its own stack and
 * never returns here; the parent ends the count once the child is over
 * for it (CLONE_VFORK: it has exec'd or exited) or was never made.
 * syscall(SYS_clone) and syscall(SYS_clone3) are counted in
 * shim_syscall.c.
 */
#include "shim.h"

#include <linux/sched.h>
#include <stdarg.h>

#include "vfd_shared.h"

UFD_PUBLIC int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	void *ptid, *tls, *ctid;
	va_list ap;
	int counted, r;

	/* Read whether or not the caller gave them, as glibc's own callers
	 * of its clone do: it reads only those its flags use. */
	va_start(ap, arg);
	ptid = va_arg(ap, void *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, void *);
	va_end(ap);
	counted = vfd_shared_clone_begin((uint64_t)(unsigned)flags);
	r = UFD_REAL(clone)(fn, stack, flags, arg, ptid, tls, ctid);
	if (counted && (r < 0 || (flags & CLONE_VFORK)))
		vfd_shared_clone_end();
	return r;
}
