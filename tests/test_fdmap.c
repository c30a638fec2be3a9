/* SPDX-License-Identifier: MIT */
/*
 * test_fdmap.c - unit tests of the descriptor map (src/fdmap.c).
 *
 * Description:
 *   Tests the contract of fdmap.h on the data structure alone, with Check
 *   (fork mode, one suite):
 *   - ops:        every operation's return values and effects: init limits,
 *                 alloc_random/exact/from (including value 0), release,
 *                 replace, get and the next_busy iteration;
 *   - exhaustion: small limits filled by random allocation then -EMFILE,
 *                 -EBUSY and -ERANGE, and a freed slot found again;
 *   - from:       alloc_from returns the lowest free slot >= n, across
 *                 segment boundaries, over full segments (and 64 of them),
 *                 and at the very end of the space;
 *   - random:     uniformity (chi-square) and non-sequential draws with a
 *                 fixed seed, same seed same sequence, other seed other one;
 *   - growth:     the drawing range keeps max(4096, 4k) free slots for k
 *                 live, and the values chosen spread over it;
 *   - concurrent: one writer mutating (and mapping new segments) while two
 *                 readers call fdmap_get and must never see garbage;
 *   - model:      a long random sequence of operations checked against a
 *                 plain array model;
 *   - destroy:    fdmap_destroy unmaps the segments and a re-initialised map
 *                 is all free.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fdmap.h"

#define SEG FDMAP_SEG_SLOTS

/*
 * Check's assertions record their location on every call, which costs a
 * write per assertion; inside loops of many iterations only fail.
 */
#define REQUIRE(cond, ...)                          \
	do {                                        \
		if (!(cond))                        \
			ck_abort_msg(__VA_ARGS__);  \
	} while (0)

/* ---- helpers ---- */

/* The test's own random numbers (splitmix64), independent of the map's. */
static uint64_t tr_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Roughly uniform in [0, n), n > 0. */
static uint32_t tr_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((tr_next(s) >> 32) * n) >> 32);
}

static struct fdmap *map_new(uint32_t limit, uint64_t seed)
{
	struct fdmap *m = calloc(1, sizeof(*m));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(fdmap_init(m, limit, seed), 0);
	return m;
}

static void map_free(struct fdmap *m)
{
	fdmap_destroy(m);
	free(m);
}

/* Two distinct non-zero values per slot (idx < 2^30): odd and even. */
static uint32_t val_f(uint32_t idx)
{
	return idx * 2U + 1U;
}

static uint32_t val_g(uint32_t idx)
{
	return idx * 2U + 2U;
}

/* Free slots the drawing range must offer with k live: max(4096, 4k). */
static uint64_t min_choice(uint64_t k)
{
	return 4 * k > FDMAP_MIN_CHOICE ? 4 * k : FDMAP_MIN_CHOICE;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Assert that fdmap_next_busy from 0 visits exactly want[0..n), sorted. */
static void check_busy_set(const struct fdmap *m, const uint32_t *want,
			   uint32_t n)
{
	uint32_t seen = 0;

	for (int64_t i = fdmap_next_busy(m, 0); i >= 0;
	     i = fdmap_next_busy(m, (uint32_t)i + 1)) {
		REQUIRE(seen < n, "next_busy found extra busy slot %lld",
			(long long)i);
		REQUIRE(i == want[seen],
			"next_busy found %lld, expected %u (busy #%u)",
			(long long)i, want[seen], seen);
		REQUIRE(fdmap_get(m, (uint32_t)i) != 0,
			"next_busy found %lld but it reads as free",
			(long long)i);
		seen++;
	}
	ck_assert_uint_eq(seen, n);
	ck_assert_uint_eq(m->live, n);
}

/* ---- 1. every operation ---- */

START_TEST(test_init_limits)
{
	struct fdmap *m = calloc(1, sizeof(*m));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(fdmap_init(m, 0, 1), -EINVAL);
	ck_assert_int_eq(fdmap_init(m, FDMAP_SPACE + 1, 1), -EINVAL);
	ck_assert_int_eq(fdmap_init(m, UINT32_MAX, 1), -EINVAL);

	/* The smallest map: exactly one slot. */
	ck_assert_int_eq(fdmap_init(m, 1, 1), 0);
	ck_assert_uint_eq(m->limit, 1);
	ck_assert_uint_eq(m->live, 0);
	ck_assert_int_eq(fdmap_next_busy(m, 0), -1);
	ck_assert_int_eq(fdmap_alloc_random(m, 5), 0);
	ck_assert_uint_eq(fdmap_get(m, 0), 5);
	ck_assert_int_eq(fdmap_alloc_random(m, 5), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_exact(m, 1, 5), -ERANGE);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 5), -EMFILE);
	fdmap_destroy(m);

	/* The largest: the whole space, all free, last slot usable. */
	ck_assert_int_eq(fdmap_init(m, FDMAP_SPACE, 1), 0);
	ck_assert_uint_eq(m->limit, FDMAP_SPACE);
	ck_assert_uint_eq(m->live, 0);
	ck_assert_uint_eq(fdmap_get(m, 0), 0);
	ck_assert_uint_eq(fdmap_get(m, FDMAP_SPACE - 1), 0);
	ck_assert_int_eq(fdmap_next_busy(m, 0), -1);
	ck_assert_int_eq(fdmap_alloc_exact(m, FDMAP_SPACE - 1, 9),
			 FDMAP_SPACE - 1);
	ck_assert_int_eq(fdmap_alloc_exact(m, FDMAP_SPACE, 9), -ERANGE);
	ck_assert_uint_eq(fdmap_get(m, FDMAP_SPACE - 1), 9);
	ck_assert_int_eq(fdmap_next_busy(m, 0), FDMAP_SPACE - 1);
	map_free(m);
}
END_TEST

