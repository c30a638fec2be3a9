/* SPDX-License-Identifier: MIT */
/*
 * vfd_range.c - the walks over ranges of numbers: close_range over both
 * spaces, and the listings (the virtual descriptors a /proc/self/fd
 * listing shows or hides, the backing descriptors in order).
 *
 * vfd_table.c states the locking rule.
 */
#include "vfd_internal.h"

#include <errno.h>
#include <linux/close_range.h>

#include "sys.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* The first open virtual descriptor after `after` whose VFD_HIDDEN flag
 * is `hidden`, or -1. */
static int next_with_hidden(int after, uint32_t hidden)
{
	uint32_t from = vfd_in_space(after) ? (uint32_t)after - FD_UNSEQ_BASE + 1 : 0;
	int64_t idx;

	/* A listing is a snapshot, as the kernel's is: entries made or closed
	 * meanwhile may or may not show.  The lock keeps the walk over the
	 * bitmaps consistent; from a handler inside it, list nothing more. */
	if (vfd_lock() < 0)
		return -1;
	VFD_FOR_EACH_SLOT(&vfd_map, idx, from) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if ((v & VFD_BUSY) && (v & VFD_HIDDEN) == hidden)
			break;
	}
	vfd_unlock();
	return idx < 0 ? -1 : (int)(FD_UNSEQ_BASE + (uint32_t)idx);
}

int vfd_next_listed(int after)
{
	return next_with_hidden(after, 0);
}

int vfd_next_hidden(int after)
{
	return next_with_hidden(after, VFD_HIDDEN);
}

int vfd_next_backing(int from)
{
	int64_t b;

	if ((unsigned)from >= FD_UNSEQ_BASE || vfd_lock() < 0)
		return -1;
	b = revmap_next(&vfd_backing_map, (uint32_t)from);
	vfd_unlock();
	return b < 0 ? -1 : (int)b;
}
/* ---- close_range ---- */

/*
 * The real half of close_range: [first, last] below FD_UNSEQ_BASE, with
 * the kernel's close_range on each stretch between backing descriptors.
 * Table lock held, so that no backing descriptor appears in a stretch while
 * it is being closed.
 */
static int close_stretches(unsigned first, unsigned last, unsigned flags);

static int close_real_range(unsigned first, unsigned last, unsigned flags)
{
	int64_t m;

	/* Marking close-on-exec harms no backing descriptor (they all are). */
	if (flags & CLOSE_RANGE_CLOEXEC)
		return (int)ufd_sys6(SYS_close_range, first, last, flags, 0, 0, 0);
	VFD_FOR_EACH_SLOT(&vfd_mark_map, m, first) {
		if (m > last)
			break;
		fdmap_release(&vfd_mark_map, (uint32_t)m);
	}
	return close_stretches(first, last, flags);
}

/* close_real_range's closes: the kernel's close_range on each stretch of
 * [first, last] between backing descriptors.  Returns 0 or -errno. */
static int close_stretches(unsigned first, unsigned last, unsigned flags)
{
	while (first <= last) {
		int64_t b = revmap_next(&vfd_backing_map, first);
		unsigned end = b < 0 || (uint64_t)b > last ? last : (unsigned)b - 1;
		long r;

		if (b != (int64_t)first) {
			r = ufd_sys6(SYS_close_range, first, end, flags, 0, 0, 0);
			if (r < 0)
				return (int)r;
		}
		if (b < 0 || (uint64_t)b >= last)
			break;
		first = (unsigned)b + 1;
	}
	return 0;
}

/*
 * close_range in a child sharing its parent's memory (vfd_shared.h),
 * which must neither take the lock nor write the table, its parent's: the
 * real numbers in [first, last] closed but the backing descriptors, and
 * the backing descriptors of the virtual ones in it closed in the kernel
 * (the child's descriptors, unless it shares its parent's table too:
 * then the parent's virtual descriptor is gone as the kernel's would be).
 * Close-on-exec is already set on every backing descriptor.  The table
 * is read without the lock: a change its parent's other threads make
 * meanwhile may or may not be seen.
 */
static int shared_close_range(unsigned first, unsigned last, unsigned flags)
{
	unsigned real_last = last < FD_UNSEQ_BASE ? last : FD_UNSEQ_BASE - 1;
	int ret = 0;
	int64_t idx;

	if (first < FD_UNSEQ_BASE)
		ret = flags & CLOSE_RANGE_CLOEXEC
			      ? (int)ufd_sys6(SYS_close_range, first, real_last,
					      flags, 0, 0, 0)
			      : close_stretches(first, real_last, flags);
	if (ret || (flags & CLOSE_RANGE_CLOEXEC) || last < FD_UNSEQ_BASE ||
	    first >= FD_UNSEQ_LIMIT)
		return ret;
	VFD_FOR_EACH_SLOT(&vfd_map, idx, first > FD_UNSEQ_BASE ? first - FD_UNSEQ_BASE : 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if ((uint64_t)idx > (uint64_t)last - FD_UNSEQ_BASE)
			break;
		if ((v & VFD_BUSY) && !(v & VFD_HIDDEN))
			ufd_sys_close((int)(v >> VFD_REAL_SHIFT));
	}
	return 0;
}

int vfd_close_range(unsigned first, unsigned last, unsigned flags)
{
	int64_t idx;
	int ret, blocked = 0;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC) || first > last)
		return -EINVAL;
	if (vfd_shared_child())
		return shared_close_range(first, last, flags);
	/* Closing real numbers: none may be a backing descriptor being made
	 * (marking close-on-exec harms none). */
	if (first < FD_UNSEQ_BASE && !(flags & CLOSE_RANGE_CLOEXEC)) {
		ret = block_makers();
		if (ret < 0)
			return ret;
		blocked = 1;
	}
	ret = vfd_lock();
	if (ret < 0) {
		if (blocked)
			unblock_makers();
		return ret;
	}
	if (first < FD_UNSEQ_BASE)
		ret = close_real_range(first, last < FD_UNSEQ_BASE ? last
								   : FD_UNSEQ_BASE - 1,
				       flags);
	if (ret == 0 && last >= FD_UNSEQ_BASE && first < FD_UNSEQ_LIMIT) {
		uint32_t lo = first > FD_UNSEQ_BASE ? first - FD_UNSEQ_BASE : 0;
		uint32_t hi = last < FD_UNSEQ_LIMIT ? last - FD_UNSEQ_BASE
						    : FDMAP_SPACE - 1;

		VFD_FOR_EACH_SLOT(&vfd_map, idx, lo) {
			uint32_t v;

			if (idx > hi)
				break;
			v = fdmap_get(&vfd_map, (uint32_t)idx);
			/* A hidden one is a library's: only its own
			 * close closes it (vfd_table.h). */
			if (!(v & VFD_BUSY) || (v & VFD_HIDDEN))
				continue;
			/* vfd_set_flags: a compare-and-swap, since another
			 * thread may change the other flags meanwhile. */
			if (flags & CLOSE_RANGE_CLOEXEC)
				vfd_set_flags((int)(FD_UNSEQ_BASE + (uint32_t)idx),
					      VFD_CLOEXEC, VFD_CLOEXEC);
			else
				ufd_sys_close(drop_entry((uint32_t)idx));
		}
	}
	vfd_unlock();
	if (blocked)
		unblock_makers();
	return ret;
}
