/* SPDX-License-Identifier: MIT */
/*
 * fdmap.h - the descriptor map: a sparse array of 32-bit slots indexed by
 * (virtual descriptor - FD_UNSEQ_BASE).
 *
 * A pure data structure: no libc interposition, no knowledge of what the
 * values mean.  A slot holds 0 when free and a caller-chosen non-zero value
 * when busy.
 *
 * Operations and their cost:
 *   fdmap_alloc_random  a slot chosen uniformly at random among the free
 *                       slots of the drawing range, O(1) expected (rejection
 *                       sampling at a hit rate of at least 4 in 5);
 *   fdmap_alloc_exact   a given slot, O(1);
 *   fdmap_alloc_from    the lowest free slot >= n, O(1): two-level bitmaps
 *                       per segment and over segments, scanned with ctz;
 *   fdmap_release       O(1);
 *   fdmap_put           O(1): replace, or allocate exactly;
 *   fdmap_get           O(1), two loads, no lock.
 *
 * The drawing range for random allocation grows so that with k slots busy,
 * at least max(FDMAP_MIN_CHOICE, 4k) free slots are in it: the next number
 * is never predictable from the ones already handed out.
 *
 * Storage: FDMAP_SPACE slots in FDMAP_NSEGS segments of FDMAP_SEG_SLOTS,
 * each mapped on first use and never moved or freed until fdmap_destroy().
 * Memory is touched page by page, so its cost follows the drawing range
 * (about 4.1 bytes per slot in it), not the size of the space.
 *
 * Concurrency: the mutating calls (alloc_*, release, replace, reseed) must be
 * serialised by the caller.  fdmap_get() and fdmap_cas() may run at any
 * time, in any thread or signal handler, concurrently with them: segment
 * pointers are published with release stores and slot values are read and
 * written atomically.
 */
#ifndef UFD_FDMAP_H
#define UFD_FDMAP_H

#include <stdint.h>

#define FDMAP_SPACE      (3U << 28) /* slots: [1<<28, 1<<30) as indexes */
#define FDMAP_SEG_SHIFT  16
#define FDMAP_SEG_SLOTS  (1U << FDMAP_SEG_SHIFT)
#define FDMAP_NSEGS      (FDMAP_SPACE >> FDMAP_SEG_SHIFT) /* 12288 */
#define FDMAP_MIN_CHOICE 4096U

/* slot[] first: a call on a virtual descriptor (fdmap_get) then takes an
 * instruction fewer than with busy[] first (bench/shim.sh). */
struct fdmap_seg {
	uint32_t slot[FDMAP_SEG_SLOTS];
	uint64_t busy[FDMAP_SEG_SLOTS / 64];	/* bit per slot */
	uint64_t busy_full[FDMAP_SEG_SLOTS / 4096]; /* bit per all-ones busy[] word */
};

/*
 * The fields every allocation and release reads and writes are on one
 * cache line, at a multiple of 64 bytes from the start and with nothing
 * else on it: a map placed at a multiple of 64 (ufd's maps are) then
 * shares that line with nothing that is read or written on other paths
 * (segment pointers that lookups read, a caller's variables next to the
 * map), which threads taking turns under the caller's lock would
 * otherwise make cache misses.
 */
struct fdmap {
	struct fdmap_seg *seg[FDMAP_NSEGS];	    /* NULL until first use */
	uint64_t seg_full[FDMAP_NSEGS / 64];	    /* bit per full segment */
	union {
		struct {
			uint32_t limit;	   /* slots [0, limit) may be used */
			uint32_t live;	   /* busy slots */
			uint32_t range;	   /* random allocation draws from [0, range) */
			uint32_t widen_at; /* the range is widened when live reaches this */
			uint32_t reject;   /* Lemire's threshold for range: 2^32 mod range */
			uint32_t seg_end;  /* slots at or past it are in no segment ever
					    * mapped (nor past limit): the end of
					    * fdmap_next_busy's walk */
			uint64_t rng[1];   /* wyrand state (an array: callers read rng[0]) */
			uint64_t (*seed_later)(void); /* seeds rng at the next draw, or NULL */
		};
		char line_[64];
	};
	uint64_t seg_full_full[FDMAP_NSEGS / 4096]; /* bit per all-ones seg_full[] word */
};

/*
 * Initialise an all-free map whose slots are [0, limit) (limit at most
 * FDMAP_SPACE; tests use small limits to reach exhaustion), with the random
 * generator seeded from seed.  m must be all zero: static storage, calloc's,
 * or a map fdmap_destroy left; init touches none of its segment table, so
 * that a process that never uses the map keeps those pages untouched.
 * Returns 0 or -EINVAL.
 */
