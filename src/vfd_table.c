/* SPDX-License-Identifier: MIT */
/*
 * vfd_table.c - the process's virtual descriptor table (see vfd_table.h).
 *
 * Locking rule: every change to vfd_map, vfd_backing_map and vfd_mark_map that
 * frees or takes a slot is made with table_lock held; lookups and flag
 * changes (fdmap_get, fdmap_cas) take no lock.  No system call runs with
 * the lock held on the common paths of a process with threads: backing
 * descriptors are made before and closed after it, announced (see
 * "backing descriptors made and closed outside the lock"); a
 * single-threaded one makes and closes them inside it, where nothing need
 * wait for the lock.  No function here calls a
 * libc descriptor function: backing descriptors are made, moved and closed
 * with raw system calls (sys.h), so nothing re-enters the shim.
 *
 * Signals: close() is async-signal-safe, so it may come from a handler that
 * interrupted this very thread inside the lock.  The lock records its
 * holder's thread id; a close from such a handler cannot wait for the lock,
 * so it closes the descriptor at once (lookups see it closed) and leaves
 * the bookkeeping to the holder, which finishes it when it unlocks
 * (pending[], drain_pending).
 */
#include "vfd_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "placement.h"
#include "settings.h"
#include "sys.h"
#include "vfd_shared.h"

/* At a multiple of 64 bytes, as fdmap.h asks, so that its hot line is
 * its own. */
struct fdmap vfd_map __attribute__((aligned(64)));
struct revmap vfd_backing_map;

struct fdmap vfd_mark_map;

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

/* The lock word's line also holds vfd_shared.h's count of clones, read
 * on the paths that take the lock and by every fork child, which reads
 * the lock word: no line or page of its own. */
struct vfd_lock_line vfd_lock_line;
#define table_lock (vfd_lock_line.word)
static __thread uint32_t tid_cache TLS_IE; /* this thread's id, 0 = unknown */

/* Closes made from a signal handler while its thread held the lock: slot
 * indexes whose bookkeeping is finished under the lock (drain_pending),
 * by the holder as it lets go of it (the handler set LOCK_PENDING, which
 * the unlocking exchange returns: it ran before it, in the same thread),
 * taking it again.  pending_n counts them in its low bits;
 * PENDING_LOST, set when a close found pending[] full, has the drain
 * sweep the map for every closed-but-unfreed slot instead. */
#define PENDING_MAX 256
#define PENDING_LOST 0x80000000U
static uint32_t pending[PENDING_MAX];
static uint32_t pending_n;

/* The first look-up of this thread's id, out of line: the system call's
 * registers would cost every lock. */