START_TEST(test_alloc_values)
{
	const uint32_t limit = 1U << 20;
	struct fdmap *m = map_new(limit, 42);
	uint32_t ridx[100], rval[100];

	/* Value 0 is refused by every allocation, which changes nothing. */
	ck_assert_int_eq(fdmap_alloc_random(m, 0), -EINVAL);
	ck_assert_int_eq(fdmap_alloc_exact(m, 10, 0), -EINVAL);
	ck_assert_int_eq(fdmap_alloc_from(m, 10, 0), -EINVAL);
	ck_assert_uint_eq(m->live, 0);
	ck_assert_uint_eq(fdmap_get(m, 10), 0);
	ck_assert_int_eq(fdmap_next_busy(m, 0), -1);

	/* exact */
	ck_assert_int_eq(fdmap_alloc_exact(m, 100, 0xdeadbeef), 100);
	ck_assert_uint_eq(fdmap_get(m, 100), 0xdeadbeef);
	ck_assert_uint_eq(m->live, 1);
	ck_assert_int_eq(fdmap_alloc_exact(m, 100, 7), -EBUSY);
	ck_assert_uint_eq(fdmap_get(m, 100), 0xdeadbeef);
	ck_assert_int_eq(fdmap_alloc_exact(m, 100, 0), -EINVAL);
	ck_assert_uint_eq(m->live, 1);

	/* from: the lowest free slot >= n */
	ck_assert_int_eq(fdmap_alloc_from(m, 100, 11), 101);
	ck_assert_uint_eq(fdmap_get(m, 101), 11);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 12), 0);
	ck_assert_uint_eq(fdmap_get(m, 0), 12);
	ck_assert_int_eq(fdmap_alloc_from(m, 99, 13), 99);
	ck_assert_int_eq(fdmap_alloc_from(m, 99, 14), 102);
	ck_assert_uint_eq(fdmap_get(m, 99), 13);
	ck_assert_uint_eq(fdmap_get(m, 102), 14);
	ck_assert_uint_eq(m->live, 5);

	/* Another segment, and the largest value. */
	ck_assert_int_eq(fdmap_alloc_exact(m, SEG + 5, UINT32_MAX), SEG + 5);
	ck_assert_uint_eq(fdmap_get(m, SEG + 5), UINT32_MAX);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG, 15), SEG);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG, 16), SEG + 1);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG + 4, 17), SEG + 4);
	ck_assert_int_eq(fdmap_alloc_from(m, SEG + 4, 18), SEG + 6);
	ck_assert_uint_eq(m->live, 10);

	/* random: a free slot below limit, holding the value given */
	for (uint32_t i = 0; i < 100; i++) {
		int64_t r = fdmap_alloc_random(m, 1000 + i);

		REQUIRE(r >= 0 && r < limit, "alloc_random gave %lld",
			(long long)r);
		REQUIRE(r < m->range, "alloc_random gave %lld >= range %u",
			(long long)r, m->range);
		ridx[i] = (uint32_t)r;
		rval[i] = 1000 + i;
		REQUIRE(fdmap_get(m, ridx[i]) == rval[i],
			"slot %u holds %u, expected %u", ridx[i],
			fdmap_get(m, ridx[i]), rval[i]);
	}
	ck_assert_uint_eq(m->live, 110);
	/* None of them overwrote a slot that was busy. */
	for (uint32_t i = 0; i < 100; i++)
		REQUIRE(fdmap_get(m, ridx[i]) == rval[i],
			"slot %u handed out twice", ridx[i]);
	ck_assert_uint_eq(fdmap_get(m, 100), 0xdeadbeef);
	ck_assert_uint_eq(fdmap_get(m, 0), 12);
	ck_assert_uint_eq(fdmap_get(m, SEG + 5), UINT32_MAX);
	map_free(m);
}
END_TEST

START_TEST(test_release)
{
	struct fdmap *m = map_new(1000, 1);
	int64_t r;

	ck_assert_int_eq(fdmap_alloc_exact(m, 10, 77), 10);
	r = fdmap_alloc_random(m, 88);
	ck_assert_int_ge(r, 0);
	ck_assert_int_lt(r, 1000);
	ck_assert_int_ne(r, 10);
	ck_assert_uint_eq(m->live, 2);

	ck_assert_uint_eq(fdmap_release(m, 10), 77);
	ck_assert_uint_eq(fdmap_get(m, 10), 0);
	ck_assert_uint_eq(m->live, 1);
	/* Releasing a free slot returns 0 and changes nothing. */
	ck_assert_uint_eq(fdmap_release(m, 10), 0);
	ck_assert_uint_eq(m->live, 1);
	ck_assert_uint_eq(fdmap_get(m, (uint32_t)r), 88);

	ck_assert_uint_eq(fdmap_release(m, (uint32_t)r), 88);
	ck_assert_uint_eq(fdmap_get(m, (uint32_t)r), 0);
	ck_assert_uint_eq(m->live, 0);
	ck_assert_int_eq(fdmap_next_busy(m, 0), -1);

	/* Never used, at and beyond the limit, in unmapped segments. */
	ck_assert_uint_eq(fdmap_release(m, 500), 0);
	ck_assert_uint_eq(fdmap_release(m, 1000), 0);
	ck_assert_uint_eq(fdmap_release(m, FDMAP_SPACE - 1), 0);
	ck_assert_uint_eq(m->live, 0);

	/* A released slot can be allocated again. */
	ck_assert_int_eq(fdmap_alloc_exact(m, 10, 5), 10);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 6), 0);
	ck_assert_int_eq(fdmap_next_busy(m, 1), 10);
	ck_assert_uint_eq(fdmap_release(m, 0), 6);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 7), 0);
	ck_assert_uint_eq(fdmap_get(m, 0), 7);
	ck_assert_uint_eq(m->live, 2);
	map_free(m);
}
END_TEST

