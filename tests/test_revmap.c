/* SPDX-License-Identifier: MIT */
/*
 * test_revmap.c - unit tests of the reverse map (src/revmap.c, revmap.h)
 * alone, with Check:
 *   - ops:        put, get, drop (only of the value held), -ERANGE past
 *                 the space, the walk with revmap_next across words and
 *                 segments, up to the last number of the space;
 *   - model:      a long random sequence of puts and drops over numbers
 *                 spread across segments, checked against a plain array
 *                 after every step (get) and at the end (a whole walk);
 *   - concurrent: one writer putting and dropping (and mapping new
 *                 segments) while two readers call revmap_get, which must
 *                 only ever see 0 or a value the writer stored at that
 *                 number.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "revmap.h"

#define REQUIRE(cond, ...)                          \
	do {                                        \
		if (!(cond))                        \
			ck_abort_msg(__VA_ARGS__);  \
	} while (0)

static struct revmap map; /* static: all zero, as the contract asks */

static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

START_TEST(ops)
{
	const uint32_t last = REVMAP_SPACE - 1;

	memset(&map, 0, sizeof(map));
	ck_assert_uint_eq(revmap_get(&map, 5), 0);
	ck_assert_int_eq(revmap_next(&map, 0), -1);
	ck_assert_int_eq(revmap_put(&map, REVMAP_SPACE, 1), -ERANGE);
	ck_assert_int_eq(revmap_put(&map, 5, 7), 0);
	ck_assert_uint_eq(revmap_get(&map, 5), 7);
	ck_assert_uint_eq(revmap_get(&map, 4), 0);
	/* over a value: replaced, still one entry */
	ck_assert_int_eq(revmap_put(&map, 5, 9), 0);
	ck_assert_uint_eq(revmap_get(&map, 5), 9);
	/* a drop of another value changes nothing */
	ck_assert_int_eq(revmap_drop(&map, 5, 7), 0);
	ck_assert_uint_eq(revmap_get(&map, 5), 9);
	ck_assert_int_eq(revmap_drop(&map, 6, 9), 0);
	ck_assert_int_eq(revmap_drop(&map, 1U << 27, 9), 0); /* unmapped */
	/* the walk: same word, next word, next segment, the very end */
	ck_assert_int_eq(revmap_put(&map, 63, 1), 0);
	ck_assert_int_eq(revmap_put(&map, 64, 2), 0);
	ck_assert_int_eq(revmap_put(&map, 3 * REVMAP_SEG_SLOTS + 1, 3), 0);
	ck_assert_int_eq(revmap_put(&map, last, 4), 0);
	ck_assert_int_eq(revmap_next(&map, 0), 5);
	ck_assert_int_eq(revmap_next(&map, 5), 5);
	ck_assert_int_eq(revmap_next(&map, 6), 63);
	ck_assert_int_eq(revmap_next(&map, 64), 64);
	ck_assert_int_eq(revmap_next(&map, 65), 3 * REVMAP_SEG_SLOTS + 1);
	ck_assert_int_eq(revmap_next(&map, 3 * REVMAP_SEG_SLOTS + 2), last);
	ck_assert_int_eq(revmap_next(&map, last), last);
	ck_assert_uint_eq(revmap_get(&map, last), 4);
	ck_assert_int_eq(revmap_drop(&map, last, 4), 1);
	ck_assert_int_eq(revmap_next(&map, 3 * REVMAP_SEG_SLOTS + 2), -1);
	ck_assert_int_eq(revmap_drop(&map, 5, 9), 1);
	ck_assert_uint_eq(revmap_get(&map, 5), 0);
	ck_assert_int_eq(revmap_next(&map, 0), 63);
	ck_assert_int_eq(revmap_drop(&map, 63, 1), 1);
	ck_assert_int_eq(revmap_drop(&map, 64, 2), 1);
	ck_assert_int_eq(revmap_drop(&map, 3 * REVMAP_SEG_SLOTS + 1, 3), 1);
	ck_assert_int_eq(revmap_next(&map, 0), -1);
	/* The walk's bit per group of values: a walk from the middle of a
	 * group whose first half holds a value keeps its bit, one that finds
	 * a group empty clears it, and a store sets it again. */
	ck_assert_int_eq(revmap_put(&map, 1, 5), 0);
	ck_assert_int_eq(revmap_next(&map, 2), -1);
	ck_assert_int_eq(revmap_next(&map, 0), 1);
	ck_assert_int_eq(revmap_drop(&map, 1, 5), 1);
	ck_assert_uint_eq(map.seg[0]->used[0] & 1, 1);
	ck_assert_int_eq(revmap_next(&map, 0), -1);
	ck_assert_uint_eq(map.seg[0]->used[0] & 1, 0);
	ck_assert_int_eq(revmap_put(&map, REVMAP_GROUP - 1, 6), 0);
	ck_assert_int_eq(revmap_next(&map, 0), REVMAP_GROUP - 1);
	ck_assert_int_eq(revmap_drop(&map, REVMAP_GROUP - 1, 6), 1);
}
END_TEST

