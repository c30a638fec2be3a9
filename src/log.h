/* SPDX-License-Identifier: MIT */
/*
 * log.h - UFD_LOG: one line per event (a virtual descriptor made or
 * closed, an exec hand-off, a select() refused, a backing descriptor the
 * application tried to close), appended to the file UFD_LOG names.
 *
 * A leaf: it calls only the kernel, so every layer may log, including code
 * running in a signal handler or in a vfork child.
 */
#ifndef UFD_LOG_H
#define UFD_LOG_H

#include <stddef.h>

/* Non-zero while logging: the one test a call pays when UFD_LOG is unset.
 * (Hidden, so that the test reads it directly, not through the GOT.) */
extern int ufd_log_on __attribute__((visibility("hidden")));

/* Start logging to path, UFD_LOG's value (from the constructor; NULL:
 * no log).  A path that cannot be opened for appending, or is not a
 * regular file, gets a message on stderr, and no log. */
void ufd_log_init(const char *path);

/* Append "ufd[PID] " and fmt to the log as one line, with one write().
 * fmt knows %d, %u, %s and %%, nothing else (it is not printf: no
 * locale, no allocation, safe in a signal handler). */
void ufd_log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Lines are never written with the table lock held.  vfd_table.c calls
 * ufd_log_hold before it takes the lock and ufd_log_release after it has
 * let it go (and on the way out when it cannot take it): lines this
 * thread makes in between, also from a signal handler, wait in a small
 * per-thread buffer and are written by the release.  Holds nest.
 * ufd_log_hold returns whether it held anything (the log is on), to be
 * passed to the matching ufd_log_release: with the log off, the pair
 * costs a load and a test, and a log turned on in between (by the
 * constructor, at start-up) cannot unbalance the count.
 * Async-signal-safe and lock-free.
 */
static inline int ufd_log_hold(void);
static inline void ufd_log_release(int held);

/* This thread's ufd_log_hold calls not yet released (log.c). */
extern __thread unsigned ufd_log_depth __attribute__((tls_model("initial-exec")));

/* ufd_log_release's part once the last hold is gone: write the lines held
 * meanwhile, if any. */
void ufd_log_release_held(void);

/*
 * Inline, and a plain load and store rather than an atomic add: a signal
 * handler that interrupts in between holds and releases as many times,
 * so it leaves the count as it found it, and only this thread (and its
 * handlers) touch it.  Compiler fences keep the line-making code of this
 * thread on its side of them.
 */
static inline int ufd_log_hold(void)
{
	if (__builtin_expect(!ufd_log_on, 1))
		return 0;
	__atomic_store_n(&ufd_log_depth,
			 __atomic_load_n(&ufd_log_depth, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

static inline void ufd_log_release(int held)
{
	unsigned depth;

	if (__builtin_expect(!held, 1))
		return;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	depth = __atomic_load_n(&ufd_log_depth, __ATOMIC_RELAXED) - 1;
	__atomic_store_n(&ufd_log_depth, depth, __ATOMIC_RELAXED);
	if (depth == 0)
		ufd_log_release_held();
}

/* Write this thread's held lines now, lock or not: only for exec, which
 * holds the table lock through the exec itself and, when it succeeds,
 * never comes back to release it (the other threads wait for the exec
 * anyway). */
void ufd_log_flush_held(void);

/* In a fork child: forget the held lines (the parent writes them); if
 * released, the child's table lock was reset, so is the hold. */
void ufd_log_fork_child(int released);

#define UFD_LOG(...)                                       \
	do {                                               \
		if (__builtin_expect(ufd_log_on, 0))       \
			ufd_log_line(__VA_ARGS__);         \
	} while (0)

#endif /* UFD_LOG_H */
