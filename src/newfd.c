/* SPDX-License-Identifier: MIT */
/*
 * newfd.c - what happens to a descriptor a call has just made (newfd.h).
 */
#include "newfd.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log.h"
#include "posix_locks.h"
#include "text.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* ---- POSIX record locks ----
 *
 * Making a new descriptor virtual duplicates it into the backing area and
 * closes the kernel's first number for it; and any close drops the
 * process's POSIX record locks (fcntl F_SETLK) on the file, even those it
 * took through another descriptor.  So a descriptor whose file the process
 * may hold such a lock on is adopted as the backing descriptor where it
 * is (or under UFD_MODE=random left where it is), not duplicated and
 * closed.  Whether the process may hold any is posix_locks.h's state,
 * which costs nothing per call once settled: no lock (the common case),
 * nothing to look at.  OFD locks and flock() are the open file
 * description's: closing another descriptor drops neither.
 */
void newfd_note_posix_lock(void)
{
	if (posix_locks() != POSIX_LOCKS_TAKEN) {
		posix_locks_taken();
		/* newfd_virtual_or_close's inline path no longer moves
		 * a descriptor unchecked. */
		placement_guard_moves();
	}
}

/* Does the process hold a POSIX lock on fd's file (posix_locks_held_on)?
 * Then it is known to take locks, from now on. */
static __attribute__((noinline, cold)) int lock_found(int fd)
{
	if (!posix_locks_held_on(fd))
		return 0;
	newfd_note_posix_lock();
	UFD_LOG("%d: the process holds record locks on its file, taken where "
		"ufd did not see: now known to take locks", fd);
	return 1;
}

int newfd_locks_settle(void)
{
	int state = posix_locks();

	if (state == POSIX_LOCKS_UNSETTLED) {
		/* In a child sharing its parent's memory, for this call only:
		 * the state is the parent's. */
		state = posix_locks_settle(!vfd_shared_child());
		if (state == POSIX_LOCKS_TAKEN)
			newfd_note_posix_lock();
		else if (state == POSIX_LOCKS_NONE && posix_locks() == POSIX_LOCKS_NONE)
			placement_moves_free();
	}
	return state;
}

/* lock_at_stake's way for a state other than NONE, settled first. */
static __attribute__((noinline, cold)) int lock_at_stake_slow(int fd, int any_regular)
{
	switch (newfd_locks_settle()) {
	case POSIX_LOCKS_NONE:
		return 0;
	case POSIX_LOCKS_TAKEN:
		return any_regular ? ufd_sys_maybe_regular(fd) : posix_locks_held_on(fd);
	default: /* PROBE: the kernel, per call (ufd_sys_file_locked) */
		return ufd_sys_file_locked(fd) && lock_found(fd);
	}
}

/*
 * Would closing fd, just made, drop the process's record locks?  Asked
 * only of a descriptor that is not a fresh object (newfd_fresh_object).
 * No lock held (posix_locks NONE): no, without a look.  Once the process
 * may hold locks (TAKEN), any_regular: every file that may be regular,
 * without asking (so that no window is left between the look and the
 * close for another thread's new lock); else the kernel's and
 * /proc/locks' answer for this file.  Where /proc/locks cannot say
 * (PROBE), the kernel is asked whether fd's file is locked at all
 * (ufd_sys_file_locked, one system call), and if so whether by this
 * process (lock_found).
 */
static inline __attribute__((always_inline)) int lock_at_stake(int fd, int any_regular)
{
	if (__builtin_expect(posix_locks() == POSIX_LOCKS_NONE, 1))
		return 0;
	return lock_at_stake_slow(fd, any_regular);
}

/* ---- the decision ---- */

/* What newfd_carry_out does: the action, and for it the VFD_* flags of a
 * virtual descriptor the call asked for, and whether fd stays real
 * (or_real) or is closed (the call fails) when a virtual descriptor
 * cannot be made. */
struct newfd_plan {
	enum newfd_action action;
	unsigned vflags;
	int or_real;
};

