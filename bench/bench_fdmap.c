/* SPDX-License-Identifier: MIT */
/*
 * bench_fdmap.c - micro-benchmark of the descriptor map (src/fdmap.c).
 *
 * For maps holding L live entries (prefilled with fdmap_alloc_random from a
 * fixed seed, limit FDMAP_SPACE), it times, best of 3 repetitions with
 * clock_gettime(CLOCK_MONOTONIC):
 *   random  N x (fdmap_alloc_random + fdmap_release of the returned slot);
 *   exact   N x (fdmap_alloc_exact + fdmap_release) at precomputed free
 *           slots drawn uniformly from [0, range);
 *   from-n  N x (fdmap_alloc_from(n) + fdmap_release) from precomputed
 *           starting points n drawn uniformly from [0, range), so the search
 *           has to skip the busy slots it lands on;
 *   lookup  N x fdmap_get (through the noinline wrapper bench_lookup) of
 *           precomputed live slots.
 * Each is compared, in the same run, with a naive table: a plain byte array
 * holding the same live set, with a linear "lowest free >= n" scan for
 * from-n, a plain store and clear for exact and a plain load for lookup.
 * The ratio ufd/base is ufd's time over the baseline's; the machine may be
 * noisy, the ratio much less so.  It also reports the memory the map really
 * uses per live entry: resident pages of its segments (mincore) plus
 * sizeof(struct fdmap), over L.
 *
 * Run:
 *   ninja -C build && ./build/bench/bench_fdmap [iterations]
 *       L = 1,000 and 1,000,000; iterations default to 2,000,000;
 *   ./build/bench/bench_fdmap --quick [iterations]
 *       L = 1,000 and 100,000, 20,000 iterations: a smoke run of a second.
 * Exit status is non-zero if the map misbehaves (an allocation fails or
 * disagrees with the baseline).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fdmap.h"

#define REPS	      3
#define MAP_SEED      0x5eedf00dULL
#define BENCH_SEED    0xbe4c4ULL
#define FULL_ITERS    2000000UL
#define QUICK_ITERS   20000UL
#define VERIFY_ITERS  10000UL

#define NOINLINE __attribute__((noinline))

/* Results land here so that no timed loop can be optimised away. */
static volatile uint64_t sink;

static NOINLINE void die(const char *what, long long v)
{
	fprintf(stderr, "bench_fdmap: %s (%lld)\n", what, v);
	exit(1);
}

/* ---- the benchmark's own random numbers: splitmix64 ---- */

static uint64_t rng_state = BENCH_SEED;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform enough in [0, n) for picking test points. */
static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(((rnd() >> 32) * n) >> 32);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		die("out of memory", (long long)n);
	return p;
}

/* ---- the timed loops: ufd ---- */

/* fdmap_get is inline: this gives it a symbol of its own for callgrind. */
static NOINLINE uint32_t bench_lookup(const struct fdmap *m, uint32_t idx)
{
	return fdmap_get(m, idx);
}

static NOINLINE uint64_t loop_random(struct fdmap *m, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t idx = fdmap_alloc_random(m, 1);

		if (idx < 0)
			die("fdmap_alloc_random failed", idx);
		acc += fdmap_release(m, (uint32_t)idx);
	}
	return acc;
}

static NOINLINE uint64_t loop_exact(struct fdmap *m, const uint32_t *at,
				    size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t idx = fdmap_alloc_exact(m, at[i], 1);

		if (idx < 0)
			die("fdmap_alloc_exact failed", idx);
		acc += fdmap_release(m, (uint32_t)idx);
	}
	return acc;
}

static NOINLINE uint64_t loop_from(struct fdmap *m, const uint32_t *from,
				   size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t idx = fdmap_alloc_from(m, from[i], 1);

		if (idx < 0)
			die("fdmap_alloc_from failed", idx);
		acc += fdmap_release(m, (uint32_t)idx);
	}
	return acc;
}

static NOINLINE uint64_t loop_lookup(const struct fdmap *m, const uint32_t *at,
				     size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc += bench_lookup(m, at[i]);
	return acc;
}

/* ---- the timed loops: the naive table, a byte per slot ---- */

static NOINLINE int64_t base_alloc_exact(uint8_t *t, uint32_t idx)
{
	if (t[idx])
		return -EBUSY;
	t[idx] = 1;
	return idx;
}

/* O(n): the lowest free slot >= idx, a byte at a time.  The table is sized
 * past the last busy slot, so the scan always stops inside it. */
static NOINLINE int64_t base_alloc_from(uint8_t *t, uint32_t idx)
{
	while (t[idx])
		idx++;
	t[idx] = 1;
	return idx;
}

