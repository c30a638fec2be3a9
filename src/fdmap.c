/* SPDX-License-Identifier: MIT */
/*
 * fdmap.c - the descriptor map (see fdmap.h for the contract).
 *
 * Invariants, true whenever no mutating call is running:
 *   - slot[i] != 0  <=>  bit i of busy[] is set;
 *   - bit w of busy_full[] is set  <=>  busy[w] == ~0;
 *   - bit s of seg_full[] is set   <=>  segment s exists and every bit
 *     of its busy_full[] is set (its 64Ki slots are busy);
 *   - bit w of seg_full_full[] is set  <=>  seg_full[w] == ~0;
 *   - live == number of busy slots, all of them below limit;
 *   - range <= limit, and range - live >= min(limit - live,
 *     max(FDMAP_MIN_CHOICE, 4 * live)) after every random allocation's
 *     widening step;
 *   - widen_at <= limit is the lowest live for which that widening step
 *     would change range (limit once range == limit), so that a random
 *     allocation with live < widen_at skips it; or 0 while a seed is due
 *     (fdmap_seed_later), which sends the next one to the step;
 *   - reject == 2^32 mod range once range > 0 (Lemire's threshold).
 *   - every mapped segment's slots below limit are below seg_end <= limit
 *     (it only grows).
 * A segment that does not exist is all free.
 *
 * The common case of alloc_random, alloc_exact, release and put runs in
 * line, without saving registers; what is rare (a segment to map, a
 * bitmap word that fills or was full, a widening, a rejected draw) is in
 * COLD functions, which the common path tail-calls.
 */
#include "fdmap.h"

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>

#include "sys.h"

#define SEG_MASK (FDMAP_SEG_SLOTS - 1)
#define BIT(i)   (1ULL << ((i) & 63))
#define COLD     __attribute__((noinline, cold))
#define INLINE   __attribute__((always_inline)) static inline

_Static_assert(offsetof(struct fdmap, limit) % 64 == 0,
	       "fdmap.h: the fields every allocation writes start a cache line");

/* Random draws tried before falling back to a scan; see alloc_random_slow. */
#define RANDOM_TRIES 64

/* ---- random numbers: wyrand, seeded through splitmix64 ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * wyrand (Wang Yi's, the generator of Go's runtime and of Zig's standard
 * library): a 64-bit counter mixed by one 64x64->128-bit multiplication.
 * Its author reports it passing BigCrush and PractRand; it costs 9
 * instructions where xoshiro256** took 22, of an allocation's 44.
 */
