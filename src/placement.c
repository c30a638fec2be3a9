/* SPDX-License-Identifier: MIT */
/*
 * placement.c - where backing descriptors go, and the application's view
 * of RLIMIT_NOFILE (see placement.h for the policy).
 *
 * The model is how Valgrind and DynamoRIO keep their own descriptors: out
 * of the numbers the kernel can give the application, by holding the real
 * limit above the one the application is shown.  ufd does it lazily, on
 * the first backing descriptor, so that a process that never makes a
 * virtual descriptor runs with its limits untouched.
 *
 * Invariants, with the table lock held between changes:
 *  - raised == 0: the kernel's soft limit is the application's, and
 *    ufd_app_nofile is UINT_MAX;
 *  - raised == 1: the kernel's soft limit is app_soft + (above_to -
 *    above_from) (app_soft while an exec is being prepared), above_from is
 *    app_soft when there is room, and ufd_app_nofile == app_soft;
 *  - vfd_guard_from <= every backing descriptor made, and <= app_soft
 *    when there is room above (so that dup2 onto a number past the
 *    application's limit is checked).
 */
#include "placement.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>

#include "posix_locks.h"
#include "settings.h"
#include "sys.h"


/* The largest room above the limit, and the largest limit with room:
 * the kernel's table grows to the highest number in use, 8 bytes each. */
#define ROOM_MAX 65536U
#define ROOM_SOFT_MAX 65536U

/* Below the limit: under min(soft, BELOW_TOP_MAX), the top REGION numbers
 * first, never under FIRST (0-2 are the standard streams). */
#define BELOW_TOP_MAX 65536U
#define REGION 256U
#define FIRST 3U

unsigned vfd_guard_from = ~0U;
/* 0 until the process is known to hold no record lock
 * (placement_moves_free). */
unsigned placement_move_guard;
unsigned ufd_app_nofile = UINT_MAX;

static int raised;
static unsigned app_soft;
static unsigned above_from, above_to; /* empty when equal */
/* Below the limit, the lowest start that last found room: where to go
 * straight away when the top region is full. */
static unsigned below_floor;
/* placement.h: where the whole policy last found room, and from which
 * number a close sends the next backing descriptor back to the policy. */
unsigned placement_first_from, placement_back_up_at = UINT_MAX;
/* Where the whole policy starts: the room above, or the top region. */
static unsigned policy_from;

/* The first try goes to from from now on (0: to the whole policy). */
static void set_first_from(unsigned from)
{
	__atomic_store_n(&placement_first_from, from, __ATOMIC_RELAXED);
	__atomic_store_n(&placement_back_up_at,
			 from && from < policy_from ? policy_from : UINT_MAX,
			 __ATOMIC_RELAXED);
}

/* *guard = min(*guard, to), lock-free. */
static void lower(unsigned *guard, unsigned to)
{
	unsigned cur = __atomic_load_n(guard, __ATOMIC_RELAXED);

	while (to < cur &&
	       !__atomic_compare_exchange_n(guard, &cur, to, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void placement_guard(int fd)
{
	lower(&vfd_guard_from, (unsigned)fd);
	lower(&placement_move_guard, (unsigned)fd);
}

void placement_guard_moves(void)
{
	lower(&placement_move_guard, 0);
}

void placement_moves_free(void)
{
	unsigned zero = 0;

	/* Up from 0 once; then down again to vfd_guard_from as it is now,
	 * which placement_guard may have lowered meanwhile (it lowers
	 * vfd_guard_from first). */
	__atomic_compare_exchange_n(&placement_move_guard, &zero,
				    __atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED),
				    0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	lower(&placement_move_guard, __atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED));
	/* A lock noted meanwhile (its note sets the state, then lowers the
	 * guard): down for good. */
	if (posix_locks() != POSIX_LOCKS_NONE)
		lower(&placement_move_guard, 0);
}

static int kernel_nofile(struct rlimit *rl)
{
	return (int)ufd_sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)rl, 0, 0);
}

static int set_kernel_nofile(const struct rlimit *rl)
{
	return (int)ufd_sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)rl, 0, 0, 0);
}

static unsigned clamp(rlim_t v)
{
	return v > UINT_MAX - ROOM_MAX ? UINT_MAX - ROOM_MAX : (unsigned)v;
}

/*
 * The application's limits are soft and hard: set the kernel's with room
 * above soft.  Returns 0 or the kernel's -errno (nothing changed).
 */
static int apply(rlim_t soft, rlim_t hard)
{
	struct rlimit real = { soft, hard };
	rlim_t room = 0;
	int r;

	/* Under UFD_MODE=all, no room: the backing descriptors go below the
	 * limit, so that the kernel's count stays the program's (its
	 * descriptors, real and virtual, at most its soft limit, as
	 * without ufd), for free; every new descriptor is virtual there, so
	 * no sequence of real numbers is in their way. */
	if (soft <= ROOM_SOFT_MAX && hard > soft && !ufd_settings.mode_all) {
		room = hard - soft;
		if (room > soft)
			room = soft;
		if (room > ROOM_MAX)
			room = ROOM_MAX;
	}
	real.rlim_cur = soft + room;
	set_first_from(0);
	/* Shown before the kernel's limit rises: from then on, a descriptor
	 * the kernel gives at soft or past it is caught as EMFILE. */
	__atomic_store_n(&ufd_app_nofile, clamp(soft), __ATOMIC_RELAXED);
	if (room)
		placement_guard((int)clamp(soft));
	r = set_kernel_nofile(&real);
	if (r < 0) {
		__atomic_store_n(&ufd_app_nofile, raised ? app_soft : UINT_MAX,
				 __ATOMIC_RELAXED);
		return r;
	}
	app_soft = clamp(soft);
	above_from = app_soft;
	above_to = app_soft + (unsigned)room;
	below_floor = 0;
	raised = 1;
	return 0;
}

