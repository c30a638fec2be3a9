/* SPDX-License-Identifier: MIT */
/*
 * vfd_fork.c - what fork and vfork do to the table: the fork handlers
 * (the lock held across the fork, the child's close-on-fork descriptors
 * closed and its generator drawn apart), and when a vfork child may
 * share the memory (vfd_table.h).
 *
 * vfd_table.c states the locking rule.
 */
#include "vfd_internal.h"

#include <limits.h>
#include <stdint.h>

#include "log.h"
#include "placement.h"
#include "settings.h"
#include "sys.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* ---- vfork (vfd_table.h) ---- */

/* vfd_table.h.  Written by the wrapper's child path (shim_vfork.c's vfork). */
int vfd_vfork_child;

int vfd_vfork_allowed(void)
{
	/* Nothing of ufd's in play (vfd_table.h), and no change to the table
	 * under way in this thread (a handler that interrupted one).  The
	 * settings that concern new descriptors (UFD_MODE, UFD_CLOEXEC,
	 * UFD_REPORT) do not matter: the child's descriptors are the
	 * kernel's (vfd_create, random_fd_ready, report.c). */
	return single_threaded() && !vfd_in_vfork_child() && !ufd_settings.log &&
	       __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED) == UINT_MAX &&
	       !__atomic_load_n(&vfd_map.live, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&vfd_mark_map.live, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&table_lock, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&making, __ATOMIC_RELAXED);
}

int vfd_vfork_begin(void)
{
	if (!vfd_vfork_allowed())
		return 0;
	if (__atomic_fetch_add(&vfork_depth, 1, __ATOMIC_RELAXED) == 0)
		/* Creations and closes take the general paths until the end,
		 * where vfd_create_placed refuses the child's. */
		__atomic_store_n(&alone_ok, 0, __ATOMIC_RELAXED);
	/* Set before the vfork's system call, whatever the compiler does. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

void vfd_vfork_end(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* The child is gone (or was never made): the code that runs from
	 * here on is the parent's. */
	__atomic_store_n(&vfd_vfork_child, 0, __ATOMIC_RELAXED);
	/* A child killed by a signal inside a call leaves the lock and its
	 * blocker count held here.  Both were free at vfd_vfork_begin, and
	 * this thread's own handlers let go of what they took before they
	 * returned: anything held now is the dead child's. */
	if (__atomic_load_n(&table_lock, __ATOMIC_RELAXED))
		__atomic_store_n(&table_lock, 0, __ATOMIC_RELAXED);
	if (__atomic_load_n(&making, __ATOMIC_RELAXED))
		__atomic_store_n(&making, 0, __ATOMIC_RELAXED);
	/* The child shared this thread's thread-locals: the id it looked up
	 * is its own, which a new thread may be given once it is gone. */
	tid_cache = 0;
	if (__atomic_sub_fetch(&vfork_depth, 1, __ATOMIC_RELAXED) == 0)
		alone_again();
}

/* ---- fork ---- */

/* Whether fork_prepare took the lock (it cannot from a handler that
 * interrupted this thread inside it), and blocked makers (it cannot from
 * one that interrupted this thread inside the lock or making a backing
 * descriptor).  Set only in a process with threads, and cleared by the
 * handler that undoes them: a single-threaded fork writes neither (each
 * page written around a fork is a page fault in the parent or the child). */
static int fork_locked, fork_blocked;

/* Makers are waited for, so that the child has no backing descriptor that
 * is in no table.  When they cannot be (a fork from a signal handler), the
 * other threads' backing descriptors under way are in the child as
 * numbers nobody owns, until it exits or execs (they are close-on-exec).
 * A single-threaded process has no other thread to wait for or keep out:
 * its own thread holds the lock or makes a backing descriptor only if
 * this fork comes from a signal handler that interrupted it, when neither
 * could be taken anyway; fork_child tells the two apart by the lock word. */
UFD_FORK void vfd_fork_prepare(void)
{
	if (single_threaded()) {
		/* Read here, not written: the child reads the lock word, and
		 * a page the parent never touched would be a fault in every
		 * child, where the parent's read maps it once. */
		(void)__atomic_load_n(&table_lock, __ATOMIC_RELAXED);
		return;
	}
	/* A child sharing the memory: its parent's lock and makers are
	 * not its own to hold (vfd_shared.h). */
	if (vfd_shared_child())
		return;
	fork_blocked = block_makers() == 0;
	fork_locked = vfd_lock() == 0;
}

