/* SPDX-License-Identifier: MIT */
/*
 * vfd_internal.h - what the table's own files share (vfd_table.c,
 * vfd_lock.c, vfd_fork.c, vfd_real.c, vfd_range.c, and the exec
 * hand-off, handoff.c), and nothing above them may use: the maps' slot
 * encoding, the lock (its word and its inline fast path), the makers'
 * count, the close-on-fork marks, the two loops every walk or lock-free
 * change of a slot is made of, and the functions and variables one of
 * these files defines for another.
 */
#ifndef UFD_VFD_INTERNAL_H
#define UFD_VFD_INTERNAL_H

#include <linux/futex.h>
#include <stdint.h>

#include "log.h"
#include "sys.h"
#include "vfd_shared.h"
#include "vfd_slot.h"

/* Close-on-fork marks of real descriptors: slot fd holds VFD_BUSY | flags
 * while marked, VFD_MARK_CLEARED once a lock-free clear has unmarked it. */
extern struct fdmap vfd_mark_map __attribute__((visibility("hidden")));
#define VFD_MARK_CLEARED 0x100U

/* A slot value of vfd_map: open, on backing descriptor `backing`, with
 * flags (VFD_FLAGS). */
static inline uint32_t vfd_slot_value(int backing, uint32_t flags)
{
	return (uint32_t)backing << VFD_REAL_SHIFT | VFD_BUSY | (flags & VFD_FLAGS);
}

/* The backing descriptor in a slot value of vfd_map. */
static inline int vfd_backing_of(uint32_t value)
{
	return (int)(value >> VFD_REAL_SHIFT);
}

/*
 * For each allocated slot of map m from index `from` up, in order: idx
 * (an int64_t the caller declares) is its index.  Allocated is not open:
 * the body tests VFD_BUSY in the value where that matters.
 */
#define VFD_FOR_EACH_SLOT(m, idx, from)                      \
	for ((idx) = fdmap_next_busy((m), (from)); (idx) >= 0; \
	     (idx) = fdmap_next_busy((m), (uint32_t)(idx) + 1))

/*
 * While slot idx of m is open (VFD_BUSY), replace its value v with
 * (v & ~clear) | set, by compare-and-swap: flags change without the lock,
 * and a close that a signal handler makes in between wins.  Returns the
 * value replaced, or the value seen without VFD_BUSY (nothing changed).
 * Lock-free and async-signal-safe.
 */
static inline uint32_t vfd_update_open(struct fdmap *m, uint32_t idx,
				       uint32_t clear, uint32_t set)
{
	uint32_t v;

	do
		v = fdmap_get(m, idx);
	while ((v & VFD_BUSY) && !fdmap_cas(m, idx, v, (v & ~clear) | set));
	return v;
}

/*
 * The table lock.  vfd_lock returns 0, or -EBUSY if this thread holds it
 * already: the caller is a signal handler that interrupted a change to the
 * table, and waiting would deadlock.  Log lines made while it is held are
 * written by vfd_unlock.  Async-signal-safe (raw futex calls).
 */
int vfd_lock(void);
void vfd_unlock(void);

/*
 * Record in vfd_backing_map that backing descriptor `backing` belongs to
 * vfd_map slot idx, over a stale entry for the same number (one whose
 * descriptor was closed behind ufd's back and the number reused).
 * Returns 0 or -ENOMEM.  Table lock held.
 */
static inline int vfd_own_backing(int backing, uint32_t idx)
{
	return revmap_put(&vfd_backing_map, (uint32_t)backing, idx + 1);
}

/* Drop the reverse entry of `backing` if it still names slot idx.  Table
 * lock held. */
static inline void vfd_disown_backing(int backing, uint32_t idx)
{
	revmap_drop(&vfd_backing_map, (uint32_t)backing, idx + 1);
}

/* ---- the table lock ----
 *
 * A futex mutex whose word holds the holder's thread id (0 when free),
 * LOCK_LOGGED when the holder's ufd_log_hold held (the log is on: its
 * unlock releases the hold), LOCK_MAKING while the holder makes or closes
 * a backing descriptor inside it (see "backing descriptors made and
 * closed outside the lock"), LOCK_PENDING once a signal handler of the
 * holder's thread left a close pending, and LOCK_WAITERS when others may
 * be waiting.  The id lets a thread tell that it holds the lock itself.
 * Raw futex calls rather than pthread_mutex, so that fork handlers can
 * reset it and it never calls into libc.  Thread ids stay below 2^22
 * (PID_MAX_LIMIT).
 *
 * LOCK_ALONE is the id of a holder that took the lock while the process
 * was single-threaded (create_alone, close_alone): it saves them looking
 * up their thread id.  It can only be this thread's: no thread is made
 * while the only one holds the lock (nor by its signal handlers), so
 * whoever sees LOCK_ALONE in the word is the holder or a handler that
 * interrupted it.
 */
#define LOCK_WAITERS 0x80000000U
#define LOCK_LOGGED  0x40000000U
#define LOCK_MAKING  0x20000000U
#define LOCK_PENDING 0x10000000U
#define LOCK_TID     0x0fffffffU
#define LOCK_ALONE   LOCK_TID
#define TLS_IE __attribute__((tls_model("initial-exec")))

