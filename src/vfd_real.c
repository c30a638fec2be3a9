/* SPDX-License-Identifier: MIT */
/*
 * vfd_real.c - the application's real descriptors beside the table:
 * their close-on-fork marks, their close, a dup2 onto one (a backing
 * descriptor in the way moves), and the application's RLIMIT_NOFILE
 * (backing descriptors in its way move above it).
 *
 * vfd_table.c states the locking rule.
 */
#include "vfd_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/resource.h>

#include "log.h"
#include "placement.h"
#include "sys.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* ---- real descriptors ---- */

uint32_t vfd_real_get_flags(int fd)
{
	uint32_t v = (uint32_t)fd < FD_UNSEQ_BASE ? fdmap_get(&vfd_mark_map, (uint32_t)fd) : 0;

	return v & VFD_BUSY ? v & VFD_FLAGS : 0;
}


/* Mark real descriptor fd (< FD_UNSEQ_BASE) with flags (non-zero).
 * Returns 0 or -ENOMEM.  Table lock held. */
static int set_mark(int fd, uint32_t flags)
{
	return fdmap_put(&vfd_mark_map, (uint32_t)fd, VFD_BUSY | flags);
}

int vfd_real_set_flags(int fd, uint32_t flags)
{
	int r;

	flags &= VFD_CLOFORK;
	/* A backing descriptor is not the application's to mark. */
	if ((uint32_t)fd >= FD_UNSEQ_BASE || vfd_owner(fd) >= 0)
		return -EBADF;
	if (!flags) {
		unmark(fd);
		return 0;
	}
	if (vfd_in_vfork_child())
		return -EBUSY;
	vfd_init();
	if (vfd_lock() < 0)
		return -EBUSY;
	r = set_mark(fd, flags);
	vfd_unlock();
	if (r < 0)
		return r;
	placement_guard(fd);
	return 0;
}

int vfd_real_closing(int fd)
{
	int owner = vfd_owner(fd);

	if (owner >= 0) {
		UFD_LOG("refused to close %d: it backs %d", fd, owner);
		return -EBADF;
	}
	unmark(fd);
	return 0;
}

int vfd_real_close(int fd, int (*close_fn)(int))
{
	/* A close of a number the application does not have (its bug:
	 * EBADF) must not close a backing descriptor being made there: the
	 * makers under way are waited for, and new ones make theirs inside
	 * the lock until the close is done.  The lock itself is not taken:
	 * every table change of every thread would wait for a close that may
	 * block.  From a signal handler that cannot wait, when makers are
	 * under way, the check and the close are not atomic, as they were
	 * before makers: the window is that bug's. */
	int blocked = block_makers() == 0 || block_makers_now() == 0;
	int r = vfd_real_closing(fd);

	r = r < 0 ? r : close_fn ? close_fn(fd) : ufd_sys_close(fd);
	if (blocked)
		unblock_makers();
	return r;
}

/*
 * If real descriptor fd is a backing descriptor, move it: a copy at a new
 * number, then the slot and the reverse map point at the copy.  fd itself
 * is left open and nobody's, for the caller's dup3 to replace (so that the
 * number is never free for a backing descriptor made meanwhile to take)
 * or to close.  With higher_only, only to a higher number (else it stays).
 * Returns 1 if it moved, 0 if fd is no backing descriptor (or stays), or
 * -errno (EMFILE, ENOMEM).  Table lock held.
 */
static int move_backing(int fd, int higher_only)
{
	int owner = vfd_owner(fd), moved, err;
	uint32_t idx = (uint32_t)owner - FD_UNSEQ_BASE, v;

	if (owner < 0)
		return 0;
	if (vfd_files_shared_now()) /* the other table may name it */
		return higher_only ? 0 : -EBUSY;
	v = fdmap_get(&vfd_map, idx);
	if (!(v & VFD_BUSY)) {
		/* a pending close: its number is free */
		vfd_disown_backing(fd, idx);
		return 0;
	}
	moved = placement_new_backing(fd);
	if (moved < 0)
		return moved;
	if (higher_only && moved < fd) {
		ufd_sys_close(moved);
		return 0;
	}
	err = vfd_own_backing(moved, idx);
	if (err < 0) {
		ufd_sys_close(moved);
		return err;
	}
	/* A compare-and-swap on the value as it is now, not as it was read
	 * before the move: another thread may have changed the flags since
	 * (that takes no lock). */
	v = vfd_update_open(&vfd_map, idx, ~VFD_FLAGS, vfd_slot_value(moved, 0));
	if (!(v & VFD_BUSY)) {
		/* A handler of this thread closed it meanwhile, and fd with
		 * it; unlocking finishes that close. */
		vfd_disown_backing(moved, idx);
		ufd_sys_close(moved);
		return 0;
	}
	vfd_disown_backing(fd, idx);
	UFD_LOG("moved the backing of %d from %d to %d: %s %d", owner, fd,
		moved, higher_only ? "the application's limit now covers"
				   : "the application replaces", fd);
	return 1;
}

