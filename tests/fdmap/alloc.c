/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - where fdmap puts a new slot: alloc_from gives the lowest
 * free slot >= n across segments and to the end of the space (tcase
 * alloc_from); random draws uniform and seeded, whichever segments are
 * mapped (tcase randomness); the drawing range keeps max(4096, 4k) free
 * slots for k live, however live got there (tcase growth).
 */
#include "fdmap_test.h"

/* ---- alloc_from across segments ---- */

/* Make [lo, hi) busy with exact allocations of val_f(idx). */
static void fill_exact(struct fdmap *m, uint32_t lo, uint32_t hi)
{
	for (uint32_t i = lo; i < hi; i++) {
		int64_t r = fdmap_alloc_exact(m, i, val_f(i));

		REQUIRE(r == i, "alloc_exact(%u) gave %lld", i, (long long)r);
	}
}

START_TEST(test_from_cross_segment)
{
	const uint32_t run = SEG + 5000;
	struct fdmap *m = map_new(FDMAP_SPACE, 4);

	fill_exact(m, 0, run);
	ck_assert_uint_eq(m->live, run);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), run);
	ck_assert_uint_eq(fdmap_get(m, run), 1);
	ck_assert_int_eq(fdmap_alloc_from(m, 100, 1), run + 1);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG - 1, 1), run + 2);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG, 1), run + 3);
	ck_assert_int_eq(fdmap_alloc_from(m, run - 1, 1), run + 4);

	/* Holes inside the run are found first. */
	ck_assert_uint_eq(fdmap_release(m, 4000), val_f(4000));
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), 4000);
	ck_assert_uint_eq(fdmap_release(m, SEG + 4099), val_f(SEG + 4099));
	ck_assert_int_eq(fdmap_alloc_from(m, 10, 1), SEG + 4099);
	ck_assert_uint_eq(fdmap_release(m, SEG - 1), val_f(SEG - 1));
	ck_assert_uint_eq(fdmap_release(m, SEG), val_f(SEG));
	ck_assert_int_eq(fdmap_alloc_from(m, SEG - 1, 1), SEG - 1);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG - 1, 1), SEG);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), run + 5);
	ck_assert_uint_eq(m->live, run + 6);
	map_free(m);
}
END_TEST

START_TEST(test_from_full_seg_skip)
{
	struct fdmap *m = map_new(FDMAP_SPACE, 5);

	/* Segment 0 full, segment 1 with a hole at 12305 and more after. */
	fill_exact(m, 0, SEG);
	fill_exact(m, SEG, SEG + 12305);
	fill_exact(m, SEG + 12306, SEG + 20000);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), SEG + 12305);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), SEG + 20000);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG / 2, 1), SEG + 20001);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG + 3, 1), SEG + 20002);

	/* Segment 2 full, segment 3 never mapped. */
	fill_exact(m, 2 * SEG, 3 * SEG);
	ck_assert_ptr_null(m->seg[3]);
	ck_assert_int_eq(fdmap_alloc_from(m, 2 * SEG + 77, 1), 3 * SEG);
	ck_assert_int_eq(fdmap_alloc_from(m, 2 * SEG, 1), 3 * SEG + 1);

	/* Segment 4 full, segment 5 with exactly one word of 64x64 busy. */
	fill_exact(m, 4 * SEG, 5 * SEG + 4096);
	ck_assert_int_eq(fdmap_alloc_from(m, 4 * SEG, 1), 5 * SEG + 4096);
	ck_assert_int_eq(fdmap_alloc_from(m, 4 * SEG + 1, 1), 5 * SEG + 4097);

	/* A slot freed in a full segment is found again, then skipped. */
	ck_assert_uint_eq(fdmap_release(m, 4 * SEG + 999),
			  val_f(4 * SEG + 999));
	ck_assert_int_eq(fdmap_alloc_from(m, 4 * SEG, 1), 4 * SEG + 999);
	ck_assert_int_eq(fdmap_alloc_from(m, 4 * SEG, 1), 5 * SEG + 4098);
	ck_assert_uint_eq(fdmap_release(m, SEG - 1), val_f(SEG - 1));
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), SEG - 1);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), SEG + 20003);
	map_free(m);
}
END_TEST