START_TEST(test_replace)
{
	struct fdmap *m = map_new(1000, 2);

	ck_assert_int_eq(fdmap_alloc_exact(m, 7, 70), 7);
	ck_assert_uint_eq(fdmap_replace(m, 7, 71), 70);
	ck_assert_uint_eq(fdmap_get(m, 7), 71);
	ck_assert_uint_eq(fdmap_replace(m, 7, 72), 71);
	ck_assert_uint_eq(fdmap_get(m, 7), 72);
	ck_assert_uint_eq(m->live, 1);

	/* A free slot is left free. */
	ck_assert_uint_eq(fdmap_replace(m, 8, 80), 0);
	ck_assert_uint_eq(fdmap_get(m, 8), 0);
	ck_assert_uint_eq(m->live, 1);
	ck_assert_int_eq(fdmap_next_busy(m, 8), -1);
	ck_assert_uint_eq(fdmap_replace(m, 5000, 80), 0);
	ck_assert_uint_eq(fdmap_replace(m, 900, 80), 0);
	ck_assert_uint_eq(fdmap_get(m, 900), 0);
	ck_assert_uint_eq(m->live, 1);
	ck_assert_int_eq(fdmap_alloc_exact(m, 8, 81), 8);
	ck_assert_uint_eq(fdmap_get(m, 8), 81);

	/* A busy slot never reads as 0, even when asked to store 0. */
	fdmap_replace(m, 7, 0);
	ck_assert_uint_eq(fdmap_get(m, 7), 72);
	ck_assert_uint_eq(m->live, 2);

	/* Release sees the replaced value; replace after release is a no-op. */
	ck_assert_uint_eq(fdmap_release(m, 7), 72);
	ck_assert_uint_eq(fdmap_replace(m, 7, 1), 0);
	ck_assert_uint_eq(fdmap_get(m, 7), 0);
	ck_assert_uint_eq(m->live, 1);
	map_free(m);
}
END_TEST

START_TEST(test_next_busy)
{
	static const uint32_t fixed[] = {
		0, 1, 63, 64, 65, 4095, 4096, 4097, SEG - 1, SEG, SEG + 1,
		5 * SEG + 123, 100 * SEG, (FDMAP_NSEGS - 1) * SEG,
		FDMAP_SPACE - 2, FDMAP_SPACE - 1,
	};
	const uint32_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	struct fdmap *m = map_new(FDMAP_SPACE, 3);
	uint32_t *want = calloc(nfixed + 300, sizeof(*want));
	uint32_t n = 0, kept = 0;
	uint64_t rs = 0x1234;

	ck_assert_ptr_nonnull(want);
	for (uint32_t i = 0; i < nfixed; i++) {
		uint32_t idx = fixed[i];

		ck_assert_int_eq(fdmap_alloc_exact(m, idx, val_f(idx)), idx);
		want[n++] = fixed[i];
	}
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t idx = tr_below(&rs, 3 * SEG);
		int64_t r = fdmap_alloc_exact(m, idx, val_f(idx));

		if (r == -EBUSY)
			continue;
		ck_assert_int_eq(r, idx);
		want[n++] = idx;
	}
	for (uint32_t i = 0; i < 100; i++) {
		int64_t r = fdmap_alloc_random(m, 1);

		ck_assert_int_ge(r, 0);
		ck_assert_uint_eq(fdmap_replace(m, (uint32_t)r,
						val_f((uint32_t)r)), 1);
		want[n++] = (uint32_t)r;
	}
	qsort(want, n, sizeof(*want), cmp_u32);
	check_busy_set(m, want, n);

	/* From every busy slot and from just past it. */
	for (uint32_t i = 0; i < n; i++) {
		int64_t next = i + 1 < n ? (int64_t)want[i + 1] : -1;

		REQUIRE(fdmap_next_busy(m, want[i]) == want[i],
			"next_busy(%u) != itself", want[i]);
		REQUIRE(fdmap_next_busy(m, want[i] + 1) == next,
			"next_busy(%u + 1) = %lld, expected %lld", want[i],
			(long long)fdmap_next_busy(m, want[i] + 1),
			(long long)next);
	}
	ck_assert_int_eq(fdmap_next_busy(m, FDMAP_SPACE), -1);

	/* Release every other one: the iteration follows. */
	for (uint32_t i = 0; i < n; i++) {
		if (i & 1)
			ck_assert_uint_eq(fdmap_release(m, want[i]),
					  val_f(want[i]));
		else
			want[kept++] = want[i];
	}
	check_busy_set(m, want, kept);
	for (uint32_t i = 0; i < kept; i++)
		ck_assert_uint_eq(fdmap_release(m, want[i]), val_f(want[i]));
	check_busy_set(m, want, 0);
	free(want);
	map_free(m);
}
END_TEST