int fdmap_init(struct fdmap *m, uint32_t limit, uint64_t seed);

/* Unmap every segment.  The map must be initialised again before reuse. */
void fdmap_destroy(struct fdmap *m);

/* Reseed the generator (after fork, so parent and child draw apart). */
void fdmap_reseed(struct fdmap *m, uint64_t seed);

/*
 * Reseed the generator from seed() at the next random allocation rather
 * than now, so that a map that never draws never pays for its seed (ufd's:
 * a getrandom system call in every process and fork child).  seed runs at
 * most once per call of this, inside that allocation (under the caller's
 * serialisation, maybe in a signal handler: it must be async-signal-safe).
 * A mutating call; costs the allocation's common case nothing.
 */
void fdmap_seed_later(struct fdmap *m, uint64_t (*seed)(void));

/*
 * Allocation: store value (non-zero) in a free slot and return its index.
 * All return -EINVAL for value 0 and -ENOMEM if a segment cannot be mapped.
 *   random: a free slot uniformly at random; -EMFILE if none is free.
 *   exact:  slot idx; -EBUSY if it is busy, -ERANGE if idx >= limit.
 *   from:   the lowest free slot >= idx; -EMFILE if there is none.
 */
int64_t fdmap_alloc_random(struct fdmap *m, uint32_t value);
int64_t fdmap_alloc_exact(struct fdmap *m, uint32_t idx, uint32_t value);
int64_t fdmap_alloc_from(struct fdmap *m, uint32_t idx, uint32_t value);

/* Free slot idx and return the value it held (0 if it was free already). */
uint32_t fdmap_release(struct fdmap *m, uint32_t idx);

/*
 * Store a new non-zero value in busy slot idx and return the old one; a free
 * slot is left alone and 0 returned.  Lookups see either value, never 0.
 */
uint32_t fdmap_replace(struct fdmap *m, uint32_t idx, uint32_t value);

/*
 * Store non-zero value in slot idx, busy or free: fdmap_replace's store on
 * a busy slot, fdmap_alloc_exact on a free one, for a map keyed by a
 * number that may hold a stale entry.  Returns 0, -EINVAL (value 0),
 * -ERANGE (idx >= limit) or -ENOMEM.
 */
int fdmap_put(struct fdmap *m, uint32_t idx, uint32_t value);

/*
 * Store value in slot idx if the slot still holds old (both non-zero, so a
 * free slot is never touched), and return 1 if it did.  Lock-free: may run
 * concurrently with the mutating calls, for changes to a value that do not
 * change whether the slot is busy (a descriptor's flags).
 */
int fdmap_cas(struct fdmap *m, uint32_t idx, uint32_t old, uint32_t value);

/* Index of the first busy slot >= idx, or -1.  Walks the segment table
 * only up to the highest segment ever mapped (seg_end): a fork child's
 * walk of a map with a few descriptors reads one page of it, not 96 KB of
 * pages it never had. */
int64_t fdmap_next_busy(const struct fdmap *m, uint32_t idx);

/*
 * The value in slot idx (idx < FDMAP_SPACE), 0 if free.  Lock-free and
 * async-signal-safe; the hot path of every call on a virtual descriptor.
 */
static inline uint32_t fdmap_get(const struct fdmap *m, uint32_t idx)
{
	const struct fdmap_seg *g =
		__atomic_load_n(&m->seg[idx >> FDMAP_SEG_SHIFT], __ATOMIC_ACQUIRE);

	if (!g)
		return 0;
	return __atomic_load_n(&g->slot[idx & (FDMAP_SEG_SLOTS - 1)],
			       __ATOMIC_ACQUIRE);
}

/*
 * The FDMAP_SEG_SLOTS slots of the segment that holds slot idx (idx <
 * FDMAP_SPACE), NULL while that segment is not mapped (its slots all
 * free).  For a caller that looks up many slots of one segment: read each
 * with an acquire load, as fdmap_get does; the segment stays mapped until
 * fdmap_destroy.  Lock-free and async-signal-safe.
 */
static inline const uint32_t *fdmap_seg_slots(const struct fdmap *m, uint32_t idx)
{
	const struct fdmap_seg *g =
		__atomic_load_n(&m->seg[idx >> FDMAP_SEG_SHIFT], __ATOMIC_ACQUIRE);

	return g ? g->slot : 0;
}

#endif /* UFD_FDMAP_H */
