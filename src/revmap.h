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
 * per non-zero value for the walk.  A map that holds nothing touches no
 * memory: the structure is all zero, and static storage is.
 *
 * Concurrency: revmap_put and revmap_drop must be serialised by the caller,
 * and so must revmap_next with them.  revmap_get may run at any time, in
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

struct revmap_seg {
	uint32_t slot[REVMAP_SEG_SLOTS];
	uint64_t busy[REVMAP_SEG_SLOTS / 64]; /* bit per non-zero slot */
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

	if (n >= REVMAP_SPACE)
		return -ERANGE;
	g = m->seg[n >> REVMAP_SEG_SHIFT];
	if (__builtin_expect(!g, 0) && !(g = revmap_map_seg(m, n >> REVMAP_SEG_SHIFT)))
		return -ENOMEM;
	__atomic_store_n(&g->slot[off], value, __ATOMIC_RELEASE);
	g->busy[off >> 6] |= 1ULL << (off & 63);
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
	__atomic_store_n(&g->slot[off], 0, __ATOMIC_RELEASE);
	g->busy[off >> 6] &= ~(1ULL << (off & 63));
	return 1;
}

/*
 * The first number >= n that holds a value, or -1.  Serialised with the
 * changes.  Scans the bits word by word: a walk over every value, one
 * call after the other, reads each mapped segment's 1,024 words once
 * (a few thousand instructions, next to the system calls of the
 * close_range that walks), and a store or a drop keeps no summary.
 */
int64_t revmap_next(const struct revmap *m, uint32_t n);

#endif /* UFD_REVMAP_H */