/* ---- 2. exhaustion ---- */

static const uint32_t exhaust_limits[] = { 1, 100, 4097, 70000 };

START_TEST(test_exhaust_random)
{
	const uint32_t limit = exhaust_limits[_i];
	struct fdmap *m = map_new(limit, 1000 + (uint64_t)_i);
	uint32_t *val = calloc(limit, sizeof(*val));
	uint64_t rs = 77 + (uint64_t)_i;

	ck_assert_ptr_nonnull(val);
	for (uint32_t i = 0; i < limit; i++) {
		uint32_t v = i + 1;
		int64_t r = fdmap_alloc_random(m, v);

		REQUIRE(r >= 0 && r < limit, "alloc #%u of %u gave %lld", i,
			limit, (long long)r);
		REQUIRE(val[r] == 0, "slot %lld handed out twice",
			(long long)r);
		val[r] = v;
		REQUIRE(fdmap_get(m, (uint32_t)r) == v, "slot %lld lost value",
			(long long)r);
	}
	ck_assert_uint_eq(m->live, limit);
	ck_assert_int_eq(fdmap_alloc_random(m, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, limit - 1, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, limit, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_exact(m, tr_below(&rs, limit), 1), -EBUSY);
	ck_assert_int_eq(fdmap_alloc_exact(m, limit, 1), -ERANGE);
	ck_assert_int_eq(fdmap_alloc_exact(m, UINT32_MAX, 1), -ERANGE);
	ck_assert_uint_eq(m->live, limit);
	for (uint32_t i = 0; i < limit; i++)
		REQUIRE(fdmap_get(m, i) == val[i], "slot %u changed", i);

	/* One slot free: random allocation must find exactly that one. */
	for (int round = 0; round < 40; round++) {
		uint32_t j = tr_below(&rs, limit);

		ck_assert_uint_eq(fdmap_release(m, j), val[j]);
		ck_assert_uint_eq(fdmap_get(m, j), 0);
		ck_assert_uint_eq(m->live, limit - 1);
		ck_assert_int_eq(fdmap_alloc_random(m, val[j]), j);
		ck_assert_uint_eq(fdmap_get(m, j), val[j]);
		ck_assert_int_eq(fdmap_alloc_random(m, 1), -EMFILE);
	}

	/* And alloc_from, from 0 or from the slot itself. */
	{
		uint32_t j = tr_below(&rs, limit);

		ck_assert_uint_eq(fdmap_release(m, j), val[j]);
		ck_assert_int_eq(fdmap_alloc_from(m, j + 1, 3), -EMFILE);
		ck_assert_int_eq(fdmap_alloc_from(m, 0, val[j]), j);
		ck_assert_uint_eq(fdmap_release(m, j), val[j]);
		ck_assert_int_eq(fdmap_alloc_from(m, j, val[j]), j);
		ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), -EMFILE);
	}

	/* Two slots free: alloc_from takes the lower, random the other. */
	if (limit >= 2) {
		uint32_t a = tr_below(&rs, limit), b;

		do
			b = tr_below(&rs, limit);
		while (b == a);
		if (a > b) {
			uint32_t t = a;

			a = b;
			b = t;
		}
		ck_assert_uint_eq(fdmap_release(m, a), val[a]);
		ck_assert_uint_eq(fdmap_release(m, b), val[b]);
		ck_assert_int_eq(fdmap_alloc_from(m, 0, val[a]), a);
		ck_assert_int_eq(fdmap_alloc_random(m, val[b]), b);
		ck_assert_int_eq(fdmap_alloc_random(m, 1), -EMFILE);
	}
	ck_assert_uint_eq(m->live, limit);
	free(val);
	map_free(m);
}
END_TEST

START_TEST(test_exhaust_exact_from)
{
	const uint32_t limit = 1000;
	struct fdmap *m = map_new(limit, 9);
	int64_t prev = -1, r;
	uint32_t live;

	for (uint32_t i = 500; i < limit; i++)
		ck_assert_int_eq(fdmap_alloc_exact(m, i, val_f(i)), i);
	ck_assert_uint_eq(m->live, 500);
	ck_assert_int_eq(fdmap_alloc_from(m, 500, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, 999, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, limit, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_from(m, 123456, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_exact(m, 500, 1), -EBUSY);
	ck_assert_int_eq(fdmap_alloc_exact(m, 999, 1), -EBUSY);
	ck_assert_int_eq(fdmap_alloc_exact(m, limit, 1), -ERANGE);
	ck_assert_uint_eq(m->live, 500);
	ck_assert_uint_eq(fdmap_get(m, 999), val_f(999));

	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), 0);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), 1);

	/* Random allocation only finds the free ones, all below 500. */
	for (int i = 0; i < 100; i++) {
		r = fdmap_alloc_random(m, 2);
		REQUIRE(r >= 2 && r < 500, "alloc_random gave %lld",
			(long long)r);
	}
	live = m->live;
	ck_assert_uint_eq(live, 602);

	/* alloc_from(0) fills the rest in increasing order. */
	for (uint32_t i = 0; i < limit - live; i++) {
		r = fdmap_alloc_from(m, 0, 3);
		REQUIRE(r > prev && r < 500,
			"alloc_from(0) gave %lld after %lld", (long long)r,
			(long long)prev);
		prev = r;
	}
	ck_assert_uint_eq(m->live, limit);
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), -EMFILE);
	ck_assert_int_eq(fdmap_alloc_random(m, 1), -EMFILE);
	map_free(m);
}
END_TEST

