/* SPDX-License-Identifier: MIT */
/*
 * vfd_table.c - the process's virtual descriptor table (see vfd_table.h).
 *
 * Locking rule: every change to vfd_map, vfd_backing_map and mark_map that
 * frees or takes a slot is made with table_lock held; lookups and flag
 * changes (fdmap_get, fdmap_cas) take no lock.  No function here calls a
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
#include "vfd_table.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <linux/memfd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "placement.h"
#include "settings.h"
#include "sys.h"
#include "text.h"

struct fdmap vfd_map;
struct fdmap vfd_backing_map;

/* Close-on-fork marks of real descriptors: slot fd holds VFD_BUSY | flags
 * while marked, MARK_CLEARED once a lock-free clear has unmarked it. */
static struct fdmap mark_map;
#define MARK_CLEARED 0x100U

/* ---- the table lock ----
 *
 * A futex mutex whose word holds the holder's thread id (0 when free) and
 * LOCK_WAITERS when others may be waiting, so that a thread can tell that
 * it holds the lock itself.  Raw futex calls rather than pthread_mutex, so
 * that fork handlers can reset it and it never calls into libc.
 */
#define LOCK_WAITERS 0x80000000U
#define TLS_IE __attribute__((tls_model("initial-exec")))

static uint32_t table_lock;
static __thread uint32_t tid_cache TLS_IE; /* this thread's id, 0 = unknown */

/* Closes made from a signal handler while its thread held the lock: slot
 * indexes whose bookkeeping the holder finishes. */
#define PENDING_MAX 256
static uint32_t pending[PENDING_MAX];
static uint32_t pending_n;
/* Set when a close found pending[] full: the holder then sweeps the map
 * for every closed-but-unfreed slot instead. */
static uint32_t pending_lost;

static uint32_t my_tid(void)
{
	if (!tid_cache)
		tid_cache = (uint32_t)ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	return tid_cache;
}

static void futex(uint32_t *addr, int op, uint32_t val)
{
	ufd_sys6(SYS_futex, (long)addr, op | FUTEX_PRIVATE_FLAG, val, 0, 0, 0);
}

static void drain_pending(void);

/*
 * Take the lock.  Returns 0, or -EBUSY if this thread holds it already:
 * the caller is a signal handler that interrupted a change to the table,
 * and waiting would deadlock.
 */
