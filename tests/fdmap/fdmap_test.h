/* SPDX-License-Identifier: MIT */
/*
 * fdmap_test.h - what the files of the map's unit tests share: the
 * headers, REQUIRE, the test's own random numbers and small helpers, and
 * the test case each file makes for main.c.
 */
#ifndef UFD_FDMAP_TEST_H
#define UFD_FDMAP_TEST_H

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
#include "ufd_check.h"

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
static inline uint64_t tr_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Roughly uniform in [0, n), n > 0. */
static inline uint32_t tr_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((tr_next(s) >> 32) * n) >> 32);
}

static inline struct fdmap *map_new(uint32_t limit, uint64_t seed)
{
	struct fdmap *m = calloc(1, sizeof(*m));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(fdmap_init(m, limit, seed), 0);
	return m;
}

static inline void map_free(struct fdmap *m)
{
	fdmap_destroy(m);
	free(m);
}

/* Two distinct non-zero values per slot (idx < 2^30): odd and even. */
static inline uint32_t val_f(uint32_t idx)
{
	return idx * 2U + 1U;
}

static inline uint32_t val_g(uint32_t idx)
{
	return idx * 2U + 2U;
}

/* Free slots the drawing range must offer with k live: max(4096, 4k). */
static inline uint64_t min_choice(uint64_t k)
{
	return 4 * k > FDMAP_MIN_CHOICE ? 4 * k : FDMAP_MIN_CHOICE;
}

static inline int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Assert that fdmap_next_busy from 0 visits exactly want[0..n), sorted. */
static inline void check_busy_set(const struct fdmap *m,
				  const uint32_t *want, uint32_t n)
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

/* ---- the test cases, in the order main.c runs them ---- */

TCase *ops_case(void);		/* ops.c */
TCase *exhaustion_case(void);	/* ops.c */
TCase *alloc_from_case(void);	/* alloc.c */
TCase *randomness_case(void);	/* alloc.c */
TCase *growth_case(void);	/* alloc.c */
TCase *concurrent_case(void);	/* concurrent.c */
TCase *model_case(void);	/* model.c */
TCase *destroy_case(void);	/* model.c */

#endif /* UFD_FDMAP_TEST_H */
