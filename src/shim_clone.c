/* SPDX-License-Identifier: MIT */
/*
 * shim_clone.c - glibc's clone(): a child that shares the memory, or the
 * kernel's descriptor table, is counted (vfd_shared.h).
 *
 * A child made with CLONE_VM and without CLONE_THREAD runs in this
 * process's memory, ufd's table included, and is not one of its threads:
 * it must take none of the table's locks and write none of its entries.
 * It is known by the kernel (vfd_shared_child); counting such children here
 * lets the paths that make and close virtual descriptors ask only while
 * one may be running.  The child runs the caller's fn on its own stack and
 * never returns here; the parent ends the count once the child is over
 * for it (CLONE_VFORK: it has exec'd or exited) or was never made.  A
 * child without CLONE_VM has memory of its own, and gets the clear_child_tid
 * address glibc's fork gives its child (clone_child), so that it is not
 * taken for one sharing the memory.
 * A child sharing the kernel's descriptor table without the memory
 * (CLONE_FILES) is noted too (vfd_shared_files_note).  syscall(SYS_clone)
 * and syscall(SYS_clone3) are counted and noted in shim_syscall.c.
 */
#include "shim.h"

#include <linux/sched.h>
#include <stdarg.h>

#include "vfd_shared.h"

/* A child without CLONE_VM: fn and its argument, on the parent's stack,
 * which the child has a copy of. */
struct clone_call {
	int (*fn)(void *);
	void *arg;
	void *tid_address; /* the parent thread's (vfd_shared_tid_address) */
};

/* Such a child's first code: its memory is its own
 * (vfd_shared_raw_child), as a fork child's, before the caller's fn
 * runs. */
static int clone_child(void *p)
{
	struct clone_call *c = p;

	vfd_shared_raw_child(c->tid_address);
	return c->fn(c->arg);
}

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
	vfd_shared_files_note((uint64_t)(unsigned)flags);
	counted = vfd_shared_clone_begin((uint64_t)(unsigned)flags);
	if (!(flags & CLONE_VM) && fn) {
		struct clone_call call = { fn, arg, vfd_shared_tid_address() };

		return UFD_REAL(clone)(clone_child, stack, flags, &call, ptid, tls, ctid);
	}
	r = UFD_REAL(clone)(fn, stack, flags, arg, ptid, tls, ctid);
	if (counted && (r < 0 || (flags & CLONE_VFORK)))
		vfd_shared_clone_end();
	return r;
}

/* glibc's second name of clone (shim_alias.c). */
UFD_PUBLIC int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
	__attribute__((alias("clone"), copy(clone)));