static int lock_table(void)
{
	uint32_t me = my_tid(), c = 0;

	/* Before the lock is taken, so that no line is written while held. */
	ufd_log_hold();
	if (!__atomic_compare_exchange_n(&table_lock, &c, me, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		if ((c & ~LOCK_WAITERS) == me) {
			ufd_log_release();
			return -EBUSY;
		}
		for (;;) {
			if (c == 0) {
				/* Taken after waiting: others may wait too. */
				if (__atomic_compare_exchange_n(
					    &table_lock, &c, me | LOCK_WAITERS, 0,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
					break;
				continue;
			}
			if (!(c & LOCK_WAITERS) &&
			    !__atomic_compare_exchange_n(&table_lock, &c,
							 c | LOCK_WAITERS, 0,
							 __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED))
				continue;
			futex(&table_lock, FUTEX_WAIT, c | LOCK_WAITERS);
			/* A handler may have forked meanwhile: in the child,
			 * this thread has another id. */
			me = my_tid();
			c = __atomic_load_n(&table_lock, __ATOMIC_RELAXED);
		}
	}
	drain_pending();
	return 0;
}

static void unlock_table(void)
{
	drain_pending();
	if (__atomic_exchange_n(&table_lock, 0, __ATOMIC_RELEASE) & LOCK_WAITERS)
		futex(&table_lock, FUTEX_WAKE, 1);
	ufd_log_release(); /* writes the lines held meanwhile */
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

static uint32_t slot_value(int backing, uint32_t flags)
{
	return (uint32_t)backing << VFD_REAL_SHIFT | VFD_BUSY | (flags & VFD_FLAGS);
}

static int backing_of(uint32_t value)
{
	return (int)(value >> VFD_REAL_SHIFT);
}

/*
 * Record in the reverse map that backing descriptor `backing` belongs to
 * map slot idx.  A stale entry for the same number (its descriptor closed
 * behind ufd's back and the number reused) is overwritten.  Returns 0 or
 * -ENOMEM.  Table lock held.
 */
static int own_backing(int backing, uint32_t idx)
{
	int64_t r;

	if (fdmap_replace(&vfd_backing_map, (uint32_t)backing, idx + 1))
		return 0;
	r = fdmap_alloc_exact(&vfd_backing_map, (uint32_t)backing, idx + 1);
	return r < 0 ? (int)r : 0;
}

/* Drop the reverse entry of `backing` if it still names slot idx. */
static void disown_backing(int backing, uint32_t idx)
{
	if (fdmap_get(&vfd_backing_map, (uint32_t)backing) == idx + 1)
		fdmap_release(&vfd_backing_map, (uint32_t)backing);
}

/*
 * Remove map slot idx, open or pending, and the reverse entry of its
 * backing descriptor.  Returns that backing descriptor (for the caller to
 * close, or not) if the slot was open, -EBADF if it was free or pending.
 * Table lock held.
 */
static int drop_entry(uint32_t idx)
{
	uint32_t old = fdmap_release(&vfd_map, idx);

	if (!old)
		return -EBADF;
	disown_backing(backing_of(old), idx);
	return old & VFD_BUSY ? backing_of(old) : -EBADF;
}

/* Finish the closes that signal handlers left pending.  Table lock held
 * (by this thread: the only one that can push, from its handlers). */
static void drain_pending(void)
{
	uint32_t n;
	int64_t slot;

	while ((n = __atomic_load_n(&pending_n, __ATOMIC_SEQ_CST)) > 0) {
		uint32_t idx = pending[n - 1];

		/* A handler may push between the read and the pop: retry. */
		if (__atomic_compare_exchange_n(&pending_n, &n, n - 1, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) &&
		    !(fdmap_get(&vfd_map, idx) & VFD_BUSY))
			drop_entry(idx);
	}
	/* A signal storm overflowed pending[] (seen under TSan, which runs
	 * queued handlers in bursts): find the lost slots.  An allocated slot
	 * without VFD_BUSY is always one a handler closed.  Rare, so O(map). */
	if (__atomic_exchange_n(&pending_lost, 0, __ATOMIC_SEQ_CST))
		for (slot = fdmap_next_busy(&vfd_map, 0); slot >= 0;
		     slot = fdmap_next_busy(&vfd_map, (uint32_t)slot + 1))
			if (!(fdmap_get(&vfd_map, (uint32_t)slot) & VFD_BUSY))
				drop_entry((uint32_t)slot);
}

/*
 * Close (or forget) slot idx from a signal handler that interrupted this
 * thread inside the lock: mark it closed with one atomic step, so that
 * lookups see it closed at once, close its backing descriptor if asked,
 * and leave freeing the slot to the interrupted holder, through pending[]
 * or, when that is full, a sweep of the whole map.
 */
static int release_deferred(uint32_t idx, int close_backing)
{
	uint32_t v, n;

	do {
		v = fdmap_get(&vfd_map, idx);
		if (!(v & VFD_BUSY))
			return -EBADF;
	} while (!fdmap_cas(&vfd_map, idx, v, v & ~VFD_BUSY));
	n = __atomic_fetch_add(&pending_n, 1, __ATOMIC_SEQ_CST);
	if (n < PENDING_MAX) {
		pending[n] = idx;
	} else {
		__atomic_fetch_sub(&pending_n, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&pending_lost, 1, __ATOMIC_SEQ_CST);
	}
	return close_backing ? ufd_sys_close(backing_of(v)) : backing_of(v);
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
	int backing = backing_of(cur), r;
	uint32_t v;

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
	do
		v = fdmap_get(&vfd_map, idx);
	while ((v & VFD_BUSY) &&
	       !fdmap_cas(&vfd_map, idx, v, slot_value(backing, flags)));
	return 0;
}

static void unmark(int fd);

int vfd_create(int real_fd, uint32_t flags, enum vfd_where where, int at)
{
	uint32_t cur, at_idx = (uint32_t)at - FD_UNSEQ_BASE;
	int backing, err;
	int64_t idx;

	vfd_init();
	/*
	 * The backing descriptor is made and recorded in the reverse map in
	 * one hold of the lock.  Made before it, it would be, until
	 * recorded, a number that the application's dup2 onto it (which
	 * holds the lock, vfd_real_dup) finds nobody's and replaces: the new
	 * virtual descriptor would be on the application's file.
	 */
	err = lock_table();
	if (err < 0)
		return err;
	if (where == VFD_AT_EXACT) {
		cur = fdmap_get(&vfd_map, at_idx);
		if (cur & VFD_BUSY) {
			err = replace_in_place(at_idx, cur, real_fd, flags);
			unlock_table();
			if (err < 0)
				return err;
			UFD_LOG("new %d: replaced the open one in place%s%s", at,
				flags & VFD_CLOEXEC ? " cloexec" : "",
				flags & VFD_CLOFORK ? " clofork" : "");
			return at;
		}
		if (cur) /* pending from a handler: finish that first */
			drop_entry(at_idx);
	}
	if (flags & VFD_ADOPT) {
		/* Guarded first, as new_backing does; made close-on-exec and
		 * unmarked once it is the backing descriptor, below. */
		placement_guard(real_fd);
		backing = real_fd;
	} else {
		backing = placement_new_backing(real_fd);
	}
	if (backing < 0) {
		unlock_table();
		return backing;
	}
	switch (where) {
	case VFD_AT_EXACT:
		idx = fdmap_alloc_exact(&vfd_map, at_idx, slot_value(backing, flags));
		break;
	case VFD_AT_LOWEST:
		idx = fdmap_alloc_from(&vfd_map, at_idx, slot_value(backing, flags));
		break;
	default:
		idx = fdmap_alloc_random(&vfd_map, slot_value(backing, flags));
		break;
	}
	if (idx >= 0) {
		err = own_backing(backing, (uint32_t)idx);
		if (err < 0) {
			fdmap_release(&vfd_map, (uint32_t)idx);
			idx = err;
		}
	}
	/* Closed before unlocking, for the same reason: after, the number
	 * may be the application's.  An adopted one is the caller's; once
	 * it is a backing descriptor, it is ufd's: close-on-exec, and its
	 * close-on-fork mark is the virtual descriptor's flag now. */
	if (idx < 0 && !(flags & VFD_ADOPT))
		ufd_sys_close(backing);
	if (idx >= 0 && (flags & VFD_ADOPT)) {
		ufd_sys_fcntl(backing, F_SETFD, FD_CLOEXEC);
		unmark(backing);
	}
	unlock_table();
	if (idx < 0)
		return idx == -ERANGE ? -EBADF : (int)idx;
	UFD_LOG("new %u (backing %d)%s%s", FD_UNSEQ_BASE + (uint32_t)idx,
		backing, flags & VFD_CLOEXEC ? " cloexec" : "",
		flags & VFD_CLOFORK ? " clofork" : "");
	return (int)(FD_UNSEQ_BASE + (uint32_t)idx);
}

/* Close or forget virtual descriptor vfd: the shared part of both. */
static int release_vfd(int vfd, int close_backing)
{
	uint32_t idx = (uint32_t)vfd - FD_UNSEQ_BASE;
	int backing;

	if (!vfd_in_space(vfd))
		return -EBADF;
	if (lock_table() < 0) {
		backing = release_deferred(idx, close_backing);
		if (backing != -EBADF)
			UFD_LOG("close %d (in a signal handler, deferred)", vfd);
		return backing;
	}
	backing = drop_entry(idx);
	unlock_table();
	if (backing == -EBADF)
		return -EBADF;
	UFD_LOG("close %d", vfd);
	if (!close_backing)
		return backing;
	/*
	 * Closed after unlocking: a close can block (SO_LINGER, an NFS
	 * flush, a FUSE file served by this very process), and every other
	 * thread's table change would wait for it.  The price is a narrow
	 * window in which an application's dup2 onto the number, now nobody's,
	 * would be closed here.  Linux frees the descriptor even when close
	 * reports an error (EINTR or EIO): the entry is gone either way, and
	 * the error is passed on.
	 */
	return ufd_sys_close(backing);
}

int vfd_close(int vfd)
{
	return release_vfd(vfd, 1);
}

int vfd_forget(int vfd)
{
	return release_vfd(vfd, 0);
}

int vfd_next_listed(int after)
{
	uint32_t from = vfd_in_space(after) ? (uint32_t)after - FD_UNSEQ_BASE + 1 : 0;
	int64_t idx;

	/* A listing is a snapshot, as the kernel's is: entries made or closed
	 * meanwhile may or may not show.  The lock keeps the walk over the
	 * bitmaps consistent; from a handler inside it, list nothing more. */
	if (lock_table() < 0)
		return -1;
	for (idx = fdmap_next_busy(&vfd_map, from); idx >= 0;
	     idx = fdmap_next_busy(&vfd_map, (uint32_t)idx + 1)) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if ((v & VFD_BUSY) && !(v & VFD_HIDDEN))
			break;
	}
	unlock_table();
	return idx < 0 ? -1 : (int)(FD_UNSEQ_BASE + (uint32_t)idx);
}

int vfd_get_flags(int vfd)
{
	uint32_t v = vfd_in_space(vfd) ? vfd_slot(vfd) : 0;

	return v ? (int)(v & VFD_FLAGS) : -EBADF;
}

int vfd_set_flags(int vfd, uint32_t mask, uint32_t flags)
{
	uint32_t idx = (uint32_t)vfd - FD_UNSEQ_BASE, v;

	if (!vfd_in_space(vfd))
		return -EBADF;
	mask &= VFD_FLAGS;
	do {
		v = fdmap_get(&vfd_map, idx);
		if (!(v & VFD_BUSY))
			return -EBADF;
	} while (!fdmap_cas(&vfd_map, idx, v, (v & ~mask) | (flags & mask)));
	return 0;
}

/* ---- real descriptors ---- */

uint32_t vfd_real_get_flags(int fd)
{
	uint32_t v = (uint32_t)fd < FD_UNSEQ_BASE ? fdmap_get(&mark_map, (uint32_t)fd) : 0;

	return v & VFD_BUSY ? v & VFD_FLAGS : 0;
}

/* Unmark real descriptor fd, lock-free (from close(), which may run in a
 * signal handler). */
static void unmark(int fd)
{
	uint32_t v;

	if ((uint32_t)fd >= FD_UNSEQ_BASE)
		return;
	do {
		v = fdmap_get(&mark_map, (uint32_t)fd);
		if (!(v & VFD_BUSY))
			return;
	} while (!fdmap_cas(&mark_map, (uint32_t)fd, v, MARK_CLEARED));
}

/* Mark real descriptor fd (< FD_UNSEQ_BASE) with flags (non-zero).
 * Returns 0 or -ENOMEM.  Table lock held. */
static int set_mark(int fd, uint32_t flags)
{
	int64_t r = 0;

	if (!fdmap_replace(&mark_map, (uint32_t)fd, VFD_BUSY | flags))
		r = fdmap_alloc_exact(&mark_map, (uint32_t)fd, VFD_BUSY | flags);
	return r < 0 ? (int)r : 0;
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
	vfd_init();
	if (lock_table() < 0)
		return -EBUSY;
	r = set_mark(fd, flags);
	unlock_table();
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

int vfd_real_close(int fd)
{
	int r = vfd_real_closing(fd);

	/* The check and the close are not atomic: a close of a number the
	 * application does not have (its bug: EBADF) could close a backing
	 * descriptor another thread makes there meanwhile.  Closing under the
	 * table lock would shut that window, but make every table change of
	 * every thread wait for a close that may block. */
	return r < 0 ? r : ufd_sys_close(fd);
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
	v = fdmap_get(&vfd_map, idx);
	if (!(v & VFD_BUSY)) {
		/* a pending close: its number is free */
		disown_backing(fd, idx);
		return 0;
	}
	moved = placement_new_backing(fd);
	if (moved < 0)
		return moved;
	if (higher_only && moved < fd) {
		ufd_sys_close(moved);
		return 0;
	}
	err = own_backing(moved, idx);
	if (err < 0) {
		ufd_sys_close(moved);
		return err;
	}
	/* A compare-and-swap on the value as it is now, not as it was read
	 * before the move: another thread may have changed the flags since
	 * (that takes no lock). */
	do
		v = fdmap_get(&vfd_map, idx);
	while ((v & VFD_BUSY) &&
	       !fdmap_cas(&vfd_map, idx, v, slot_value(moved, v & VFD_FLAGS)));
	if (!(v & VFD_BUSY)) {
		/* A handler of this thread closed it meanwhile, and fd with
		 * it; unlocking finishes that close. */
		disown_backing(moved, idx);
		ufd_sys_close(moved);
		return 0;
	}
	disown_backing(fd, idx);
	UFD_LOG("moved the backing of %d from %d to %d: %s %d", owner, fd,
		moved, higher_only ? "the application's limit now covers"
				   : "the application replaces", fd);
	return 1;
}

int vfd_real_dup(int oldfd, int fd, int kflags, uint32_t mark)
{
	int moved, r;

	vfd_init();
	if (lock_table() < 0) {
		/* From a handler that interrupted a change to the table in
		 * this thread, which cannot be waited for: a backing
		 * descriptor cannot move, nor a mark be set (EBUSY, a dup2
		 * error Linux has too, before anything changes); anything
		 * else is the kernel's dup3 alone. */
		if (vfd_owner(fd) >= 0 || mark)
			return -EBUSY;
		r = (int)ufd_sys6(SYS_dup3, vfd_translate(oldfd), fd, kflags, 0, 0, 0);
		if (r >= 0)
			unmark(fd);
		return r;
	}
	moved = move_backing(fd, 0);
	if (moved < 0) {
		unlock_table();
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
	unlock_table();
	return r;
}

/* ---- the application's RLIMIT_NOFILE ---- */

int vfd_set_nofile(const struct rlimit *new_rl, struct rlimit *old_rl,
		   int keep_regular)
{
	int64_t idx;
	int r;

	vfd_init();
	if (lock_table() < 0)
		return -EBUSY;
	r = placement_set_nofile(new_rl, old_rl);
	for (idx = r == 0 ? fdmap_next_busy(&vfd_map, 0) : -1; idx >= 0;
	     idx = fdmap_next_busy(&vfd_map, (uint32_t)idx + 1)) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);
		int b = backing_of(v);

		if (!(v & VFD_BUSY) || !placement_misplaced(b) ||
		    (keep_regular && ufd_sys_maybe_regular(b)))
			continue;
		/* Moved, the old number is nobody's: closed under the lock, so
		 * that no new backing descriptor can be made there first. */
		if (move_backing(b, 1) == 1)
			ufd_sys_close(b);
	}
	unlock_table();
	return r;
}

/* ---- close_range ---- */

/*
 * The real half of close_range: [first, last] below FD_UNSEQ_BASE, with
 * the kernel's close_range on each stretch between backing descriptors.
 * Table lock held, so that no backing descriptor appears in a stretch while
 * it is being closed.
 */
static int close_real_range(unsigned first, unsigned last, unsigned flags)
{
	int64_t m;

	/* Marking close-on-exec harms no backing descriptor (they all are). */
	if (flags & CLOSE_RANGE_CLOEXEC)
		return (int)ufd_sys6(SYS_close_range, first, last, flags, 0, 0, 0);
	for (m = fdmap_next_busy(&mark_map, first); m >= 0 && m <= last;
	     m = fdmap_next_busy(&mark_map, (uint32_t)m + 1))
		fdmap_release(&mark_map, (uint32_t)m);
	while (first <= last) {
		int64_t b = fdmap_next_busy(&vfd_backing_map, first);
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

int vfd_close_range(unsigned first, unsigned last, unsigned flags)
{
	int64_t idx;
	int ret;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC) || first > last)
		return -EINVAL;
	ret = lock_table();
	if (ret < 0)
		return ret;
	if (first < FD_UNSEQ_BASE)
		ret = close_real_range(first, last < FD_UNSEQ_BASE ? last
								   : FD_UNSEQ_BASE - 1,
				       flags);
	if (ret == 0 && last >= FD_UNSEQ_BASE && first < FD_UNSEQ_LIMIT) {
		uint32_t lo = first > FD_UNSEQ_BASE ? first - FD_UNSEQ_BASE : 0;
		uint32_t hi = last < FD_UNSEQ_LIMIT ? last - FD_UNSEQ_BASE
						    : FDMAP_SPACE - 1;

		for (idx = fdmap_next_busy(&vfd_map, lo); idx >= 0 && idx <= hi;
		     idx = fdmap_next_busy(&vfd_map, (uint32_t)idx + 1)) {
			uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

			if (!(v & VFD_BUSY))
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
	unlock_table();
	return ret;
}

/* ---- exec hand-off ----
 *
 * The hand-off is one environment entry:
 *
 *   UFD_HANDOFF=2;<pid>;<entry>,<entry>,...     for an exec
 *   UFD_HANDOFF=2;s<pid>;<entry>,<entry>,...    for a spawn
 *
 * where <pid> is the process's, which the new program checks against its
 * own pid (exec keeps it) or, after s, its parent's (posix_spawn, system,
 * popen); a grandchild that finds a stale entry in its environment has
 * neither.  Each entry is either
 * <vfd>=<backing>/<flags>/<dev>/<ino> (a virtual descriptor, the inherited
 * real descriptor behind it and the device and inode of its file) or
 * <fd>/<flags> (a real descriptor's close-on-fork mark), all in decimal.
 * The new program takes a backing descriptor over only if it still holds
 * that file: a posix_spawn file action may have closed the number, or
 * dup'd another file onto it, on the way.
 *
 * The kernel takes no environment string longer than 128 KiB
 * (MAX_ARG_STRLEN), some 2,000 entries.  A longer list goes in a memfd the
 * new program inherits, and the entry names that instead:
 *
 *   UFD_HANDOFF=2;<pid>;@<fd>/<dev>/<ino>,
 *
 * The new program maps it, closes it and reads the list from the mapping.
 */
#define HANDOFF_NAME "UFD_HANDOFF="

/* Does virtual descriptor slot value v survive an exec (spawn: a fork
 * and an exec)? */
static int exec_keeps_none;

static int survives(uint32_t v, int spawn)
{
	return (v & VFD_BUSY) && !(v & VFD_CLOEXEC) &&
	       !(spawn && (v & VFD_CLOFORK)) && !exec_keeps_none;
}

/* A mark's bit: the real descriptor was not close-on-exec for the kernel
 * before a spawn made it so (see set_inheritable). */
#define MARK_WAS_INHERITABLE 0x10U

/*
 * Before an exec (inheritable 1): the backing descriptor of every virtual
 * descriptor that survives it loses the kernel's close-on-exec flag; for a
 * spawn, whose child is a fork child too, every real descriptor marked
 * close-on-fork gets it, so that the child does not keep it.  After
 * (inheritable 0): all back as they were, and every backing descriptor
 * close-on-exec.  Table lock held.
 */
static void set_inheritable(int inheritable, int spawn)
{
	int64_t idx;

	for (idx = fdmap_next_busy(&vfd_map, 0); idx >= 0;
	     idx = fdmap_next_busy(&vfd_map, (uint32_t)idx + 1)) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		/* After, not just those that survive by their flags now:
		 * flags change without the lock, so they may not be the ones
		 * the backing descriptors were made inheritable by. */
		if (inheritable ? survives(v, spawn) : (v & VFD_BUSY) != 0)
			ufd_sys_fcntl(backing_of(v), F_SETFD,
				      inheritable ? 0 : FD_CLOEXEC);
	}
	for (idx = spawn ? fdmap_next_busy(&mark_map, 0) : -1; idx >= 0;
	     idx = fdmap_next_busy(&mark_map, (uint32_t)idx + 1)) {
		uint32_t m = fdmap_get(&mark_map, (uint32_t)idx);
		int fd = (int)idx, kernel;

		/* The lock-free change to a mark is unmark(), which clears
		 * it: a compare-and-swap that fails means the descriptor was
		 * closed, replaced or unmarked meanwhile, and is left alone. */
		if (!(m & VFD_BUSY))
			continue;
		if (inheritable) {
			kernel = ufd_sys_fcntl(fd, F_GETFD, 0);
			if (kernel == 0 &&
			    fdmap_cas(&mark_map, (uint32_t)idx, m,
				      m | MARK_WAS_INHERITABLE))
				ufd_sys_fcntl(fd, F_SETFD, FD_CLOEXEC);
		} else if ((m & MARK_WAS_INHERITABLE) &&
			   fdmap_cas(&mark_map, (uint32_t)idx, m,
				     m & ~MARK_WAS_INHERITABLE)) {
			ufd_sys_fcntl(fd, F_SETFD, 0);
		}
	}
}

/* Whether the hand-off being prepared is for a spawn, whether it keeps no
 * virtual descriptor (exec_keeps_none, above), and the memfd that holds
 * its list if it is too long for the environment, or -1 (table lock held
 * from vfd_exec_prepare to vfd_exec_done). */
static int exec_spawn;
static int handoff_file = -1;

/* Lists longer than this go in a memfd: well under MAX_ARG_STRLEN, and
 * leaving the rest of ARG_MAX to the program's own arguments. */
#define HANDOFF_INLINE_MAX (16 * 1024)

/*
 * Move the list at entries (len bytes with its NUL) into a memfd, placed
 * high like a backing descriptor and inheritable, and write
 * "@<fd>/<dev>/<ino>," at entries instead.  Table lock held.
 */
static int handoff_to_file(char *entries, size_t len)
{
	int tmp = (int)ufd_sys6(SYS_memfd_create, (long)"ufd-handoff", MFD_CLOEXEC,
				0, 0, 0, 0), fd;
	struct stat st;
	size_t done = 0;

	if (tmp < 0)
		return tmp;
	while (done < len) {
		long n = ufd_sys6(SYS_write, tmp, (long)(entries + done),
				  (long)(len - done), 0, 0, 0);

		if (n == -EINTR)
			continue;
		if (n <= 0) {
			ufd_sys_close(tmp);
			return n < 0 ? (int)n : -EIO;
		}
		done += (size_t)n;
	}
	/* Out of the application's low numbers, as backing descriptors. */
	fd = placement_new_backing(tmp);
	ufd_sys_close(tmp);
	if (fd < 0)
		return fd;
	if (ufd_sys_fstat(fd, &st) < 0 || ufd_sys_fcntl(fd, F_SETFD, 0) < 0) {
		ufd_sys_close(fd);
		return -EIO;
	}
	handoff_file = fd;
	*entries++ = '@';
	entries = ufd_put_decimal(entries, (unsigned long)fd);
	*entries++ = '/';
	entries = ufd_put_decimal(entries, (unsigned long)st.st_dev);
	*entries++ = '/';
	entries = ufd_put_decimal(entries, (unsigned long)st.st_ino);
	*entries++ = ',';
	*entries = '\0';
	return 0;
}

int vfd_exec_prepare(char **buf, size_t *len, int spawn, int keep)
{
	char *p, *entries;
	int err;
	int64_t i;
	unsigned handed = 0, marks = 0;

	*buf = NULL;
	*len = 0;
	/* From a handler that interrupted a change to the table, hand off
	 * nothing: the exec goes ahead as if every virtual descriptor were
	 * close-on-exec. */
	if (lock_table() < 0)
		return 0;
	/* "<vfd>=<backing>/<flags>/<dev>/<ino>," is at most
	 * 10+1+9+1+1+1+20+1+20+1 characters. */
	*len = 64 + 72 * (size_t)vfd_map.live + 16 * (size_t)mark_map.live;
	p = ufd_sys_mmap(NULL, *len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ufd_sys_is_error((long)p)) {
		unlock_table();
		*len = 0;
		return -ENOMEM;
	}
	*buf = p;
	exec_spawn = spawn;
	exec_keeps_none = !keep;
	memcpy(p, HANDOFF_NAME "2;", strlen(HANDOFF_NAME "2;"));
	p += strlen(HANDOFF_NAME "2;");
	if (spawn)
		*p++ = 's';
	p = ufd_put_decimal(p, (unsigned long)getpid());
	*p++ = ';';
	entries = p;
	for (i = fdmap_next_busy(&vfd_map, 0); i >= 0;
	     i = fdmap_next_busy(&vfd_map, (uint32_t)i + 1)) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)i);
		struct stat st;

		if (!survives(v, spawn) || ufd_sys_fstat(backing_of(v), &st) < 0)
			continue;
		p = ufd_put_decimal(p, FD_UNSEQ_BASE + (unsigned long)i);
		*p++ = '=';
		p = ufd_put_decimal(p, (unsigned long)backing_of(v));
		*p++ = '/';
		p = ufd_put_decimal(p, v & VFD_FLAGS);
		*p++ = '/';
		p = ufd_put_decimal(p, (unsigned long)st.st_dev);
		*p++ = '/';
		p = ufd_put_decimal(p, (unsigned long)st.st_ino);
		*p++ = ',';
		handed++;
	}
	/* Marked real descriptors keep their mark across an exec; a spawn
	 * child does not have them at all. */
	for (i = spawn ? -1 : fdmap_next_busy(&mark_map, 0); i >= 0;
	     i = fdmap_next_busy(&mark_map, (uint32_t)i + 1)) {
		uint32_t v = fdmap_get(&mark_map, (uint32_t)i);

		if (!(v & VFD_BUSY))
			continue;
		p = ufd_put_decimal(p, (unsigned long)i);
		*p++ = '/';
		p = ufd_put_decimal(p, v & VFD_FLAGS);
		*p++ = ',';
		marks++;
	}
	*p = '\0';
	if ((size_t)(p - entries) > HANDOFF_INLINE_MAX &&
	    (err = handoff_to_file(entries, (size_t)(p - entries) + 1)) < 0) {
		ufd_sys_munmap(*buf, *len);
		*buf = NULL;
		*len = 0;
		unlock_table();
		return err;
	}
	set_inheritable(1, spawn);
	/* The new program starts with the application's limit: backing
	 * descriptors handed off are above it, where they stay. */
	placement_exec(1);
	UFD_LOG("%s: handing off %u virtual descriptors and %u close-on-fork "
		"marks", spawn ? "spawn" : "exec", handed, marks);
	return 0;
}

void vfd_exec_done(char *buf, size_t len)
{
	if (!buf)
		return;
	placement_exec(0);
	set_inheritable(0, exec_spawn);
	if (handoff_file >= 0) {
		ufd_sys_close(handoff_file);
		handoff_file = -1;
	}
	ufd_sys_munmap(buf, len);
	unlock_table();
}

/* Parse a decimal number (no sign, no leading zero) ending at one of
 * `ends`; returns the character after it or NULL. */
static const char *parse_num(const char *s, const char *ends, unsigned long max,
			     unsigned long *out)
{
	unsigned long v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return NULL;
	while (*p >= '0' && *p <= '9') {
		/* checked before it can wrap around */
		unsigned long d = (unsigned long)(*p - '0');

		if (d > max || v > (max - d) / 10)
			return NULL;
		v = v * 10 + (unsigned long)(*p++ - '0');
	}
	if (!*p || !strchr(ends, *p)) /* strchr would match the NUL too */
		return NULL;
	*out = v;
	return p;
}

/* One hand-off entry, parsed. */
struct handoff_entry {
	unsigned long vfd; /* 0 for a real descriptor's mark */
	unsigned long fd;  /* the backing descriptor, or the marked one */
	unsigned long flags;
	unsigned long dev, ino; /* the backing descriptor's file */
	int open;	   /* e.fd is open here (and a backing one, on its file) */
};

/*
 * Parse the entry at *s into e and advance *s past it (and its comma).
 * Returns NULL, or a reason the hand-off is unusable.
 */
static const char *parse_entry(const char **s, struct handoff_entry *e)
{
	unsigned long a, b;
	const char *p = parse_num(*s, "=/", ~0UL, &a);

	if (!p)
		return "a malformed number";
	e->vfd = 0;
	if (*p == '=') {
		if (a < FD_UNSEQ_BASE || a >= FD_UNSEQ_LIMIT)
			return "a virtual descriptor out of the virtual space";
		p = parse_num(p + 1, "/", VFD_REAL_MAX, &b);
		if (!p)
			return "a malformed backing descriptor";
		e->vfd = a;
		e->fd = b;
	} else {
		if (a > VFD_REAL_MAX)
			return "a real descriptor out of range";
		e->fd = a;
	}
	p = parse_num(p + 1, e->vfd ? "/" : ",", VFD_FLAGS, &e->flags);
	if (!p)
		return "malformed flags";
	if (e->vfd) {
		p = parse_num(p + 1, "/", ~0UL, &e->dev);
		if (p)
			p = parse_num(p + 1, ",", ~0UL, &e->ino);
		if (!p)
			return "a malformed file identity";
	}
	if (e->flags & VFD_CLOEXEC)
		return "a close-on-exec descriptor";
	if (!e->vfd && e->flags != VFD_CLOFORK)
		return "a mark other than close-on-fork";
	/* ufd never backs a virtual descriptor with 0, 1 or 2. */
	if (e->vfd && e->fd < 3)
		return "a standard stream as a backing descriptor";
	/* Not open, or (a backing descriptor) on another file: closed, or
	 * replaced, on the way (a posix_spawn file action, say), so nothing
	 * to take over. */
	if (e->vfd) {
		struct stat st;

		e->open = ufd_sys_fstat((int)e->fd, &st) == 0 &&
			  (unsigned long)st.st_dev == e->dev &&
			  (unsigned long)st.st_ino == e->ino;
	} else {
		e->open = ufd_sys_fcntl((int)e->fd, F_GETFD, 0) >= 0;
	}
	*s = p + 1;
	return NULL;
}

/* Undo the first n entries taken over from the hand-off at list. */
static void handoff_undo(const char *list, int n)
{
	struct handoff_entry e;

	while (n-- > 0 && !parse_entry(&list, &e)) {
		if (!e.open)
			continue;
		if (e.vfd) {
			fdmap_release(&vfd_map, (uint32_t)(e.vfd - FD_UNSEQ_BASE));
			fdmap_release(&vfd_backing_map, (uint32_t)e.fd);
		} else {
			fdmap_release(&mark_map, (uint32_t)e.fd);
		}
	}
}

/* Take over the entries; returns how many virtual descriptors, or the
 * reason for giving up (all undone).  Table lock held. */
static const char *handoff_install(const char *list, int *taken)
{
	const char *s = list, *why;
	struct handoff_entry e;
	int n = 0;

	*taken = 0;
	while (*s) {
		why = parse_entry(&s, &e);
		if (!why && !e.open) {
			/* skipped */
		} else if (!why && e.vfd) {
			if (fdmap_get(&vfd_backing_map, (uint32_t)e.fd))
				why = "a backing descriptor named twice";
			else if (fdmap_get(&mark_map, (uint32_t)e.fd) & VFD_BUSY)
				why = "a descriptor both backing and marked";
			else if (fdmap_alloc_exact(&vfd_map,
						   (uint32_t)(e.vfd - FD_UNSEQ_BASE),
						   slot_value((int)e.fd,
							      (uint32_t)e.flags)) < 0)
				why = "a virtual descriptor named twice";
			else if (own_backing((int)e.fd,
					     (uint32_t)(e.vfd - FD_UNSEQ_BASE)) < 0) {
				fdmap_release(&vfd_map, (uint32_t)(e.vfd - FD_UNSEQ_BASE));
				why = "no memory";
			}
		} else if (!why) {
			/* A backing descriptor is ufd's, never the program's
			 * to mark (vfd_real_set_flags refuses it too). */
			if (fdmap_get(&vfd_backing_map, (uint32_t)e.fd))
				why = "a descriptor both backing and marked";
			else if (fdmap_alloc_exact(&mark_map, (uint32_t)e.fd,
						   VFD_BUSY | (uint32_t)e.flags) < 0)
				why = "a real descriptor named twice";
		}
		if (why) {
			handoff_undo(list, n);
			return why;
		}
		n++;
		*taken += e.vfd && e.open;
	}
	/* Everything checked: the backing descriptors are ufd's again, and
	 * close-on-exec for the kernel. */
	for (s = list; *s && !parse_entry(&s, &e);) {
		if (!e.open)
			continue;
		if (e.vfd)
			ufd_sys_fcntl((int)e.fd, F_SETFD, FD_CLOEXEC);
		placement_guard((int)e.fd);
	}
	return NULL;
}

/*
 * Is a hand-off naming pid this process's?  An exec's names the process
 * itself (exec keeps the pid).  A spawn's names the parent, which may have
 * exited since (posix_spawn, then _exit): then this process has been
 * reparented to init or a subreaper, and a parent that no longer exists is
 * taken for this one's.  A grandchild that finds a stale spawn hand-off in
 * its environment has a parent of its own, alive, and another pid; one
 * whose named process is gone too is protected by the entries' file
 * identities, which must match what it inherited.
 */
/* Has process pid exited: no such process, or a zombie not yet reaped? */
static int process_gone(long pid)
{
	char path[48], stat[256], *state;
	long n;
	int fd;

	if (ufd_sys6(SYS_kill, pid, 0, 0, 0, 0, 0) == -ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC,
			   0, 0, 0);
	/* Not there: exited since, or /proc is not mounted; ask again. */
	if (fd < 0)
		return ufd_sys6(SYS_kill, pid, 0, 0, 0, 0, 0) == -ESRCH;
	n = ufd_sys6(SYS_read, fd, (long)stat, sizeof(stat) - 1, 0, 0, 0);
	ufd_sys_close(fd);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	/* "<pid> (<comm>) <state> ...": the comm may hold ") ". */
	state = strrchr(stat, ')');
	return state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

static int handoff_is_mine(unsigned long pid, int spawn)
{
	pid_t parent;

	if (!spawn)
		return pid == (unsigned long)getpid();
	parent = getppid();
	if (pid == (unsigned long)parent)
		return 1;
	return process_gone((long)pid);
}

/*
 * The list of a hand-off made through a memfd: "<fd>/<dev>/<ino>," at ref
 * names it.  Mapped into *map (of *size bytes) and closed: the list is
 * the mapping.  NULL, or the reason it cannot be used.
 */
static const char *handoff_from_file(const char *ref, char **map, size_t *size)
{
	unsigned long fd, dev, ino;
	const char *p = parse_num(ref, "/", VFD_REAL_MAX, &fd);
	struct stat st;

	if (p)
		p = parse_num(p + 1, "/", ~0UL, &dev);
	if (p)
		p = parse_num(p + 1, ",", ~0UL, &ino);
	if (!p || p[1] != '\0')
		return "a malformed hand-off file";
	if (ufd_sys_fstat((int)fd, &st) < 0 || (unsigned long)st.st_dev != dev ||
	    (unsigned long)st.st_ino != ino || !S_ISREG(st.st_mode))
		return "a hand-off file not there, or replaced on the way";
	/* It is ours from here on: closed whatever else is wrong. */
	if (st.st_size < 1 || st.st_size > (64 << 20)) {
		ufd_sys_close((int)fd);
		return "a hand-off file of a bad size";
	}
	*size = (size_t)st.st_size;
	*map = ufd_sys_mmap(NULL, *size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
	ufd_sys_close((int)fd);
	if (ufd_sys_is_error((long)*map)) {
		*map = NULL;
		return "no memory for the hand-off file";
	}
	if ((*map)[*size - 1] != '\0' || memchr(*map, '\0', *size - 1)) {
		ufd_sys_munmap(*map, *size);
		*map = NULL;
		return "a hand-off file that is not one string";
	}
	return NULL;
}

int vfd_exec_inherit(const char *value)
{
	unsigned long version, pid;
	const char *p, *why = NULL, *list;
	int taken = 0, spawn = 0;
	char *map = NULL;
	size_t map_size = 0;

	vfd_init();
	p = parse_num(value, ";", 2, &version);
	if (p && p[1] == 's') {
		spawn = 1;
		p++;
	}
	if (!p || version != 2)
		why = "an unknown format";
	else if (!(p = parse_num(p + 1, ";", 0x7fffffff, &pid)))
		why = "a malformed process id";
	else if (!handoff_is_mine(pid, spawn))
		why = "another process's hand-off";
	else if (p[1] == '@' && (why = handoff_from_file(p + 2, &map, &map_size)))
		;
	else if (lock_table() < 0)
		why = "the table being busy";
	else {
		list = map ? map : p + 1;
		why = handoff_install(list, &taken);
		unlock_table();
	}
	if (map)
		ufd_sys_munmap(map, map_size);
	if (why) {
		char msg[200];
		int n = snprintf(msg, sizeof(msg),
				 "ufd: ignoring UFD_HANDOFF (%s); inherited "
				 "descriptors stay as the kernel passed them\n",
				 why);

		/* snprintf says how long the whole would have been. */
		if (n >= (int)sizeof(msg))
			n = sizeof(msg) - 1;
		ufd_sys6(SYS_write, 2, (long)msg, n, 0, 0, 0);
		UFD_LOG("hand-off ignored: %s", why);
		return -EINVAL;
	}
	UFD_LOG("hand-off: took %d descriptors", taken);
	return taken;
}

/* ---- fork ---- */

/* Whether fork_prepare took the lock (it cannot from a handler that
 * interrupted this thread inside it). */
static int fork_locked;

static void fork_prepare(void)
{
	fork_locked = lock_table() == 0;
}

static void fork_parent(void)
{
	if (fork_locked)
		unlock_table();
}

/*
 * In the child: the lock was held by the forking thread (fork_prepare), so
 * the table is consistent; start the lock afresh, draw apart from the parent
 * and close the close-on-fork descriptors, which the child never had.
 */
static void fork_child(void)
{
	uint64_t seed;
	int64_t idx;

	tid_cache = 0;
	ufd_log_fork_child(fork_locked);
	if (!fork_locked) {
		/* fork from a handler that interrupted this thread inside the
		 * lock: the interrupted change resumes here too and unlocks.
		 * Until then the lock is this thread's, under its new id, so
		 * that the handler's own calls see it held by themselves
		 * (-EBUSY) rather than wait forever for a thread that is not
		 * in this process. */
		__atomic_store_n(&table_lock, my_tid(), __ATOMIC_RELAXED);
		return;
	}
	table_lock = 0;
	/* A fixed seed (UFD_SEED): children derive theirs from the parent's
	 * generator, so that test runs stay reproducible. */
	seed = ufd_settings.seed_fixed ? vfd_map.rng[0] ^ 0x5eed0f0c4ULL : kernel_seed();
	fdmap_reseed(&vfd_map, seed);
	for (idx = fdmap_next_busy(&vfd_map, 0); idx >= 0;
	     idx = fdmap_next_busy(&vfd_map, (uint32_t)idx + 1)) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if (!(v & VFD_BUSY))
			drop_entry((uint32_t)idx);
		else if (v & VFD_CLOFORK)
			ufd_sys_close(drop_entry((uint32_t)idx));
	}
	for (idx = fdmap_next_busy(&mark_map, 0); idx >= 0;
	     idx = fdmap_next_busy(&mark_map, (uint32_t)idx + 1)) {
		if ((fdmap_get(&mark_map, (uint32_t)idx) & VFD_BUSY) &&
		    vfd_owner((int)idx) < 0)
			ufd_sys_close((int)idx);
		fdmap_release(&mark_map, (uint32_t)idx);
	}
}

/* ---- set-up ---- */

static void init_once(void)
{
	/* The lock is not needed yet: nothing can use the maps before
	 * vfd_init returns, and their empty state answers every lookup. */
	ufd_settings_load();
	fdmap_init(&vfd_map, FDMAP_SPACE,
		   ufd_settings.seed_fixed ? ufd_settings.seed : kernel_seed());
	fdmap_init(&vfd_backing_map, FD_UNSEQ_BASE, 0);
	fdmap_init(&mark_map, FD_UNSEQ_BASE, 0);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void vfd_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_once);
}