INLINE uint64_t rng_next(uint64_t *s)
{
	uint64_t x = (*s += 0xa0761d6478bd642fULL);
	__uint128_t t = (__uint128_t)x * (x ^ 0xe7037ed1a0b428dbULL);

	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/*
 * One draw of Lemire's method for [0, m->range): the product of a 32-bit
 * random number and range, whose high half is the draw, to be rejected
 * when its low half is below m->reject.  The accepted draws are exactly
 * uniform.
 */
INLINE uint64_t rng_draw(struct fdmap *m)
{
	return (rng_next(m->rng) >> 32) * m->range;
}

/* Uniform in [0, m->range), m->range > 0. */
static uint32_t rng_below(struct fdmap *m)
{
	uint64_t x;

	do
		x = rng_draw(m);
	while ((uint32_t)x < m->reject);
	return (uint32_t)(x >> 32);
}

void fdmap_reseed(struct fdmap *m, uint64_t seed)
{
	m->rng[0] = splitmix64(&seed);
	m->seed_later = NULL;
}

UFD_FORK void fdmap_seed_later(struct fdmap *m, uint64_t (*seed)(void))
{
	m->seed_later = seed;
	/* The next random allocation goes to alloc_random_slow, which seeds
	 * first; its widening step recomputes widen_at from live and range. */
	m->widen_at = 0;
}

/* ---- bitmaps ---- */

/* First clear bit >= from in v[0..nwords), or -1.  A linear scan, used only
 * on the short summary arrays (16 and 3 words). */
static int64_t first_zero(const uint64_t *v, uint32_t nwords, uint64_t from)
{
	for (uint64_t w = from >> 6; w < nwords; w++) {
		uint64_t clear = ~v[w];

		if (w == from >> 6)
			clear &= ~0ULL << (from & 63);
		if (clear)
			return (int64_t)(w << 6 | __builtin_ctzll(clear));
	}
	return -1;
}

/*
 * First clear bit >= from in lo[0..nlo), where bit w of hi says lo[w] is all
 * ones.  O(1): one word of lo, a short scan of hi, one more word of lo.
 */
static int64_t first_zero_2level(const uint64_t *lo, const uint64_t *hi,
				 uint32_t nlo, uint64_t from)
{
	uint64_t w = from >> 6, clear;

	if (w >= nlo)
		return -1;
	clear = ~lo[w] & (~0ULL << (from & 63));
	if (!clear) {
		int64_t next = first_zero(hi, (nlo + 63) / 64, w + 1);

		if (next < 0 || next >= nlo)
			return -1;
		w = (uint64_t)next;
		clear = ~lo[w];
	}
	return (int64_t)(w << 6 | __builtin_ctzll(clear));
}

/*
 * Count a slot made busy (d = 1) or free (d = -1).  live is m->live,
 * which the common paths read before their store to the slot: the compiler
 * would take that store for a possible write to it and read it again.
 * Stored atomically: vfd_any() reads it without the lock.  No count per
 * segment: threads that take and free slots of one segment would all
 * write its line (bench_threads); a full segment is told by its
 * busy_full[] instead.
 */
INLINE void count(struct fdmap *m, uint32_t live, int32_t d)
{
	__atomic_store_n(&m->live, live + (uint32_t)d, __ATOMIC_RELAXED);
}

/* Are all slots of g busy?  Its busy_full[] all ones. */
static int seg_is_full(const struct fdmap_seg *g)
{
	for (uint32_t i = 0; i < FDMAP_SEG_SLOTS / 4096; i++)
		if (g->busy_full[i] != ~0ULL)
			return 0;
	return 1;
}

/* take_in's rare case: slot idx has just made its busy word all ones, and
 * maybe its segment full.  Returns idx. */
static COLD int64_t busy_word_filled(struct fdmap *m, struct fdmap_seg *g,
				     uint32_t idx)
{
	uint32_t w = (idx & SEG_MASK) >> 6, s = idx >> FDMAP_SEG_SHIFT;

	g->busy_full[w >> 6] |= BIT(w);
	count(m, m->live, 1);
	if (seg_is_full(g)) {
		m->seg_full[s >> 6] |= BIT(s);
		if (m->seg_full[s >> 6] == ~0ULL)
			m->seg_full_full[s >> 12] |= BIT(s >> 6);
	}
	return idx;
}

/* fdmap_release's rare case: busy slot idx is in a full busy word (maybe
 * in a full segment).  Frees it and returns old, the value it held. */
static COLD uint32_t release_in_full_word(struct fdmap *m, struct fdmap_seg *g,
					  uint32_t idx, uint32_t old)
{
	uint32_t w = (idx & SEG_MASK) >> 6, s = idx >> FDMAP_SEG_SHIFT;

	g->busy_full[w >> 6] &= ~BIT(w);
	g->busy[w] &= ~BIT(idx);
	if (m->seg_full[s >> 6] & BIT(s)) {
		if (m->seg_full[s >> 6] == ~0ULL)
			m->seg_full_full[s >> 12] &= ~BIT(s >> 6);
		m->seg_full[s >> 6] &= ~BIT(s);
	}
	count(m, m->live, -1);
	return old;
}

INLINE int seg_slot_is_busy(const struct fdmap_seg *g, uint32_t idx)
{
	return (g->busy[(idx & SEG_MASK) >> 6] & BIT(idx)) != 0;
}

INLINE int slot_is_busy(const struct fdmap *m, uint32_t idx)
{
	const struct fdmap_seg *g = m->seg[idx >> FDMAP_SEG_SHIFT];

	return g && seg_slot_is_busy(g, idx);
}

/* Lowest free slot >= from and < limit, or -1. */
static int64_t find_free_from(const struct fdmap *m, uint64_t from)
{
	while (from < m->limit) {
		uint32_t s = (uint32_t)(from >> FDMAP_SEG_SHIFT);
		const struct fdmap_seg *g = m->seg[s];
		int64_t next;

		if (!g)
			return (int64_t)from;
		if (!(m->seg_full[s >> 6] & BIT(s))) {
			int64_t off = first_zero_2level(g->busy, g->busy_full,
							FDMAP_SEG_SLOTS / 64,
							from & SEG_MASK);
			if (off >= 0) {
				int64_t idx = (int64_t)s << FDMAP_SEG_SHIFT | off;

				return idx < m->limit ? idx : -1;
			}
		}
		/* Segment s has nothing free from here on: jump to the next
		 * segment that is not full.  The loop runs at most twice. */
		next = first_zero_2level(m->seg_full, m->seg_full_full,
					 FDMAP_NSEGS / 64, (uint64_t)s + 1);
		if (next < 0)
			return -1;
		from = (uint64_t)next << FDMAP_SEG_SHIFT;
	}
	return -1;
}

/* ---- segments ---- */

/*
 * Store value in free slot idx of mapped segment g, mark it busy and
 * return idx.  The summaries change only when a busy word fills, and a
 * segment fills only as one of its words does: the common case writes the
 * word and the counts alone.
 */
INLINE int64_t take_in(struct fdmap *m, struct fdmap_seg *g, uint32_t idx,
		       uint32_t value)
{
	uint64_t *word = &g->busy[(idx & SEG_MASK) >> 6];
	uint64_t w = *word | BIT(idx);
	uint32_t live = m->live;

	__atomic_store_n(&g->slot[idx & SEG_MASK], value, __ATOMIC_RELEASE);
	*word = w;
	if (w == ~0ULL)
		return busy_word_filled(m, g, idx);
	count(m, live, 1);
	return idx;
}

/* take() in a segment not mapped yet: map it, then take.  Returns idx or
 * -ENOMEM. */
static COLD int64_t take_unmapped(struct fdmap *m, uint32_t idx, uint32_t value)
{
	uint32_t s = idx >> FDMAP_SEG_SHIFT;
	/* Zero-filled and touched lazily: a segment costs only the pages its
	 * busy slots fall in. */
	void *p = ufd_sys_mmap(NULL, sizeof(struct fdmap_seg),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (ufd_sys_is_error((long)p))
		return -ENOMEM;
	/* Publish only a fully formed segment to lock-free readers. */
	__atomic_store_n(&m->seg[s], (struct fdmap_seg *)p, __ATOMIC_RELEASE);
	if (idx >= m->seg_end) {
		uint64_t end = ((uint64_t)s + 1) << FDMAP_SEG_SHIFT;

		__atomic_store_n(&m->seg_end, end < m->limit ? (uint32_t)end : m->limit,
				 __ATOMIC_RELAXED);
	}
	return take_in(m, p, idx, value);
}

/* Store value in free slot idx (< limit) and return idx, or -ENOMEM.
 * Inlined: a call's prologue was a third of an allocation's cost. */
INLINE int64_t take(struct fdmap *m, uint32_t idx, uint32_t value)
{
	struct fdmap_seg *g = m->seg[idx >> FDMAP_SEG_SHIFT];

	if (!g)
		return take_unmapped(m, idx, value);
	return take_in(m, g, idx, value);
}

/* ---- the interface ---- */

int fdmap_init(struct fdmap *m, uint32_t limit, uint64_t seed)
{
	if (limit == 0 || limit > FDMAP_SPACE)
		return -EINVAL;
	/* The rest is zero already (the contract): clearing the arrays would
	 * touch the whole 100 KB, and live, which other threads may read
	 * lock-free while the first user sets the map up, is not written.
	 * widen_at 0: the first random allocation sets the range. */
	m->limit = limit;
	fdmap_reseed(m, seed);
	return 0;
}

void fdmap_destroy(struct fdmap *m)
{
	for (uint32_t s = 0; s < FDMAP_NSEGS && (uint64_t)s << FDMAP_SEG_SHIFT < m->seg_end; s++)
		if (m->seg[s])
			ufd_sys_munmap(m->seg[s], sizeof(struct fdmap_seg));
	*m = (struct fdmap){ 0 };
}

/*
 * Widen the drawing range, if needed, so that at least
 * max(FDMAP_MIN_CHOICE, 4 * live) slots in it are free (or all of [0, limit)
 * when that is smaller).  Steps of at least 1/8 keep widening rare while
 * holding memory near 5 slots per live descriptor.  Then set widen_at, the
 * live count at which that is needed again.
 */
static void widen_range(struct fdmap *m)
{
	uint64_t choice = 4ULL * m->live, need;
	uint32_t a, b;

	if (choice < FDMAP_MIN_CHOICE)
		choice = FDMAP_MIN_CHOICE;
	need = m->live + choice;
	if (m->range < need && m->range < m->limit) {
		if (need < m->range + m->range / 8ULL)
			need = m->range + m->range / 8ULL;
		need = (need + 63) & ~63ULL;
		m->range = need < m->limit ? (uint32_t)need : m->limit;
		m->reject = -m->range % m->range;
	}
	if (m->range == m->limit) {
		m->widen_at = m->limit;
		return;
	}
	/* live + max(MIN, 4 * live) <= range holds while live is at most
	 * both range - MIN and range / 5 (range >= need >= MIN here). */
	a = m->range - FDMAP_MIN_CHOICE;
	b = m->range / 5;
	m->widen_at = (a < b ? a : b) + 1;
}

/* fdmap_alloc_random, all cases: its in-line part starts over here when
 * its one draw is not the common case. */
static COLD int64_t alloc_random_slow(struct fdmap *m, uint32_t value)
{
	int64_t idx;

	if (value == 0)
		return -EINVAL;
	if (m->live >= m->limit)
		return -EMFILE;
	if (m->live >= m->widen_at) {
		/* fdmap_seed_later sends the next allocation here */
		if (m->seed_later)
			fdmap_reseed(m, m->seed_later());
		widen_range(m);
	}

	/*
	 * Rejection sampling is exactly uniform over the free slots in range,
	 * and each draw hits with probability >= 4/5 while the range is not
	 * capped by limit, so 64 misses in a row happen with probability
	 * < 2^-148.  Only a nearly full small map (a test's limit) gets to the
	 * scan, which takes the first free slot from a random point.
	 */
	for (int i = 0; i < RANDOM_TRIES; i++) {
		uint32_t r = rng_below(m);

		if (!slot_is_busy(m, r))
			return take(m, r, value);
	}
	idx = find_free_from(m, rng_below(m));
	if (idx < 0)
		idx = find_free_from(m, 0);
	if (idx < 0)
		return -EMFILE;
	return take(m, (uint32_t)idx, value);
}

int64_t fdmap_alloc_random(struct fdmap *m, uint32_t value)
{
	struct fdmap_seg *g;
	uint64_t x;
	uint32_t r;

	/*
	 * In line, the common case: no widening due, and one draw that Lemire
	 * accepts and that lands on a free slot.  A draw rejected either way
	 * is dropped and alloc_random_slow draws afresh, which keeps the
	 * choice exactly uniform; a free slot in a segment not mapped yet is
	 * taken, not dropped.
	 */
	if (value == 0 || m->live >= m->widen_at)
		return alloc_random_slow(m, value);
	x = rng_draw(m);
	if ((uint32_t)x < m->reject)
		return alloc_random_slow(m, value);
	r = (uint32_t)(x >> 32);
	g = m->seg[r >> FDMAP_SEG_SHIFT];
	if (!g)
		return take_unmapped(m, r, value);
	if (seg_slot_is_busy(g, r))
		return alloc_random_slow(m, value);
	return take_in(m, g, r, value);
}

int64_t fdmap_alloc_exact(struct fdmap *m, uint32_t idx, uint32_t value)
{
	struct fdmap_seg *g;

	if (value == 0)
		return -EINVAL;
	if (idx >= m->limit)
		return -ERANGE;
	g = m->seg[idx >> FDMAP_SEG_SHIFT];
	if (!g)
		return take_unmapped(m, idx, value);
	if (seg_slot_is_busy(g, idx))
		return -EBUSY;
	return take_in(m, g, idx, value);
}

int64_t fdmap_alloc_from(struct fdmap *m, uint32_t idx, uint32_t value)
{
	int64_t found;

	if (value == 0)
		return -EINVAL;
	found = find_free_from(m, idx);
	if (found < 0)
		return -EMFILE;
	return take(m, (uint32_t)found, value);
}

uint32_t fdmap_release(struct fdmap *m, uint32_t idx)
{
	struct fdmap_seg *g;
	uint64_t *word;
	uint32_t old, live;

	if (idx >= m->limit || !(g = m->seg[idx >> FDMAP_SEG_SHIFT]))
		return 0;
	live = m->live;
	/* Writers are serialised, so a plain load and a release store do:
	 * an atomic exchange would be a locked instruction and a full barrier
	 * on x86, half the cost of an allocate+release pair. */
	old = __atomic_load_n(&g->slot[idx & SEG_MASK], __ATOMIC_RELAXED);
	if (!old)
		return 0;
	__atomic_store_n(&g->slot[idx & SEG_MASK], 0, __ATOMIC_RELEASE);
	/* The summaries change only when what they sum up was full: the
	 * common release writes the busy word and the counts alone. */
	word = &g->busy[(idx & SEG_MASK) >> 6];
	if (*word == ~0ULL)
		return release_in_full_word(m, g, idx, old);
	*word &= ~BIT(idx);
	count(m, live, -1);
	return old;
}

uint32_t fdmap_replace(struct fdmap *m, uint32_t idx, uint32_t value)
{
	struct fdmap_seg *g;
	uint32_t old;

	if (value == 0 || idx >= m->limit || !slot_is_busy(m, idx))
		return 0;
	g = m->seg[idx >> FDMAP_SEG_SHIFT];
	old = __atomic_load_n(&g->slot[idx & SEG_MASK], __ATOMIC_RELAXED);
	__atomic_store_n(&g->slot[idx & SEG_MASK], value, __ATOMIC_RELEASE);
	return old;
}

int fdmap_put(struct fdmap *m, uint32_t idx, uint32_t value)
{
	struct fdmap_seg *g;
	int64_t r;

	if (value == 0)
		return -EINVAL;
	if (idx >= m->limit)
		return -ERANGE;
	g = m->seg[idx >> FDMAP_SEG_SHIFT];
	if (!g) {
		r = take_unmapped(m, idx, value);
		return r < 0 ? (int)r : 0;
	}
	/* Busy or free, the slot gets the value; a free one is marked busy. */
	if (seg_slot_is_busy(g, idx))
		__atomic_store_n(&g->slot[idx & SEG_MASK], value, __ATOMIC_RELEASE);
	else
		take_in(m, g, idx, value);
	return 0;
}

int fdmap_cas(struct fdmap *m, uint32_t idx, uint32_t old, uint32_t value)
{
	struct fdmap_seg *g;

	if (old == 0 || value == 0 || idx >= m->limit)
		return 0;
	g = __atomic_load_n(&m->seg[idx >> FDMAP_SEG_SHIFT], __ATOMIC_ACQUIRE);
	return g && __atomic_compare_exchange_n(&g->slot[idx & SEG_MASK], &old,
						value, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED);
}

UFD_FORK int64_t fdmap_next_busy(const struct fdmap *m, uint32_t idx)
{
	if (!__atomic_load_n(&m->live, __ATOMIC_RELAXED))
		return -1;
	for (uint64_t i = idx; i < __atomic_load_n(&m->seg_end, __ATOMIC_RELAXED);) {
		uint32_t s = (uint32_t)(i >> FDMAP_SEG_SHIFT);
		const struct fdmap_seg *g = m->seg[s];

		/* An empty segment is scanned too (1,024 words): a count of
		 * its busy slots to skip it would be written by every take
		 * and release (count). */
		if (g) {
			for (uint32_t w = (i & SEG_MASK) >> 6;
			     w < FDMAP_SEG_SLOTS / 64; w++) {
				uint64_t bits = g->busy[w];

				if (w == ((i & SEG_MASK) >> 6))
					bits &= ~0ULL << (i & 63);
				if (bits)
					return (int64_t)s << FDMAP_SEG_SHIFT |
					       w << 6 | __builtin_ctzll(bits);
			}
		}
		i = ((uint64_t)s + 1) << FDMAP_SEG_SHIFT;
	}
	return -1;
}
