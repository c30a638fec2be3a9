/* SPDX-License-Identifier: MIT */
/*
 * shim_vfork.c - vfork (the kernel's while nothing of ufd's is in play,
 * else fork; __vfork, glibc's second name, is the same code) and glibc's
 * _Fork (ufd's own fork handlers run).
 */
#include "shim.h"

#include <signal.h>

#include "random_fd.h"
#include "report.h"
#include "shim_exec.h"
#include "sys.h"
#include "vfd_table.h"

/* ---- vfork ---- */

/*
 * A real vfork where the child may share the parent's memory
 * (vfd_vfork_begin: nothing of ufd's in play, one thread; under reports,
 * no descriptor of the program's that its exec could leak); fork otherwise,
 * which POSIX allows, since a vfork child that closes or dup2s through ufd
 * (CPython's subprocess does, between vfork and exec) would change the
 * parent's table.  Shells run every command with vfork: fork there costs
 * each command its page tables and copy-on-write faults.
 *
 * In assembly, because the child returns from vfork on its parent's stack
 * and then calls on it, overwriting whatever a C wrapper's frame held
 * there: the parent's way back must not be in memory.  As glibc's own
 * vfork does, the return address is held in a register across the system
 * call (x86_64: popped into r9, which the kernel keeps; aarch64: x30).
 * The system call is clone with vfork's flags and CLONE_PARENT_SETTID,
 * which puts the child's pid in ufd_vfork_pid for its exec (shim_exec.h).
 * The child returns at once; the parent, whose stack is its own again
 * once the child has exec'd or exited, tail-calls vfork_end.
 * (posix_spawn's internal vfork-style child runs only glibc's internal
 * calls, which ufd does not see.)
 *
 * The application's signals are blocked from the decision to the system
 * call, as glibc's posix_spawn blocks its own: a handler run in between
 * could make a virtual descriptor, which the child would then share.  The
 * child restores the caller's mask before it returns, the parent in
 * ufd_vfork_end, once the vfork is over for ufd; neither when the caller
 * had them all blocked already (dash does, around each command's vfork).
 * glibc's two internal signals stay as they were: their handlers make no
 * descriptor, and in a process of one thread (vfd_vfork_begin) nothing of
 * glibc's sends them.
 */

/* The signals vfork blocks, as the kernel's 8-byte mask: all but SIGKILL
 * and SIGSTOP (which cannot be) and glibc's 32 and 33 (SIGCANCEL,
 * SIGSETXID). */
#define VFORK_BLOCKED                                                        \
	(~0UL & ~(1UL << (SIGKILL - 1)) & ~(1UL << (SIGSTOP - 1)) &          \
	 ~(1UL << 31) & ~(1UL << 32))

/* The caller's signal mask (the kernel's 8 bytes) while vfork blocks the
 * application's, and whether the block changed it (then the child and the
 * parent restore it).  Read by the wrapper's child path. */
__attribute__((visibility("hidden"), used)) unsigned long ufd_vfork_mask;
__attribute__((visibility("hidden"), used)) int ufd_vfork_restore;

/* shim_exec.h.  Written by the kernel (CLONE_PARENT_SETTID) in the vfork
 * below, before the child runs. */
__attribute__((visibility("hidden"), used)) int ufd_vfork_pid;

static void vfork_unblock(void)
{
	ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&ufd_vfork_mask, 0,
		 sizeof(ufd_vfork_mask), 0, 0);
}

/* Under UFD_REPORT, may the child share the memory?  Only while its exec
 * could leak none of the parent's descriptors (report_exec_may_leak with
 * nothing named): the child records and reports nothing (report.c), so a
 * leak of the parent's it passed on would go unreported; else it forks,
 * and its exec reports as a fork child's does.  Lock-free, as the records
 * are; a system call (F_GETFD) per descriptor of the program's above 2
 * that may cross. */
static int vfork_reports_allow(void)
{
	return !ufd_settings.report || !report_exec_may_leak(NULL, 0, -1);
}

/* Before the system call, in the parent: 1 for a real vfork (the
 * application's signals blocked), 0 to fork. */
__attribute__((used)) int ufd_vfork_begin(void);
__attribute__((used)) int ufd_vfork_begin(void)
{
	unsigned long block = VFORK_BLOCKED, mask;
	int changed;

	/* A vfork that will be a fork pays for no block. */
	if (!vfd_vfork_allowed())
		return 0;
	ufd_sys6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&block, (long)&mask,
		 sizeof(mask), 0, 0);
	changed = (mask & block) != block;
	/* Kept only for a real vfork: a vfork child's own (a fork) must
	 * leave its parent's alone.  Asked with the signals blocked, so that
	 * no handler makes a descriptor that would leak meanwhile. */
	if (vfork_reports_allow() && vfd_vfork_begin()) {
		ufd_vfork_mask = mask;
		ufd_vfork_restore = changed;
		if (ufd_settings.mode_random)
			random_fd_vfork_begin();
		return 1;
	}
	if (changed)
		ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0,
			 sizeof(mask), 0, 0);
	return 0;
}

/* In the parent, once the child has exec'd or exited (ret its pid), or the
 * system call failed (-errno): vfork's return value. */
__attribute__((used)) pid_t ufd_vfork_end(long ret);
__attribute__((used)) pid_t ufd_vfork_end(long ret)
{
	if (vfork_child_env.addr) {
		ufd_sys_munmap(vfork_child_env.addr, vfork_child_env.len);
		vfork_child_env.addr = NULL;
	}
	/* Never a child's but while it runs (shim_exec.h). */
	ufd_vfork_pid = 0;
	if (ufd_settings.mode_random)
		random_fd_vfork_end();
	vfd_vfork_end();
	ufd_signal_vfork_end();
	if (ufd_vfork_restore)
		vfork_unblock();
	return ufd_ret(ret);
}