/* ---- 3. alloc_from across segments ---- */

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

/* ---- 4. randomness ---- */

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

/* ---- 5. growth policy ---- */

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

/* ---- 6. growth while other threads look up ---- */

#define CC_NSEGS   8			/* segments the writer spreads over */
#define CC_HOT     4096			/* hot slots at each segment's start */
#define CC_NOPS    200000
#define CC_MAXHELD 16000
#define CC_NPIN    64
#define CC_PIN0    40000		/* pinned slots in segment 0 */
#define CC_READERS 2
#define CC_TAG     0xfffffff0U		/* a random slot before it gets val_f */

struct cc_shared {
	struct fdmap *m;
	uint32_t pinned[CC_NPIN];
	uint32_t *held;
	uint32_t nheld;
	atomic_int ready;
	atomic_int done;
	/* written by the writer, read after join */
	unsigned long wr_errors;
	char wr_msg[200];
};

struct cc_reader {
	struct cc_shared *c;
	uint64_t seed;
	unsigned long reads, nonzero, bad, pinned_zero;
	uint32_t bad_idx, bad_val;
};

static void cc_error(struct cc_shared *c, const char *what, uint32_t idx,
		     long long got, long long want)
{
	if (!c->wr_errors++)
		snprintf(c->wr_msg, sizeof(c->wr_msg),
			 "writer: %s at %u: got %lld, expected %lld", what,
			 idx, got, want);
}

static void cc_hold(struct cc_shared *c, uint32_t idx)
{
	c->held[c->nheld++] = idx;
}

static void *cc_writer(void *arg)
{
	struct cc_shared *c = arg;
	struct fdmap *m = c->m;
	uint64_t rs = 0x3141;

	while (atomic_load(&c->ready) < CC_READERS)
		;
	for (uint32_t op = 0; op < CC_NOPS; op++) {
		/* New segments come into use as the run goes on. */
		uint32_t nseg = 1 + (uint64_t)op * CC_NSEGS / CC_NOPS;
		uint32_t p = tr_below(&rs, 100), idx;
		int64_t r;

		if (c->nheld >= CC_MAXHELD || (p < 35 && c->nheld)) {
			uint32_t j = tr_below(&rs, c->nheld), v;

			idx = c->held[j];
			v = fdmap_release(m, idx);
			if (v != val_f(idx) && v != val_g(idx))
				cc_error(c, "release", idx, v, val_f(idx));
			c->held[j] = c->held[--c->nheld];
		} else if (p < 45) {
			uint32_t cur, old;

			if (p < 40 || !c->nheld)
				idx = c->pinned[tr_below(&rs, CC_NPIN)];
			else
				idx = c->held[tr_below(&rs, c->nheld)];
			cur = fdmap_get(m, idx);
			old = fdmap_replace(m, idx, cur == val_f(idx) ?
							    val_g(idx) :
							    val_f(idx));
			if (old != cur || !cur)
				cc_error(c, "replace", idx, old, cur);
		} else if (p < 75) {
			idx = tr_below(&rs, nseg) * SEG + tr_below(&rs, CC_HOT);
			r = fdmap_alloc_exact(m, idx, val_f(idx));
			if (r == idx)
				cc_hold(c, idx);
			else if (r != -EBUSY || !fdmap_get(m, idx))
				cc_error(c, "alloc_exact", idx, r, idx);
		} else if (p < 88) {
			r = fdmap_alloc_random(m, CC_TAG);
			if (r < 0) {
				cc_error(c, "alloc_random", 0, r, 0);
				continue;
			}
			idx = (uint32_t)r;
			if (fdmap_replace(m, idx, val_f(idx)) != CC_TAG)
				cc_error(c, "replace after random", idx, 0,
					 CC_TAG);
			cc_hold(c, idx);
		} else {
			uint32_t n = tr_below(&rs, nseg) * SEG +
				     tr_below(&rs, CC_HOT);

			/* The writer knows where alloc_from will land. */
			idx = n;
			while (fdmap_get(m, idx))
				idx++;
			r = fdmap_alloc_from(m, n, val_f(idx));
			if (r != idx)
				cc_error(c, "alloc_from", n, r, idx);
			else
				cc_hold(c, idx);
		}
	}
	atomic_store(&c->done, 1);
	return NULL;
}

