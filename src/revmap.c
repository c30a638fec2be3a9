/* SPDX-License-Identifier: MIT */
/*
 * revmap.c - the reverse map (see revmap.h for the contract): mapping a
 * segment, and the walk.
 *
 * Invariants, true whenever no change is running:
 *   - slot[i] != 0  <=>  bit i of busy[] is set;
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

/* The first set bit at or after bit `from` of the n-word bitmap b, or -1. */
static int64_t next_bit(const uint64_t *b, uint32_t n, uint32_t from)
{
	uint32_t w = from >> 6;
	uint64_t bits;

	if (w >= n)
		return -1;
	bits = b[w] & (~0ULL << (from & 63));
	while (!bits) {
		if (++w >= n)
			return -1;
		bits = b[w];
	}
	return (int64_t)w << 6 | __builtin_ctzll(bits);
}

int64_t revmap_next(const struct revmap *m, uint32_t n)
{
	for (uint32_t s = n >> REVMAP_SEG_SHIFT; s < m->nsegs;
	     s++, n = s << REVMAP_SEG_SHIFT) {
		const struct revmap_seg *g = m->seg[s];
		int64_t bit;

		if (!g)
			continue;
		bit = next_bit(g->busy, REVMAP_SEG_SLOTS / 64, n & (REVMAP_SEG_SLOTS - 1));
		if (bit >= 0)
			return (int64_t)s << REVMAP_SEG_SHIFT | bit;
	}
	return -1;
}