static NOINLINE uint8_t base_release(uint8_t *t, uint32_t idx)
{
	uint8_t old = t[idx];

	t[idx] = 0;
	return old;
}

static NOINLINE uint8_t base_lookup(const uint8_t *t, uint32_t idx)
{
	return t[idx];
}

static NOINLINE uint64_t loop_base_exact(uint8_t *t, const uint32_t *at,
					 size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t idx = base_alloc_exact(t, at[i]);

		if (idx < 0)
			die("base_alloc_exact failed", idx);
		acc += base_release(t, (uint32_t)idx);
	}
	return acc;
}

static NOINLINE uint64_t loop_base_from(uint8_t *t, const uint32_t *from,
					size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc += base_release(t, (uint32_t)base_alloc_from(t, from[i]));
	return acc;
}

static NOINLINE uint64_t loop_base_lookup(const uint8_t *t, const uint32_t *at,
					  size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc += base_lookup(t, at[i]);
	return acc;
}

/* ---- measurement ---- */

enum op { OP_RANDOM, OP_EXACT, OP_FROM, OP_LOOKUP, NOPS };

static const char *const op_name[NOPS] = {
	[OP_RANDOM] = "random alloc+release",
	[OP_EXACT] = "exact alloc+release",
	[OP_FROM] = "from-n alloc+release",
	[OP_LOOKUP] = "lookup (fdmap_get)",
};

struct inputs {
	struct fdmap *m;
	uint8_t *table;	 /* the baseline: 1 for each busy slot */
	uint32_t *exact; /* free slots */
	uint32_t *from;	 /* starting points */
	uint32_t *live;	 /* busy slots */
	size_t n;
};

/* Nanoseconds taken by one run of op, on the map or on the baseline. */
static double time_op(const struct inputs *in, enum op op, int base)
{
	double t0 = now_ns();
	uint64_t r = 0;

	switch (op) {
	case OP_RANDOM:
		r = loop_random(in->m, in->n);
		break;
	case OP_EXACT:
		r = base ? loop_base_exact(in->table, in->exact, in->n) :
			   loop_exact(in->m, in->exact, in->n);
		break;
	case OP_FROM:
		r = base ? loop_base_from(in->table, in->from, in->n) :
			   loop_from(in->m, in->from, in->n);
		break;
	case OP_LOOKUP:
		r = base ? loop_base_lookup(in->table, in->live, in->n) :
			   loop_lookup(in->m, in->live, in->n);
		break;
	default:
		break;
	}
	sink += r;
	return now_ns() - t0;
}

/* Bytes of the map resident in memory: its segments' pages, by mincore. */
static size_t map_resident(const struct fdmap *m, uint32_t *nsegs)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (sizeof(struct fdmap_seg) + page - 1) & ~(page - 1);
	size_t npages = len / page, bytes = 0;
	unsigned char *vec = xmalloc(npages);

	*nsegs = 0;
	for (uint32_t s = 0; s < FDMAP_NSEGS; s++) {
		if (!m->seg[s])
			continue;
		if (mincore(m->seg[s], len, vec))
			die("mincore failed", errno);
		++*nsegs;
		for (size_t i = 0; i < npages; i++)
			if (vec[i] & 1)
				bytes += page;
	}
	free(vec);
	return bytes;
}