/*
 * A word alone on its cache line: the lock word and the makers' count
 * (`making`) are written by every thread at every virtual descriptor it
 * makes or closes, and anything the linker put next to them (the
 * placement's first number, init_done, alone_ok: read on the same paths)
 * would be a cache miss in each thread after every such write of another
 * (bench_threads).  Named by a macro, so that the code reads as before.
 */
#define CACHE_LINE 64
struct own_line {
	uint32_t word;
} __attribute__((aligned(CACHE_LINE)));

/* The lock word (vfd_lock.c), on the line of vfd_lock_line. */
#define table_lock (vfd_lock_line.word)
extern __thread uint32_t tid_cache TLS_IE
	__attribute__((visibility("hidden"))); /* this thread's id, 0 = unknown */

/* vfd_lock.c: the first look-up of this thread's id. */
uint32_t tid_first(void);

static inline uint32_t my_tid(void)
{
	return __builtin_expect(tid_cache != 0, 1) ? tid_cache : tid_first();
}

static inline void futex(uint32_t *addr, int op, uint32_t val)
{
	ufd_sys6(SYS_futex, (long)addr, op | FUTEX_PRIVATE_FLAG, val, 0, 0, 0);
}

/* vfd_lock.c: vfd_lock when the lock was not free, and unlock_table's
 * rare cases. */
int lock_slow(uint32_t want, uint32_t c);
void unlock_slow(uint32_t was);

/* Take the lock as want (an id, LOCK_MAKING or not), with the log held
 * if log (a constant) and the log is on.  Returns 0, or -EBUSY if this
 * thread holds it already. */