static void *cc_reader_main(void *arg)
{
	struct cc_reader *rd = arg;
	const struct fdmap *m = rd->c->m;
	uint64_t rs = rd->seed;

	atomic_fetch_add(&rd->c->ready, 1);
	do {
		uint32_t p = tr_below(&rs, 8), idx, v;
		int pinned = 0;

		if (p < 2) {
			idx = rd->c->pinned[tr_below(&rs, CC_NPIN)];
			pinned = 1;
		} else if (p < 6) {
			idx = tr_below(&rs, CC_NSEGS) * SEG +
			      tr_below(&rs, CC_HOT);
		} else {
			idx = tr_below(&rs, CC_NSEGS * SEG);
		}
		v = fdmap_get(m, idx);
		rd->reads++;
		if (!v) {
			rd->pinned_zero += pinned;
			continue;
		}
		rd->nonzero++;
		if (v != val_f(idx) && v != val_g(idx) && v != CC_TAG) {
			if (!rd->bad++) {
				rd->bad_idx = idx;
				rd->bad_val = v;
			}
		}
	} while (!atomic_load(&rd->c->done) || rd->reads < 100000);
	return NULL;
}

START_TEST(test_concurrent_get)
{
	struct cc_shared *c = calloc(1, sizeof(*c));
	struct cc_reader rd[CC_READERS];
	pthread_t wt, rt[CC_READERS];

	ck_assert_ptr_nonnull(c);
	c->m = map_new(CC_NSEGS * SEG, 0x77);
	c->held = calloc(CC_MAXHELD + 1, sizeof(*c->held));
	ck_assert_ptr_nonnull(c->held);
	atomic_init(&c->ready, 0);
	atomic_init(&c->done, 0);
	for (uint32_t i = 0; i < CC_NPIN; i++) {
		c->pinned[i] = CC_PIN0 + 7 * i;
		ck_assert_int_eq(fdmap_alloc_exact(c->m, c->pinned[i],
						   val_f(c->pinned[i])),
				 c->pinned[i]);
	}
	/* Only segment 0 exists: the others get mapped under the readers. */
	for (uint32_t s = 1; s < CC_NSEGS; s++)
		ck_assert_ptr_null(c->m->seg[s]);

	for (int i = 0; i < CC_READERS; i++) {
		rd[i] = (struct cc_reader){ .c = c, .seed = 1000 + i };
		ck_assert_int_eq(pthread_create(&rt[i], NULL, cc_reader_main,
						&rd[i]), 0);
	}
	ck_assert_int_eq(pthread_create(&wt, NULL, cc_writer, c), 0);
	ck_assert_int_eq(pthread_join(wt, NULL), 0);
	for (int i = 0; i < CC_READERS; i++)
		ck_assert_int_eq(pthread_join(rt[i], NULL), 0);

	ck_assert_msg(c->wr_errors == 0, "%lu writer errors; first: %s",
		      c->wr_errors, c->wr_msg);
	for (int i = 0; i < CC_READERS; i++) {
		ck_assert_msg(rd[i].bad == 0,
			      "reader %d: %lu bad values; first: slot %u read %u", i,
			      rd[i].bad, rd[i].bad_idx, rd[i].bad_val);
		ck_assert_msg(rd[i].pinned_zero == 0,
			      "reader %d: a busy slot read as 0 %lu times", i,
			      rd[i].pinned_zero);
		ck_assert_msg(rd[i].nonzero > 0, "reader %d saw no busy slot",
			      i);
	}
	for (uint32_t s = 0; s < CC_NSEGS; s++)
		ck_assert_ptr_nonnull(c->m->seg[s]);

	/* The final state: exactly the held and pinned slots are busy. */
	ck_assert_uint_eq(c->m->live, c->nheld + CC_NPIN);
	for (uint32_t i = 0; i < c->nheld; i++) {
		uint32_t idx = c->held[i], v = fdmap_get(c->m, idx);

		REQUIRE(v == val_f(idx) || v == val_g(idx),
			"held slot %u holds %u", idx, v);
	}
	for (uint32_t i = 0; i < CC_NPIN; i++) {
		uint32_t idx = c->pinned[i], v = fdmap_get(c->m, idx);

		REQUIRE(v == val_f(idx) || v == val_g(idx),
			"pinned slot %u holds %u", idx, v);
	}
	free(c->held);
	map_free(c->m);
	free(c);
}
END_TEST

/* ---- 7. random operations against a reference model ---- */

struct model {
	uint32_t limit;
	uint32_t count;
	uint32_t *val;	/* 0 = free */
	uint32_t *list; /* busy slots, in no order, for picking one */
	uint32_t *pos;	/* index of a busy slot in list */
};

static void model_set(struct model *mo, uint32_t idx, uint32_t v)
{
	if (!mo->val[idx]) {
		mo->pos[idx] = mo->count;
		mo->list[mo->count++] = idx;
	}
	mo->val[idx] = v;
}

static void model_clear(struct model *mo, uint32_t idx)
{
	uint32_t last;

	if (!mo->val[idx])
		return;
	mo->val[idx] = 0;
	last = mo->list[--mo->count];
	mo->list[mo->pos[idx]] = last;
	mo->pos[last] = mo->pos[idx];
}

/* The model's lowest free slot >= n, or -1. */
static int64_t model_first_free(const struct model *mo, uint32_t n)
{
	for (uint32_t i = n; i < mo->limit; i++)
		if (!mo->val[i])
			return i;
	return -1;
}

/* A random non-zero value; 1 in 100 is 0 when zero_ok. */
static uint32_t model_value(uint64_t *rs, int zero_ok)
{
	uint32_t v = (uint32_t)tr_next(rs);

	if (zero_ok && tr_below(rs, 100) == 0)
		return 0;
	return v ? v : 1;
}

