/* SPDX-License-Identifier: MIT */
/*
 * newfd.h - what happens to a descriptor that a call has just made.
 *
 * The layer between the table (vfd_table.h) and the shim: every wrapper
 * that creates a descriptor hands the kernel's result here, and this
 * layer applies the settings that concern new descriptors, in this order:
 * the application's RLIMIT_NOFILE (ufd holds the kernel's higher:
 * placement.h), UFD_CLOEXEC (never on 0, 1 or 2), UFD_MODE=all and
 * UFD_EXCLUDE, UFD_MODE=random (random_fd.h), and the process's POSIX
 * record locks, which moving a descriptor must not drop.
 *
 * Every function returns >= 0 or -errno and leaves errno alone.  The
 * names say what becomes of the kernel's descriptor when making a virtual
 * one fails: _or_real (it stays, real), _or_close (it is closed).
 */
#ifndef UFD_NEWFD_H
#define UFD_NEWFD_H

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>

#include "calls.h"
#include "placement.h"
#include "random_fd.h"
#include "report.h"
#include "settings.h"
#include "sys.h"
#include "vfd_table.h"

/* Has the process taken POSIX record locks?  Then closing a descriptor of
 * a regular file may drop them.  (The variable: newfd.c's, read here.) */
extern int newfd_posix_locks __attribute__((visibility("hidden")));

static inline int newfd_posix_locks_taken(void)
{
	return __atomic_load_n(&newfd_posix_locks, __ATOMIC_RELAXED);
}

/*
 * Is a descriptor the kernel makes the application's just as it is?  So
 * while no setting concerns new descriptors (UFD_CLOEXEC, UFD_MODE,
 * UFD_REPORT)
 * and the kernel's limit is still the application's (placement.h): then
 * a creating wrapper hands the call straight to libc.  Lock-free.
 */
static inline int newfd_plain(void)
{
	return !ufd_settings.newfd_work &&
	       __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED) == UINT_MAX;
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
 * Real descriptor fd, just made, becomes a virtual one at random, with its
 * kernel close-on-exec flag (cloexec: 1 or 0 if the call knows it, else
 * -1: asked of the kernel) and ufd's close-on-fork mark as its flags,
 * unless UFD_EXCLUDE names fd's number or the call.  Returns the virtual
 * descriptor, or fd itself, still open and real, if that cannot be made
 * (EMFILE, ENOMEM): the call succeeds with a real descriptor rather than
 * fail for ufd's sake.  Under UFD_REPORT the result, the number the
 * application gets, is recorded (report_created).  For UFD_MODE=all.
 */
int newfd_virtual_or_real(int fd, enum ufd_call call, int cloexec);

/*
 * The same for a call that asked for a virtual descriptor (O_UNSEQFD,
 * SOCK_UNSEQ), with VFD_* flags: returns the virtual descriptor (under
 * UFD_REPORT recorded as call's), or -errno with fd closed (the call
 * fails).  Inline for its common case (no record locks, no sanitizer,
 * fd below the guard: no close-on-fork mark to drop); the rest is
 * newfd_virtual_or_close_any.  newfd_virtual_or_close_unreported: the
 * same for a caller that has seen newfd_work clear, so no UFD_REPORT.
 */
int newfd_virtual_or_close_any(int fd, unsigned flags, enum ufd_call call);

/*
 * Is r, the result of a call that makes a descriptor, one that
 * newfd_virtual_or_close's inline path takes: a descriptor, below
 * placement_move_guard (no record locks taken, fd not guarded)?
 * Lock-free.
 */
static inline int newfd_movable(int r)
{
	return (unsigned)r < __atomic_load_n(&placement_move_guard, __ATOMIC_RELAXED);
}

/*
 * ufd_sys_file_locked(fd) said yes, the process has not taken a lock ufd
 * saw: does it hold one on fd's file?  If so, from now on it is known to
 * take locks (newfd_note_posix_lock).  Returns 1 or 0.  Async-signal-safe,
 * lock-free.
 */
int newfd_lock_found(int fd);

/* Does the process hold a POSIX record lock on fd's file that it took
 * where ufd did not see it (ufd_sys_file_locked, newfd_lock_found)?  For a
 * process not yet known to take locks.  1 or 0.  Async-signal-safe. */
static inline int newfd_unseen_lock(int fd)
{
	return __builtin_expect(ufd_sys_file_locked(fd), 0) && newfd_lock_found(fd);
}

