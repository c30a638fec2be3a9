/* SPDX-License-Identifier: MIT */
/*
 * vfd_shared.c - children that share the process's memory without being
 * its threads (see vfd_shared.h).
 */
#include "vfd_shared.h"

#include <fcntl.h>
#include <linux/sched.h>

#include "vfd_internal.h"
#include "vfd_table.h"

/*
 * The process whose memory this is.  Initialised, so in .data, a page
 * start-up writes anyway.  A thread (CLONE_THREAD) has its process's pid;
 * a child sharing the memory has its own, and reads this one, its
 * parent's.
 */
pid_t vfd_owner_pid = -1;

int vfd_shared_child(void)
{
	return vfd_in_vfork_child() ||
	       (pid_t)ufd_sys_getpid() != __atomic_load_n(&vfd_owner_pid, __ATOMIC_RELAXED);
}

unsigned vfd_shared_clones;

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

void vfd_shared_forked(void)
{
	vfd_shared_owner();
	/* Written only when it changes: a page not copied in the child. */
	if (__atomic_load_n(&vfd_shared_clones, __ATOMIC_RELAXED)) {
		__atomic_store_n(&vfd_shared_clones, 0, __ATOMIC_RELAXED);
		vfd_alone_recheck();
	}
}

unsigned vfd_files_shared;

void vfd_shared_files_note(uint64_t flags)
{
	if ((flags & CLONE_FILES) && !(flags & CLONE_VM) &&
	    !__atomic_load_n(&vfd_files_shared, __ATOMIC_RELAXED))
		__atomic_store_n(&vfd_files_shared, 1, __ATOMIC_RELAXED);
}

int vfd_shared_gone_slow(int vfd)
{
	uint32_t v = vfd_in_space(vfd) ? vfd_slot(vfd) : 0;

	if (!v || ufd_sys_fcntl((int)(v >> VFD_REAL_SHIFT), F_GETFD, 0) != -EBADF)
		return 0;
	vfd_forget(vfd);
	return -EBADF;
}