static inline __attribute__((always_inline)) int lock_as(uint32_t want, int log)
{
	uint32_t c = 0;

	/* The log held before the lock is taken, so that no line is
	 * written while it is. */
	if (log && ufd_log_hold())
		want |= LOCK_LOGGED;
	if (!__atomic_compare_exchange_n(&table_lock, &c, want, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return lock_slow(want, c);
	return 0;
}

/* vfd_lock and vfd_unlock, inline for the table's own hot paths (making
 * and closing a virtual descriptor): a free lock costs the thread id's
 * load, the log's test and the two exchanges.  making: LOCK_MAKING if the
 * holder makes or closes a backing descriptor inside it, else 0. */
static inline __attribute__((always_inline)) int lock_table(uint32_t making)
{
	/* A child sharing the memory takes no lock of its parent's
	 * (vfd_shared.h): -EBUSY, as for a handler inside a change. */
	if (vfd_shared_maybe())
		return -EBUSY;
	return lock_as(my_tid() | making, 1);
}

static inline __attribute__((always_inline)) void unlock_table(void)
{
	uint32_t was = __atomic_exchange_n(&table_lock, 0, __ATOMIC_RELEASE);

	/* Waiters, the log or pending closes are rare: tested here, dealt
	 * with out of line. */
	if (__builtin_expect(was & (LOCK_WAITERS | LOCK_LOGGED | LOCK_PENDING), 0))
		unlock_slow(was);
}

/* vfd_table.c: finish the closes that signal handlers left pending.
 * Table lock held. */
void drain_pending(void);

/* ---- backing descriptors made and closed outside the lock ----
 *
 * A new virtual descriptor's backing descriptor is made before the lock
 * is taken (placement_try_backing), and a closed one's closed after it is
 * let go, so that no system call runs inside it on the common path.  Until
 * it is recorded in the reverse map, though, and once it is out of it,
 * its number looks nobody's: an application's dup2/dup3 onto it
 * (vfd_real_dup) would replace it, its close or close_range would close
 * it, and a virtual descriptor would end up on the application's file, or
 * the application's descriptor be closed by ufd.
 *
 * So makers (and closers: the same, for the close) announce themselves,
 * and such operations wait for them: each maker adds MAKER_ONE to
 * `making` before it makes its descriptor (or drops its entry) and
 * takes it off once the descriptor is recorded (or closed) and the lock
 * let go; an application operation on real numbers that could be a
 * backing descriptor (block_makers) adds BLOCKER_ONE, waits until no
 * maker is left, and takes it off when done.  A maker that finds a
 * blocker there takes its count off again and makes (or closes) its
 * descriptor inside the lock.  Both are read-modify-writes of the one
 * word, so one of the two always sees the other.  The waiting holds no
 * lock (makers need it to finish), and a thread never waits for itself:
 * not from a signal handler that interrupted it making one (maker_here)
 * or holding the lock.
 */
#define MAKER_ONE    1U
#define MAKER_MASK   0xffffU
#define BLOCKER_ONE  0x10000U
extern struct own_line making_line __attribute__((visibility("hidden")));
#define making (making_line.word)
/* This thread's makers under way (a signal handler's nest in the one it
 * interrupted): a plain count, which a handler leaves as it found it. */
extern __thread unsigned maker_here TLS_IE __attribute__((visibility("hidden")));

/* A maker is done: its descriptor is recorded, or closed, and the lock
 * let go.  The count never goes below zero: in a child forked by a signal
 * handler in the middle of a maker, it starts afresh at zero (fork_child),
 * whether or not this maker's was in it. */
static inline __attribute__((always_inline)) void maker_end(void)
{
	uint32_t v = __atomic_load_n(&making, __ATOMIC_RELAXED);

	while ((v & MAKER_MASK) &&
	       !__atomic_compare_exchange_n(&making, &v, v - MAKER_ONE, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	/* The last maker wakes the blockers that wait for it. */
	if (__builtin_expect((v & MAKER_MASK) == MAKER_ONE && v > MAKER_MASK, 0))
		futex(&making, FUTEX_WAKE, INT32_MAX);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&maker_here, __atomic_load_n(&maker_here, __ATOMIC_RELAXED) - 1,
			 __ATOMIC_RELAXED);
}

/* Announce a maker: 1, or 0 if a blocker is there (nothing announced).
 * maker_here counts up before the count and down after it (maker_end), so
 * that a signal handler never waits for a maker of its own thread. */
static inline __attribute__((always_inline)) int maker_start(void)
{
	__atomic_store_n(&maker_here, __atomic_load_n(&maker_here, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_fetch_add(&making, MAKER_ONE, __ATOMIC_SEQ_CST) &
				     ~MAKER_MASK, 0)) {
		maker_end();
		return 0;
	}
	return 1;
}

/*
 * Makers that make (or close) inside the lock: the single-threaded ones
 * (below), and those that found a blocker.  No other thread can reach
 * their number while they hold the lock; a signal handler of their own
 * thread can, and sees the lock held by itself (block_makers fails), so
 * LOCK_MAKING in the lock word, set by the holder around the making, has
 * the handler's block_makers_now refuse too.
 *
 * While __libc_single_threaded (glibc: true until the first
 * pthread_create, which clears it in the creating thread before the new
 * one runs) no other thread exists to dup2, close or fork onto a number
 * being made, so a maker needs no announcement: it makes inside the lock.
 * The flag cannot change under the only thread (a signal handler does not
 * create threads), and a fork child is single-threaded whatever glibc
 * says of it.  Whether an operation announced itself is kept in a local,
 * not read again: a child forked by a handler in the middle of it resumes
 * it.  (Threads made with a raw clone() sharing the address space are
 * not seen; glibc itself does not support them.)
 */
/* LOCK_MAKING for a holder that took the lock without it; unlocking
 * clears it. */
static inline void set_lock_making(void)
{
	__atomic_fetch_or(&table_lock, LOCK_MAKING, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline __attribute__((always_inline)) int single_threaded(void)
{
	return __builtin_expect(__libc_single_threaded, 1);
}

/* vfd_lock.c: block_makers and block_makers_now (see there). */
int block_makers(void);
int block_makers_now(void);

/* The blockers' count, like the makers' (maker_end), never goes below
 * zero: in a child forked by a signal handler that interrupted this thread
 * between block_makers and here, it starts afresh at zero (fork_child). */
static inline void unblock_makers(void)
{
	uint32_t v = __atomic_load_n(&making, __ATOMIC_RELAXED);

	while (v >= BLOCKER_ONE &&
	       !__atomic_compare_exchange_n(&making, &v, v - BLOCKER_ONE, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* ---- shared among the table's files ---- */

/* vfd_table.c: a seed from the kernel (fork children and set-up). */
uint64_t kernel_seed(void);

/* vfd_table.c: remove map slot idx, open or pending, and the reverse
 * entry of its backing descriptor; returns that backing descriptor if the
 * slot was open, -EBADF if not.  Table lock held. */
int drop_entry(uint32_t idx);

/* vfd_table.c: the closes signal handlers left pending (fork_child
 * clears them). */
extern uint32_t pending_n __attribute__((visibility("hidden")));

/* vfd_table.c: the single-threaded paths allowed (alone_ok), the maps
 * set up (init_done), vfork depth (vfork_depth); alone_ok again after a
 * vfork (alone_again); the maps' set-up (init_maps, table lock held). */
extern int alone_ok __attribute__((visibility("hidden")));
extern int init_done __attribute__((visibility("hidden")));
extern unsigned vfork_depth __attribute__((visibility("hidden")));
void alone_again(void);
void init_maps(void);


/* Unmark real descriptor fd, lock-free (from close(), which may run in a
 * signal handler). */
static inline void unmark(int fd)
{
	/* Not the parent's mark, from a child sharing its memory. */
	if ((uint32_t)fd < FD_UNSEQ_BASE && !vfd_shared_maybe())
		vfd_update_open(&vfd_mark_map, (uint32_t)fd, ~0U, VFD_MARK_CLEARED);
}

/*
 * While the kernel's table is shared without the memory (vfd_files.c):
 * slot idx's close-on-exec flag (slot value v) set from its backing
 * descriptor's kernel flag.  Returns 0, or -EBADF if the backing
 * descriptor has gone from the kernel's table.  One fcntl; lock-free.
 */
int vfd_flag_from_kernel(uint32_t idx, uint32_t v);

#endif /* UFD_VFD_INTERNAL_H */