/*
 * Does call make a new object, one no process can hold a record lock on
 * yet (a socket, a pipe, an eventfd...)?  Then closing the kernel's first
 * number cannot drop a lock, and the kernel is not asked
 * (ufd_sys_file_locked): a system call saved on each such creation.
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

/* newfd_move_virtual's way for a file the kernel shows locked: fd adopted
 * if closing it would drop the process's locks, else moved; a virtual
 * descriptor or -errno, fd closed on failure.  Not recorded (no
 * UFD_REPORT on the inline path). */
int newfd_move_locked(int fd, unsigned flags);

/* That inline path, for fd newfd_movable: a virtual descriptor made at
 * random with VFD_* flags, or -errno; fd closed either way, unless the
 * process holds record locks on its file (ufd_sys_file_locked; not asked
 * for a fresh object that call made, newfd_fresh_object): then it may
 * stay, as the backing descriptor. */
static inline int newfd_move_virtual(int fd, unsigned flags, enum ufd_call call)
{
	int vfd;

	if (!newfd_fresh_object(call) && __builtin_expect(ufd_sys_file_locked(fd), 0))
		return newfd_move_locked(fd, flags);
	vfd = vfd_create(fd, flags, VFD_AT_RANDOM, 0);
	/* Made or not, the kernel's number goes (after the copy exists). */
	ufd_sys_close(fd);
	return vfd;
}

static inline int newfd_virtual_or_close_unreported(int fd, unsigned flags,
						    enum ufd_call call)
{
	if (__builtin_expect(!newfd_movable(fd), 0))
		return newfd_virtual_or_close_any(fd, flags, call);
	return newfd_move_virtual(fd, flags, call);
}

static inline int newfd_virtual_or_close(int fd, unsigned flags, enum ufd_call call)
{
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		return newfd_virtual_or_close_any(fd, flags, call);
	return newfd_virtual_or_close_unreported(fd, flags, call);
}

/*
 * fd, just made by the kernel, is at or past the application's soft
 * RLIMIT_NOFILE: without ufd the call would have failed.  Closes fd;
 * returns -EMFILE.
 */
int newfd_past_limit(int fd);

/* Under UFD_REPORT: records fd, the descriptor call made that the
 * application gets (report_created); returns fd.  Out of line, so that a
 * finishing path without reports pays one test and no frame. */
int newfd_recorded(int fd, enum ufd_call call);

/*
 * Descriptor fd (>= 0, below the application's limit), just made by the
 * call: a standard stream keeps its flags as the kernel made them (with
 * `added` undone); under UFD_MODE=all anything else becomes virtual
 * (newfd_virtual_or_real), under UFD_MODE=random it moves to a random
 * number from `from` up (random_fd_place: 3 for a creation, n for
 * F_DUPFD(n); cloexec as there: 1 or 0 if the call knows fd's
 * close-on-exec flag, else -1); under UFD_REPORT the record of the number
 * it ends on is made (newfd_recorded).  Returns the descriptor the
 * application gets; never fails.
 */
static inline int newfd_finish_from(int fd, int added, enum ufd_call call,
				    int from, int cloexec)
{
	newfd_std_fixup(fd, added);
	/* One branch for both modes, so that cloexec is worked out in it
	 * only. */
	if (__builtin_expect(ufd_settings.mode_all | ufd_settings.mode_random, 0) &&
	    fd > 2) {
		if (ufd_settings.mode_all) /* records it too */
			return newfd_virtual_or_real(fd, call, cloexec);
		fd = random_fd_place(fd, from, call, cloexec);
	}
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		return newfd_recorded(fd, call);
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
 * newfd_finish.  Returns 0 or -EMFILE.
 */
int newfd_finish_pair(int fds[2], int added, enum ufd_call call);

/*
 * A descriptor fd (>= 0) that a call just made for real, finished as the
 * call's flags asked: made virtual (virt, with VFD_* flags vflags: as
 * newfd_virtual_or_close), or marked close-on-fork (VFD_CLOFORK in
 * vflags); then as newfd_finish_from (from: as there), or closed with
 * -EMFILE past the application's limit.  If the mark cannot be set, fd is
 * closed.  Returns the descriptor or -errno.
 */
int newfd_finish_flagged_from(int fd, int virt, unsigned vflags, int added,
			      enum ufd_call call, int from);

/* newfd_finish_flagged_from for a creation: from 3 up. */
static inline int newfd_finish_flagged(int fd, int virt, unsigned vflags,
				       int added, enum ufd_call call)
{
	return newfd_finish_flagged_from(fd, virt, vflags, added, call, 3);
}

/* The process takes a POSIX record lock (fcntl F_SETLK, lockf, or one
 * newfd_lock_found found): from now on new descriptors of regular files
 * are checked before they move. */
void newfd_note_posix_lock(void);


#endif /* UFD_NEWFD_H */
