/* SPDX-License-Identifier: MIT */
/*
 * newfd.h - what happens to a descriptor that a call has just made.
 *
 * The layer between the table (vfd_table.h) and the shim: every wrapper
 * that creates a descriptor hands the kernel's result here, and one
 * decision (newfd_decide in newfd.c, with its table) says what becomes of
 * it from the settings and the call: the application's RLIMIT_NOFILE
 * (ufd holds the kernel's higher: placement.h), UFD_CLOEXEC (never on 0,
 * 1 or 2), O_UNSEQFD, UFD_MODE=all and UFD_EXCLUDE, UFD_MODE=random
 * (random_fd.h), and the process's POSIX record locks, which moving a
 * descriptor must not drop.  newfd_settle decides, carries the decision
 * out and records it for the sanitizer; the inline functions below only
 * route the common cases to it, or take its commonest row themselves.
 *
 * Every function returns >= 0 or -errno and leaves errno alone.
 */
#ifndef UFD_NEWFD_H
#define UFD_NEWFD_H

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>

#include "calls.h"
#include "placement.h"
#include "posix_locks.h"
#include "random_fd.h"
#include "report.h"
#include "settings.h"
#include "sys.h"
#include "vfd_table.h"

/* Has the process taken POSIX record locks (posix_locks.h: TAKEN)?  Then
 * closing a descriptor of a regular file may drop them. */
static inline int newfd_posix_locks_taken(void)
{
	return posix_locks() == POSIX_LOCKS_TAKEN;
}

/* The record-lock state (posix_locks.h), settled first if it is not yet
 * (/proc/locks read once).  Lock-free, async-signal-safe. */
int newfd_locks_settle(void);

/* Is the process known to hold no POSIX record lock (so that no close of
 * a descriptor it made can drop one)?  Settles the state on first use. */
static inline int newfd_locks_none(void)
{
	return __builtin_expect(posix_locks() == POSIX_LOCKS_NONE, 1) ||
	       newfd_locks_settle() == POSIX_LOCKS_NONE;
}

/*
 * Is a descriptor the kernel makes the application's just as it is?  So
 * while no setting concerns new descriptors (UFD_CLOEXEC, UFD_MODE,
 * UFD_REPORT)
 * and the kernel's limit is still the application's (placement.h): then
 * a creating wrapper hands the call straight to libc.  The two words
 * or'ed, one test (ufd_app_nofile + 1 is 0 while the limit is the
 * application's): the stream wrappers' fast paths are within an
 * instruction of their budgets.  Lock-free.
 */
static inline int newfd_plain(void)
{
	return ((__atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED) + 1) |
		(unsigned)ufd_settings.newfd_work) == 0;
}

/*
 * UFD_CLOEXEC's flag for one call: sets bit in *flags and returns 1 if
 * UFD_CLOEXEC is on and the caller did not ask for the bit already (the
 * `added` of the functions below).
 */
static inline int newfd_add_cloexec(int *flags, int bit)
{
	if (__builtin_expect(!ufd_settings.cloexec, 1) || (*flags & bit))
		return 0;
	*flags |= bit;
	return 1;
}

/* A descriptor on 0, 1 or 2 loses the close-on-exec flag that UFD_CLOEXEC
 * added (`added`): standard streams are never affected. */
static inline void newfd_std_fixup(int fd, int added)
{
	if (__builtin_expect(added, 0) && fd >= 0 && fd <= 2)
		ufd_sys_fcntl(fd, F_SETFD, 0);
}

/*
 * What a creating call tells the decision (newfd_decide, newfd.c) about
 * the descriptor it made.
 */
struct newfd_call {
	enum ufd_call call;
	int from;	 /* UFD_MODE=random draws from here: 3, or F_DUPFD's n */
	int cloexec;	 /* the kernel's close-on-exec flag as the call's flags
			  * made it: 1 or 0, or -1 where the call does not say
			  * (then read with F_GETFD where it is needed) */
	int added;	 /* UFD_CLOEXEC added the flag (newfd_add_cloexec) */
	int limited;	 /* fd is yet to be put to the application's limit
			  * (past it: closed, -EMFILE) */
	int asked;	 /* the call asked for a virtual descriptor (O_UNSEQFD,
			  * SOCK_UNSEQ) */
	unsigned vflags; /* VFD_* the call asked for: the virtual descriptor's
			  * flags (asked), else VFD_CLOFORK, the real one's
			  * close-on-fork mark */
};