START_TEST(test_model)
{
	const uint32_t limit = 20000, nops = 200000, phase = 25000;
	struct fdmap *m = map_new(limit, 0xdecaf);
	struct model mo = { .limit = limit };
	uint64_t rs = 0xc0ffee;
	uint32_t nemfile = 0, nrand = 0, *busy;

	mo.val = calloc(limit, sizeof(*mo.val));
	mo.list = calloc(limit, sizeof(*mo.list));
	mo.pos = calloc(limit, sizeof(*mo.pos));
	ck_assert_ptr_nonnull(mo.val);
	ck_assert_ptr_nonnull(mo.list);
	ck_assert_ptr_nonnull(mo.pos);

	for (uint32_t op = 0; op < nops; op++) {
		/* Alternate filling phases (to exhaustion) and draining. */
		uint32_t alloc_pct = (op / phase) % 2 ? 30 : 90;
		uint32_t p = tr_below(&rs, 100), q = tr_below(&rs, 100);
		uint32_t idx, v, got32, want32;
		int64_t r, want;

		if (p < alloc_pct && q < 40) {
			v = model_value(&rs, 1);
			r = fdmap_alloc_random(m, v);
			nrand++;
			if (!v) {
				REQUIRE(r == -EINVAL, "op %u: random(0) = %lld",
					op, (long long)r);
			} else if (mo.count == limit) {
				nemfile++;
				REQUIRE(r == -EMFILE,
					"op %u: random on a full map = %lld",
					op, (long long)r);
			} else {
				REQUIRE(r >= 0 && r < limit && !mo.val[r],
					"op %u: random gave %lld, not free", op,
					(long long)r);
				REQUIRE(r < m->range,
					"op %u: random gave %lld >= range %u",
					op, (long long)r, m->range);
				model_set(&mo, (uint32_t)r, v);
			}
		} else if (p < alloc_pct && q < 70) {
			idx = tr_below(&rs, limit + limit / 50);
			v = model_value(&rs, 1);
			r = fdmap_alloc_exact(m, idx, v);
			if (!v)
				want = -EINVAL;
			else if (idx >= limit)
				want = -ERANGE;
			else if (mo.val[idx])
				want = -EBUSY;
			else
				want = idx;
			REQUIRE(r == want, "op %u: exact(%u) = %lld, want %lld",
				op, idx, (long long)r, (long long)want);
			if (r >= 0)
				model_set(&mo, idx, v);
		} else if (p < alloc_pct) {
			idx = tr_below(&rs, limit + 100);
			v = model_value(&rs, 1);
			r = fdmap_alloc_from(m, idx, v);
			want = model_first_free(&mo, idx);
			if (!v)
				want = -EINVAL;
			else if (want < 0)
				want = -EMFILE;
			nemfile += want == -EMFILE;
			REQUIRE(r == want, "op %u: from(%u) = %lld, want %lld",
				op, idx, (long long)r, (long long)want);
			if (r >= 0)
				model_set(&mo, (uint32_t)r, v);
		} else if (q < 75) {
			if (mo.count && q < 65)
				idx = mo.list[tr_below(&rs, mo.count)];
			else
				idx = tr_below(&rs, limit + 100);
			want32 = idx < limit ? mo.val[idx] : 0;
			got32 = fdmap_release(m, idx);
			REQUIRE(got32 == want32,
				"op %u: release(%u) = %u, want %u", op, idx,
				got32, want32);
			if (idx < limit)
				model_clear(&mo, idx);
		} else {
			if (mo.count && q < 95)
				idx = mo.list[tr_below(&rs, mo.count)];
			else
				idx = tr_below(&rs, limit + 100);
			v = model_value(&rs, 0);
			want32 = idx < limit ? mo.val[idx] : 0;
			got32 = fdmap_replace(m, idx, v);
			REQUIRE(got32 == want32,
				"op %u: replace(%u) = %u, want %u", op, idx,
				got32, want32);
			if (want32)
				model_set(&mo, idx, v);
		}
		REQUIRE(m->live == mo.count, "op %u: live %u, model %u", op,
			m->live, mo.count);
		if (op % 1024 == 0) {
			for (int i = 0; i < 64; i++) {
				idx = tr_below(&rs, limit);
				REQUIRE(fdmap_get(m, idx) == mo.val[idx],
					"op %u: get(%u) = %u, model %u", op,
					idx, fdmap_get(m, idx), mo.val[idx]);
			}
		}
	}
	ck_assert_msg(nemfile > 100, "exhaustion only reached %u times",
		      nemfile);
	ck_assert_uint_gt(nrand, nops / 10);

	/* The end state, through next_busy and get. */
	busy = calloc(mo.count + 1, sizeof(*busy));
	ck_assert_ptr_nonnull(busy);
	memcpy(busy, mo.list, mo.count * sizeof(*busy));
	qsort(busy, mo.count, sizeof(*busy), cmp_u32);
	check_busy_set(m, busy, mo.count);
	for (uint32_t i = 0; i < limit; i++)
		REQUIRE(fdmap_get(m, i) == mo.val[i], "get(%u) = %u, model %u",
			i, fdmap_get(m, i), mo.val[i]);
	free(busy);
	free(mo.val);
	free(mo.list);
	free(mo.pos);
	map_free(m);
}
END_TEST

/* ---- 8. destroy ---- */