static void bench_size(uint32_t nlive, size_t iters)
{
	struct inputs in = { .n = iters };
	double best[NOPS][2], skip = 0;
	size_t seg_bytes, tsize;
	uint32_t nsegs, range;

	in.m = calloc(1, sizeof(*in.m));
	if (!in.m || fdmap_init(in.m, FDMAP_SPACE, MAP_SEED))
		die("cannot set up the map", 0);
	in.live = xmalloc(nlive * sizeof(*in.live));
	for (uint32_t i = 0; i < nlive; i++) {
		int64_t idx = fdmap_alloc_random(in.m, i + 1);

		if (idx < 0)
			die("prefill: fdmap_alloc_random failed", idx);
		in.live[i] = (uint32_t)idx;
	}
	range = in.m->range;
	seg_bytes = map_resident(in.m, &nsegs);

	/* The baseline table: the same live set, sized past the range. */
	tsize = (size_t)range + 64;
	in.table = calloc(tsize, 1);
	if (!in.table)
		die("out of memory", (long long)tsize);
	for (uint32_t i = 0; i < nlive; i++)
		in.table[in.live[i]] = 1;

	in.exact = xmalloc(iters * sizeof(*in.exact));
	in.from = xmalloc(iters * sizeof(*in.from));
	for (size_t i = 0; i < iters; i++) {
		uint32_t idx;

		do
			idx = rnd_below(range);
		while (in.table[idx]);
		in.exact[i] = idx;
		in.from[i] = rnd_below(range);
	}
	/* Lookups reuse in.live as their list: shuffle it into a random order
	 * of iters entries (repeating it if iters > nlive). */
	if (iters > nlive) {
		uint32_t *l = xmalloc(iters * sizeof(*l));

		for (size_t i = 0; i < iters; i++)
			l[i] = in.live[rnd_below(nlive)];
		free(in.live);
		in.live = l;
	} else {
		for (size_t i = 0; i < iters; i++) {
			uint32_t j = (uint32_t)i +
				     rnd_below(nlive - (uint32_t)i);
			uint32_t x = in.live[i];

			in.live[i] = in.live[j];
			in.live[j] = x;
		}
	}

	/* Untimed: the map and the baseline agree, and how far from-n skips. */
	for (size_t i = 0; i < iters; i++) {
		uint32_t j = in.from[i];

		while (in.table[j])
			j++;
		skip += j - in.from[i];
		if (i < VERIFY_ITERS) {
			int64_t got = fdmap_alloc_from(in.m, in.from[i], 1);

			if (got != j)
				die("fdmap_alloc_from disagrees with the scan",
				    got);
			fdmap_release(in.m, (uint32_t)got);
		}
	}
	skip /= (double)iters;
	for (size_t i = 0; i < iters && i < VERIFY_ITERS; i++)
		if (fdmap_get(in.m, in.live[i]) == 0 ||
		    fdmap_get(in.m, in.exact[i]) != 0)
			die("fdmap_get disagrees with the live set", i);

	for (int op = 0; op < NOPS; op++)
		best[op][0] = best[op][1] = 1e300;
	for (int rep = 0; rep < REPS; rep++) {
		for (int op = 0; op < NOPS; op++) {
			for (int base = 0; base < 2; base++) {
				double t;

				if (base && op == OP_RANDOM)
					continue;
				t = time_op(&in, (enum op)op, base);
				if (t < best[op][base])
					best[op][base] = t;
			}
		}
	}
	if (in.m->live != nlive || in.m->range != range)
		die("the map changed size during the run", in.m->live);

	printf("\nL = %" PRIu32 " live: range %" PRIu32
	       " slots (%.2f per live), %" PRIu32 " segment(s) mapped\n",
	       nlive, range, (double)range / nlive, nsegs);
	printf("  memory: %.1f bytes per live entry (%zu B resident in segments"
	       " + %zu B struct fdmap)\n",
	       (double)(seg_bytes + sizeof(struct fdmap)) / nlive, seg_bytes,
	       sizeof(struct fdmap));
	printf("  from-n: the lowest free slot is on average %.3f slots past n\n",
	       skip);
	printf("  %-22s %12s %10s %12s %9s\n", "operation", "ufd Mops/s",
	       "ufd ns/op", "base ns/op", "ufd/base");
	for (int op = 0; op < NOPS; op++) {
		double ns = best[op][0] / (double)iters;

		printf("  %-22s %12.2f %10.2f", op_name[op], 1e3 / ns, ns);
		if (op == OP_RANDOM)
			printf(" %12s %9s\n", "-", "-");
		else
			printf(" %12.2f %9.2f\n", best[op][1] / (double)iters,
			       best[op][0] / best[op][1]);
	}

	fdmap_destroy(in.m);
	free(in.m);
	free(in.table);
	free(in.exact);
	free(in.from);
	free(in.live);
}

static NOINLINE void usage(void)
{
	fprintf(stderr, "usage: bench_fdmap [--quick] [iterations]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const uint32_t full_sizes[] = { 1000, 1000000 };
	static const uint32_t quick_sizes[] = { 1000, 100000 };
	const uint32_t *sizes = full_sizes;
	size_t iters = 0;
	int quick = 0;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
			continue;
		}
		errno = 0;
		iters = strtoul(argv[i], &end, 0);
		if (errno || *end || !iters || iters > 1UL << 30)
			usage();
	}
	if (quick)
		sizes = quick_sizes;
	if (!iters)
		iters = quick ? QUICK_ITERS : FULL_ITERS;

	printf("fdmap micro-benchmark: %zu iterations per operation, best of %d%s\n",
	       iters, REPS, quick ? " (quick)" : "");
	printf("ns/op is per pair (alloc + release) or per lookup; ufd/base is"
	       " ufd's time over the naive byte table's\n");
	for (int i = 0; i < 2; i++)
		bench_size(sizes[i], iters);
	return 0;
}
