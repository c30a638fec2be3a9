/* SPDX-License-Identifier: MIT */
/*
 * placement.h - where backing descriptors go, and the application's view
 * of RLIMIT_NOFILE.
 *
 * The policy (ufd(7), "Where backing descriptors live"):
 *
 *  - Above the application's limit, where the hard limit leaves room.  On
 *    the first backing descriptor ufd raises the kernel's soft limit from
 *    the application's S to S + room (room = min(S, hard - S, 64Ki)) and
 *    puts backing descriptors in [S, S + room): numbers the kernel never
 *    gives the application, which still sees S (getrlimit, prlimit,
 *    sysconf(_SC_OPEN_MAX), getdtablesize) and gets the kernel's errors
 *    at S (ufd_app_nofile).  An exec runs with S again.
 *  - Below it otherwise (UFD_MODE=all, soft = hard, S over 64Ki, or the
 *    room full): the
 *    top 256 numbers under min(S, 64Ki) first, then regions doubling
 *    downward, never under 3; F_DUPFD never takes a number in use, and the
 *    top region is tried first each time, so the region moves back up as
 *    its descriptors close.
 *
 * The functions that change the placement are called with the table lock
 * held (vfd_table.c), so they need no lock of their own; the variables
 * below, and placement_try_backing's number, are read lock-free.  Return
 * >= 0 or -errno; errno untouched.
 */
#ifndef UFD_PLACEMENT_H
#define UFD_PLACEMENT_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/resource.h>

#include "sys.h"

/*
 * Real descriptors from this number up may be backing descriptors or carry
 * a close-on-fork mark, or be past the application's limit: calls on them
 * go through the checks of vfd_table.h.  Below it, none of that: one
 * comparison keeps every call on the fast path.  It is lowered before a
 * backing descriptor can be made at a number, never raised.  (Declared
 * hidden, like every variable the inline lookups read, so that the
 * comparison reads it directly rather than through the GOT.)
 */
extern unsigned vfd_guard_from __attribute__((visibility("hidden")));

/* Lower vfd_guard_from (and placement_move_guard) to fd if it is higher.
 * Lock-free. */
void placement_guard(int fd);

/*
 * vfd_guard_from once the process is known to hold no POSIX record lock
 * (placement_moves_free: posix_locks.h's NONE), else 0 (before that, and
 * for good once placement_guard_moves was called, newfd.c, when the
 * application takes a lock, which a close may drop): a descriptor just
 * made below it has no close-on-fork mark and may be moved (duplicated
 * into the backing area, then closed) with no other test, one comparison
 * (newfd.h).  Raised once, from 0; else lowered.
 */
extern unsigned placement_move_guard __attribute__((visibility("hidden")));

/* placement_move_guard to 0 for good.  Lock-free. */
void placement_guard_moves(void);

/* The process holds no record lock (the state just became NONE):
 * placement_move_guard up from 0 to vfd_guard_from, once (not after
 * placement_guard_moves).  Lock-free. */
void placement_moves_free(void);

/*
 * The application's soft RLIMIT_NOFILE while ufd holds the kernel's above
 * it, else UINT_MAX: a descriptor the kernel just made at or past it is
 * not one the application could have had (EMFILE).  Read lock-free.
 */
extern unsigned ufd_app_nofile __attribute__((visibility("hidden")));

/* The largest number a backing descriptor may have (what a slot of the
 * table holds). */
#define PLACEMENT_BACKING_MAX ((1 << 28) - 1)

/* placement_try_backing's rare answer: fd, just made, is past
 * PLACEMENT_BACKING_MAX; closes it and returns -EMFILE. */
int placement_too_high(int fd);

/*
 * placement_new_backing's first try alone, without the table lock: the
 * number where the whole policy last found room (guarded already), read
 * lock-free, and one F_DUPFD_CLOEXEC there.  Changes no state.  Returns
 * the descriptor, -EBADF, or -EAGAIN when the whole policy must run (no
 * such number yet, full, the limit changed): placement_new_backing, with
 * the lock held.  Inline: it is most of the cost of placing one.
 */
