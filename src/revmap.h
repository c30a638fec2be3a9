/* SPDX-License-Identifier: MIT */
/*
 * revmap.h - the reverse map: a 32-bit value per real descriptor number
 * below REVMAP_SPACE (2^28), 0 when none.
 *
 * A pure data structure, as fdmap.h is, but only what the table's map from
 * backing descriptors to their virtual ones needs: a value stored at a
 * given number, looked up, dropped, and the numbers that hold one walked
 * in order.  No allocator, no random draws: a store or a drop is a few
 * instructions (an fdmap's was fifty, for summaries that only its
 * allocators read).
 *
 * Storage: REVMAP_NSEGS segments of REVMAP_SEG_SLOTS values, each mapped
 * on first use and never moved or freed (fork inherits them), with a bit
 * per group of REVMAP_GROUP values (a cache line of them) that may hold
 * one, for the walk.  A store sets its group's bit only if it is clear,
 * a drop leaves it, and the walk clears the bits of the groups it finds
 * empty: threads storing and dropping values next to each other (backing
 * descriptors are made next to each other) write the values' line alone,
 * not a bitmap word as well.  A map that holds nothing touches no memory:
 * the structure is all zero, and static storage is.
 *
 * Concurrency: revmap_put, revmap_drop and revmap_next (which clears bits)
 * must be serialised by the caller.  revmap_get may run at any time, in
 * any thread or signal handler: segment pointers are published with
 * release stores and values are read and written atomically.
 */
#ifndef UFD_REVMAP_H
#define UFD_REVMAP_H

#include <errno.h>
#include <stdint.h>

#define REVMAP_SPACE     (1U << 28)
#define REVMAP_SEG_SHIFT 16
#define REVMAP_SEG_SLOTS (1U << REVMAP_SEG_SHIFT)
#define REVMAP_NSEGS     (REVMAP_SPACE >> REVMAP_SEG_SHIFT) /* 4096 */
#define REVMAP_GROUP_SHIFT 4
#define REVMAP_GROUP     (1U << REVMAP_GROUP_SHIFT) /* 64 bytes of values */

struct revmap_seg {
	uint32_t slot[REVMAP_SEG_SLOTS];
	/* bit per group of REVMAP_GROUP slots: set if one of them may be
	 * non-zero (clear: all are zero) */
	uint64_t used[REVMAP_SEG_SLOTS / REVMAP_GROUP / 64];
};

struct revmap {
	struct revmap_seg *seg[REVMAP_NSEGS]; /* NULL until first use */
	uint32_t nsegs; /* segments [nsegs, REVMAP_NSEGS) are not mapped */
};

/* Map segment s of m (for revmap_put).  Returns it, or NULL if mmap
 * failed.  Serialised with the other changes. */
struct revmap_seg *revmap_map_seg(struct revmap *m, uint32_t s);

/*
 * The value at number n (< REVMAP_SPACE), 0 if none.  Lock-free and
 * async-signal-safe.  (always_inline: GCC would otherwise merge it with
 * fdmap_get, whose code is the same, and warn about the struct sizes.)
 */
__attribute__((always_inline)) static inline uint32_t
revmap_get(const struct revmap *m, uint32_t n)
{
	const struct revmap_seg *g =
		__atomic_load_n(&m->seg[n >> REVMAP_SEG_SHIFT], __ATOMIC_ACQUIRE);

	if (!g)
		return 0;
	return __atomic_load_n(&g->slot[n & (REVMAP_SEG_SLOTS - 1)], __ATOMIC_ACQUIRE);
}

/*
 * Store value (non-zero) at number n, over whatever was there.  Returns 0,
 * -ERANGE (n >= REVMAP_SPACE) or -ENOMEM (a segment could not be mapped).
 * Serialised with the other changes.
 */
static inline int revmap_put(struct revmap *m, uint32_t n, uint32_t value)
{
	struct revmap_seg *g;
	uint32_t off = n & (REVMAP_SEG_SLOTS - 1);
	uint64_t *used, bit;

	if (n >= REVMAP_SPACE)
		return -ERANGE;
	g = m->seg[n >> REVMAP_SEG_SHIFT];
	if (__builtin_expect(!g, 0) && !(g = revmap_map_seg(m, n >> REVMAP_SEG_SHIFT)))
		return -ENOMEM;
	__atomic_store_n(&g->slot[off], value, __ATOMIC_RELEASE);
	used = &g->used[off >> (REVMAP_GROUP_SHIFT + 6)];
	bit = 1ULL << ((off >> REVMAP_GROUP_SHIFT) & 63);
	if (__builtin_expect(!(*used & bit), 0))
		*used |= bit;
	return 0;
}

/*
 * If number n (< REVMAP_SPACE) holds value (non-zero), drop it (0 from then on) and
 * return 1; else change nothing and return 0.  Serialised with the other
 * changes.
 */
static inline int revmap_drop(struct revmap *m, uint32_t n, uint32_t value)
{
	struct revmap_seg *g = m->seg[n >> REVMAP_SEG_SHIFT];
	uint32_t off = n & (REVMAP_SEG_SLOTS - 1);

	if (!g || __atomic_load_n(&g->slot[off], __ATOMIC_RELAXED) != value)
		return 0;
	/* The group's bit stays: the next walk clears it if the group is
	 * empty by then. */
	__atomic_store_n(&g->slot[off], 0, __ATOMIC_RELEASE);
	return 1;
}

/*
 * The first number >= n that holds a value, or -1.  Serialised with the
 * changes: clears the bits of the groups it finds empty.  Scans the bits
 * word by word and the values of each group whose bit is set: a walk
 * over every value, one call after the other, reads each mapped
 * segment's 64 words once and the groups used since the last walk (a few
 * thousand instructions, next to the system calls of the close_range
 * that walks), and a store or a drop keeps no summary.
 */
int64_t revmap_next(struct revmap *m, uint32_t n);

#endif /* UFD_REVMAP_H */
