/* SPDX-License-Identifier: MIT */
/*
 * vfd_table.c - the process's virtual descriptor table (see vfd_table.h):
 * its maps, its slots (virtual descriptors made, closed, flagged) and
 * its set-up.  The lock is vfd_lock.c; fork and vfork vfd_fork.c; real
 * descriptors and the application's limit vfd_real.c; close_range and
 * the listings vfd_range.c.
 *
 * Locking rule: every change to vfd_map, vfd_backing_map and vfd_mark_map that
 * frees or takes a slot is made with table_lock held; lookups and flag
 * changes (fdmap_get, fdmap_cas) take no lock.  No system call runs with
 * the lock held on the common paths of a process with threads: backing
 * descriptors are made before and closed after it, announced (see
 * "backing descriptors made and closed outside the lock", vfd_internal.h); a
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
#include <pthread.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "placement.h"
#include "settings.h"
#include "sys.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* At a multiple of 64 bytes, as fdmap.h asks, so that its hot line is
 * its own. */
struct fdmap vfd_map __attribute__((aligned(64)));
struct revmap vfd_backing_map;

struct fdmap vfd_mark_map;

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
uint32_t pending_n;

/* ---- seeding ---- */

/* A seed from the kernel; if getrandom is unavailable, a mix of the clock,
 * the pid and an address, which is still different per process. */
uint64_t kernel_seed(void)
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
__attribute__((noinline)) int drop_entry(uint32_t idx)
{
	return drop_entry_inline(idx);
}

/* Finish the closes that signal handlers left pending.  Table lock held
 * (by this thread: the only one that can push, from its handlers). */
void drain_pending(void)
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
static __thread struct {
	uint32_t slot;
	int left;
} replacing TLS_IE = { UINT32_MAX, -1 }; /* one object: one relocation at start-up */

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
	if (__atomic_load_n(&replacing.slot, __ATOMIC_RELAXED) == idx) {
		__atomic_store_n(&replacing.left, vfd_backing_of(v), __ATOMIC_RELAXED);
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

	__atomic_store_n(&replacing.slot, at_idx, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cur = fdmap_get(&vfd_map, at_idx);
	err = cur & VFD_BUSY ? replace_in_place(at_idx, cur, real_fd, flags) : 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&replacing.slot, UINT32_MAX, __ATOMIC_RELAXED);
	left = __atomic_exchange_n(&replacing.left, -1, __ATOMIC_RELAXED);
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
int alone_ok;
int init_done; /* the maps are set up (init_maps) */
/* vfd_vfork_begin calls returning 1 not yet ended (a handler's vfork inside
 * another's): only the parent's thread changes it, while it is alone. */
unsigned vfork_depth;

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
void alone_again(void)
{
	__atomic_store_n(&alone_ok, init_done && alone_may(), __ATOMIC_RELAXED);
}

void vfd_alone_recheck(void)
{
	alone_again();
}

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

/* vfd_shared.h: a CLONE_FILES child closed the backing descriptor of vfd. */
int vfd_shared_gone_slow(int vfd)
{
	uint32_t v = vfd_in_space(vfd) ? vfd_slot(vfd) : 0;

	if (!v || vfd_flag_from_kernel((uint32_t)vfd - FD_UNSEQ_BASE, v) == 0)
		return 0;
	vfd_forget(vfd);
	return -EBADF;
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
void init_maps(void)
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
