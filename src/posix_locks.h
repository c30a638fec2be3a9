/* SPDX-License-Identifier: MIT */
/*
 * posix_locks.h - may this process hold POSIX record locks?  The one
 * answer every move of a new descriptor asks (newfd.c), kept per process.
 *
 * Moving a descriptor (UFD_MODE=all, UFD_MODE=random, O_UNSEQFD) copies it
 * and closes the kernel's first number, and any close drops every POSIX
 * record lock (fcntl F_SETLK, lockf) the process holds on the file, even
 * those taken through another descriptor.  So ufd must never close a
 * kernel descriptor for a file on which the process may hold such a lock.
 * OFD locks (F_OFD_SETLK) and flock() belong to the open file description,
 * not the process: closing another descriptor drops neither, and they are
 * not counted here.
 *
 * The state, per process:
 *
 *   UNSETTLED  nothing known yet: a process whose parent was not under ufd
 *              (no hand-off), or whose hand-off did not say.  Settled at
 *              the first move that asks (posix_locks_settle): /proc/locks
 *              read once for this pid.
 *   NONE       the process holds none, and every way it could take one
 *              since is watched: the fcntl, fcntl64 and lockf wrappers,
 *              syscall(SYS_fcntl) (through fcntl), and glibc's own takers
 *              (lckpwdf, the utmp and wtmp functions: shim_locks.c).
 *              Nothing to look at per call.
 *   TAKEN      the process may hold some: every regular file is kept where
 *              the kernel put it (or its own locks looked up).
 *   PROBE      /proc/locks cannot be read (or is not this pid namespace's):
 *              the kernel is asked per call (ufd_sys_file_locked).
 *
 * Locks survive exec: the hand-off carries TAKEN and NONE (handoff.c).  A
 * fork child holds none, and keeps its parent's state (TAKEN is only
 * cautious).  Not seen: a lock the program takes with the system call
 * instruction itself (a static runtime) after the state is settled.
 */
#ifndef UFD_POSIX_LOCKS_H
#define UFD_POSIX_LOCKS_H

enum {
	POSIX_LOCKS_UNSETTLED = 0,
	POSIX_LOCKS_NONE,
	POSIX_LOCKS_TAKEN,
	POSIX_LOCKS_PROBE,
};

extern int posix_locks_state __attribute__((visibility("hidden")));

/* The state (one of the above).  Lock-free, async-signal-safe. */
static inline int posix_locks(void)
{
	return __atomic_load_n(&posix_locks_state, __ATOMIC_RELAXED);
}

/* The process takes (or may hold) a POSIX lock: TAKEN, for good.  Called
 * before the lock is asked of the kernel.  Lock-free, async-signal-safe. */
static inline void posix_locks_taken(void)
{
	__atomic_store_n(&posix_locks_state, POSIX_LOCKS_TAKEN, __ATOMIC_RELAXED);
}

/*
 * Settle an UNSETTLED state from /proc/locks: NONE, TAKEN if it lists a
 * lock of this pid, PROBE if it cannot be read or its pids are not ours
 * (/proc of another pid namespace).  A state set meanwhile by another
 * thread (TAKEN) wins.  With store 0 (a child sharing its parent's memory,
 * whose locks are not its parent's), the answer is returned, not kept.
 * Returns the state.  Lock-free, async-signal-safe (raw system calls).
 */
int posix_locks_settle(int store);

/*
 * Does this process hold a POSIX lock on fd's file, by /proc/locks?  1
 * also where it cannot tell (keep the locks safe).  Lock-free,
 * async-signal-safe.
 */
int posix_locks_held_on(int fd);

/* From the hand-off of the exec that started this image: TAKEN (taken 1)
 * or NONE (0), while still UNSETTLED.  Start-up only. */
void posix_locks_inherit(int taken);

#endif /* UFD_POSIX_LOCKS_H */