int vfd_real_dup(int oldfd, int fd, int kflags, uint32_t mark)
{
	int moved, r;

	if (mark && vfd_in_vfork_child())
		return -EBUSY;
	/* A child sharing the memory (vfd_shared.h): no lock, no mark, no
	 * move; the kernel's dup3 alone, unless fd is a backing descriptor
	 * (its parent's to move). */
	if (vfd_shared_maybe()) {
		if (vfd_owner(fd) >= 0 || mark)
			return -EBUSY;
		return (int)ufd_sys6(SYS_dup3, vfd_translate(oldfd), fd, kflags, 0, 0, 0);
	}
	vfd_init();
	if (block_makers() < 0 || vfd_lock() < 0) {
		/* From a handler that interrupted a change to the table in
		 * this thread, or its making of a backing descriptor, which
		 * cannot be waited for: a backing descriptor cannot move, nor
		 * a mark be set, nor fd be one being made (EBUSY, a dup2
		 * error Linux has too, before anything changes); anything
		 * else is the kernel's dup3 alone.  (vfd_lock fails only
		 * where block_makers did.) */
		if (block_makers_now() < 0)
			return -EBUSY;
		if (vfd_owner(fd) >= 0 || mark) {
			r = -EBUSY;
		} else {
			r = (int)ufd_sys6(SYS_dup3, vfd_translate(oldfd), fd, kflags,
					  0, 0, 0);
			if (r >= 0)
				unmark(fd);
		}
		unblock_makers();
		return r;
	}
	moved = move_backing(fd, 0);
	if (moved < 0) {
		vfd_unlock();
		unblock_makers();
		return moved;
	}
	/* Translated only now: oldfd may be the virtual descriptor whose
	 * backing descriptor was at fd.  The kernel replaces fd atomically,
	 * with the lock held, so no backing descriptor is made meanwhile on
	 * fd or recorded after the check above. */
	r = (int)ufd_sys6(SYS_dup3, vfd_translate(oldfd), fd, kflags, 0, 0, 0);
	if (r < 0) {
		/* Refused (oldfd closed meanwhile by another thread, or fd
		 * past a lowered RLIMIT_NOFILE): fd stays as the kernel
		 * leaves it, not open for the application, so the backing
		 * descriptor that was there, nobody's now, goes. */
		if (moved)
			ufd_sys_close(fd);
	} else if (mark) {
		r = set_mark(fd, mark);
		r = r < 0 ? r : fd;
	} else {
		unmark(fd);
	}
	vfd_unlock();
	unblock_makers();
	return r;
}

/* ---- the application's RLIMIT_NOFILE ---- */

int vfd_set_nofile(const struct rlimit *new_rl, struct rlimit *old_rl,
		   int keep_regular)
{
	int64_t idx;
	int r;

	/* A child sharing the memory (vfd_shared.h): the kernel's limit
	 * alone, its own; ufd's placement and table are its parent's. */
	if (vfd_shared_child()) {
		unsigned shown = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

		r = (int)ufd_sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)new_rl,
				  (long)old_rl, 0, 0);
		if (r == 0 && old_rl && shown != UINT_MAX)
			old_rl->rlim_cur = shown;
		return r;
	}
	vfd_init();
	/* Makers waited for: theirs are placed under the limits as they
	 * were, and must be in vfd_map to be moved. */
	if (block_makers() < 0)
		return -EBUSY;
	if (vfd_lock() < 0) {
		unblock_makers();
		return -EBUSY;
	}
	r = placement_set_nofile(new_rl, old_rl);
	VFD_FOR_EACH_SLOT(&vfd_map, idx, 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);
		int b = vfd_backing_of(v);

		if (r != 0)
			break; /* the kernel refused the limit: nothing moves */
		if (!(v & VFD_BUSY) || !placement_misplaced(b) ||
		    (keep_regular ? ufd_sys_maybe_regular(b) : ufd_sys_file_locked(b)))
			continue;
		/* Moved, the old number is nobody's: closed under the lock, so
		 * that no new backing descriptor can be made there first. */
		if (move_backing(b, 1) == 1)
			ufd_sys_close(b);
	}
	vfd_unlock();
	unblock_makers();
	return r;
}
