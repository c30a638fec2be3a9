/* SPDX-License-Identifier: MIT */
/*
 * bench_threads.c - how creating and closing virtual descriptors scales
 * with threads: each thread runs dup2(fd, FD_UNSEQ_ALLOC) + close for a
 * fixed time; printed are the pairs per second of one thread, of two, and
 * their ratio (the target: two threads at least 1.6 times one).
 *
 *   LD_PRELOAD=libufd.so bench_threads [SECONDS_PER_RUN] [ROUNDS] [real]
 *
 * With "real", the threads run dup(fd) + close instead: the kernel's own
 * scaling, which bounds ufd's (both threads share one descriptor table,
 * and its lock).
 *
 * A time measurement, so only as good as the machine is quiet: each round
 * runs one thread then two, and the best round of each is kept.  Each
 * round also says, for its two threads, how often they slept (voluntary
 * context switches per 1,000 pairs: futex waits on ufd's lock, or the
 * kernel's) and were preempted (involuntary), and in what share of their
 * samples of sched_getcpu, one per 256 pairs, both were on the same CPU:
 * a round far below the others with the threads on one CPU measured the
 * machine, not the lock.  Not
 * linked against ufd: without LD_PRELOAD, dup2 onto FD_UNSEQ_ALLOC fails
 * and the program says so.
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ufd.h"

static volatile int stop;
static int real_only;

struct worker {
	pthread_t th;
	long pairs;
	long bad;
	long slept, preempted; /* this thread's context switches */
	int index;		/* 0 or 1 */
};

/* Each thread's CPU, as last sampled (-1: not running yet or done), and
 * the samples that found the other thread on the same one. */
static int cpu_of[2] = { -1, -1 };
static long samples, same_cpu;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	int me = w->index;
	struct rusage ru;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int cpu;

		for (int i = 0; i < 256; i++) {
			int fd = real_only ? dup(0) : dup2(0, (int)FD_UNSEQ_ALLOC);

			w->bad += fd < 0 || close(fd) != 0;
		}
		w->pairs += 256;
		cpu = sched_getcpu();
		__atomic_store_n(&cpu_of[me], cpu, __ATOMIC_RELAXED);
		if (me == 0 && __atomic_load_n(&cpu_of[1], __ATOMIC_RELAXED) >= 0) {
			samples++;
			same_cpu += __atomic_load_n(&cpu_of[1], __ATOMIC_RELAXED) == cpu;
		}
	}
	__atomic_store_n(&cpu_of[me], -1, __ATOMIC_RELAXED);
	getrusage(RUSAGE_THREAD, &ru);
	w->slept = ru.ru_nvcsw;
	w->preempted = ru.ru_nivcsw;
	return NULL;
}

/* What a run of two threads saw besides its speed (struct worker). */
struct seen {
	long pairs, slept, preempted, samples, same_cpu;
};

/* Pairs per second with nthreads threads for seconds; -1 on an error.
 * *seen, if not NULL, gets the threads' context switches and CPU samples. */
static double run(int nthreads, double seconds, struct seen *seen)
{
	struct worker w[2] = { 0 };
	double start, elapsed;
	long pairs = 0, bad = 0;
	struct timespec pause = { (time_t)seconds,
				  (long)((seconds - (double)(time_t)seconds) * 1e9) };

	stop = 0;
	samples = same_cpu = 0;
	start = now();
	for (int i = 0; i < nthreads; i++) {
		w[i].index = i;
		if (pthread_create(&w[i].th, NULL, work, &w[i]) != 0)
			return -1;
	}
	nanosleep(&pause, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nthreads; i++) {
		pthread_join(w[i].th, NULL);
		pairs += w[i].pairs;
		bad += w[i].bad;
	}
	elapsed = now() - start;
	if (seen)
		*seen = (struct seen){ pairs, w[0].slept + w[1].slept,
				       w[0].preempted + w[1].preempted, samples,
				       same_cpu };
	return bad ? -1 : (double)pairs / elapsed;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	int rounds = argc > 2 ? atoi(argv[2]) : 3;
	double best1 = 0, best2 = 0;
	int fd;

	real_only = argc > 3 && argv[3][0] == 'r';
	fd = real_only ? dup(0) : dup2(0, (int)FD_UNSEQ_ALLOC);
	if (fd < 0 || close(fd) != 0 || seconds <= 0 || rounds <= 0) {
		fprintf(stderr, "bench_threads: dup2(0, FD_UNSEQ_ALLOC) failed: "
				"run it with LD_PRELOAD=libufd.so (usage: "
				"bench_threads [SECONDS] [ROUNDS] [real])\n");
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		struct seen seen;
		double one = run(1, seconds, NULL), two = run(2, seconds, &seen);

		if (one < 0 || two < 0) {
			fprintf(stderr, "bench_threads: a dup2 or close failed\n");
			return 1;
		}
		printf("round %d: 1 thread %.0f pairs/s, 2 threads %.0f pairs/s "
		       "(%.2f); the two slept %.1f and were preempted %.1f "
		       "times per 1,000 pairs, on one CPU in %.0f%% of %ld samples\n",
		       r + 1, one, two, two / one,
		       1000.0 * (double)seen.slept / (double)seen.pairs,
		       1000.0 * (double)seen.preempted / (double)seen.pairs,
		       seen.samples ? 100.0 * (double)seen.same_cpu / (double)seen.samples : 0.0,
		       seen.samples);
		if (one > best1)
			best1 = one;
		if (two > best2)
			best2 = two;
	}
	printf("%s best: 1 thread %.0f pairs/s, 2 threads %.0f pairs/s, ratio %.2f\n",
	       real_only ? "dup + close," : "dup2(FD_UNSEQ_ALLOC) + close,",
	       best1, best2, best2 / best1);
	return 0;
}