START_TEST(test_from_many_full_segs)
{
	/*
	 * 129 full segments: the first two words of the full-segment bitmap
	 * are all ones, so their summary bits are set and the search must
	 * skip them; freeing a slot in segment 100 must clear the summary bit
	 * of the second word, or alloc_from(0) would jump over it.
	 */
	const uint32_t nfull = 129;
	struct fdmap *m = map_new(FDMAP_SPACE, 6);

	fill_exact(m, 0, nfull * SEG + 100);
	ck_assert_uint_eq(m->live, nfull * SEG + 100);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), nfull * SEG + 100);
	ck_assert_int_eq(fdmap_alloc_from(m, 3 * SEG + 17, 1),
			 nfull * SEG + 101);
	ck_assert_int_eq(fdmap_alloc_from(m, 64 * SEG, 1), nfull * SEG + 102);

	ck_assert_uint_eq(fdmap_release(m, 100 * SEG + 12),
			  val_f(100 * SEG + 12));
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), 100 * SEG + 12);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), nfull * SEG + 103);
	ck_assert_uint_eq(fdmap_release(m, 30 * SEG + 7), val_f(30 * SEG + 7));
	ck_assert_int_eq(fdmap_alloc_from(m, 1, 1), 30 * SEG + 7);
	ck_assert_int_eq(fdmap_alloc_from(m, 1, 1), nfull * SEG + 104);
	ck_assert_uint_eq(fdmap_release(m, 128 * SEG + 5),
			  val_f(128 * SEG + 5));
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), 128 * SEG + 5);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), nfull * SEG + 105);
	ck_assert_int_eq(fdmap_next_busy(m, nfull * SEG + 105),
			 nfull * SEG + 105);
	ck_assert_int_eq(fdmap_next_busy(m, nfull * SEG + 106), -1);
	ck_assert_uint_eq(m->live, nfull * SEG + 106);
	map_free(m);
}
END_TEST

START_TEST(test_from_end_of_space)
{
	struct fdmap *m = map_new(FDMAP_SPACE, 7);

	ck_assert_int_eq(fdmap_alloc_from(m, FDMAP_SPACE - 1, 1),
			 FDMAP_SPACE - 1);
	ck_assert_uint_eq(fdmap_get(m, FDMAP_SPACE - 1), 1);
	ck_assert_int_eq(fdmap_alloc_from(m, FDMAP_SPACE - 1, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, FDMAP_SPACE, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, UINT32_MAX, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_exact(m, FDMAP_SPACE - 1, 1), -EBUSY);
	ck_assert_int_eq(fdmap_alloc_exact(m, FDMAP_SPACE, 1), -ERANGE);
	ck_assert_int_eq(fdmap_alloc_from(m, FDMAP_SPACE - 2, 2),
			 FDMAP_SPACE - 2);
	ck_assert_int_eq(fdmap_alloc_from(m, FDMAP_SPACE - 64, 3),
			 FDMAP_SPACE - 64);
	ck_assert_int_eq(fdmap_next_busy(m, FDMAP_SPACE - 63), FDMAP_SPACE - 2);
	ck_assert_uint_eq(fdmap_release(m, FDMAP_SPACE - 1), 1);
	ck_assert_int_eq(fdmap_alloc_from(m, FDMAP_SPACE - 2, 4),
			 FDMAP_SPACE - 1);
	ck_assert_uint_eq(fdmap_get(m, FDMAP_SPACE - 1), 4);
	ck_assert_uint_eq(m->live, 3);
	map_free(m);
}
END_TEST

START_TEST(test_from_partial_last_segment)
{
	/* A limit that ends 10 slots into segment 1: alloc_from fills the
	 * slots in order and stops at the limit, not at the segment's end. */
	const uint32_t limit = SEG + 10;
	struct fdmap *m = map_new(limit, 8);

	for (uint32_t i = 0; i < limit; i++) {
		int64_t r = fdmap_alloc_from(m, 0, val_f(i));

		REQUIRE(r == i, "alloc_from(0) #%u gave %lld", i, (long long)r);
	}
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG + 9, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_random(m, 1), -EMFILE);
	ck_assert_uint_eq(fdmap_release(m, SEG + 9), val_f(SEG + 9));
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), SEG + 9);
	ck_assert_uint_eq(fdmap_release(m, 17), val_f(17));
	ck_assert_int_eq(fdmap_alloc_random(m, 1), 17);
	map_free(m);
}
END_TEST