/*
 * What becomes of descriptor fd, which the call c describes just made.
 * Each question is asked here once, in this order, and the first row
 * that matches decides ("-": any; "locked": closing fd's kernel number
 * would drop the process's record locks, lock_at_stake, never asked of a
 * fresh object nor of 0-2):
 *
 *   asked  fd       mode     excluded  locked   -> action
 *   -----  -------  -------  --------  -------  -------------------------
 *   yes    <= 2     -        -         -        VIRTUAL (fails: closed)
 *   yes    > 2      -        -         yes (1)  ADOPT   (fails: closed)
 *   yes    > 2      -        -         no       VIRTUAL (fails: closed)
 *   no (3) >= lim   -        -         -        PAST_LIMIT (-EMFILE)
 *   no     <= 2     -        -         -        KEEP
 *   no     > 2      default  -         -        KEEP
 *   no     > 2      all      yes       -        KEEP
 *   no     > 2      all      no        yes (2)  ADOPT   (fails: stays real)
 *   no     > 2      all      no        no       VIRTUAL (fails: stays real)
 *   no     > 2      random   (chooser not built: KEEP)
 *   no     > 2      random   yes       -        KEEP_DRAWN
 *   no     > 2      random   no        yes (2)  KEEP_DRAWN
 *   no     > 2      random   no        no       DRAW (from c->from)
 *
 * asked: O_UNSEQFD, SOCK_UNSEQ; lim: the application's soft
 * RLIMIT_NOFILE (placement.h); excluded: UFD_EXCLUDE names the call or
 * fd's number.  (1): once locks are known taken, under UFD_MODE=all any
 * regular file, else this file's locks (lock_at_stake's any_regular);
 * (2): any regular file once locks are known taken.  (3): for a caller
 * that has not put the limit to fd yet (c->limited: the flagged path);
 * the others did, or made fd past ufd's wrappers (a stream's descriptor,
 * which stays as the rows below say).
 *
 * Not asked here: the flags.  A virtual descriptor gets the call's
 * (asked), or under mode all the kernel's close-on-exec flag (c->cloexec,
 * or F_GETFD where the call does not say) and the real descriptor's
 * close-on-fork mark, both read by newfd_carry_out when it makes it; a
 * draw moves both.  Lock-free (the record-lock look may read /proc/locks),
 * async-signal-safe.
 *
 * Three rows are also taken before the call reaches here, inline, where
 * they cost a few instructions: nothing to decide without a mode or
 * reports (newfd_finish_from: KEEP, with UFD_CLOEXEC's standard-stream
 * fix); past the limit (ufd_ret_new_fd_known, newfd_finish_pair:
 * PAST_LIMIT); and, for O_UNSEQFD without reports while the process is
 * known to hold no record lock (newfd_movable: the move guard),
 * newfd_move_virtual's VIRTUAL.  A new policy (a mode, a flag) is a
 * column and rows of this table.
 */
static inline __attribute__((always_inline)) struct newfd_plan
newfd_decide(int fd, const struct newfd_call *c)
{
	struct newfd_plan p = { NEWFD_KEEP, c->vflags, 0 };
	int lockable = !newfd_fresh_object(c->call) && fd > 2;

	if (c->asked) {
		p.action = lockable && lock_at_stake(fd, ufd_settings.mode_all)
				   ? NEWFD_ADOPT : NEWFD_VIRTUAL;
		goto adopt_logged;
	}
	if (c->limited &&
	    (unsigned)fd >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED)) {
		p.action = NEWFD_PAST_LIMIT;
		return p;
	}
	if (fd <= 2 || !(ufd_settings.mode_all | ufd_settings.mode_random))
		return p;
	if (ufd_settings.mode_random) {
		if (!random_fd_ready())
			return p;
		p.action = NEWFD_KEEP_DRAWN;
	}
	if (__builtin_expect(ufd_settings.exclude, 0) && ufd_settings_exclude(fd, c->call)) {
		UFD_LOG("%s made %d: stays%s (UFD_EXCLUDE)", ufd_call_name(c->call), fd,
			ufd_settings.mode_all ? " real" : "");
		return p;
	}
	p.or_real = 1;
	if (lockable && lock_at_stake(fd, 1))
		p.action = ufd_settings.mode_all ? NEWFD_ADOPT : NEWFD_KEEP_DRAWN;
	else
		p.action = ufd_settings.mode_all ? NEWFD_VIRTUAL : NEWFD_DRAW;
adopt_logged:
	if (p.action == NEWFD_ADOPT)
		UFD_LOG("%d: the process holds record locks on its file: "
			"adopted, not closed", fd);
	return p;
}

/* ---- carrying it out ---- */

/* Under UFD_MODE=all, the flags of the virtual descriptor that fd, made
 * without asking, becomes: its close-on-exec flag (the call's, else the
 * kernel's) and its close-on-fork mark (none below the guard). */
