/* SPDX-License-Identifier: MIT */
/*
 * test_unwind.c - unwind.c's stacks against glibc's backtrace(), called
 * from the same function: at call depths 0 to 40, through plain calls,
 * alloca (a CFA from rbp), a large frame, a second thread and a signal
 * handler.  Built twice: without frame pointers and with them.  A capture
 * may give up (-1: the caller then uses backtrace) but must never differ;
 * on x86_64 the plain calls and the signal handler's must not give up.
 */
#define _GNU_SOURCE 1
#include <alloca.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "unwind.h"

#define MAX 64

static int failures, compared, gave_up;
static volatile int sink;

/* Both captures from here: their first frames (return addresses into this
 * function) differ, the rest must not. */
static __attribute__((noinline)) void compare(const char *what, int depth)
{
	void *bt[MAX];
	uintptr_t fast[MAX];
	int nb, nf, j;

	for (int max = 4; max <= MAX; max += MAX - 4) {
		nf = unwind_capture(fast, max);
		nb = backtrace(bt, max);
		if (nf < 0) {
			gave_up++;
			continue;
		}
		compared++;
		/* A sanitizer's interceptor of backtrace() adds its own
		 * frame at the top of backtrace's: its frames from the one
		 * that is our second on. */
		for (j = 1; j < 4 && j < nb && nf > 1 && (uintptr_t)bt[j] != fast[1]; j++)
			;
		if (nf > 1 && (j == 4 || j >= nb)) {
			printf("FAIL %s depth %d max %d: frame 1 %#lx not in backtrace's\n",
			       what, depth, max, (unsigned long)fast[1]);
			failures++;
			continue;
		}
		/* (Where either stopped at max, only what both hold.) */
		if (nf < max && nb < max && nf - 1 != nb - j) {
			printf("FAIL %s depth %d max %d: %d frames, backtrace %d\n", what,
			       depth, max, nf, nb);
			failures++;
			continue;
		}
		for (int i = 1; i < nf && j + i - 1 < nb; i++)
			if (fast[i] != (uintptr_t)bt[j + i - 1]) {
				printf("FAIL %s depth %d max %d: frame %d %#lx, backtrace %p\n",
				       what, depth, max, i, (unsigned long)fast[i], bt[j + i - 1]);
				failures++;
				break;
			}
	}
}

static __attribute__((noinline)) void plain(const char *what, int depth)
{
	if (depth == 0)
		compare(what, depth);
	else
		plain(what, depth - 1);
	sink++; /* no tail call */
}

static __attribute__((noinline)) void with_alloca(int depth, int n)
{
	char *p = alloca((size_t)n);

	memset(p, 1, (size_t)n);
	if (depth == 0)
		compare("alloca", n);
	else
		with_alloca(depth - 1, n + 24);
	sink += p[n - 1];
}

static __attribute__((noinline)) void big_frame(int depth)
{
	volatile char buf[40000];

	buf[depth] = 1;
	plain("big frame", depth);
	sink += buf[depth];
}

static int plain_gave_up; /* by the plain calls of the main thread */

static __attribute__((noinline)) void all(const char *what)
{
	char name[64];
	int before = gave_up;

	for (int d = 0; d <= 40; d++) {
		snprintf(name, sizeof(name), "%s plain", what);
		plain(name, d);
	}
	if (!strcmp(what, "main"))
		plain_gave_up = gave_up - before;
	for (int d = 0; d < 10; d++)
		with_alloca(d, 40);
	big_frame(3);
}

static void *thread_main(void *arg)
{
	all((const char *)arg);
	return NULL;
}

static int signal_gave_up;

static void on_signal(int sig)
{
	int before = gave_up;

	(void)sig;
	plain("signal handler", 5);
	signal_gave_up = gave_up - before;
}

int main(void)
{
	pthread_t t;

	if (unwind_init() < 0) {
		printf("SKIP: no _dl_find_object (glibc before 2.35)\n");
		return 77;
	}
	all("main");
	pthread_create(&t, NULL, thread_main, "thread");
	pthread_join(t, NULL);
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	printf("%d captures compared with backtrace, %d gave up (plain calls: %d, "
	       "in the signal handler: %d)\n", compared, gave_up, plain_gave_up,
	       signal_gave_up);
#if defined(__x86_64__)
	if (plain_gave_up || signal_gave_up) {
		printf("FAIL: the plain calls gave up\n");
		failures++;
	}
#endif
	return failures ? 1 : 0;
}