/* What becomes of the descriptor: newfd_decide's answer. */
enum newfd_action {
	NEWFD_KEEP,	  /* stays as the kernel made it */
	NEWFD_KEEP_DRAWN, /* stays, and UFD_MODE=random's chooser knows its
			   * number is taken (random_fd_kept) */
	NEWFD_PAST_LIMIT, /* closed: -EMFILE (the application's limit) */
	NEWFD_VIRTUAL,	  /* duplicated into the backing area, the kernel's
			   * number closed: a virtual descriptor */
	NEWFD_ADOPT,	  /* a virtual descriptor whose backing descriptor is
			   * the kernel's, where it is (record locks) */
	NEWFD_DRAW,	  /* moved to a real number drawn at random
			   * (random_fd_place) */
};

/*
 * Descriptor fd (>= 0), just made by the call c describes: decided
 * (newfd_decide), carried out through the table and random_fd
 * (newfd_carry_out), and recorded for the sanitizer (report_created of
 * the number the application gets, under UFD_REPORT).  Returns that
 * descriptor, or -errno with fd closed (a virtual descriptor the call
 * asked for could not be made, the application's limit, a close-on-fork
 * mark that could not be set).  Async-signal-safe as the table is.
 */
int newfd_settle(int fd, const struct newfd_call *c);

/* newfd_settle for a call that asked for no virtual descriptor nor
 * close-on-fork mark, with fd below the application's limit (the
 * caller's test): the common case, with the fields as scalars. */
int newfd_settle_made(int fd, enum ufd_call call, int from, int cloexec, int added);

/*
 * Is r, the result of a call that makes a descriptor, one that
 * newfd_move_virtual may take: a descriptor below placement_move_guard
 * (no record lock held: posix_locks.h's NONE; fd not guarded)?
 * Lock-free.
 */
static inline int newfd_movable(int r)
{
	return (unsigned)r < __atomic_load_n(&placement_move_guard, __ATOMIC_RELAXED);
}

/*
 * Does call make a new object, one no process can hold a record lock on
 * yet (a socket, a pipe, an eventfd...)?  Then closing the kernel's first
 * number cannot drop a lock, and the record-lock state is not asked
 * (where it must probe, a system call saved on each such creation).
 * Folds to a constant where call is one.
 */
static inline int newfd_fresh_object(enum ufd_call call)
{
	switch (call) {
	case UFD_CALL_socket: case UFD_CALL_socketpair:
	case UFD_CALL_accept: case UFD_CALL_accept4:
	case UFD_CALL_pipe: case UFD_CALL_pipe2:
	case UFD_CALL_eventfd: case UFD_CALL_epoll_create1:
	case UFD_CALL_inotify_init1: case UFD_CALL_timerfd_create:
	case UFD_CALL_signalfd: case UFD_CALL_memfd_create:
	case UFD_CALL_pidfd_open: case UFD_CALL_fanotify_init:
		return 1;
	default:
		return 0;
	}
}

/*
 * The decision's commonest row, inline, for a call that asked for a
 * virtual descriptor while UFD_REPORT is off and fd is newfd_movable (so
 * the process holds no record lock, which the close could drop): a
 * virtual descriptor made at random with VFD_* flags, or -errno; fd
 * closed either way.  call: the creating call, for the callers' sake.
 */
static inline int newfd_move_virtual(int fd, unsigned flags, enum ufd_call call)
{
	int vfd;

	(void)call;
	vfd = vfd_create(fd, flags, VFD_AT_RANDOM, 0);
	/* Made or not, the kernel's number goes (after the copy exists). */
	ufd_sys_close(fd);
	return vfd;
}

/*
 * A virtual descriptor with VFD_* flags for fd, which a call that asked
 * for one (O_UNSEQFD, SOCK_UNSEQ) just made: the virtual descriptor
 * (recorded under UFD_REPORT), or -errno with fd closed (the call fails).
 * Inline for newfd_move_virtual's case; the rest is newfd_settle's.
 */