__attribute__((noinline)) static uint32_t tid_first(void)
{
	return tid_cache = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

static uint32_t my_tid(void)
{
	return __builtin_expect(tid_cache != 0, 1) ? tid_cache : tid_first();
}

static void futex(uint32_t *addr, int op, uint32_t val)
{
	ufd_sys6(SYS_futex, (long)addr, op | FUTEX_PRIVATE_FLAG, val, 0, 0, 0);
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
__attribute__((noinline)) static int lock_slow(uint32_t want, uint32_t c)
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

__attribute__((noinline)) static void unlock_slow(uint32_t was);

static inline __attribute__((always_inline)) void unlock_table(void)
{
	uint32_t was = __atomic_exchange_n(&table_lock, 0, __ATOMIC_RELEASE);

	/* Waiters, the log or pending closes are rare: tested here, dealt
	 * with out of line. */
	if (__builtin_expect(was & (LOCK_WAITERS | LOCK_LOGGED | LOCK_PENDING), 0))
		unlock_slow(was);
}

static void drain_pending(void);

/* unlock_table's rare cases, the lock let go (was: its word then). */
__attribute__((noinline)) static void unlock_slow(uint32_t was)
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
static struct own_line making_line;
#define making (making_line.word)
/* This thread's makers under way (a signal handler's nest in the one it
 * interrupted): a plain count, which a handler leaves as it found it. */
static __thread unsigned maker_here TLS_IE;

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
static void set_lock_making(void)
{
	__atomic_fetch_or(&table_lock, LOCK_MAKING, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline __attribute__((always_inline)) int single_threaded(void)
{
	return __builtin_expect(__libc_single_threaded, 1);
}

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
static int block_makers(void)
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

/* The blockers' count, like the makers' (maker_end), never goes below
 * zero: in a child forked by a signal handler that interrupted this thread
 * between block_makers and here, it starts afresh at zero (fork_child). */
static void unblock_makers(void)
{
	uint32_t v = __atomic_load_n(&making, __ATOMIC_RELAXED);

	while (v >= BLOCKER_ONE &&
	       !__atomic_compare_exchange_n(&making, &v, v - BLOCKER_ONE, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* block_makers for a thread that cannot wait: 0 if no maker is under way
 * (unblock_makers when done; none can start meanwhile), else -EBUSY,
 * also when this thread holds the lock to make or close a backing
 * descriptor inside it (LOCK_MAKING). */
static int block_makers_now(void)
{
	if (lock_is_mine() && (__atomic_load_n(&table_lock, __ATOMIC_RELAXED) & LOCK_MAKING))
		return -EBUSY;
	if (__atomic_add_fetch(&making, BLOCKER_ONE, __ATOMIC_SEQ_CST) & MAKER_MASK) {
		unblock_makers();
		return -EBUSY;
	}
	return 0;
}

/* ---- seeding ---- */

/* A seed from the kernel; if getrandom is unavailable, a mix of the clock,
 * the pid and an address, which is still different per process. */
static uint64_t kernel_seed(void)
{
	uint64_t seed;
	struct timespec ts;

	if (ufd_sys_getrandom(&seed, sizeof(seed), GRND_NONBLOCK) ==
	    (long)sizeof(seed))
		return seed;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
	       ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&seed;
}

/* ---- slots ---- */

/*
 * Remove map slot idx, open or pending, and the reverse entry of its
 * backing descriptor.  Returns that backing descriptor (for the caller to
 * close, or not) if the slot was open, -EBADF if it was free or pending.
 * Table lock held.
 */
static inline __attribute__((always_inline)) int drop_entry_inline(uint32_t idx)
{
	uint32_t old = fdmap_release(&vfd_map, idx);

	if (!old)
		return -EBADF;
	vfd_disown_backing(vfd_backing_of(old), idx);
	return old & VFD_BUSY ? vfd_backing_of(old) : -EBADF;
}

/* drop_entry_inline, for every caller but the close of one descriptor. */
__attribute__((noinline)) static int drop_entry(uint32_t idx)
{
	return drop_entry_inline(idx);
}

/* Finish the closes that signal handlers left pending.  Table lock held
 * (by this thread: the only one that can push, from its handlers). */
static void drain_pending(void)
{
	uint32_t n;
	int64_t slot;

	while ((n = __atomic_load_n(&pending_n, __ATOMIC_SEQ_CST)) & ~PENDING_LOST) {
		uint32_t idx = pending[(n & ~PENDING_LOST) - 1];

		/* A handler may push between the read and the pop: retry. */
		if (__atomic_compare_exchange_n(&pending_n, &n, n - 1, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) &&
		    !(fdmap_get(&vfd_map, idx) & VFD_BUSY))
			drop_entry(idx);
	}
	/* A signal storm overflowed pending[] (seen under TSan, which runs
	 * queued handlers in bursts): find the lost slots.  An allocated slot
	 * without VFD_BUSY is always one a handler closed.  Rare, so O(map). */
	if (__atomic_fetch_and(&pending_n, ~PENDING_LOST, __ATOMIC_SEQ_CST) & PENDING_LOST)
		VFD_FOR_EACH_SLOT(&vfd_map, slot, 0)
			if (!(fdmap_get(&vfd_map, (uint32_t)slot) & VFD_BUSY))
				drop_entry((uint32_t)slot);
}

/* The slot this thread's create_exact is replacing in place, or
 * UINT32_MAX; and the backing descriptor a signal handler's close of it
 * left to create_exact to close (-1 if none): replace_in_place's dup3 onto
 * it would make it again after the handler closed it, and nobody would
 * close that one. */
static __thread uint32_t replacing TLS_IE = UINT32_MAX;
static __thread int replacing_left TLS_IE = -1;

/*
 * Close (or forget) slot idx from a signal handler that interrupted this
 * thread inside the lock: mark it closed with one atomic step, so that
 * lookups see it closed at once, close its backing descriptor if asked
 * (unless the interrupted holder is replacing it in place: then that
 * holder closes it, after its dup3), and leave freeing the slot to the
 * interrupted holder, through pending[] or, when that is full, a sweep of
 * the whole map.
 */
__attribute__((noinline)) static int release_deferred(uint32_t idx,
							 int close_backing)
{
	uint32_t v = vfd_update_open(&vfd_map, idx, VFD_BUSY, 0), n;

	if (!(v & VFD_BUSY))
		return -EBADF;
	n = __atomic_fetch_add(&pending_n, 1, __ATOMIC_SEQ_CST) & ~PENDING_LOST;
	if (n < PENDING_MAX) {
		pending[n] = idx;
	} else {
		__atomic_fetch_sub(&pending_n, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_or(&pending_n, PENDING_LOST, __ATOMIC_SEQ_CST);
	}
	/* The holder's unlock, which this handler interrupted, drains. */
	__atomic_fetch_or(&table_lock, LOCK_PENDING, __ATOMIC_SEQ_CST);
	if (!close_backing)
		return vfd_backing_of(v);
	if (__atomic_load_n(&replacing, __ATOMIC_RELAXED) == idx) {
		__atomic_store_n(&replacing_left, vfd_backing_of(v), __ATOMIC_RELAXED);
		return 0;
	}
	return ufd_sys_close(vfd_backing_of(v));
}

/* ---- virtual descriptors ---- */

/*
 * dup2 onto open virtual descriptor idx, whose slot holds cur: the
 * kernel's dup3 puts real_fd's file behind its backing descriptor in
 * place, so that a lookup sees the old file or the new one, never neither,
 * and no number is made or freed; then the flags are the new
 * descriptor's.  Returns 0 or -errno (EBADF: real_fd is not open, nothing
 * changed).  Table lock held.
 */
static int replace_in_place(uint32_t idx, uint32_t cur, int real_fd, uint32_t flags)
{
	int backing = vfd_backing_of(cur), r;

	/* real_fd is the backing descriptor itself only when the caller
	 * named its number: the file is there already. */
	if (real_fd != backing) {
		r = (int)ufd_sys6(SYS_dup3, real_fd, backing, O_CLOEXEC, 0, 0, 0);
		/* EBADF for a backing descriptor past the kernel's soft limit
		 * (lowered by the application since, or an exec's): raise it
		 * over the backing descriptor and again. */
		if (r == -EBADF && ufd_sys_fcntl(real_fd, F_GETFD, 0) >= 0 &&
		    placement_cover(backing) == 0)
			r = (int)ufd_sys6(SYS_dup3, real_fd, backing, O_CLOEXEC, 0, 0, 0);
		if (r < 0)
			return r;
	}
	/* A compare-and-swap: flags change without the lock.  If a handler
	 * of this thread closed the descriptor meanwhile, that close stands
	 * (unlocking finishes it). */
	vfd_update_open(&vfd_map, idx, ~0U, vfd_slot_value(backing, flags));
	return 0;
}

/*
 * vfd_create at an exact number: with the lock held, replace an open
 * descriptor at_idx in place (returns 1, or -errno), or finish a pending
 * close there (returns 0: the slot is free for the caller to take).
 */
__attribute__((noinline)) static int create_exact(uint32_t at_idx, int real_fd,
						  uint32_t flags)
{
	uint32_t cur;
	int err, left;

	__atomic_store_n(&replacing, at_idx, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cur = fdmap_get(&vfd_map, at_idx);
	err = cur & VFD_BUSY ? replace_in_place(at_idx, cur, real_fd, flags) : 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&replacing, UINT32_MAX, __ATOMIC_RELAXED);
	left = __atomic_exchange_n(&replacing_left, -1, __ATOMIC_RELAXED);
	if (left >= 0) /* a handler closed it: the close stands */
		ufd_sys_close(left);
	if (cur & VFD_BUSY) {
		if (err < 0)
			return err;
		UFD_LOG("new %u: replaced the open one in place%s%s",
			FD_UNSEQ_BASE + at_idx, flags & VFD_CLOEXEC ? " cloexec" : "",
			flags & VFD_CLOFORK ? " clofork" : "");
		return 1;
	}
	if (cur) /* pending from a handler: finish that first */
		drop_entry(at_idx);
	return 0;
}

/* vfd_create's slot for value at an exact or lowest number: fdmap's
 * answer. */
__attribute__((noinline)) static int64_t alloc_at(enum vfd_where where,
						  uint32_t at_idx, uint32_t value)
{
	return where == VFD_AT_EXACT ? fdmap_alloc_exact(&vfd_map, at_idx, value)
				     : fdmap_alloc_from(&vfd_map, at_idx, value);
}

/*
 * The end of vfd_create when the entry is not taken (idx, -errno) or the
 * backing descriptor is adopted: closed before unlocking (and before its
 * maker is done), for the reason makers announce themselves: after, the
 * number may be the application's.  An adopted one is the caller's; once
 * it is a backing descriptor, it is ufd's: close-on-exec, and its
 * close-on-fork mark is the virtual descriptor's flag now.  Table lock
 * held.
 */
static void unmark(int fd);

__attribute__((noinline)) static void create_settle(int64_t idx, int backing,
						    uint32_t flags)
{
	if (idx < 0 && !(flags & VFD_ADOPT))
		ufd_sys_close(backing);
	if (idx >= 0 && (flags & VFD_ADOPT)) {
		ufd_sys_fcntl(backing, F_SETFD, FD_CLOEXEC);
		unmark(backing);
	}
}

/* vfd_create, every case. */
int vfd_create_placed(int real_fd, uint32_t flags, enum vfd_where where, int at)
{
	uint32_t at_idx = (uint32_t)at - FD_UNSEQ_BASE, value = 0;
	int backing = -EAGAIN, err, maker = 0;
	int64_t idx;

	if (vfd_in_vfork_child() || vfd_shared_maybe() || vfd_files_shared_now())
		return -EBUSY;
	vfd_init();
	/*
	 * The common case (random, a new backing descriptor): the backing
	 * descriptor is made first, by an announced maker (see "backing
	 * descriptors made outside the lock"), then recorded with the lock
	 * held, straight through.  Otherwise (a blocker, the whole placement
	 * policy needed, an exact or lowest number, an adopted descriptor)
	 * it is made and recorded in one hold of the lock, out of line where
	 * it can be.
	 */
	if (__builtin_expect(where == VFD_AT_RANDOM && !(flags & VFD_ADOPT), 1) &&
	    !single_threaded() && maker_start()) {
		maker = 1;
		backing = placement_try_backing(real_fd);
		if (backing < 0) {
			maker = 0;
			maker_end();
			if (backing != -EAGAIN)
				return backing;
		} else {
			/* Worked out before the lock, which a maker holds
			 * only for the allocation and the reverse map's
			 * entry. */
			value = vfd_slot_value(backing, flags);
		}
	}
	err = lock_table(0);
	if (err < 0) {
		if (maker) {
			ufd_sys_close(backing);
			maker_end();
		}
		return err;
	}
	if (__builtin_expect(!maker, 0)) {
		if (where == VFD_AT_EXACT &&
		    (err = create_exact(at_idx, real_fd, flags)) != 0) {
			unlock_table();
			return err < 0 ? err : at;
		}
		if (flags & VFD_ADOPT) {
			/* Guarded first, as new_backing does; made
			 * close-on-exec and unmarked once it is the backing
			 * descriptor (create_settle). */
			placement_guard(real_fd);
			backing = real_fd;
		} else if (backing == -EAGAIN) {
			set_lock_making();
			backing = placement_new_backing(real_fd);
			if (backing < 0) {
				unlock_table();
				return backing;
			}
		}
		value = vfd_slot_value(backing, flags);
	}
	if (__builtin_expect(maker || where == VFD_AT_RANDOM, 1))
		idx = fdmap_alloc_random(&vfd_map, value);
	else
		idx = alloc_at(where, at_idx, value);
	if (__builtin_expect(idx >= 0, 1)) {
		err = vfd_own_backing(backing, (uint32_t)idx);
		if (err < 0) {
			fdmap_release(&vfd_map, (uint32_t)idx);
			idx = err;
		}
	}
	if (__builtin_expect(idx < 0 || (flags & VFD_ADOPT), 0))
		create_settle(idx, backing, flags);
	unlock_table();
	if (maker)
		maker_end(); /* recorded, or closed: no longer at stake */
	if (idx < 0)
		return idx == -ERANGE ? -EBADF : (int)idx;
	UFD_LOG("new %u (backing %d)%s%s", FD_UNSEQ_BASE + (uint32_t)idx,
		backing, flags & VFD_CLOEXEC ? " cloexec" : "",
		flags & VFD_CLOFORK ? " clofork" : "");
	return (int)(FD_UNSEQ_BASE + (uint32_t)idx);
}

/* create_alone's way out when the backing descriptor could not be made
 * (backing < 0), given a slot (idx < 0) or recorded in the reverse map
 * (err < 0): undone, the error returned.  Table lock held. */
__attribute__((noinline, cold)) static int create_failed(int backing, int64_t idx,
							int err)
{
	if (backing < 0)
		return backing;
	if (idx >= 0) {
		fdmap_release(&vfd_map, (uint32_t)idx);
		idx = err;
	}
	ufd_sys_close(backing);
	return idx == -ERANGE ? -EBADF : (int)idx;
}

/*
 * The single-threaded paths' condition besides __libc_single_threaded:
 * the table is set up, the log is off (their lines and its hold are
 * left to the general paths), and no vfork is under way (its child's
 * creations are refused on the general path: vfd_vfork_begin).  Set by
 * init_maps, cleared by vfd_start if the constructor turned the log on
 * after that; cleared and set again around a vfork.
 */
static int alone_ok;
static int init_done; /* the maps are set up (init_maps) */
/* vfd_vfork_begin calls returning 1 not yet ended (a handler's vfork inside
 * another's): only the parent's thread changes it, while it is alone. */
static unsigned vfork_depth;

/* alone_ok's value once the maps are set up: not while a child may share
 * the memory (vfd_shared.h), which the single-threaded paths do not ask. */
static int alone_may(void)
{
	return !ufd_log_on && !__atomic_load_n(&vfork_depth, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&vfd_shared_clones, __ATOMIC_RELAXED) &&
	       !vfd_files_shared_now();
}

/* alone_ok again after a vfork is over (in its parent, or in a fork
 * child that came out of one): as init_maps left it, if it has run. */
static void alone_again(void)
{
	__atomic_store_n(&alone_ok, init_done && alone_may(), __ATOMIC_RELAXED);
}

void vfd_alone_recheck(void)
{
	alone_again();
}
static void init_maps(void);

static inline __attribute__((always_inline)) int alone(void)
{
	return __builtin_expect(__atomic_load_n(&alone_ok, __ATOMIC_RELAXED) &&
					single_threaded(),
				1);
}

/*
 * vfd_create's common case in a single-threaded process (alone): at
 * random, on a new backing descriptor made, recorded and its number thus
 * kept from the application's calls in one hold of the lock
 * (LOCK_MAKING), with no maker to announce.  The cost of making a virtual
 * descriptor is mostly here (issue 12's budget), so it stays in line and
 * straight.
 */
static inline __attribute__((always_inline)) int create_alone(int real_fd,
								uint32_t flags)
{
	int backing, err = 0;
	int64_t idx;

	if (lock_as(LOCK_ALONE | LOCK_MAKING, 0) < 0)
		return -EBUSY;
	backing = placement_new_backing(real_fd);
	idx = backing < 0 ? backing
			  : fdmap_alloc_random(&vfd_map, vfd_slot_value(backing, flags));
	if (__builtin_expect(idx >= 0, 1))
		err = vfd_own_backing(backing, (uint32_t)idx);
	if (__builtin_expect(idx < 0 || err < 0, 0))
		idx = create_failed(backing, idx, err);
	unlock_table();
	return idx < 0 ? (int)idx : (int)(FD_UNSEQ_BASE + (uint32_t)idx);
}

int vfd_create_random(int real_fd, uint32_t flags)
{
	if (alone())
		return create_alone(real_fd, flags);
	return vfd_create_placed(real_fd, flags, VFD_AT_RANDOM, 0);
}

/*
 * release_vfd in a child sharing its parent's memory (vfd_shared.h): the
 * table is its parent's, and stays as it is; the backing descriptor is
 * closed in the kernel (the child's own, or its parent's too if it shares
 * the kernel's table: then gone for the parent as the kernel's would be),
 * or, forgotten, returned.  Returns as release_vfd.
 */
static int shared_release(uint32_t idx, int close_backing)
{
	uint32_t v = fdmap_get(&vfd_map, idx);

	if (!(v & VFD_BUSY))
		return -EBADF;
	if (!close_backing)
		return vfd_backing_of(v);
	return ufd_sys_close(vfd_backing_of(v));
}

/* Close or forget virtual descriptor vfd: the shared part of both. */
static int release_vfd(int vfd, int close_backing)
{
	uint32_t idx = (uint32_t)vfd - FD_UNSEQ_BASE;
	int backing, closer = 0, r;

	if (!vfd_in_space(vfd))
		return -EBADF;
	if (vfd_shared_maybe())
		return shared_release(idx, close_backing);
	/*
	 * The backing descriptor is closed after unlocking: a close can
	 * block (SO_LINGER, an NFS flush, a FUSE file served by this very
	 * process), and every other thread's table change would wait for
	 * it.  Out of the reverse map and still open, its number looks
	 * nobody's until then: the closer announces itself as makers do, so
	 * that the application's dup2, close and close_range onto it wait
	 * (block_makers); with a blocker there, it closes inside the lock.
	 */
	if (close_backing && !single_threaded())
		closer = maker_start();
	if (lock_table(close_backing && !closer ? LOCK_MAKING : 0) < 0) {
		if (closer)
			maker_end();
		backing = release_deferred(idx, close_backing);
		if (backing != -EBADF)
			UFD_LOG("close %d (in a signal handler, deferred)", vfd);
		return backing;
	}
	backing = drop_entry_inline(idx);
	/* Linux frees the descriptor even when close reports an error
	 * (EINTR or EIO): the entry is gone either way, and the error is
	 * passed on. */
	r = backing;
	if (backing >= 0 && close_backing && !closer)
		r = ufd_sys_close(backing);
	unlock_table();
	if (backing >= 0 && closer)
		r = ufd_sys_close(backing);
	if (closer)
		maker_end();
	if (backing == -EBADF)
		return -EBADF;
	if (close_backing)
		placement_backing_closed(backing);
	UFD_LOG("close %d", vfd);
	return r;
}

/*
 * vfd_close in a single-threaded process (alone): the backing descriptor
 * is dropped and closed in one hold of the lock, its number kept from
 * the application's calls meanwhile (LOCK_MAKING), with no closer to
 * announce.  From a signal handler that interrupted a change to the
 * table, release_vfd's deferred close.
 */
static inline __attribute__((always_inline)) int close_alone(int vfd)
{
	int backing, r;

	if (lock_as(LOCK_ALONE | LOCK_MAKING, 0) < 0)
		return release_vfd(vfd, 1);
	backing = drop_entry_inline((uint32_t)vfd - FD_UNSEQ_BASE);
	/* The kernel's error passed on: the descriptor is gone anyway
	 * (release_vfd). */
	r = backing >= 0 ? ufd_sys_close(backing) : backing;
	unlock_table();
	if (backing < 0)
		return backing;
	placement_backing_closed(backing);
	return r;
}

int vfd_close_in_space(int vfd)
{
	if (alone())
		return close_alone(vfd);
	return release_vfd(vfd, 1);
}

int vfd_close(int vfd)
{
	return vfd_in_space(vfd) ? vfd_close_in_space(vfd) : -EBADF;
}

int vfd_forget(int vfd)
{
	return release_vfd(vfd, 0);
}

/* The first open virtual descriptor after `after` whose VFD_HIDDEN flag
 * is `hidden`, or -1. */
static int next_with_hidden(int after, uint32_t hidden)
{
	uint32_t from = vfd_in_space(after) ? (uint32_t)after - FD_UNSEQ_BASE + 1 : 0;
	int64_t idx;

	/* A listing is a snapshot, as the kernel's is: entries made or closed
	 * meanwhile may or may not show.  The lock keeps the walk over the
	 * bitmaps consistent; from a handler inside it, list nothing more. */
	if (vfd_lock() < 0)
		return -1;
	VFD_FOR_EACH_SLOT(&vfd_map, idx, from) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if ((v & VFD_BUSY) && (v & VFD_HIDDEN) == hidden)
			break;
	}
	vfd_unlock();
	return idx < 0 ? -1 : (int)(FD_UNSEQ_BASE + (uint32_t)idx);
}

int vfd_next_listed(int after)
{
	return next_with_hidden(after, 0);
}

int vfd_next_hidden(int after)
{
	return next_with_hidden(after, VFD_HIDDEN);
}

int vfd_next_backing(int from)
{
	int64_t b;

	if ((unsigned)from >= FD_UNSEQ_BASE || vfd_lock() < 0)
		return -1;
	b = revmap_next(&vfd_backing_map, (uint32_t)from);
	vfd_unlock();
	return b < 0 ? -1 : (int)b;
}

int vfd_get_flags(int vfd)
{
	uint32_t v = vfd_in_space(vfd) ? vfd_slot(vfd) : 0;

	return v ? (int)(v & VFD_FLAGS) : -EBADF;
}

int vfd_set_flags(int vfd, uint32_t mask, uint32_t flags)
{
	uint32_t idx = (uint32_t)vfd - FD_UNSEQ_BASE;

	if (!vfd_in_space(vfd))
		return -EBADF;
	/* A child sharing the memory changes no flag of its parent's: its
	 * exec hands nothing off (handoff.h), so the flags of its virtual
	 * descriptors no longer matter. */
	if (vfd_shared_maybe())
		return vfd_slot(vfd) ? 0 : -EBADF;
	mask &= VFD_FLAGS;
	if (!(vfd_update_open(&vfd_map, idx, mask, flags & mask) & VFD_BUSY))
		return -EBADF;
	vfd_shared_flags_changed(fdmap_get(&vfd_map, idx));
	return 0;
}

/* ---- real descriptors ---- */

uint32_t vfd_real_get_flags(int fd)
{
	uint32_t v = (uint32_t)fd < FD_UNSEQ_BASE ? fdmap_get(&vfd_mark_map, (uint32_t)fd) : 0;

	return v & VFD_BUSY ? v & VFD_FLAGS : 0;
}

/* Unmark real descriptor fd, lock-free (from close(), which may run in a
 * signal handler). */
static void unmark(int fd)
{
	/* Not the parent's mark, from a child sharing its memory. */
	if ((uint32_t)fd < FD_UNSEQ_BASE && !vfd_shared_maybe())
		vfd_update_open(&vfd_mark_map, (uint32_t)fd, ~0U, VFD_MARK_CLEARED);
}

/* Mark real descriptor fd (< FD_UNSEQ_BASE) with flags (non-zero).
 * Returns 0 or -ENOMEM.  Table lock held. */
static int set_mark(int fd, uint32_t flags)
{
	return fdmap_put(&vfd_mark_map, (uint32_t)fd, VFD_BUSY | flags);
}

int vfd_real_set_flags(int fd, uint32_t flags)
{
	int r;

	flags &= VFD_CLOFORK;
	/* A backing descriptor is not the application's to mark. */
	if ((uint32_t)fd >= FD_UNSEQ_BASE || vfd_owner(fd) >= 0)
		return -EBADF;
	if (!flags) {
		unmark(fd);
		return 0;
	}
	if (vfd_in_vfork_child())
		return -EBUSY;
	vfd_init();
	if (vfd_lock() < 0)
		return -EBUSY;
	r = set_mark(fd, flags);
	vfd_unlock();
	if (r < 0)
		return r;
	placement_guard(fd);
	return 0;
}

int vfd_real_closing(int fd)
{
	int owner = vfd_owner(fd);

	if (owner >= 0) {
		UFD_LOG("refused to close %d: it backs %d", fd, owner);
		return -EBADF;
	}
	unmark(fd);
	return 0;
}

int vfd_real_close(int fd, int (*close_fn)(int))
{
	/* A close of a number the application does not have (its bug:
	 * EBADF) must not close a backing descriptor being made there: the
	 * makers under way are waited for, and new ones make theirs inside
	 * the lock until the close is done.  The lock itself is not taken:
	 * every table change of every thread would wait for a close that may
	 * block.  From a signal handler that cannot wait, when makers are
	 * under way, the check and the close are not atomic, as they were
	 * before makers: the window is that bug's. */
	int blocked = block_makers() == 0 || block_makers_now() == 0;
	int r = vfd_real_closing(fd);

	r = r < 0 ? r : close_fn ? close_fn(fd) : ufd_sys_close(fd);
	if (blocked)
		unblock_makers();
	return r;
}

/*
 * If real descriptor fd is a backing descriptor, move it: a copy at a new
 * number, then the slot and the reverse map point at the copy.  fd itself
 * is left open and nobody's, for the caller's dup3 to replace (so that the
 * number is never free for a backing descriptor made meanwhile to take)
 * or to close.  With higher_only, only to a higher number (else it stays).
 * Returns 1 if it moved, 0 if fd is no backing descriptor (or stays), or
 * -errno (EMFILE, ENOMEM).  Table lock held.
 */
static int move_backing(int fd, int higher_only)
{
	int owner = vfd_owner(fd), moved, err;
	uint32_t idx = (uint32_t)owner - FD_UNSEQ_BASE, v;

	if (owner < 0)
		return 0;
	if (vfd_files_shared_now()) /* the other table may name it */
		return higher_only ? 0 : -EBUSY;
	v = fdmap_get(&vfd_map, idx);
	if (!(v & VFD_BUSY)) {
		/* a pending close: its number is free */
		vfd_disown_backing(fd, idx);
		return 0;
	}
	moved = placement_new_backing(fd);
	if (moved < 0)
		return moved;
	if (higher_only && moved < fd) {
		ufd_sys_close(moved);
		return 0;
	}
	err = vfd_own_backing(moved, idx);
	if (err < 0) {
		ufd_sys_close(moved);
		return err;
	}
	/* A compare-and-swap on the value as it is now, not as it was read
	 * before the move: another thread may have changed the flags since
	 * (that takes no lock). */
	v = vfd_update_open(&vfd_map, idx, ~VFD_FLAGS, vfd_slot_value(moved, 0));
	if (!(v & VFD_BUSY)) {
		/* A handler of this thread closed it meanwhile, and fd with
		 * it; unlocking finishes that close. */
		vfd_disown_backing(moved, idx);
		ufd_sys_close(moved);
		return 0;
	}
	vfd_disown_backing(fd, idx);
	UFD_LOG("moved the backing of %d from %d to %d: %s %d", owner, fd,
		moved, higher_only ? "the application's limit now covers"
				   : "the application replaces", fd);
	return 1;
}

int vfd_real_dup(int oldfd, int fd, int kflags, uint32_t mark)
{
	int moved, r;

	if (mark && vfd_in_vfork_child())
		return -EBUSY;
	/* A child sharing the memory (vfd_shared.h): no lock, no mark, no
	 * move; the kernel's dup3 alone, unless fd is a backing descriptor
	 * (its parent's to move). */
	if (vfd_shared_maybe()) {
		if (vfd_owner(fd) >= 0 || mark)
			return -EBUSY;
		return (int)ufd_sys6(SYS_dup3, vfd_translate(oldfd), fd, kflags, 0, 0, 0);
	}
	vfd_init();
	if (block_makers() < 0 || vfd_lock() < 0) {
		/* From a handler that interrupted a change to the table in
		 * this thread, or its making of a backing descriptor, which
		 * cannot be waited for: a backing descriptor cannot move, nor
		 * a mark be set, nor fd be one being made (EBUSY, a dup2
		 * error Linux has too, before anything changes); anything
		 * else is the kernel's dup3 alone.  (vfd_lock fails only
		 * where block_makers did.) */
		if (block_makers_now() < 0)
			return -EBUSY;
		if (vfd_owner(fd) >= 0 || mark) {
			r = -EBUSY;
		} else {
			r = (int)ufd_sys6(SYS_dup3, vfd_translate(oldfd), fd, kflags,
					  0, 0, 0);
			if (r >= 0)
				unmark(fd);
		}
		unblock_makers();
		return r;
	}
	moved = move_backing(fd, 0);
	if (moved < 0) {
		vfd_unlock();
		unblock_makers();
		return moved;
	}
	/* Translated only now: oldfd may be the virtual descriptor whose
	 * backing descriptor was at fd.  The kernel replaces fd atomically,
	 * with the lock held, so no backing descriptor is made meanwhile on
	 * fd or recorded after the check above. */
	r = (int)ufd_sys6(SYS_dup3, vfd_translate(oldfd), fd, kflags, 0, 0, 0);
	if (r < 0) {
		/* Refused (oldfd closed meanwhile by another thread, or fd
		 * past a lowered RLIMIT_NOFILE): fd stays as the kernel
		 * leaves it, not open for the application, so the backing
		 * descriptor that was there, nobody's now, goes. */
		if (moved)
			ufd_sys_close(fd);
	} else if (mark) {
		r = set_mark(fd, mark);
		r = r < 0 ? r : fd;
	} else {
		unmark(fd);
	}
	vfd_unlock();
	unblock_makers();
	return r;
}

/* ---- the application's RLIMIT_NOFILE ---- */

int vfd_set_nofile(const struct rlimit *new_rl, struct rlimit *old_rl,
		   int keep_regular)
{
	int64_t idx;
	int r;

	/* A child sharing the memory (vfd_shared.h): the kernel's limit
	 * alone, its own; ufd's placement and table are its parent's. */
	if (vfd_shared_child()) {
		unsigned shown = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

		r = (int)ufd_sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)new_rl,
				  (long)old_rl, 0, 0);
		if (r == 0 && old_rl && shown != UINT_MAX)
			old_rl->rlim_cur = shown;
		return r;
	}
	vfd_init();
	/* Makers waited for: theirs are placed under the limits as they
	 * were, and must be in vfd_map to be moved. */
	if (block_makers() < 0)
		return -EBUSY;
	if (vfd_lock() < 0) {
		unblock_makers();
		return -EBUSY;
	}
	r = placement_set_nofile(new_rl, old_rl);
	VFD_FOR_EACH_SLOT(&vfd_map, idx, 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);
		int b = vfd_backing_of(v);

		if (r != 0)
			break; /* the kernel refused the limit: nothing moves */
		if (!(v & VFD_BUSY) || !placement_misplaced(b) ||
		    (keep_regular ? ufd_sys_maybe_regular(b) : ufd_sys_file_locked(b)))
			continue;
		/* Moved, the old number is nobody's: closed under the lock, so
		 * that no new backing descriptor can be made there first. */
		if (move_backing(b, 1) == 1)
			ufd_sys_close(b);
	}
	vfd_unlock();
	unblock_makers();
	return r;
}

/* ---- close_range ---- */

/*
 * The real half of close_range: [first, last] below FD_UNSEQ_BASE, with
 * the kernel's close_range on each stretch between backing descriptors.
 * Table lock held, so that no backing descriptor appears in a stretch while
 * it is being closed.
 */
static int close_stretches(unsigned first, unsigned last, unsigned flags);

static int close_real_range(unsigned first, unsigned last, unsigned flags)
{
	int64_t m;

	/* Marking close-on-exec harms no backing descriptor (they all are). */
	if (flags & CLOSE_RANGE_CLOEXEC)
		return (int)ufd_sys6(SYS_close_range, first, last, flags, 0, 0, 0);
	VFD_FOR_EACH_SLOT(&vfd_mark_map, m, first) {
		if (m > last)
			break;
		fdmap_release(&vfd_mark_map, (uint32_t)m);
	}
	return close_stretches(first, last, flags);
}

/* close_real_range's closes: the kernel's close_range on each stretch of
 * [first, last] between backing descriptors.  Returns 0 or -errno. */
static int close_stretches(unsigned first, unsigned last, unsigned flags)
{
	while (first <= last) {
		int64_t b = revmap_next(&vfd_backing_map, first);
		unsigned end = b < 0 || (uint64_t)b > last ? last : (unsigned)b - 1;
		long r;

		if (b != (int64_t)first) {
			r = ufd_sys6(SYS_close_range, first, end, flags, 0, 0, 0);
			if (r < 0)
				return (int)r;
		}
		if (b < 0 || (uint64_t)b >= last)
			break;
		first = (unsigned)b + 1;
	}
	return 0;
}

/*
 * close_range in a child sharing its parent's memory (vfd_shared.h),
 * which must neither take the lock nor write the table, its parent's: the
 * real numbers in [first, last] closed but the backing descriptors, and
 * the backing descriptors of the virtual ones in it closed in the kernel
 * (the child's descriptors, unless it shares its parent's table too:
 * then the parent's virtual descriptor is gone as the kernel's would be).
 * Close-on-exec is already set on every backing descriptor.  The table
 * is read without the lock: a change its parent's other threads make
 * meanwhile may or may not be seen.
 */
static int shared_close_range(unsigned first, unsigned last, unsigned flags)
{
	unsigned real_last = last < FD_UNSEQ_BASE ? last : FD_UNSEQ_BASE - 1;
	int ret = 0;
	int64_t idx;

	if (first < FD_UNSEQ_BASE)
		ret = flags & CLOSE_RANGE_CLOEXEC
			      ? (int)ufd_sys6(SYS_close_range, first, real_last,
					      flags, 0, 0, 0)
			      : close_stretches(first, real_last, flags);
	if (ret || (flags & CLOSE_RANGE_CLOEXEC) || last < FD_UNSEQ_BASE ||
	    first >= FD_UNSEQ_LIMIT)
		return ret;
	VFD_FOR_EACH_SLOT(&vfd_map, idx, first > FD_UNSEQ_BASE ? first - FD_UNSEQ_BASE : 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if ((uint64_t)idx > (uint64_t)last - FD_UNSEQ_BASE)
			break;
		if ((v & VFD_BUSY) && !(v & VFD_HIDDEN))
			ufd_sys_close((int)(v >> VFD_REAL_SHIFT));
	}
	return 0;
}

int vfd_close_range(unsigned first, unsigned last, unsigned flags)
{
	int64_t idx;
	int ret, blocked = 0;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC) || first > last)
		return -EINVAL;
	if (vfd_shared_child())
		return shared_close_range(first, last, flags);
	/* Closing real numbers: none may be a backing descriptor being made
	 * (marking close-on-exec harms none). */
	if (first < FD_UNSEQ_BASE && !(flags & CLOSE_RANGE_CLOEXEC)) {
		ret = block_makers();
		if (ret < 0)
			return ret;
		blocked = 1;
	}
	ret = vfd_lock();
	if (ret < 0) {
		if (blocked)
			unblock_makers();
		return ret;
	}
	if (first < FD_UNSEQ_BASE)
		ret = close_real_range(first, last < FD_UNSEQ_BASE ? last
								   : FD_UNSEQ_BASE - 1,
				       flags);
	if (ret == 0 && last >= FD_UNSEQ_BASE && first < FD_UNSEQ_LIMIT) {
		uint32_t lo = first > FD_UNSEQ_BASE ? first - FD_UNSEQ_BASE : 0;
		uint32_t hi = last < FD_UNSEQ_LIMIT ? last - FD_UNSEQ_BASE
						    : FDMAP_SPACE - 1;

		VFD_FOR_EACH_SLOT(&vfd_map, idx, lo) {
			uint32_t v;

			if (idx > hi)
				break;
			v = fdmap_get(&vfd_map, (uint32_t)idx);
			/* A hidden one is a library's: only its own
			 * close closes it (vfd_table.h). */
			if (!(v & VFD_BUSY) || (v & VFD_HIDDEN))
				continue;
			/* vfd_set_flags: a compare-and-swap, since another
			 * thread may change the other flags meanwhile. */
			if (flags & CLOSE_RANGE_CLOEXEC)
				vfd_set_flags((int)(FD_UNSEQ_BASE + (uint32_t)idx),
					      VFD_CLOEXEC, VFD_CLOEXEC);
			else
				ufd_sys_close(drop_entry((uint32_t)idx));
		}
	}
	vfd_unlock();
	if (blocked)
		unblock_makers();
	return ret;
}


/* ---- vfork (vfd_table.h) ---- */

/* vfd_table.h.  Written by the wrapper's child path (shim_exec.c's vfork). */
int vfd_vfork_child;

int vfd_vfork_allowed(void)
{
	/* Nothing of ufd's in play (vfd_table.h), and no change to the table
	 * under way in this thread (a handler that interrupted one). */
	return single_threaded() && !vfd_in_vfork_child() &&
	       !ufd_settings.newfd_work && !ufd_settings.log &&
	       __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED) == UINT_MAX &&
	       !__atomic_load_n(&vfd_map.live, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&vfd_mark_map.live, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&table_lock, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&making, __ATOMIC_RELAXED);
}

int vfd_vfork_begin(void)
{
	if (!vfd_vfork_allowed())
		return 0;
	if (__atomic_fetch_add(&vfork_depth, 1, __ATOMIC_RELAXED) == 0)
		/* Creations and closes take the general paths until the end,
		 * where vfd_create_placed refuses the child's. */
		__atomic_store_n(&alone_ok, 0, __ATOMIC_RELAXED);
	/* Set before the vfork's system call, whatever the compiler does. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

void vfd_vfork_end(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* The child is gone (or was never made): the code that runs from
	 * here on is the parent's. */
	__atomic_store_n(&vfd_vfork_child, 0, __ATOMIC_RELAXED);
	/* A child killed by a signal inside a call leaves the lock and its
	 * blocker count held here.  Both were free at vfd_vfork_begin, and
	 * this thread's own handlers let go of what they took before they
	 * returned: anything held now is the dead child's. */
	if (__atomic_load_n(&table_lock, __ATOMIC_RELAXED))
		__atomic_store_n(&table_lock, 0, __ATOMIC_RELAXED);
	if (__atomic_load_n(&making, __ATOMIC_RELAXED))
		__atomic_store_n(&making, 0, __ATOMIC_RELAXED);
	/* The child shared this thread's thread-locals: the id it looked up
	 * is its own, which a new thread may be given once it is gone. */
	tid_cache = 0;
	if (__atomic_sub_fetch(&vfork_depth, 1, __ATOMIC_RELAXED) == 0)
		alone_again();
}

/* ---- fork ---- */

/* Whether fork_prepare took the lock (it cannot from a handler that
 * interrupted this thread inside it), and blocked makers (it cannot from
 * one that interrupted this thread inside the lock or making a backing
 * descriptor).  Set only in a process with threads, and cleared by the
 * handler that undoes them: a single-threaded fork writes neither (each
 * page written around a fork is a page fault in the parent or the child). */
static int fork_locked, fork_blocked;

/* Makers are waited for, so that the child has no backing descriptor that
 * is in no table.  When they cannot be (a fork from a signal handler), the
 * other threads' backing descriptors under way are in the child as
 * numbers nobody owns, until it exits or execs (they are close-on-exec).
 * A single-threaded process has no other thread to wait for or keep out:
 * its own thread holds the lock or makes a backing descriptor only if
 * this fork comes from a signal handler that interrupted it, when neither
 * could be taken anyway; fork_child tells the two apart by the lock word. */
UFD_FORK void vfd_fork_prepare(void)
{
	if (single_threaded()) {
		/* Read here, not written: the child reads the lock word, and
		 * a page the parent never touched would be a fault in every
		 * child, where the parent's read maps it once. */
		(void)__atomic_load_n(&table_lock, __ATOMIC_RELAXED);
		return;
	}
	/* A child sharing the memory: its parent's lock and makers are
	 * not its own to hold (vfd_shared.h). */
	if (vfd_shared_child())
		return;
	fork_blocked = block_makers() == 0;
	fork_locked = vfd_lock() == 0;
}

UFD_FORK void vfd_fork_parent(void)
{
	if (fork_locked) {
		fork_locked = 0;
		vfd_unlock();
	}
	if (fork_blocked) {
		fork_blocked = 0;
		unblock_makers();
	}
}

/*
 * In the child: the table is consistent if the forking thread held the
 * lock (fork_prepare) or nobody did (a single-threaded fork); then start
 * the lock afresh, draw apart from the parent and close the close-on-fork
 * descriptors, which the child never had.  Words are written only when
 * they change, so that a process without virtual descriptors copies no
 * page of ufd's here.
 */
UFD_FORK void vfd_fork_child(void)
{
	int locked = fork_locked;
	uint32_t held = __atomic_load_n(&table_lock, __ATOMIC_RELAXED);
	int64_t idx;

	if (locked | fork_blocked)
		fork_locked = fork_blocked = 0;
	if (tid_cache)
		tid_cache = 0;
	/* Memory of its own: no child shares it. */
	vfd_shared_forked();
	/* A fork from a vfork child, or from a handler inside a vfork: this
	 * child has memory of its own. */
	if (__atomic_load_n(&vfork_depth, __ATOMIC_RELAXED)) {
		__atomic_store_n(&vfork_depth, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&vfd_vfork_child, 0, __ATOMIC_RELAXED);
		alone_again();
	}
	ufd_log_fork_child(locked);
	/* The other threads are not in the child, nor are their makers and
	 * blockers.  This thread's maker, if a handler forked in the middle
	 * of it, resumes here and finishes (maker_end does not count below
	 * zero); until then, only this thread's handler could block makers,
	 * and it does not wait for its own thread's (maker_here). */
	if (__atomic_load_n(&making, __ATOMIC_RELAXED))
		__atomic_store_n(&making, 0, __ATOMIC_RELAXED);
	if (!locked && held) {
		/* fork from a handler that interrupted this thread inside the
		 * lock: the interrupted change resumes here too and unlocks.
		 * Until then the lock is this thread's, under its new id, so
		 * that the handler's own calls see it held by themselves
		 * (-EBUSY) rather than wait forever for a thread that is not
		 * in this process. */
		__atomic_store_n(&table_lock,
				 my_tid() | (held & ~(LOCK_TID | LOCK_WAITERS)),
				 __ATOMIC_RELAXED);
		return;
	}
	if (held)
		table_lock = 0;
	/* A fixed seed (UFD_SEED): children derive theirs from the parent's
	 * generator, so that test runs stay reproducible (and draw apart
	 * from the parent's even if it has set up nothing yet).  Else the
	 * child draws a seed of its own from the kernel at its first draw,
	 * if any; and a parent that set up nothing has nothing to undo: the
	 * maps' pages are not read (each would be a page fault here). */
	if (ufd_settings.seed_fixed) {
		if (!init_done)
			init_maps();
		fdmap_reseed(&vfd_map, vfd_map.rng[0] ^ 0x5eed0f0c4ULL);
	} else if (init_done) {
		fdmap_seed_later(&vfd_map, kernel_seed);
	} else {
		return;
	}
	VFD_FOR_EACH_SLOT(&vfd_map, idx, 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if (!(v & VFD_BUSY))
			drop_entry((uint32_t)idx);
		else if (v & VFD_CLOFORK)
			ufd_sys_close(drop_entry((uint32_t)idx));
	}
	/* The walk finished every pending close (a parent's holder drains
	 * them only after letting go of the lock, which may follow the fork). */
	__atomic_store_n(&pending_n, 0, __ATOMIC_RELAXED);
	VFD_FOR_EACH_SLOT(&vfd_mark_map, idx, 0) {
		if ((fdmap_get(&vfd_mark_map, (uint32_t)idx) & VFD_BUSY) &&
		    vfd_owner((int)idx) < 0)
			ufd_sys_close((int)idx);
		fdmap_release(&vfd_mark_map, (uint32_t)idx);
	}
}

/* ---- set-up ---- */

/*
 * The maps' set-up.  Neither a lookup nor the fork handlers need it (an
 * empty map answers "not open" and its limit of 0 gives the child's walks
 * nothing to walk), so it waits for the first change to the table: most
 * processes never make a virtual descriptor and never touch the maps'
 * pages.  vfd_map's generator is seeded at its first draw (from the
 * kernel) or now (UFD_SEED: no system call, and reproducible).  Table lock
 * held, or a fork child that holds it.
 */
static void init_maps(void)
{
	fdmap_init(&vfd_map, FDMAP_SPACE, ufd_settings.seed);
	if (!ufd_settings.seed_fixed)
		fdmap_seed_later(&vfd_map, kernel_seed);
	fdmap_init(&vfd_mark_map, FD_UNSEQ_BASE, 0);
	__atomic_store_n(&alone_ok, alone_may(), __ATOMIC_RELAXED);
	__atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
}

/* vfd_init's first call, out of line.  Under the table lock rather than
 * pthread_once, which a signal handler may not call: a handler that
 * interrupted its own thread inside the lock sets nothing up, and the
 * caller's own taking of the lock fails the same way (-EBUSY). */
static __attribute__((noinline, cold)) void init_first(void)
{
	/* Before the constructor, from another library's: the maps' set-up
	 * reads the settings. */
	ufd_settings_load();
	if (vfd_lock() < 0)
		return;
	if (!init_done)
		init_maps();
	vfd_unlock();
}

void vfd_init(void)
{
	if (__builtin_expect(!__atomic_load_n(&init_done, __ATOMIC_ACQUIRE), 0))
		init_first();
}

/*
 * The fork handlers, at start-up whether or not a virtual descriptor is
 * ever made: registered first, so that they run around every handler the
 * program registers (whose own calls may make or close virtual
 * descriptors).  Touches none of the table's pages unless a table was set
 * up before the constructor turned the log on: the single-threaded paths
 * write no log lines (alone_ok).
 */
UFD_STARTUP void vfd_start(void)
{
	pthread_atfork(vfd_fork_prepare, vfd_fork_parent, vfd_fork_child);
	if (__builtin_expect(ufd_settings.log != NULL, 0) &&
	    __atomic_load_n(&init_done, __ATOMIC_ACQUIRE) && ufd_log_on)
		__atomic_store_n(&alone_ok, 0, __ATOMIC_RELAXED);
}
