/* SPDX-License-Identifier: MIT */
/*
 * vfd_shared.h - children that share the process's memory without being
 * its threads.
 *
 * clone(2) or clone3(2) with CLONE_VM and without CLONE_THREAD (a
 * hand-written spawner's clone(CLONE_VM | CLONE_VFORK), a runtime's raw
 * system call) makes a process that runs in its parent's memory, ufd's
 * table and its lock included, and may exec or die at any point.  Such a
 * child must never take a lock its parent needs (an exec with it held
 * leaves it held in the parent for ever) nor write the parent's table
 * (its descriptors are its own kernel table's, or the parent's too).
 * ufd's own vfork child (vfd_table.h) is one of them, known by a flag
 * (vfd_in_vfork_child, below).
 * The others are known by the kernel's answer to
 * prctl(PR_GET_TID_ADDRESS): glibc gives every thread it makes, the main
 * thread and a fork child's a clear_child_tid address (its struct
 * pthread's tid), and the kernel gives a clone child one only with
 * CLONE_CHILD_CLEARTID, which a raw clone does not ask for: no address,
 * a child glibc did not make.  One system call per question, no state,
 * nothing written at fork.  A kernel without CONFIG_CHECKPOINT_RESTORE
 * answers EINVAL: such children are then not known (but ufd's vfork's).
 *
 * Functions return >= 0 or -errno and never touch errno.
 */
#ifndef UFD_VFD_SHARED_H
#define UFD_VFD_SHARED_H

#include <stdint.h>

/*
 * ufd's own vfork child (vfd_table.h's vfork functions, vfd_fork.c):
 *
 * vfd_vfork_child: set to 1 by the vfork wrapper's child path, before the
 * child runs any code of its caller's, and cleared by vfd_vfork_end in the
 * parent once the child has exec'd or exited.  A flag the child raises
 * rather than a comparison of pids: no getpid per question, and a handler
 * of the parent's own thread run between begin and the system call (a
 * synchronous signal) still sees 0.
 *
 * vfd_in_vfork_child: is the caller a vfork child sharing its parent's
 * memory?  One load; async-signal-safe.  Always inline: sigaction asks it
 * before a sanitizer's runtime is ready, from uninstrumented code, which
 * an out-of-line copy would not be.
 */
extern int vfd_vfork_child __attribute__((visibility("hidden")));
static inline __attribute__((always_inline)) int vfd_in_vfork_child(void)
{
	return __builtin_expect(__atomic_load_n(&vfd_vfork_child, __ATOMIC_RELAXED), 0);
}

/*
 * Children sharing the memory that this process made through libc
 * (clone(), syscall(SYS_clone or SYS_clone3)) and that may still run: the
 * paths that make and close virtual descriptors ask vfd_shared_child only
 * while it is not 0 (vfd_shared_maybe), so that a process that never made
 * one pays one load for the question.  A child made by the process's own
 * system call instruction is not counted: it is known on the costly paths
 * only (vfd_shared_child's callers).
 */
struct vfd_lock_line {
	uint32_t word;	       /* vfd_lock.c's table lock */
	unsigned shared_clones;
} __attribute__((aligned(64)));
extern struct vfd_lock_line vfd_lock_line __attribute__((visibility("hidden")));
#define vfd_shared_clones (vfd_lock_line.shared_clones)

/*
 * Is the caller a child sharing its parent's memory (ufd's vfork child,
 * or a raw clone with CLONE_VM and without CLONE_THREAD)?  1 or 0.  A
 * prctl (none in a vfork child); async-signal-safe, lock-free.  For the
 * paths that hold the table lock across something that may not return
 * (exec) or are costly anyway (fork, close_range, setrlimit).
 */
int vfd_shared_child(void);

/* vfd_shared_child, asked only while vfd_shared_clones is not 0: for the
 * paths that make, close or change virtual descriptors and marks. */
static inline int vfd_shared_maybe(void)
{
	return __builtin_expect(__atomic_load_n(&vfd_shared_clones, __ATOMIC_RELAXED) != 0, 0) &&
	       vfd_shared_child();
}

/*
 * In the parent, before a clone through libc with these flags: with
 * CLONE_VM and without CLONE_THREAD, the child is counted in
 * vfd_shared_clones (and the single-threaded paths of vfd_table.c, which
 * do not ask, are left until it is gone) and 1 returned; else 0, also in
 * a child sharing the memory itself (its parent's count is not its to
 * write, and its children are known without it anyway).
 * vfd_shared_clone_end(), in the parent once the clone has returned
 * there, if the call returned 1 and the child can be over by then: with
 * CLONE_VFORK (it has exec'd or exited), or when the clone failed.
 * Otherwise the count stays: the child may run on.  Async-signal-safe,
 * lock-free.
 */
