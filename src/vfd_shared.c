/* SPDX-License-Identifier: MIT */
/*
 * vfd_shared.c - children that share the process's memory without being
 * its threads (see vfd_shared.h).
 */
#include "vfd_shared.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sys/prctl.h>

#include "sys.h"
#include "vfd_internal.h"
#include "vfd_table.h"

void *vfd_shared_tid_address(void)
{
	void *p = NULL;

	if (ufd_sys6(SYS_prctl, PR_GET_TID_ADDRESS, (long)&p, 0, 0, 0, 0) != 0)
		return NULL;
	return p;
}

int vfd_shared_child(void)
{
	void *p = (void *)1;

	if (vfd_in_vfork_child())
		return 1;
	/* No address: a clone glibc did not make (vfd_shared.h); EINVAL
	 * (no CONFIG_CHECKPOINT_RESTORE): not known. */
	return ufd_sys6(SYS_prctl, PR_GET_TID_ADDRESS, (long)&p, 0, 0, 0, 0) == 0 &&
	       p == NULL;
}

void vfd_shared_raw_child(void *tid_address)
{
	if (tid_address)
		ufd_sys6(SYS_set_tid_address, (long)tid_address, 0, 0, 0, 0, 0);
	vfd_shared_forked();
}

int vfd_shared_clone_begin(uint64_t flags)
{
	if (!(flags & CLONE_VM) || (flags & CLONE_THREAD) || vfd_shared_child())
		return 0;
	/* Counted before the child exists, so that it sees the count. */
	__atomic_add_fetch(&vfd_shared_clones, 1, __ATOMIC_SEQ_CST);
	vfd_alone_recheck();
	return 1;
}

void vfd_shared_clone_end(void)
{
	if (__atomic_sub_fetch(&vfd_shared_clones, 1, __ATOMIC_SEQ_CST) == 0)
		vfd_alone_recheck();
}

unsigned vfd_files_shared;

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

/* Slot idx's close-on-exec flag from its backing descriptor's kernel one:
 * 0, or -EBADF if that has gone. */
static int flag_from_kernel(uint32_t idx, uint32_t v)
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

		if ((v & VFD_BUSY) && flag_from_kernel((uint32_t)idx, v) == -EBADF)
			vfd_update_open(&vfd_map, (uint32_t)idx, 0, VFD_CLOEXEC);
	}
}

int vfd_shared_gone_slow(int vfd)
{
	uint32_t v = vfd_in_space(vfd) ? vfd_slot(vfd) : 0;

	if (!v || flag_from_kernel((uint32_t)vfd - FD_UNSEQ_BASE, v) == 0)
		return 0;
	vfd_forget(vfd);
	return -EBADF;
}
