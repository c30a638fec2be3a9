/* SPDX-License-Identifier: MIT */
/*
 * revmap.c - the reverse map (see revmap.h for the contract): mapping a
 * segment, and the walk.
 *
 * Invariants, true whenever no change is running:
 *   - slot[i] != 0  =>  bit i / REVMAP_GROUP of used[] is set (the
 *     converse only until a walk finds that group empty);
 *   - every mapped segment is below nsegs.
 * A segment that is not mapped holds nothing.
 */
#include "revmap.h"

#include <stddef.h>
#include <sys/mman.h>

#include "sys.h"

struct revmap_seg *revmap_map_seg(struct revmap *m, uint32_t s)
{
	/* Zero-filled and touched lazily: a segment costs only the pages
	 * its values fall in. */
	void *p = ufd_sys_mmap(NULL, sizeof(struct revmap_seg),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

	if (ufd_sys_is_error((long)p))
		return NULL;
	if (s >= m->nsegs)
		m->nsegs = s + 1;
	/* Publish only a fully formed segment to lock-free readers. */
	__atomic_store_n(&m->seg[s], (struct revmap_seg *)p, __ATOMIC_RELEASE);
	return p;
}

/*
 * The first non-zero slot at or after offset `from` of segment g, or -1,
 * looking only in the groups whose bit is set; clears the bits of those
 * found all zero.
 */
static int64_t seg_next(struct revmap_seg *g, uint32_t from)
{
	const uint32_t nwords = REVMAP_SEG_SLOTS / REVMAP_GROUP / 64;
	uint32_t w = from >> (REVMAP_GROUP_SHIFT + 6);
	uint64_t bits = g->used[w] & (~0ULL << ((from >> REVMAP_GROUP_SHIFT) & 63));

	for (;;) {
		uint32_t first;
		int empty = 1;

		while (!bits) {
			if (++w >= nwords)
				return -1;
			bits = g->used[w];
		}
		first = (w << 6 | (uint32_t)__builtin_ctzll(bits)) << REVMAP_GROUP_SHIFT;
		bits &= bits - 1;
		/* The whole group, also below from: it is empty only if all of
		 * it is. */
		for (uint32_t i = first; i < first + REVMAP_GROUP; i++) {
			if (!__atomic_load_n(&g->slot[i], __ATOMIC_RELAXED))
				continue;
			if (i >= from)
				return i;
			empty = 0;
		}
		if (empty)
			g->used[w] &= ~(1ULL << ((first >> REVMAP_GROUP_SHIFT) & 63));
	}
}

int64_t revmap_next(struct revmap *m, uint32_t n)
{
	for (uint32_t s = n >> REVMAP_SEG_SHIFT; s < m->nsegs;
	     s++, n = s << REVMAP_SEG_SHIFT) {
		struct revmap_seg *g = m->seg[s];
		int64_t off;

		if (!g)
			continue;
		off = seg_next(g, n & (REVMAP_SEG_SLOTS - 1));
		if (off >= 0)
			return (int64_t)s << REVMAP_SEG_SHIFT | off;
	}
	return -1;
}