/* The model's numbers: NUMS different ones, in clusters across five
 * segments, the last at the end of the space. */
#define NUMS 4096

static uint32_t model_number(uint32_t i)
{
	static const uint32_t base[] = { 0, 1U << 16, 5U << 16, 200U << 16,
					 REVMAP_SPACE - 2048 };

	return base[i % 5] + (i / 5) * 2;
}

START_TEST(model)
{
	static uint32_t want[NUMS];
	static uint32_t number[NUMS];
	uint64_t seed = 42;

	memset(&map, 0, sizeof(map));
	memset(want, 0, sizeof(want));
	for (uint32_t i = 0; i < NUMS; i++)
		number[i] = model_number(i);
	for (int step = 0; step < 200000; step++) {
		uint64_t r = next_random(&seed);
		uint32_t i = (uint32_t)(r % NUMS), n = number[i];
		uint32_t value = (uint32_t)(r >> 32) | 1;

		if (r & (1ULL << 20)) {
			REQUIRE(revmap_put(&map, n, value) == 0, "put %u", n);
			want[i] = value;
		} else {
			/* Half the drops name the value held, half another. */
			uint32_t named = (r & (1ULL << 21)) && want[i] ? want[i] : value;
			int expect = want[i] && named == want[i];

			REQUIRE(revmap_drop(&map, n, named) == expect, "drop %u", n);
			if (expect)
				want[i] = 0;
		}
		REQUIRE(revmap_get(&map, n) == want[i], "get %u: %u, want %u", n,
			revmap_get(&map, n), want[i]);
	}
	/* The whole walk: every number that holds a value, in order, and
	 * nothing else. */
	{
		int64_t at = revmap_next(&map, 0);
		uint32_t seen = 0, held = 0;

		for (uint32_t i = 0; i < NUMS; i++)
			held += want[i] != 0;
		for (; at >= 0; at = revmap_next(&map, (uint32_t)at + 1)) {
			uint32_t v = revmap_get(&map, (uint32_t)at);

			REQUIRE(v != 0, "walk stopped at %lld, which holds nothing",
				(long long)at);
			seen++;
			if ((uint32_t)at == REVMAP_SPACE - 1)
				break;
		}
		ck_assert_uint_eq(seen, held);
	}
}
END_TEST

/* The concurrent case: the writer stores (n << 4 | k) at number n, so a
 * reader can tell a value of n from anything else. */
#define CONC_NUMS 512
static int stop;

static uint32_t conc_number(uint32_t i)
{
	return (i % 8) * REVMAP_SEG_SLOTS + i * 7; /* eight segments */
}

static void *reader(void *arg)
{
	long bad = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		for (uint32_t i = 0; i < CONC_NUMS; i++) {
			uint32_t n = conc_number(i), v = revmap_get(&map, n);

			if (v && v >> 4 != (n & 0xfffffff))
				bad++;
		}
	return (void *)bad;
}

START_TEST(concurrent)
{
	pthread_t t[2];
	uint64_t seed = 7;
	void *bad;
	long total = 0;

	memset(&map, 0, sizeof(map));
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, reader, NULL), 0);
	for (int step = 0; step < 300000; step++) {
		uint64_t r = next_random(&seed);
		uint32_t n = conc_number((uint32_t)(r % CONC_NUMS));
		uint32_t v = n << 4 | (uint32_t)(r >> 60);

		if (r & (1ULL << 32))
			REQUIRE(revmap_put(&map, n, v) == 0, "put %u", n);
		else
			revmap_drop(&map, n, revmap_get(&map, n));
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &bad);
		total += (long)bad;
	}
	ck_assert_int_eq(total, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("revmap");
	TCase *tc = tcase_create("revmap");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ops);
	tcase_add_test(tc, model);
	tcase_add_test(tc, concurrent);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