/* vfork where the child may not share the memory. */
__attribute__((used)) pid_t ufd_vfork_fork(void);
__attribute__((used)) pid_t ufd_vfork_fork(void)
{
	return fork();
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl vfork, __vfork\n"
	".type vfork, @function\n"
	".type __vfork, @function\n"
	"vfork:\n"
	"__vfork:\n"
	".cfi_startproc\n"
#ifdef __CET__
	"endbr64\n"
#endif
	"subq $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"call ufd_vfork_begin\n"
	"addq $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"testl %eax, %eax\n"
	"jz ufd_vfork_fork\n"
	"popq %r9\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_register %rip, %r9\n"
	/* clone(CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | SIGCHLD, 0,
	 * &ufd_vfork_pid, 0, 0): vfork, and the child's pid where it can
	 * read it without a getpid. */
	"movl $0x104111, %edi\n"
	"xorl %esi, %esi\n"
	"leaq ufd_vfork_pid(%rip), %rdx\n"
	"xorl %r10d, %r10d\n"
	"xorl %r8d, %r8d\n"
	"movl $56, %eax\n" /* SYS_clone */
	"syscall\n"
	"pushq %r9\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rip, 0\n"
	"testq %rax, %rax\n"
	"jz 1f\n"
	"movq %rax, %rdi\n"
	"jmp ufd_vfork_end\n"
	/* The child: vfd_vfork_child = 1, then, if ufd_vfork_restore,
	 * rt_sigprocmask(SIG_SETMASK, &ufd_vfork_mask, NULL, 8). */
	"1: movl $1, vfd_vfork_child(%rip)\n"
	"cmpl $0, ufd_vfork_restore(%rip)\n"
	"je 2f\n"
	"movl $14, %eax\n"
	"movl $2, %edi\n"
	"leaq ufd_vfork_mask(%rip), %rsi\n"
	"xorl %edx, %edx\n"
	"movl $8, %r10d\n"
	"syscall\n"
	"2: xorl %eax, %eax\n"
	"ret\n"
	".cfi_endproc\n"
	".size vfork, .-vfork\n"
	".size __vfork, .-__vfork\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl vfork, __vfork\n"
	".type vfork, %function\n"
	".type __vfork, %function\n"
	".p2align 2\n"
	"vfork:\n"
	"__vfork:\n"
	".cfi_startproc\n"
#ifdef __ARM_FEATURE_BTI_DEFAULT
	"bti c\n"
#endif
	"stp x29, x30, [sp, #-16]!\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset x29, -16\n"
	".cfi_offset x30, -8\n"
	"mov x29, sp\n"
	"bl ufd_vfork_begin\n"
	"ldp x29, x30, [sp], #16\n"
	".cfi_restore x30\n"
	".cfi_restore x29\n"
	".cfi_def_cfa_offset 0\n"
	"cbz w0, 2f\n"
	/* CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | SIGCHLD: the
	 * child's pid in ufd_vfork_pid (x2) before it runs. */
	"mov x0, #0x4111\n"
	"movk x0, #0x10, lsl #16\n"
	"mov x1, #0\n"
	"adrp x2, ufd_vfork_pid\n"
	"add x2, x2, :lo12:ufd_vfork_pid\n"
	"mov x3, #0\n"
	"mov x4, #0\n"
	"mov x8, #220\n" /* SYS_clone */
	"svc #0\n"
	"cbz x0, 1f\n"
	"b ufd_vfork_end\n"
	/* The child: vfd_vfork_child = 1, then, if ufd_vfork_restore,
	 * rt_sigprocmask(SIG_SETMASK, &ufd_vfork_mask, NULL, 8). */
	"1: adrp x1, vfd_vfork_child\n"
	"mov w2, #1\n"
	"str w2, [x1, :lo12:vfd_vfork_child]\n"
	"adrp x1, ufd_vfork_restore\n"
	"ldr w2, [x1, :lo12:ufd_vfork_restore]\n"
	"cbz w2, 3f\n"
	"mov x0, #2\n"
	"adrp x1, ufd_vfork_mask\n"
	"add x1, x1, :lo12:ufd_vfork_mask\n"
	"mov x2, #0\n"
	"mov x3, #8\n"
	"mov x8, #135\n"
	"svc #0\n"
	"3: mov x0, #0\n"
	"ret\n"
	"2: b ufd_vfork_fork\n"
	".cfi_endproc\n"
	".size vfork, .-vfork\n"
	".size __vfork, .-__vfork\n");
#else
#error "ufd: vfork is written for x86_64 and aarch64 only"
#endif

/*
 * glibc's _Fork: fork without the atfork handlers.  The program's, that
 * is: ufd's are part of fork itself (the child has no close-on-fork
 * descriptor, and no lock of the table held by a thread it does not have),
 * so they run here, in glibc's order: prepare in the reverse order of
 * their registration (api.c's constructor), parent and child in it.  Not
 * the listings' (shim_dir.c): their lock is a mutex, which a signal
 * handler calling _Fork (async-signal-safe, as POSIX wants it) would wait
 * for forever if it interrupted its holder, and what takes it, readdir,
 * is not a function a _Fork child of a threaded process may call.
 */
UFD_PUBLIC pid_t _Fork(void)
{
	pid_t pid;
	int err;

	ufd_signal_fork_prepare();
	vfd_fork_prepare();
	pid = UFD_REAL(_Fork)();
	err = errno;
	if (pid == 0) {
		if (ufd_settings.mode_random)
			random_fd_fork_child();
		if (ufd_settings.report)
			report_fork_child();
		vfd_fork_child();
	} else {
		vfd_fork_parent();
	}
	ufd_signal_fork_release();
	errno = err;
	return pid;
}