int vfd_shared_clone_begin(uint64_t flags);
void vfd_shared_clone_end(void);

/* vfd_table.c's single-threaded paths (alone_ok) allowed again, or not,
 * now that vfd_shared_clones has changed.  Async-signal-safe. */
void vfd_alone_recheck(void);

/* In a fork child (memory of its own): no child shares this memory.
 * Written only if it changes (a page not copied in the child).  Inline,
 * for vfd_fork_child's pages.  Async-signal-safe. */

static inline void vfd_shared_forked(void)
{
	if (__atomic_load_n(&vfd_shared_clones, __ATOMIC_RELAXED)) {
		__atomic_store_n(&vfd_shared_clones, 0, __ATOMIC_RELAXED);
		vfd_alone_recheck();
	}
}

/*
 * For a clone through libc without CLONE_VM, which makes a child with
 * memory of its own but, unlike glibc's fork, no clear_child_tid address:
 * vfd_shared_tid_address() in the parent before the call (the calling
 * thread's address, or NULL), vfd_shared_raw_child(it) first in the
 * child, which gives the child the same address (glibc's fork does: its
 * struct pthread's tid, at the same place in the child's copy) so that it
 * is not taken for a child sharing the memory.  Async-signal-safe.
 */
void *vfd_shared_tid_address(void);
void vfd_shared_raw_child(void *tid_address);

/*
 * A process that shares its kernel descriptor table with another without
 * sharing its memory (clone with CLONE_FILES and without CLONE_VM: LTP's
 * close_range01, some sandboxes) has one kernel table and two ufd tables.
 * ufd does not share its table; from such a clone made through libc on
 * (vfd_files_shared: set in the parent before the call, so that the child
 * has it too, and never cleared, also in later children of either), it
 * keeps the kernel the judge of every virtual descriptor, at no cost to a
 * process that never made such a clone (one load):
 *
 * - no new backing descriptor is made (vfd_create: -EBUSY, so that mode
 *   all and random leave new descriptors real, as in a vfork child) and
 *   none moves (setrlimit leaves them, a dup2 onto one is -EBUSY): a
 *   backing descriptor's number then never gets another file from ufd,
 *   so one the other process closed stays closed, and every call that
 *   reaches the kernel on it says EBADF;
 * - the calls ufd answers itself (F_GETFD, F_SETFD, FIOCLEX, FIONCLEX)
 *   first ask the kernel whether the backing descriptor is still open
 *   (vfd_shared_gone);
 * - the kernel's close-on-exec flag of a backing descriptor is its
 *   virtual descriptor's (set for each at the clone, written with every
 *   change, vfd_shared_flags_changed): F_GETFD and exec read it, so a
 *   flag the other process set is seen.
 *
 * Close-on-fork marks (of virtual and of real descriptors) have no flag in
 * the kernel to keep them in: each process sees its own only.
 */
extern unsigned vfd_files_shared __attribute__((visibility("hidden")));

static inline int vfd_files_shared_now(void)
{
	return __builtin_expect(__atomic_load_n(&vfd_files_shared, __ATOMIC_RELAXED) != 0, 0);
}

/* Before a clone through libc with these flags: note CLONE_FILES without
 * CLONE_VM, the first time setting each backing descriptor's kernel
 * close-on-exec flag to its virtual descriptor's (takes the table lock:
 * not from a handler that interrupted a change to the table, where the
 * flags stay as they are).  Async-signal-safe. */
void vfd_shared_files_note(uint64_t flags);

/*
 * For a call ufd answers itself on virtual descriptor vfd: 0, or -EBADF
 * if vfd_files_shared and vfd's backing descriptor has gone from the
 * kernel's table (vfd is then dropped from the table, its number not
 * closed: it may be another's now); if it is there, vfd's close-on-exec
 * flag is set to the kernel's first.  One load while the table is not
 * shared; then a system call.  Takes the table lock to drop.
 */
int vfd_shared_gone_slow(int vfd);

static inline int vfd_shared_gone(int vfd)
{
	if (!vfd_files_shared_now())
		return 0;
	return vfd_shared_gone_slow(vfd);
}

/* vfd_set_flags has changed vfd's flags (slot value v): while the table
 * is shared, its backing descriptor's kernel close-on-exec flag follows.
 * Lock-free, async-signal-safe. */
void vfd_shared_flags_changed(uint32_t v);

/* With the table lock held, while the table is shared: each virtual
 * descriptor's close-on-exec flag from its backing descriptor's (the
 * other process may have changed it; one gone from the kernel's table
 * becomes close-on-exec, so that no exec hands it off), or (mirror) each
 * backing descriptor's from its virtual descriptor's. */
void vfd_shared_flags_from_kernel(void);
void vfd_shared_flags_to_kernel(void);

#endif /* UFD_VFD_SHARED_H */
