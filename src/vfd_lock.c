/* SPDX-License-Identifier: MIT */
/*
 * vfd_lock.c - the table lock (its word, fast path and makers' count are
 * in vfd_internal.h): its slow paths, and the blockers that keep backing
 * descriptors made and closed outside it from the application's calls.
 *
 * vfd_table.c states the locking rule.
 */
#include "vfd_internal.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>

#include "log.h"
#include "sys.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* The lock word's line also holds vfd_shared.h's count of clones, read
 * on the paths that take the lock and by every fork child, which reads
 * the lock word: no line or page of its own. */
struct vfd_lock_line vfd_lock_line;
__thread uint32_t tid_cache TLS_IE; /* this thread's id, 0 = unknown */

/* The first look-up of this thread's id, out of line: the system call's
 * registers would cost every lock. */
__attribute__((noinline)) uint32_t tid_first(void)
{
	return tid_cache = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

/* Reads of a held lock word before lock_slow sleeps on it. */
#define LOCK_SPINS 128

/* A spinning thread's pause: yields the core to its sibling thread, and
 * keeps the spin from flooding the memory system with reads. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/* vfd_lock when the lock was not free (c, as the failed exchange saw it;
 * want, the word the caller would have put): out of line, so that taking
 * a free lock saves no registers. */
__attribute__((noinline)) int lock_slow(uint32_t want, uint32_t c)
{
	uint32_t me = my_tid();

	if ((c & LOCK_TID) == me || (c & LOCK_TID) == LOCK_ALONE) {
		ufd_log_release(!!(want & LOCK_LOGGED));
		return -EBUSY;
	}
	/* Waited for under this thread's own id (a LOCK_ALONE taker cannot
	 * get here, but the id must name a thread that waits). */
	want = me | (want & ~LOCK_TID);
	/* Held for a hundred-odd instructions on the common paths: spin a
	 * little, reading, before sleeping, which costs a futex call here
	 * and another in the holder's unlock to wake this thread (one pair
	 * in ten of bench_threads' two threads did).  Not while the holder
	 * makes or closes a backing descriptor inside it (LOCK_MAKING: a
	 * system call).  Taken as want, as a free lock is: sleepers, if
	 * any, have set LOCK_WAITERS in the word they wait on, and the
	 * holder's unlock wakes one. */
	for (int spin = 0; spin < LOCK_SPINS && !(c & LOCK_MAKING); spin++) {
		cpu_relax();
		c = __atomic_load_n(&table_lock, __ATOMIC_RELAXED);
		if (c != 0)
			continue;
		/* A handler may have forked meanwhile, as below. */
		want = my_tid() | (want & ~LOCK_TID);
		if (__atomic_compare_exchange_n(&table_lock, &c, want, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 0;
	}
	for (;;) {
		if (c == 0) {
			/* Taken after waiting: others may wait too. */
			if (__atomic_compare_exchange_n(&table_lock, &c,
							want | LOCK_WAITERS, 0,
							__ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return 0;
			continue;
		}
		if (!(c & LOCK_WAITERS) &&
		    !__atomic_compare_exchange_n(&table_lock, &c, c | LOCK_WAITERS,
						 0, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			continue;
		futex(&table_lock, FUTEX_WAIT, c | LOCK_WAITERS);
		/* A handler may have forked meanwhile: in the child, this
		 * thread has another id. */
		want = my_tid() | (want & ~LOCK_TID);
		c = __atomic_load_n(&table_lock, __ATOMIC_RELAXED);
	}
}

/* unlock_table's rare cases, the lock let go (was: its word then). */
__attribute__((noinline)) void unlock_slow(uint32_t was)
{
	if (was & LOCK_WAITERS)
		futex(&table_lock, FUTEX_WAKE, 1);
	ufd_log_release(!!(was & LOCK_LOGGED)); /* writes the lines held meanwhile */
	/* Closes that handlers of this thread left pending: finished under
	 * the lock, taken again (unless a handler of this thread holds it
	 * now, when its own unlock comes here). */
	if ((was & LOCK_PENDING) && lock_table(0) == 0) {
		drain_pending();
		unlock_table();
	}
}

int vfd_lock(void)
{
	return lock_table(0);
}

void vfd_unlock(void)
{
	unlock_table();
}

/* ---- backing descriptors made and closed outside the lock ----
 * (vfd_internal.h) */

struct own_line making_line;
__thread unsigned maker_here TLS_IE;

/* Does this thread hold the table lock (a signal handler that interrupted
 * a change to the table)? */
static int lock_is_mine(void)
{
	uint32_t holder = __atomic_load_n(&table_lock, __ATOMIC_RELAXED) & LOCK_TID;

	return holder == LOCK_ALONE || holder == my_tid();
}

/*
 * Before an application's operation on real numbers at or past
 * vfd_guard_from: keep makers from making outside the lock, and wait for
 * those under way.  Returns 0 (unblock_makers when done), or -EBUSY if this
 * thread cannot wait (a signal handler that interrupted it making one or
 * holding the lock).  Takes no lock; async-signal-safe.
 */
int block_makers(void)
{
	uint32_t v;

	if (__atomic_load_n(&maker_here, __ATOMIC_RELAXED) || lock_is_mine())
		return -EBUSY;
	/* Asleep on the word until the last maker wakes it: a closer's
	 * close can take a while (an NFS flush, SO_LINGER), and the wait
	 * with it. */
	v = __atomic_add_fetch(&making, BLOCKER_ONE, __ATOMIC_SEQ_CST);
	while (v & MAKER_MASK) {
		futex(&making, FUTEX_WAIT, v);
		v = __atomic_load_n(&making, __ATOMIC_SEQ_CST);
	}
	return 0;
}


/* block_makers for a thread that cannot wait: 0 if no maker is under way
 * (unblock_makers when done; none can start meanwhile), else -EBUSY,
 * also when this thread holds the lock to make or close a backing
 * descriptor inside it (LOCK_MAKING). */
int block_makers_now(void)
{
	if (lock_is_mine() && (__atomic_load_n(&table_lock, __ATOMIC_RELAXED) & LOCK_MAKING))
		return -EBUSY;
	if (__atomic_add_fetch(&making, BLOCKER_ONE, __ATOMIC_SEQ_CST) & MAKER_MASK) {
		unblock_makers();
		return -EBUSY;
	}
	return 0;
}
