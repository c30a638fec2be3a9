/* SPDX-License-Identifier: MIT */
/*
 * ops.c - fdmap's operations one by one: init limits, alloc_random,
 * exact and from (value 0 included), release, replace, get, next_busy
 * (tcase ops); small limits filled, then -EMFILE, -EBUSY, -ERANGE, and
 * a freed slot found again (tcase exhaustion).
 */
#include "fdmap_test.h"

/* ---- every operation ---- */

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
	/* next_busy's walk stops at the highest segment ever mapped. */
	ck_assert_uint_eq(m->seg_end, 0);
	ck_assert_int_eq(fdmap_alloc_exact(m, 5 * FDMAP_SEG_SLOTS + 7, 9),
			 5 * FDMAP_SEG_SLOTS + 7);
	ck_assert_uint_eq(m->seg_end, 6 * FDMAP_SEG_SLOTS);
	ck_assert_int_eq(fdmap_next_busy(m, 0), 5 * FDMAP_SEG_SLOTS + 7);
	ck_assert_uint_eq(fdmap_release(m, 5 * FDMAP_SEG_SLOTS + 7), 9);
	ck_assert_int_eq(fdmap_next_busy(m, 0), -1);
	ck_assert_int_eq(fdmap_alloc_exact(m, FDMAP_SPACE - 1, 9),
			 FDMAP_SPACE - 1);
	ck_assert_uint_eq(m->seg_end, FDMAP_SPACE);
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

START_TEST(test_put)
{
	struct fdmap *m = map_new(1000, 2);

	/* A free slot is allocated, a busy one replaced. */
	ck_assert_int_eq(fdmap_put(m, 7, 70), 0);
	ck_assert_uint_eq(fdmap_get(m, 7), 70);
	ck_assert_uint_eq(m->live, 1);
	ck_assert_int_eq(fdmap_next_busy(m, 0), 7);
	ck_assert_int_eq(fdmap_put(m, 7, 71), 0);
	ck_assert_uint_eq(fdmap_get(m, 7), 71);
	ck_assert_uint_eq(m->live, 1);
	ck_assert_int_eq(fdmap_alloc_exact(m, 7, 72), -EBUSY);
	ck_assert_uint_eq(fdmap_release(m, 7), 71);
	ck_assert_uint_eq(m->live, 0);

	/* Zero and the slots past the limit are refused, nothing changed. */
	ck_assert_int_eq(fdmap_put(m, 8, 0), -EINVAL);
	ck_assert_int_eq(fdmap_put(m, 1000, 1), -ERANGE);
	ck_assert_uint_eq(fdmap_get(m, 8), 0);
	ck_assert_uint_eq(m->live, 0);
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

/* ---- exhaustion ---- */

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

/* ---- the test cases (main.c) ---- */

TCase *ops_case(void)
{
	TCase *tc = tcase_create("ops");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_init_limits);
	tcase_add_test(tc, test_alloc_values);
	tcase_add_test(tc, test_release);
	tcase_add_test(tc, test_replace);
	tcase_add_test(tc, test_put);
	tcase_add_test(tc, test_next_busy);
	return tc;
}

TCase *exhaustion_case(void)
{
	TCase *tc = tcase_create("exhaustion");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_exhaust_random, 0,
			    sizeof(exhaust_limits) / sizeof(exhaust_limits[0]));
	tcase_add_test(tc, test_exhaust_exact_from);
	return tc;
}