/* The first backing descriptor: take the limit up.  If the kernel's limit
 * cannot be read, place below BELOW_TOP_MAX as if there were no room. */
static void raise_once(void)
{
	struct rlimit rl;

	if (raised)
		return;
	if (kernel_nofile(&rl) < 0 || apply(rl.rlim_cur, rl.rlim_max) < 0) {
		app_soft = BELOW_TOP_MAX;
		above_from = above_to = 0;
	}
}

/* fd as a backing descriptor: -EMFILE past what a slot can hold. */
static int checked(int fd)
{
	if (fd > PLACEMENT_BACKING_MAX) {
		ufd_sys_close(fd);
		return -EMFILE;
	}
	return fd;
}

static unsigned below_top(void)
{
	return app_soft < BELOW_TOP_MAX ? app_soft : BELOW_TOP_MAX;
}

/* The start of the top region below the limit. */
static unsigned top_region(void)
{
	unsigned top = below_top();

	return top > FIRST + REGION ? top - REGION : FIRST;
}

/* Below the limit: the top region, then regions doubling downward (or
 * straight to the one that had room last time). */
static int place_below(int real_fd)
{
	unsigned top = below_top(), from = top_region();

	if (top <= FIRST)
		return -EMFILE;
	for (;;) {
		unsigned size;
		int fd;

		/* Guarded before the number exists: see vfd_create. */
		placement_guard((int)from);
		fd = ufd_sys_fcntl(real_fd, F_DUPFD_CLOEXEC, from);
		if (fd >= 0) {
			below_floor = from;
			if (raised)
				set_first_from(from);
			return checked(fd);
		}
		/* EINVAL: from is past a limit lowered behind ufd's back. */
		if ((fd != -EMFILE && fd != -EINVAL) || from == FIRST)
			return fd == -EINVAL ? -EMFILE : fd;
		size = top - from;
		from = size * 2 + FIRST >= top ? FIRST : top - size * 2;
		if (below_floor >= FIRST && below_floor < from)
			from = below_floor;
	}
}

/* placement_new_backing without placement_first_from: the whole policy. */
__attribute__((noinline)) static int new_backing_placed(int real_fd)
{
	raise_once();
	policy_from = above_to > above_from ? above_from : top_region();
	if (above_to > above_from) {
		int fd;

		placement_guard((int)above_from);
		fd = ufd_sys_fcntl(real_fd, F_DUPFD_CLOEXEC, above_from);
		if (fd >= 0) {
			set_first_from(above_from);
			return checked(fd);
		}
		/* EMFILE: the room is full; EINVAL: the kernel's limit was
		 * lowered behind ufd's back.  Either way, below. */
		if (fd != -EMFILE && fd != -EINVAL)
			return fd;
	}
	return place_below(real_fd);
}

int placement_too_high(int fd)
{
	return checked(fd);
}

int placement_new_backing_policy(int real_fd)
{
	/* The whole policy, until a first try succeeds again. */
	set_first_from(0);
	return new_backing_placed(real_fd);
}

int placement_cover(int fd)
{
	struct rlimit rl;

	raise_once();
	if (kernel_nofile(&rl) < 0 || rl.rlim_cur > (rlim_t)fd)
		return 0;
	if (rl.rlim_max <= (rlim_t)fd)
		return -EBADF;
	rl.rlim_cur = (rlim_t)fd + 1;
	return set_kernel_nofile(&rl);
}

int placement_misplaced(int fd)
{
	if (!raised)
		return 0;
	return (unsigned)fd < (above_to > above_from ? above_from : top_region());
}

int placement_set_nofile(const struct rlimit *new_rl, struct rlimit *old_rl)
{
	unsigned shown = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);
	struct rlimit before, now;
	int known = kernel_nofile(&before) == 0, r;

	/* The application's own limit, its own pointers: the kernel reads
	 * them first and makes every check, in its own order (EFAULT,
	 * EINVAL for soft over hard, EPERM). */
	r = (int)ufd_sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)new_rl,
			  (long)old_rl, 0, 0);
	/* Set, then room above it again (an EFAULT for old_rl comes after
	 * new_rl was taken: seen as a change). */
	if (raised && known && kernel_nofile(&now) == 0 &&
	    (r == 0 || now.rlim_cur != before.rlim_cur ||
	     now.rlim_max != before.rlim_max))
		apply(now.rlim_cur, now.rlim_max);
	if (r == 0 && old_rl && shown != UINT_MAX)
		old_rl->rlim_cur = shown;
	return r;
}

void placement_exec(int before)
{
	struct rlimit rl;

	if (!raised || above_to == above_from || kernel_nofile(&rl) < 0)
		return;
	if (before) {
		rl.rlim_cur = app_soft;
		set_kernel_nofile(&rl);
	} else {
		apply(app_soft, rl.rlim_max);
	}
}