/* ---- randomness ---- */

/* Chi-square critical value, 63 degrees of freedom, p = 0.001. */
#define CHI2_63_P001 103.442

static double chi_square(const uint32_t *counts, int nbuckets, double expect)
{
	double stat = 0;

	for (int b = 0; b < nbuckets; b++) {
		double d = counts[b] - expect;

		stat += d * d / expect;
	}
	return stat;
}

START_TEST(test_random_uniform)
{
	const uint32_t ndraws = 409600;
	struct fdmap *m = map_new(FDMAP_SPACE, 0x5eed);
	uint32_t counts[64] = { 0 }, *hits = calloc(FDMAP_MIN_CHOICE, 4);
	uint32_t seq = 0, same = 0, minhits = UINT32_MAX;
	int64_t prev = -2;
	double stat;

	ck_assert_ptr_nonnull(hits);
	for (uint32_t i = 0; i < ndraws; i++) {
		uint32_t v = 1 + (i & 0xffff);
		int64_t r = fdmap_alloc_random(m, v);

		REQUIRE(r >= 0 && r < FDMAP_MIN_CHOICE,
			"draw %u with 0 live gave %lld", i, (long long)r);
		REQUIRE(fdmap_release(m, (uint32_t)r) == v,
			"release(%lld) lost the value", (long long)r);
		counts[r / (FDMAP_MIN_CHOICE / 64)]++;
		hits[r]++;
		seq += r == prev + 1;
		same += r == prev;
		prev = r;
	}
	ck_assert_uint_eq(m->live, 0);
	stat = chi_square(counts, 64, (double)ndraws / 64);
	ck_assert_msg(stat < CHI2_63_P001,
		      "chi-square over 64 buckets %.2f >= %.3f", stat,
		      CHI2_63_P001);
	for (uint32_t i = 0; i < FDMAP_MIN_CHOICE; i++)
		if (hits[i] < minhits)
			minhits = hits[i];
	ck_assert_msg(minhits > 0, "a slot of the range was never drawn");
	ck_assert_msg(seq < ndraws / 100, "%u of %u draws were prev + 1", seq,
		      ndraws);
	ck_assert_msg(same < ndraws / 100, "%u of %u draws repeated prev",
		      same, ndraws);
	free(hits);
	map_free(m);
}
END_TEST

/* Uniform over the free slots only: the low 1024 slots are busy. */
START_TEST(test_random_uniform_free)
{
	const uint32_t nbusy = 1024, ndraws = 204800;
	struct fdmap *m = map_new(FDMAP_SPACE, 0xfeed);
	uint32_t counts[64] = { 0 }, range = 0, width, counted = 0;
	double stat;

	fill_exact(m, 0, nbusy);
	for (uint32_t i = 0; i < ndraws; i++) {
		int64_t r = fdmap_alloc_random(m, 5);

		REQUIRE(r >= nbusy && r < m->range,
			"draw %u gave %lld, range %u", i, (long long)r,
			m->range);
		if (i == 0)
			range = m->range;
		/* live is constant here, so the range must be too. */
		REQUIRE(m->range == range, "range moved from %u to %u", range,
			m->range);
		REQUIRE(fdmap_release(m, (uint32_t)r) == 5, "release(%lld)",
			(long long)r);
		/* 64 equal buckets; a remainder past them is left out. */
		width = (range - nbusy) / 64;
		if ((uint32_t)r - nbusy < 64 * width) {
			counts[((uint32_t)r - nbusy) / width]++;
			counted++;
		}
	}
	ck_assert_uint_ge(range - nbusy, min_choice(nbusy));
	ck_assert_uint_gt(counted, ndraws / 2);
	stat = chi_square(counts, 64, (double)counted / 64);
	ck_assert_msg(stat < CHI2_63_P001,
		      "chi-square over 64 buckets %.2f >= %.3f", stat,
		      CHI2_63_P001);
	map_free(m);
}
END_TEST

/*
 * Which segments are mapped does not change the choice: a draw that lands
 * on a free slot of a segment not mapped yet is taken like any other (to
 * drop it would make such slots less likely than the others).  Two maps
 * with the same seed and the same busy slots, one with segments 1 to 7
 * mapped already, make the same draws.
 */
