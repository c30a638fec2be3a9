/* SPDX-License-Identifier: MIT */
/*
 * vfd_files.c - a kernel table shared without the memory (a clone with
 * CLONE_FILES but not CLONE_VM): the kernel stays the judge of which
 * backing descriptors are open, and each virtual descriptor's
 * close-on-exec flag lives in its backing descriptor's kernel flag, where
 * the other process's changes land too (the rule: vfd_shared.h).
 */
#include <fcntl.h>
#include <linux/sched.h>

#include "sys.h"
#include "vfd_internal.h"

void vfd_shared_files_note(uint64_t flags)
{
	if (!(flags & CLONE_FILES) || (flags & CLONE_VM) || vfd_files_shared_now())
		return;
	__atomic_store_n(&vfd_files_shared, 1, __ATOMIC_SEQ_CST);
	vfd_alone_recheck(); /* vfd_create's single-threaded path asks not */
	if (vfd_lock() < 0)
		return;
	vfd_shared_flags_to_kernel();
	vfd_unlock();
}

/* The kernel's FD_CLOEXEC for slot value v's backing descriptor. */
static void mirror(uint32_t v)
{
	ufd_sys_fcntl(vfd_backing_of(v), F_SETFD, v & VFD_CLOEXEC ? FD_CLOEXEC : 0);
}

void vfd_shared_flags_changed(uint32_t v)
{
	if (vfd_files_shared_now() && (v & VFD_BUSY))
		mirror(v);
}

void vfd_shared_flags_to_kernel(void)
{
	int64_t idx;

	if (!vfd_files_shared_now())
		return;
	VFD_FOR_EACH_SLOT(&vfd_map, idx, 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if (v & VFD_BUSY)
			mirror(v);
	}
}

int vfd_flag_from_kernel(uint32_t idx, uint32_t v)
{
	int k = ufd_sys_fcntl(vfd_backing_of(v), F_GETFD, 0);

	if (k == -EBADF)
		return -EBADF;
	if (k >= 0 && !(k & FD_CLOEXEC) != !(v & VFD_CLOEXEC))
		vfd_update_open(&vfd_map, idx, VFD_CLOEXEC, k & FD_CLOEXEC ? VFD_CLOEXEC : 0);
	return 0;
}

void vfd_shared_flags_from_kernel(void)
{
	int64_t idx;

	if (!vfd_files_shared_now())
		return;
	VFD_FOR_EACH_SLOT(&vfd_map, idx, 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if ((v & VFD_BUSY) && vfd_flag_from_kernel((uint32_t)idx, v) == -EBADF)
			vfd_update_open(&vfd_map, (uint32_t)idx, 0, VFD_CLOEXEC);
	}
}