static inline __attribute__((always_inline)) unsigned kernel_vflags(int fd, int cloexec)
{
	unsigned vflags = 0;

	if (cloexec < 0) {
		int kernel_flags = ufd_sys_fcntl(fd, F_GETFD, 0);

		cloexec = kernel_flags > 0 && (kernel_flags & FD_CLOEXEC);
	}
	if (cloexec)
		vflags |= VFD_CLOEXEC;
	if (vfd_guarded(fd))
		vflags |= vfd_real_get_flags(fd) & VFD_CLOFORK;
	return vflags;
}

/*
 * Plan p for fd, carried out through the table (vfd_create) and
 * random_fd: returns the descriptor the application gets, or -errno with
 * fd closed.
 */
static inline __attribute__((always_inline)) int
newfd_carry_out(int fd, const struct newfd_call *c, struct newfd_plan p)
{
	unsigned vflags = p.vflags;
	int vfd;

	switch (p.action) {
	case NEWFD_KEEP:
		return fd;
	case NEWFD_KEEP_DRAWN:
		random_fd_kept(fd);
		return fd;
	case NEWFD_PAST_LIMIT:
		return newfd_past_limit(fd);
	case NEWFD_DRAW:
		return random_fd_place(fd, c->from, c->call, c->cloexec);
	case NEWFD_ADOPT:
	case NEWFD_VIRTUAL:
		break;
	}
	if (!c->asked)
		vflags = kernel_vflags(fd, c->cloexec);
	if (p.action == NEWFD_ADOPT) {
		vfd = vfd_create(fd, vflags | VFD_ADOPT, VFD_AT_RANDOM, 0);
	} else {
		vfd = vfd_create(fd, vflags, VFD_AT_RANDOM, 0);
		if (vfd >= 0) {
			/* Unmarked before the number is free: after, another
			 * thread may get it, with a mark of its own.  Below the
			 * guard there is no mark (as close() knows). */
			if (vfd_guarded(fd))
				vfd_real_closing(fd);
			ufd_sys_close(fd);
		}
	}
	if (vfd >= 0)
		return vfd;
	if (p.or_real)
		return fd; /* EMFILE, ENOMEM: it stays real, as the kernel made it */
	ufd_sys_close(fd);
	return vfd;
}

/* newfd_settle's body, inlined into its two entry points, so that the
 * compiler folds what newfd_settle_made's constant fields settle. */
static inline __attribute__((always_inline)) int settle(int fd, const struct newfd_call *c)
{
	int r;

	if (!c->asked) {
		/* The close-on-fork mark first, as the call made fd. */
		if (c->vflags & VFD_CLOFORK) {
			r = vfd_real_set_flags(fd, VFD_CLOFORK);
			if (r < 0) {
				ufd_sys_close(fd);
				return r;
			}
		}
		if (!c->limited ||
		    (unsigned)fd < __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED))
			newfd_std_fixup(fd, c->added);
	}
	r = newfd_carry_out(fd, c, newfd_decide(fd, c));
	/* The record: the number the application gets. */
	if (r >= 0 && __builtin_expect(ufd_settings.report != NULL, 0))
		report_created(r, c->call, 0);
	return r;
}

int newfd_settle(int fd, const struct newfd_call *c)
{
	return settle(fd, c);
}

int newfd_settle_made(int fd, enum ufd_call call, int from, int cloexec, int added)
{
	struct newfd_call c = { .call = call, .from = from, .cloexec = cloexec,
				.added = added };

	return settle(fd, &c);
}

/* ---- the application's limit, pairs ---- */

int newfd_past_limit(int fd)
{
	vfd_real_closing(fd); /* drops a close-on-fork mark set meanwhile */
	ufd_sys_close(fd);
	UFD_LOG("%d: past the application's RLIMIT_NOFILE: EMFILE", fd);
	return -EMFILE;
}

int newfd_finish_pair(int fds[2], int added, enum ufd_call call, int cloexec)
{
	unsigned limit = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

	if ((unsigned)fds[0] >= limit || (unsigned)fds[1] >= limit) {
		vfd_real_closing(fds[0]);
		ufd_sys_close(fds[0]);
		return newfd_past_limit(fds[1]);
	}
	fds[0] = newfd_finish_known(fds[0], added, call, cloexec);
	fds[1] = newfd_finish_known(fds[1], added, call, cloexec);
	return 0;
}