START_TEST(test_random_unmapped_same)
{
	struct fdmap *a = map_new(FDMAP_SPACE, 0x3a9);
	struct fdmap *b = map_new(FDMAP_SPACE, 0x3a9);
	uint32_t beyond = 0;

	for (uint32_t s = 1; s < 8; s++) {
		ck_assert_int_eq(fdmap_alloc_exact(a, s * SEG, 1), s * SEG);
		ck_assert_uint_eq(fdmap_release(a, s * SEG), 1);
	}
	ck_assert_ptr_null(b->seg[1]);
	/* Segment 0 nearly full: most draws land in segments 1 to 4. */
	fill_exact(a, 0, 60000);
	fill_exact(b, 0, 60000);
	for (uint32_t i = 0; i < 200; i++) {
		int64_t ra = fdmap_alloc_random(a, 2);
		int64_t rb = fdmap_alloc_random(b, 2);

		REQUIRE(ra >= 0 && ra == rb,
			"draw %u: %lld with the segments mapped, %lld without",
			i, (long long)ra, (long long)rb);
		beyond += ra >= SEG;
	}
	ck_assert_uint_gt(beyond, 150);
	ck_assert_ptr_nonnull(b->seg[1]);
	map_free(a);
	map_free(b);
}
END_TEST

/* n draws from a fresh map seeded with seed, without release. */
static void draw_seq(uint64_t seed, int64_t *out, uint32_t n)
{
	struct fdmap *m = map_new(FDMAP_SPACE, seed);

	for (uint32_t i = 0; i < n; i++) {
		out[i] = fdmap_alloc_random(m, i + 1);
		REQUIRE(out[i] >= 0, "draw %u failed", i);
	}
	map_free(m);
}

/* fdmap_seed_later's seed function: counts its calls, returns 5. */
static int later_calls;

static uint64_t seed_five(void)
{
	later_calls++;
	return 5;
}

/*
 * fdmap_seed_later seeds at the next random allocation, once: a fresh map
 * then draws seed 5's sequence; a map in use (live descriptors, widened
 * range) draws what a map in the same state reseeded with 5 draws, and
 * keeps a range that leaves 4 free slots per live one.  Allocations that
 * do not draw (exact) do not seed.
 */
START_TEST(test_random_seed_later)
{
	enum { N = 300, LIVE = 5000 };
	struct fdmap *m1 = map_new(FDMAP_SPACE, 1), *m2 = map_new(FDMAP_SPACE, 5);

	later_calls = 0;
	fdmap_seed_later(m1, seed_five);
	ck_assert_int_eq(fdmap_alloc_exact(m1, 7, 1), 7);
	ck_assert_int_eq(fdmap_alloc_exact(m2, 7, 1), 7);
	ck_assert_int_eq(later_calls, 0);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_int_eq(fdmap_alloc_random(m1, 1), fdmap_alloc_random(m2, 1));
	ck_assert_int_eq(later_calls, 1);
	map_free(m1);
	map_free(m2);

	m1 = map_new(FDMAP_SPACE, 1);
	m2 = map_new(FDMAP_SPACE, 1);
	for (uint32_t i = 0; i < LIVE; i++)
		ck_assert_int_eq(fdmap_alloc_random(m1, 1), fdmap_alloc_random(m2, 1));
	later_calls = 0;
	fdmap_seed_later(m1, seed_five);
	fdmap_reseed(m2, 5);
	for (uint32_t i = 0; i < N; i++)
		ck_assert_int_eq(fdmap_alloc_random(m1, 1), fdmap_alloc_random(m2, 1));
	ck_assert_int_eq(later_calls, 1);
	ck_assert_uint_eq(m1->range, m2->range);
	ck_assert_uint_ge(m1->range - m1->live, 4U * m1->live);
	map_free(m1);
	map_free(m2);
}
END_TEST

