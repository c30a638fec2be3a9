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
