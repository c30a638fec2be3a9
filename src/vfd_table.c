/* SPDX-License-Identifier: MIT */
/*
 * vfd_table.c - the process's virtual descriptor table (see vfd_table.h).
 *
 * Locking rule: every change to vfd_map is made with table_lock held;
 * lookups (vfd_translate, vfd_slot) take no lock.  No function here calls a
 * libc descriptor function: backing descriptors are made, moved and closed
 * with raw system calls (sys.h), so nothing re-enters the shim, and the lock
 * is never held across a system call that could block for long.
 */
#include "vfd_table.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"

struct fdmap vfd_map;
struct fdmap vfd_backing_map;

/* Backing descriptors are duplicated at or above this number, out of the
 * range where the application's lowest-available numbers fall. */
static int backing_floor;

/* Non-zero when UFD_SEED fixed the seed: fork children then derive theirs
 * from the parent's generator, so that test runs stay reproducible. */
static int seed_fixed;

/* ---- the table lock: a futex mutex (0 free, 1 held, 2 held + waiters) ----
 *
 * Written with raw futex calls rather than pthread_mutex so that fork
 * handlers can reset it in the child and so that it never calls into libc.
 */
static uint32_t table_lock;

static void futex(uint32_t *addr, int op, uint32_t val)
{
	ufd_sys6(SYS_futex, (long)addr, op | FUTEX_PRIVATE_FLAG, val, 0, 0, 0);
}

static void lock_table(void)
{
	uint32_t c = 0;

	if (__atomic_compare_exchange_n(&table_lock, &c, 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&table_lock, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex(&table_lock, FUTEX_WAIT, 2);
		c = __atomic_exchange_n(&table_lock, 2, __ATOMIC_ACQUIRE);
	}
}

static void unlock_table(void)
{
	if (__atomic_exchange_n(&table_lock, 0, __ATOMIC_RELEASE) == 2)
		futex(&table_lock, FUTEX_WAKE, 1);
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

/* UFD_SEED, if set: a number in C syntax (decimal, 0x hex).  Anything else
 * is reported and a kernel seed used instead. */
static uint64_t initial_seed(void)
{
	const char *s = getenv("UFD_SEED");
	char *end;
	unsigned long long v;

	if (!s)
		return kernel_seed();
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s == '\0' || *end != '\0' || errno || *s == '-') {
		fprintf(stderr,
			"ufd: UFD_SEED=\"%s\" is not an unsigned number; "
			"using a random seed\n",
			s);
		return kernel_seed();
	}
	seed_fixed = 1;
	return v;
}

/* ---- the table ---- */

/*
 * A new backing descriptor for the same file as real_fd, close-on-exec at
 * the kernel level (what survives exec is ufd's decision, not the kernel's),
 * at backing_floor or above; below it only if the range above is full.
 */
static int new_backing(int real_fd)
{
	int fd = ufd_sys_fcntl(real_fd, F_DUPFD_CLOEXEC, backing_floor);

	if (fd == -EMFILE || fd == -EINVAL)
		fd = ufd_sys_fcntl(real_fd, F_DUPFD_CLOEXEC, 0);
	if (fd > VFD_REAL_MAX) {
		ufd_sys_close(fd);
		return -EMFILE;
	}
	return fd;
}

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

/*
 * Remove map slot idx and the reverse entry of its backing descriptor, and
 * return that backing descriptor (the caller closes it, or not), or -EBADF
 * if the slot was free.  Table lock held.
 */
static int drop_entry(uint32_t idx)
{
	uint32_t old = fdmap_release(&vfd_map, idx);

	if (!old)
		return -EBADF;
	fdmap_release(&vfd_backing_map, (uint32_t)backing_of(old));
	return backing_of(old);
}

int vfd_create(int real_fd, uint32_t flags, enum vfd_where where, int at)
{
	uint32_t value, replaced = 0, at_idx = (uint32_t)at - FD_UNSEQ_BASE;
	int backing;
	int64_t idx;

	vfd_init();
	backing = new_backing(real_fd);
	if (backing < 0)
		return backing;
	value = slot_value(backing, flags);

	lock_table();
	switch (where) {
	case VFD_AT_EXACT:
		replaced = fdmap_replace(&vfd_map, at_idx, value);
		idx = replaced ? at_idx
			       : fdmap_alloc_exact(&vfd_map, at_idx, value);
		break;
	case VFD_AT_LOWEST:
		idx = fdmap_alloc_from(&vfd_map, at_idx, value);
		break;
	default:
		idx = fdmap_alloc_random(&vfd_map, value);
		break;
	}
	if (idx >= 0) {
		int err = own_backing(backing, (uint32_t)idx);

		if (err < 0) {
			/* Undo: the slot goes back to what it was. */
			if (replaced)
				fdmap_replace(&vfd_map, at_idx, replaced);
			else
				fdmap_release(&vfd_map, (uint32_t)idx);
			replaced = 0;
			idx = err;
		} else if (replaced) {
			fdmap_release(&vfd_backing_map,
				      (uint32_t)backing_of(replaced));
		}
	}
	unlock_table();

	if (replaced)
		ufd_sys_close(backing_of(replaced));
	if (idx < 0) {
		ufd_sys_close(backing);
		return idx == -ERANGE ? -EBADF : (int)idx;
	}
	return (int)(FD_UNSEQ_BASE + (uint32_t)idx);
}

int vfd_close(int vfd)
{
	int backing = vfd_forget(vfd);

	if (backing < 0)
		return backing;
	/* Linux frees the descriptor even when close reports an error (EINTR
	 * or EIO), so the entry is gone either way; pass the error on. */
	return ufd_sys_close(backing);
}

int vfd_forget(int vfd)
{
	int backing;

	if (!vfd_in_space(vfd))
		return -EBADF;
	lock_table();
	backing = drop_entry((uint32_t)vfd - FD_UNSEQ_BASE);
	unlock_table();
	return backing;
}

/*
 * The real half of close_range: [first, last] below FD_UNSEQ_BASE, with
 * the kernel's close_range on each stretch between backing descriptors.
 * Table lock held, so that no backing descriptor appears in a stretch while
 * it is being closed.
 */
static int close_real_range(unsigned first, unsigned last, unsigned flags)
{
	/* Marking close-on-exec harms no backing descriptor (they all are). */
	if (flags & CLOSE_RANGE_CLOEXEC)
		return (int)ufd_sys6(SYS_close_range, first, last, flags, 0, 0, 0);
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
	int ret = 0;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC) || first > last)
		return -EINVAL;
	lock_table();
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
			if (flags & CLOSE_RANGE_CLOEXEC) {
				uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

				fdmap_replace(&vfd_map, (uint32_t)idx, v | VFD_CLOEXEC);
			} else {
				ufd_sys_close(drop_entry((uint32_t)idx));
			}
		}
	}
	unlock_table();
	return ret;
}