START_TEST(test_random_seeds)
{
	enum { N = 2000 };
	int64_t *a = calloc(N, sizeof(*a)), *b = calloc(N, sizeof(*b));
	int64_t *c = calloc(N, sizeof(*c)), *d = calloc(N, sizeof(*d));
	struct fdmap *m1, *m2;
	uint32_t equal = 0;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(d);
	draw_seq(1, a, N);
	draw_seq(1, b, N);
	draw_seq(2, c, N);
	ck_assert_msg(memcmp(a, b, N * sizeof(*a)) == 0,
		      "same seed, different sequences");
	for (uint32_t i = 0; i < N; i++)
		equal += a[i] == c[i];
	ck_assert_msg(equal < N / 20, "seeds 1 and 2 agree on %u of %u draws",
		      equal, N);

	/* Reseeding a fresh map with seed 1 replays seed 1's sequence. */
	m1 = map_new(FDMAP_SPACE, 2);
	fdmap_reseed(m1, 1);
	for (uint32_t i = 0; i < N; i++)
		d[i] = fdmap_alloc_random(m1, i + 1);
	ck_assert_msg(memcmp(a, d, N * sizeof(*a)) == 0,
		      "reseed(1) does not replay seed 1");
	map_free(m1);

	/* Two maps in the same state draw apart once one is reseeded. */
	m1 = map_new(FDMAP_SPACE, 7);
	m2 = map_new(FDMAP_SPACE, 7);
	for (uint32_t i = 0; i < 10; i++)
		ck_assert_int_eq(fdmap_alloc_random(m1, 1),
				 fdmap_alloc_random(m2, 1));
	fdmap_reseed(m2, 8);
	equal = 0;
	for (uint32_t i = 0; i < 200; i++) {
		int64_t r1 = fdmap_alloc_random(m1, 1);
		int64_t r2 = fdmap_alloc_random(m2, 1);

		ck_assert_int_ge(r1, 0);
		ck_assert_int_ge(r2, 0);
		equal += r1 == r2;
		fdmap_release(m1, (uint32_t)r1);
		fdmap_release(m2, (uint32_t)r2);
	}
	ck_assert_msg(equal < 20, "reseeded map agrees on %u of 200 draws",
		      equal);
	map_free(m1);
	map_free(m2);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

/* ---- growth policy ---- */

START_TEST(test_growth_policy)
{
	const uint32_t k = 10000, bound = 1U << 20;
	struct fdmap *m = map_new(FDMAP_SPACE, 0xabc);
	uint8_t *seen = calloc(bound, 1);
	uint32_t maxr = 0, above_k = 0, prev_range = 0;

	ck_assert_ptr_nonnull(seen);
	for (uint32_t i = 0; i < k; i++) {
		uint64_t before = m->live, want = before + min_choice(before);
		int64_t r = fdmap_alloc_random(m, i + 1);

		REQUIRE(r >= 0 && r < m->range,
			"alloc #%u gave %lld, range %u", i, (long long)r,
			m->range);
		REQUIRE(m->range <= m->limit, "range %u > limit", m->range);
		/* The draw saw `before` live: the range kept enough free. */
		REQUIRE(m->range >= want,
			"with %llu live the range is %u < %llu",
			(unsigned long long)before, m->range,
			(unsigned long long)want);
		/* ... and did not grow far beyond what is needed. */
		REQUIRE(m->range <= 2 * want + 64,
			"with %llu live the range is %u, over 2 x %llu",
			(unsigned long long)before, m->range,
			(unsigned long long)want);
		REQUIRE(m->range >= prev_range, "range shrank");
		prev_range = m->range;
		REQUIRE(r < bound && !seen[r], "slot %lld handed out twice",
			(long long)r);
		seen[r] = 1;
		if (r > maxr)
			maxr = (uint32_t)r;
		above_k += r >= k;
	}
	ck_assert_uint_eq(m->live, k);
	ck_assert_msg(maxr > 2 * k, "max index %u <= 2k: clustered", maxr);
	ck_assert_msg(above_k > k / 2, "only %u of %u draws above %u", above_k,
		      k, k);
	free(seen);
	map_free(m);
}
END_TEST

/* With a limit that caps the range: the whole limit ends up drawable. */
START_TEST(test_growth_capped)
{
	const uint32_t limit = 20000;
	struct fdmap *m = map_new(limit, 0xcab);

	for (uint32_t i = 0; i < limit; i++) {
		uint64_t before = m->live, want = min_choice(before);
		int64_t r = fdmap_alloc_random(m, 1);

		if (want > limit - before)
			want = limit - before;
		REQUIRE(r >= 0 && r < m->range, "alloc #%u gave %lld", i,
			(long long)r);
		REQUIRE(m->range <= limit, "range %u > limit", m->range);
		REQUIRE(m->range - before >= want,
			"with %llu live the range is %u",
			(unsigned long long)before, m->range);
	}
	ck_assert_uint_eq(m->range, limit);
	ck_assert_uint_eq(m->live, limit);
	ck_assert_int_eq(fdmap_alloc_random(m, 1), -EMFILE);
	map_free(m);
}
END_TEST

/*
 * The range must be wide enough for the live count a draw sees however
 * live got there: random allocation widens only when live reaches a
 * threshold, and exact allocations (and put) make live jump past it in
 * steps of many slots, or releases take it back below.
 */
START_TEST(test_growth_jumps)
{
	const uint32_t cap = 1U << 20, nops = 30000;
	struct fdmap *m = map_new(FDMAP_SPACE, 0x10b5);
	uint32_t *busy = calloc(cap, sizeof(*busy)), nbusy = 0, nrand = 0;
	uint64_t rs = 0x9a9;

	ck_assert_ptr_nonnull(busy);
	for (uint32_t op = 0; op < nops; op++) {
		uint32_t q = tr_below(&rs, 100);

		if (q < 50) {
			uint64_t before = m->live, want = before + min_choice(before);
			int64_t r = fdmap_alloc_random(m, 7);

			REQUIRE(r >= 0 && r < m->range, "op %u: random gave %lld",
				op, (long long)r);
			REQUIRE(m->range >= want,
				"op %u: with %llu live the range is %u < %llu",
				op, (unsigned long long)before, m->range,
				(unsigned long long)want);
			busy[nbusy++] = (uint32_t)r;
			nrand++;
		} else if (q < 60) {
			/* A run of up to 100 slots in or near the range, exact
			 * or put, less what is busy in it already. */
			uint32_t at = tr_below(&rs, m->range + FDMAP_MIN_CHOICE);
			uint32_t n = 1 + tr_below(&rs, 100);

			for (uint32_t i = at; i < at + n; i++) {
				if (fdmap_get(m, i))
					continue;
				if (q < 55)
					REQUIRE(fdmap_alloc_exact(m, i, 9) == i,
						"op %u: exact(%u)", op, i);
				else
					REQUIRE(fdmap_put(m, i, 9) == 0,
						"op %u: put(%u)", op, i);
				busy[nbusy++] = i;
			}
		} else if (nbusy) {
			/* Release a few, so live also goes down. */
			for (uint32_t k = 1 + tr_below(&rs, 8); k && nbusy; k--) {
				uint32_t j = tr_below(&rs, nbusy);

				REQUIRE(fdmap_release(m, busy[j]) != 0,
					"op %u: release(%u) found it free", op,
					busy[j]);
				busy[j] = busy[--nbusy];
			}
		}
		REQUIRE(m->live == nbusy, "op %u: live %u, expected %u", op,
			m->live, nbusy);
		REQUIRE(nbusy < cap - 100, "op %u: %u live, more than the test holds",
			op, nbusy);
	}
	/* The test went where it means to: past several widenings. */
	ck_assert_uint_gt(nrand, nops / 3);
	ck_assert_uint_gt(m->range, 8 * FDMAP_MIN_CHOICE);
	free(busy);
	map_free(m);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *alloc_from_case(void)
{
	TCase *tc = tcase_create("alloc_from");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_from_cross_segment);
	tcase_add_test(tc, test_from_full_seg_skip);
	tcase_add_test(tc, test_from_many_full_segs);
	tcase_add_test(tc, test_from_end_of_space);
	tcase_add_test(tc, test_from_partial_last_segment);
	return tc;
}

TCase *randomness_case(void)
{
	TCase *tc = tcase_create("randomness");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_uniform);
	tcase_add_test(tc, test_random_uniform_free);
	tcase_add_test(tc, test_random_seeds);
	tcase_add_test(tc, test_random_seed_later);
	tcase_add_test(tc, test_random_unmapped_same);
	return tc;
}

TCase *growth_case(void)
{
	TCase *tc = tcase_create("growth");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_growth_policy);
	tcase_add_test(tc, test_growth_capped);
	tcase_add_test(tc, test_growth_jumps);
	return tc;
}