/* Whether the page holding p is mapped in this process. */
static int page_mapped(const void *p)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char vec;
	void *page = (void *)((uintptr_t)p & ~(uintptr_t)(pg - 1));

	if (mincore(page, (size_t)pg, &vec) == 0)
		return 1;
	ck_assert_int_eq(errno, ENOMEM);
	return 0;
}

START_TEST(test_destroy)
{
	static const uint32_t segs[] = { 0, 5, 100, FDMAP_NSEGS - 1 };
	enum { NS = sizeof(segs) / sizeof(segs[0]) };
	struct fdmap *m = map_new(FDMAP_SPACE, 11);
	const void *mapped[NS];
	uint32_t used[NS * 3 + 50], nused = 0;

	for (uint32_t i = 0; i < NS; i++) {
		uint32_t base = segs[i] * SEG;

		for (uint32_t j = 0; j < 3; j++) {
			uint32_t idx = base + j * 30000;

			ck_assert_int_eq(fdmap_alloc_exact(m, idx, val_f(idx)),
					 idx);
			used[nused++] = idx;
		}
	}
	for (uint32_t i = 0; i < 50; i++) {
		int64_t r = fdmap_alloc_random(m, 3);

		ck_assert_int_ge(r, 0);
		used[nused++] = (uint32_t)r;
	}
	for (uint32_t i = 0; i < NS; i++) {
		mapped[i] = m->seg[segs[i]];
		ck_assert_ptr_nonnull(mapped[i]);
		ck_assert(page_mapped(mapped[i]));
		ck_assert(page_mapped((const char *)mapped[i] +
				      sizeof(struct fdmap_seg) - 1));
	}

	fdmap_destroy(m);
	/* Every segment is unmapped, first page to last. */
	for (uint32_t i = 0; i < NS; i++) {
		ck_assert_msg(!page_mapped(mapped[i]),
			      "segment %u still mapped", segs[i]);
		ck_assert_msg(!page_mapped((const char *)mapped[i] +
					   sizeof(struct fdmap_seg) - 1),
			      "end of segment %u still mapped", segs[i]);
	}
	for (uint32_t s = 0; s < FDMAP_NSEGS; s++)
		REQUIRE(m->seg[s] == NULL, "seg[%u] left behind", s);
	ck_assert_uint_eq(m->live, 0);
	fdmap_destroy(m); /* destroying a destroyed map is harmless */

	/* Re-initialised: everything free, the old slots allocatable. */
	ck_assert_int_eq(fdmap_init(m, FDMAP_SPACE, 11), 0);
	ck_assert_uint_eq(m->live, 0);
	ck_assert_int_eq(fdmap_next_busy(m, 0), -1);
	for (uint32_t i = 0; i < nused; i++) {
		ck_assert_uint_eq(fdmap_get(m, used[i]), 0);
		ck_assert_uint_eq(fdmap_release(m, used[i]), 0);
	}
	ck_assert_int_eq(fdmap_alloc_from(m, 0, 1), 0);
	for (uint32_t i = 0; i < NS; i++) {
		uint32_t idx = segs[i] * SEG + 30000;

		ck_assert_int_eq(fdmap_alloc_exact(m, idx, 2), idx);
	}
	ck_assert_uint_eq(m->live, NS + 1);
	fdmap_destroy(m);

	/* Re-initialised smaller: the old high slots are out of range. */
	ck_assert_int_eq(fdmap_init(m, 100, 12), 0);
	ck_assert_uint_eq(fdmap_release(m, SEG * 5), 0);
	ck_assert_int_eq(fdmap_alloc_exact(m, SEG * 5, 1), -ERANGE);
	ck_assert_int_eq(fdmap_next_busy(m, 0), -1);
	map_free(m);
}
END_TEST

/* ---- the suite ---- */

static Suite *fdmap_suite(void)
{
	Suite *s = suite_create("fdmap");
	TCase *tc;

	tc = tcase_create("ops");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_init_limits);
	tcase_add_test(tc, test_alloc_values);
	tcase_add_test(tc, test_release);
	tcase_add_test(tc, test_replace);
	tcase_add_test(tc, test_next_busy);
	suite_add_tcase(s, tc);

	tc = tcase_create("exhaustion");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_exhaust_random, 0,
			    sizeof(exhaust_limits) / sizeof(exhaust_limits[0]));
	tcase_add_test(tc, test_exhaust_exact_from);
	suite_add_tcase(s, tc);

	tc = tcase_create("alloc_from");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_from_cross_segment);
	tcase_add_test(tc, test_from_full_seg_skip);
	tcase_add_test(tc, test_from_many_full_segs);
	tcase_add_test(tc, test_from_end_of_space);
	tcase_add_test(tc, test_from_partial_last_segment);
	suite_add_tcase(s, tc);

	tc = tcase_create("randomness");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_uniform);
	tcase_add_test(tc, test_random_uniform_free);
	tcase_add_test(tc, test_random_seeds);
	suite_add_tcase(s, tc);

	tc = tcase_create("growth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_growth_policy);
	tcase_add_test(tc, test_growth_capped);
	suite_add_tcase(s, tc);

	tc = tcase_create("concurrent");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_concurrent_get);
	suite_add_tcase(s, tc);

	tc = tcase_create("model");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_model);
	suite_add_tcase(s, tc);

	tc = tcase_create("destroy");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_destroy);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fdmap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