static inline int newfd_virtual_or_close(int fd, unsigned flags, enum ufd_call call)
{
	if (__builtin_expect(ufd_settings.report != NULL || !newfd_movable(fd), 0)) {
		struct newfd_call c = { .call = call, .from = 3, .cloexec = -1,
					.asked = 1, .vflags = flags };

		return newfd_settle(fd, &c);
	}
	return newfd_move_virtual(fd, flags, call);
}

/*
 * fd, just made by the kernel, is at or past the application's soft
 * RLIMIT_NOFILE: without ufd the call would have failed.  Closes fd;
 * returns -EMFILE.
 */
int newfd_past_limit(int fd);

/*
 * Is there anything to decide for a descriptor below the application's
 * limit that a call made without asking for a virtual one: a mode, or
 * the sanitizer's record?  Else it is the application's as the kernel
 * made it, but for UFD_CLOEXEC's standard streams (newfd_std_fixup).
 */
static inline int newfd_decides(void)
{
	return __builtin_expect(ufd_settings.mode_all | ufd_settings.mode_random |
					(ufd_settings.report != NULL), 0);
}

/*
 * Descriptor fd (>= 0, below the application's limit), just made by the
 * call: newfd_settle's (from, cloexec: as struct newfd_call), unless
 * nothing is to be decided (newfd_decides).  Returns the descriptor the
 * application gets; never fails.
 */
static inline int newfd_finish_from(int fd, int added, enum ufd_call call,
				    int from, int cloexec)
{
	if (newfd_decides())
		return newfd_settle_made(fd, call, from, cloexec, added);
	newfd_std_fixup(fd, added);
	return fd;
}

/* newfd_finish_from for a creation: from 3 up, fd's close-on-exec flag
 * unknown. */
static inline int newfd_finish(int fd, int added, enum ufd_call call)
{
	return newfd_finish_from(fd, added, call, 3, -1);
}

/* newfd_finish for a call that made fd close-on-exec (cloexec 1) or not
 * (0), as its flags said: UFD_MODE=random need not ask the kernel. */
static inline int newfd_finish_known(int fd, int added, enum ufd_call call,
				     int cloexec)
{
	return newfd_finish_from(fd, added, call, 3, cloexec);
}

/*
 * Both descriptors of a pair the kernel just made (pipe, socketpair): if
 * one is past the application's limit, both are closed and the result is
 * -EMFILE, as the kernel makes both or neither.  Else each as
 * newfd_finish_known (cloexec: as there).  Returns 0 or -EMFILE.
 */
int newfd_finish_pair(int fds[2], int added, enum ufd_call call, int cloexec);

/*
 * A descriptor fd (>= 0) that a call just made for real, finished as the
 * call's flags asked: made virtual (virt, with VFD_* flags vflags: as
 * newfd_virtual_or_close), or marked close-on-fork (VFD_CLOFORK in
 * vflags); then as newfd_finish_from (from, cloexec: as there), or closed
 * with -EMFILE past the application's limit.  If the mark cannot be set,
 * fd is closed.  Returns the descriptor or -errno.
 */
static inline int newfd_finish_flagged_from(int fd, int virt, unsigned vflags,
					    int added, enum ufd_call call,
					    int from, int cloexec)
{
	struct newfd_call c = { .call = call, .from = from, .cloexec = cloexec,
				.added = added, .limited = 1, .asked = virt,
				.vflags = vflags };

	return newfd_settle(fd, &c);
}

/* newfd_finish_flagged_from for a creation: from 3 up. */
static inline int newfd_finish_flagged(int fd, int virt, unsigned vflags,
				       int added, enum ufd_call call, int cloexec)
{
	return newfd_finish_flagged_from(fd, virt, vflags, added, call, 3, cloexec);
}

/* The process takes a POSIX record lock (fcntl F_SETLK, lockf, or one
 * the record-lock look found): from now on new descriptors of regular files
 * are checked before they move. */
void newfd_note_posix_lock(void);


#endif /* UFD_NEWFD_H */
