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
 * close_range01, some sandboxes) has one kernel table and two ufd tables:
 * a close in the other process closes a backing descriptor behind this
 * process's table.  The calls that ufd answers without the kernel
 * (F_GETFD, F_SETFD, FIOCLEX, FIONCLEX) then ask the kernel whether the
 * backing descriptor is still open; the others reach the kernel anyway,
 * which answers EBADF for it.  vfd_files_shared: such a clone was made
 * through libc, by this process or one it was cloned from (set in the
 * parent before the call, so the child has it too; never cleared).
 */
extern unsigned vfd_files_shared __attribute__((visibility("hidden")));

/* Before a clone through libc with these flags: note CLONE_FILES without
 * CLONE_VM.  Async-signal-safe. */
void vfd_shared_files_note(uint64_t flags);

/*
 * For a call ufd answers itself on virtual descriptor vfd: 0, or -EBADF
 * if vfd_files_shared and vfd's backing descriptor has gone from the
 * kernel's table (vfd is then dropped from the table, its number not
 * closed: it may be another's now).  One load while the table is not
 * shared; then a system call.  Takes the table lock to drop.
 */
int vfd_shared_gone_slow(int vfd);

static inline int vfd_shared_gone(int vfd)
{
	if (__builtin_expect(!__atomic_load_n(&vfd_files_shared, __ATOMIC_RELAXED), 1))
		return 0;
	return vfd_shared_gone_slow(vfd);
}

#endif /* UFD_VFD_SHARED_H */
