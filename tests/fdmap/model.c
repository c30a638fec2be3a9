/* SPDX-License-Identifier: MIT */
/*
 * model.c - a long random sequence of operations checked against a
 * plain array model (tcase model); fdmap_destroy unmaps the segments and
 * a re-initialised map is all free (tcase destroy).
 */
#include "fdmap_test.h"

/* ---- random operations against a reference model ---- */

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
				/* The range the draw saw had enough free. */
				want = (int64_t)min_choice(mo.count);
				if (want > limit - mo.count)
					want = limit - mo.count;
				REQUIRE(m->range - mo.count >= want,
					"op %u: with %u live the range is %u",
					op, mo.count, m->range);
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

/* ---- destroy ---- */

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

/* ---- the test cases (main.c) ---- */

TCase *model_case(void)
{
	TCase *tc = tcase_create("model");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_model);
	return tc;
}

TCase *destroy_case(void)
{
	TCase *tc = tcase_create("destroy");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_destroy);
	return tc;
}
