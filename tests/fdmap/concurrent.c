/* SPDX-License-Identifier: MIT */
/*
 * concurrent.c - one writer mutating the map and mapping new segments
 * while two readers call fdmap_get, which must never see garbage (tcase
 * concurrent).
 */
#include "fdmap_test.h"

/* ---- growth while other threads look up ---- */

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

/* ---- the test cases (main.c) ---- */

TCase *concurrent_case(void)
{
	TCase *tc = tcase_create("concurrent");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_concurrent_get);
	return tc;
}
