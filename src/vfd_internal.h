/* SPDX-License-Identifier: MIT */
/*
 * vfd_internal.h - what the table's own files share (vfd_table.c and the
 * exec hand-off, handoff.c), and nothing above them may use: the maps'
 * slot encoding, the lock, the close-on-fork marks, and the two loops
 * every walk or lock-free change of a slot is made of.
 */
#ifndef UFD_VFD_INTERNAL_H
#define UFD_VFD_INTERNAL_H

#include "vfd_table.h"

/* Close-on-fork marks of real descriptors: slot fd holds VFD_BUSY | flags
 * while marked, VFD_MARK_CLEARED once a lock-free clear has unmarked it. */
extern struct fdmap vfd_mark_map __attribute__((visibility("hidden")));
#define VFD_MARK_CLEARED 0x100U

/* A slot value of vfd_map: open, on backing descriptor `backing`, with
 * flags (VFD_FLAGS). */
static inline uint32_t vfd_slot_value(int backing, uint32_t flags)
{
	return (uint32_t)backing << VFD_REAL_SHIFT | VFD_BUSY | (flags & VFD_FLAGS);
}

/* The backing descriptor in a slot value of vfd_map. */
static inline int vfd_backing_of(uint32_t value)
{
	return (int)(value >> VFD_REAL_SHIFT);
}

/*
 * For each allocated slot of map m from index `from` up, in order: idx
 * (an int64_t the caller declares) is its index.  Allocated is not open:
 * the body tests VFD_BUSY in the value where that matters.
 */
#define VFD_FOR_EACH_SLOT(m, idx, from)                      \
	for ((idx) = fdmap_next_busy((m), (from)); (idx) >= 0; \
	     (idx) = fdmap_next_busy((m), (uint32_t)(idx) + 1))

/*
 * While slot idx of m is open (VFD_BUSY), replace its value v with
 * (v & ~clear) | set, by compare-and-swap: flags change without the lock,
 * and a close that a signal handler makes in between wins.  Returns the
 * value replaced, or the value seen without VFD_BUSY (nothing changed).
 * Lock-free and async-signal-safe.
 */
static inline uint32_t vfd_update_open(struct fdmap *m, uint32_t idx,
				       uint32_t clear, uint32_t set)
{
	uint32_t v;

	do
		v = fdmap_get(m, idx);
	while ((v & VFD_BUSY) && !fdmap_cas(m, idx, v, (v & ~clear) | set));
	return v;
}

/*
 * The table lock.  vfd_lock returns 0, or -EBUSY if this thread holds it
 * already: the caller is a signal handler that interrupted a change to the
 * table, and waiting would deadlock.  Log lines made while it is held are
 * written by vfd_unlock.  Async-signal-safe (raw futex calls).
 */
int vfd_lock(void);
void vfd_unlock(void);

/*
 * Record in vfd_backing_map that backing descriptor `backing` belongs to
 * vfd_map slot idx, over a stale entry for the same number (one whose
 * descriptor was closed behind ufd's back and the number reused).
 * Returns 0 or -ENOMEM.  Table lock held.
 */
static inline int vfd_own_backing(int backing, uint32_t idx)
{
	return revmap_put(&vfd_backing_map, (uint32_t)backing, idx + 1);
}

/* Drop the reverse entry of `backing` if it still names slot idx.  Table
 * lock held. */
static inline void vfd_disown_backing(int backing, uint32_t idx)
{
	revmap_drop(&vfd_backing_map, (uint32_t)backing, idx + 1);
}

#endif /* UFD_VFD_INTERNAL_H */