int vfd_next_listed(int after)
{
	uint32_t from = vfd_in_space(after) ? (uint32_t)after - FD_UNSEQ_BASE + 1 : 0;
	int64_t idx;

	lock_table();
	for (idx = fdmap_next_busy(&vfd_map, from); idx >= 0;
	     idx = fdmap_next_busy(&vfd_map, (uint32_t)idx + 1))
		if (!(fdmap_get(&vfd_map, (uint32_t)idx) & VFD_HIDDEN))
			break;
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
	int ret = -EBADF;

	if (!vfd_in_space(vfd))
		return -EBADF;
	lock_table();
	v = fdmap_get(&vfd_map, idx);
	if (v) {
		fdmap_replace(&vfd_map, idx, (v & ~(mask & VFD_FLAGS)) |
						     (flags & mask & VFD_FLAGS));
		ret = 0;
	}
	unlock_table();
	return ret;
}

/* ---- fork ---- */

static void fork_prepare(void)
{
	lock_table();
}

static void fork_parent(void)
{
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

	table_lock = 0;
	seed = seed_fixed ? vfd_map.rng[0] ^ 0x5eed0f0c4ULL : kernel_seed();
	fdmap_reseed(&vfd_map, seed);
	for (idx = fdmap_next_busy(&vfd_map, 0); idx >= 0;
	     idx = fdmap_next_busy(&vfd_map, (uint32_t)idx + 1)) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

		if (v & VFD_CLOFORK)
			ufd_sys_close(drop_entry((uint32_t)idx));
	}
}

/* ---- set-up ---- */

static void init_once(void)
{
	struct rlimit rl;

	/* Half the soft limit, at most 64Ki: well above what programs use,
	 * and never so high that the kernel's table for this process grows
	 * to megabytes.  Placement is revisited with the protection work. */
	backing_floor = 3;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 > 3)
		backing_floor = rl.rlim_cur / 2 > 65536 ? 65536 : (int)(rl.rlim_cur / 2);

	lock_table();
	fdmap_init(&vfd_map, FDMAP_SPACE, initial_seed());
	fdmap_init(&vfd_backing_map, FD_UNSEQ_BASE, 0);
	unlock_table();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void vfd_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_once);
}