UFD_FORK void vfd_fork_parent(void)
{
	if (fork_locked) {
		fork_locked = 0;
		vfd_unlock();
	}
	if (fork_blocked) {
		fork_blocked = 0;
		unblock_makers();
	}
}

/*
 * In the child: the table is consistent if the forking thread held the
 * lock (fork_prepare) or nobody did (a single-threaded fork); then start
 * the lock afresh, draw apart from the parent and close the close-on-fork
 * descriptors, which the child never had.  Words are written only when
 * they change, so that a process without virtual descriptors copies no
 * page of ufd's here.
 */
UFD_FORK void vfd_fork_child(void)
{
	int locked = fork_locked;
	uint32_t held = __atomic_load_n(&table_lock, __ATOMIC_RELAXED);
	int64_t idx;

	if (locked | fork_blocked)
		fork_locked = fork_blocked = 0;
	if (tid_cache)
		tid_cache = 0;
	/* Memory of its own: no child shares it. */
	vfd_shared_forked();
	/* A fork from a vfork child, or from a handler inside a vfork: this
	 * child has memory of its own. */
	if (__atomic_load_n(&vfork_depth, __ATOMIC_RELAXED)) {
		__atomic_store_n(&vfork_depth, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&vfd_vfork_child, 0, __ATOMIC_RELAXED);
		alone_again();
	}
	ufd_log_fork_child(locked);
	/* The other threads are not in the child, nor are their makers and
	 * blockers.  This thread's maker, if a handler forked in the middle
	 * of it, resumes here and finishes (maker_end does not count below
	 * zero); until then, only this thread's handler could block makers,
	 * and it does not wait for its own thread's (maker_here). */
	if (__atomic_load_n(&making, __ATOMIC_RELAXED))
		__atomic_store_n(&making, 0, __ATOMIC_RELAXED);
	if (!locked && held) {
		/* fork from a handler that interrupted this thread inside the
		 * lock: the interrupted change resumes here too and unlocks.
		 * Until then the lock is this thread's, under its new id, so
		 * that the handler's own calls see it held by themselves
		 * (-EBUSY) rather than wait forever for a thread that is not
		 * in this process. */
		__atomic_store_n(&table_lock,
				 my_tid() | (held & ~(LOCK_TID | LOCK_WAITERS)),
				 __ATOMIC_RELAXED);
		return;
	}
	if (held)
		table_lock = 0;
	/* A fixed seed (UFD_SEED): children derive theirs from the parent's
	 * generator, so that test runs stay reproducible (and draw apart
	 * from the parent's even if it has set up nothing yet).  Else the
	 * child draws a seed of its own from the kernel at its first draw,
	 * if any; and a parent that set up nothing has nothing to undo: the
	 * maps' pages are not read (each would be a page fault here). */
	if (ufd_settings.seed_fixed) {
		if (!init_done)
			init_maps();
		fdmap_reseed(&vfd_map, vfd_map.rng[0] ^ 0x5eed0f0c4ULL);
	} else if (init_done) {
		fdmap_seed_later(&vfd_map, kernel_seed);
	} else {
		return;
	}
	VFD_FOR_EACH_SLOT(&vfd_map, idx, 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if (!(v & VFD_BUSY))
			drop_entry((uint32_t)idx);
		else if (v & VFD_CLOFORK)
			ufd_sys_close(drop_entry((uint32_t)idx));
	}
	/* The walk finished every pending close (a parent's holder drains
	 * them only after letting go of the lock, which may follow the fork). */
	__atomic_store_n(&pending_n, 0, __ATOMIC_RELAXED);
	VFD_FOR_EACH_SLOT(&vfd_mark_map, idx, 0) {
		if ((fdmap_get(&vfd_mark_map, (uint32_t)idx) & VFD_BUSY) &&
		    vfd_owner((int)idx) < 0)
			ufd_sys_close((int)idx);
		fdmap_release(&vfd_mark_map, (uint32_t)idx);
	}
}