static inline int placement_try_backing(int real_fd);

/*
 * A new backing descriptor for the same file as real_fd, close-on-exec for
 * the kernel, placed as above.  Returns it, -EBADF (real_fd not open) or
 * -EMFILE.  Table lock held.  placement_new_backing_policy is its part
 * after a first try that says -EAGAIN: the whole policy.
 */
int placement_new_backing_policy(int real_fd);

static inline int placement_new_backing(int real_fd)
{
	int fd = placement_try_backing(real_fd);

	if (__builtin_expect(fd != -EAGAIN, 1))
		return fd;
	return placement_new_backing_policy(real_fd);
}

/*
 * Where the whole policy last found room, the first try's number (0:
 * none), and the number from which a closed backing descriptor sends the
 * next one back to the policy (UINT_MAX: none).  Written under the table
 * lock, read lock-free.
 */
extern unsigned placement_first_from __attribute__((visibility("hidden")));
extern unsigned placement_back_up_at __attribute__((visibility("hidden")));

static inline int placement_try_backing(int real_fd)
{
	unsigned from = __atomic_load_n(&placement_first_from, __ATOMIC_RELAXED);
	int fd;

	if (__builtin_expect(from == 0, 0))
		return -EAGAIN;
	fd = ufd_sys_fcntl(real_fd, F_DUPFD_CLOEXEC, (long)from);
	if (__builtin_expect(fd >= 0, 1))
		return __builtin_expect(fd <= PLACEMENT_BACKING_MAX, 1) ? fd
								   : placement_too_high(fd);
	/* Full, or the limit lowered: the whole policy, under the lock. */
	return fd == -EMFILE || fd == -EINVAL ? -EAGAIN : fd;
}

/*
 * Backing descriptor fd has been closed.  While first tries go below where
 * the policy starts (that start was full), one closed at or above it sends
 * the next backing descriptor to the whole policy, which takes that room
 * again: backing descriptors move back up, out of the application's
 * numbers, as they close.  Lock-free and async-signal-safe: a load and a
 * comparison.
 */
static inline void placement_backing_closed(int fd)
{
	if (__builtin_expect((unsigned)fd >=
			     __atomic_load_n(&placement_back_up_at, __ATOMIC_RELAXED), 0)) {
		__atomic_store_n(&placement_first_from, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&placement_back_up_at, UINT_MAX, __ATOMIC_RELAXED);
	}
}

/*
 * Make the kernel's soft limit cover backing descriptor fd, so that a dup3
 * onto it works: one made before the application lowered its limit, or
 * inherited across an exec (which runs with the application's limit), can
 * be past it.  Returns 0, or -EBADF if the hard limit does not reach fd.
 * Table lock held.
 */
int placement_cover(int fd);

/*
 * Would a backing descriptor at fd be in the application's way (below its
 * limit while there is room above, or below the top region)?  For the
 * move after the application raised its limit.  Table lock held.
 */
int placement_misplaced(int fd);

/*
 * The application's prlimit(0, RLIMIT_NOFILE, new_rl, old_rl), new_rl not
 * null, both as the application passed them (the kernel reads and writes
 * them, so a bad pointer is its EFAULT): the kernel's limits are set as
 * asked, then ufd's room is added above the soft limit again; *old_rl has
 * the application's soft limit.  Backing descriptors now in the way are
 * the caller's to move (placement_misplaced).  Returns 0 or the kernel's
 * -errno.  Table lock held.
 */
int placement_set_nofile(const struct rlimit *new_rl, struct rlimit *old_rl);

/*
 * Around an exec: before (1), the kernel's soft limit back to the
 * application's, for the new program; after a failed exec (0), raised
 * again.  Table lock held.
 */
void placement_exec(int before);

#endif /* UFD_PLACEMENT_H */
