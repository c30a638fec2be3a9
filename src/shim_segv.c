/* SPDX-License-Identifier: MIT */
/*
 * shim_segv.c - the sanitizer's SIGSEGV handler: a program that FD_SETs
 * (FD_ISSET, FD_CLR) a virtual descriptor on a stack-allocated fd_set,
 * unfortified, writes 32 MiB or more past the set and dies of SIGSEGV
 * before select is ever called; the handler writes the fd-set-overflow
 * report first (issue 23 item 13).  The program sees no change:
 *
 *   - installed at start-up only when reports are on and SIGSEGV's action
 *     is the default (a sanitizer's handler, ASan's, or an inherited
 *     SIG_IGN stays as it is); sigaction and signal show the default
 *     action in its place (shim_signal.c, ufd_segv_mine);
 *   - the program's own SIGSEGV handler replaces it, as it would replace
 *     the default: ufd's is not called again;
 *   - installed with SA_RESETHAND, so the kernel has put the default
 *     action back before the handler runs.  A fault returns: the
 *     instruction faults again and the process dies as it would have (the
 *     same signal, exit status and core dump).  A SIGSEGV sent by a
 *     process (si_code <= 0) is sent again, to this thread, with its own
 *     siginfo, and kills when the handler returns and unblocks it;
 *   - the report is written only for a fault whose address is where an
 *     FD_SET of a live virtual descriptor V would write on an fd_set near
 *     the thread's stack pointer (fdset_victim); otherwise nothing is
 *     written.  The report makes no system call but its write
 *     (report.h).
 */
#include "shim.h"

#include <signal.h>
#include <ucontext.h>

#include "report.h"
#include "sys.h"
#include "vfd_table.h"

/* How far above the stack pointer a stack-allocated fd_set may lie: the
 * default stack limit of the main thread and of threads is 8 MiB. */
#define SET_SPAN (16UL << 20)
/* ... and below it: x86-64's red zone (128 bytes) and one set. */
#define SET_BELOW 256UL

static void segv_handler(int sig, siginfo_t *info, void *uc);

/* Not instrumented: sigaction's paths, which call it, run before a
 * sanitizer's runtime is ready (shim.h, UFD_EARLY). */
UFD_EARLY int ufd_segv_mine(const void *handler)
{
	return handler == (const void *)segv_handler;
}

/* The general registers and the stack pointer of the interrupted context:
 * the number of registers put in regs (at most 32). */
static int context_regs(const void *ucv, uintptr_t regs[32], uintptr_t *sp)
{
	const ucontext_t *uc = ucv;
	int n = 0;

#if defined(__x86_64__)
	static const int which[] = { REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI,
				     REG_RDI, REG_RBP, REG_R8,	REG_R9,	 REG_R10,
				     REG_R11, REG_R12, REG_R13, REG_R14, REG_R15 };

	for (unsigned i = 0; i < sizeof(which) / sizeof(which[0]); i++)
		regs[n++] = (uintptr_t)uc->uc_mcontext.gregs[which[i]];
	*sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	for (int i = 0; i < 31; i++)
		regs[n++] = (uintptr_t)uc->uc_mcontext.regs[i];
	*sp = (uintptr_t)uc->uc_mcontext.sp;
#else
	(void)uc;
	*sp = 0;
#endif
	return n;
}

/* A live virtual descriptor of group g (the numbers g * 64 .. g * 64 + 63,
 * those of one fd_set word), v itself if it is one of them and live; or
 * -1. */
static int live_in_group(uintptr_t g, uintptr_t v)
{
	if (v / NFDBITS == g && vfd_in_space((int)v) && vfd_slot((int)v))
		return (int)v;
	for (uintptr_t d = g * NFDBITS; d < (g + 1) * NFDBITS; d++)
		if (vfd_in_space((int)d) && vfd_slot((int)d))
			return (int)d;
	return -1;
}

/* Does one of the n registers hold value? */
static int holds(const uintptr_t *regs, int n, uintptr_t value)
{
	for (int i = 0; i < n; i++)
		if (regs[i] == value)
			return 1;
	return 0;
}

/*
 * The virtual descriptor an FD_SET, FD_ISSET or FD_CLR faulting at addr
 * was given, or -1.  Such an access is at set + (V / NFDBITS) *
 * sizeof(long): some register of the faulting instruction holds V, V /
 * NFDBITS or that byte offset (the compiler's index or bit offset), and
 * set, the address less that offset, is near the stack pointer (the set
 * is on the stack) or is itself in a register (the set's pointer, a heap
 * set's).  A fault of any other cause matches this only if registers
 * happen to hold the values that put a live descriptor's set there.
 */
static int fdset_victim(uintptr_t addr, const void *uc)
{
	uintptr_t regs[32], sp;
	int n = context_regs(uc, regs, &sp);

	for (int i = 0; i < n; i++) {
		uintptr_t r = regs[i];
		/* r as V, as V / NFDBITS, as the byte offset */
		uintptr_t groups[3] = { r / NFDBITS, r,
					r % sizeof(long) ? 0 : r / sizeof(long) };

		for (int k = 0; k < 3; k++) {
			uintptr_t g = groups[k], off, set;
			int v;

			if (g < FD_UNSEQ_BASE / NFDBITS || g >= FD_UNSEQ_LIMIT / NFDBITS)
				continue;
			off = g * sizeof(long);
			if (off > addr)
				continue;
			set = addr - off;
			if ((set + SET_BELOW < sp || set > sp + SET_SPAN) &&
			    !holds(regs, n, set))
				continue;
			v = live_in_group(g, r);
			if (v >= 0)
				return v;
		}
	}
	return -1;
}

/* NULL, read as a variable: the compiler cannot turn the write through
 * it into a trap instruction (SIGILL). */
static int *volatile fault_at;

static void segv_handler(int sig, siginfo_t *info, void *uc)
{
	int v, saved = errno;

	if (info->si_code <= 0) {
		/* Sent, not a fault: again, now to the default action (it
		 * kills once the handler returns and unblocks it).  Should
		 * a seccomp filter refuse that, a fault of ufd's own kills
		 * with the same signal: a fault while SIGSEGV is blocked
		 * takes the default action at once. */
		if (ufd_sys6(SYS_rt_tgsigqueueinfo, ufd_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0),
			     ufd_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0), sig, (long)info,
			     0, 0) < 0)
			*fault_at = 0;
		errno = saved;
		return;
	}
	v = fdset_victim((uintptr_t)info->si_addr, uc);
	if (v >= 0)
		report_fd_set(v, REPORT_CALL_FD_SET);
	errno = saved;
	/* The default action is back: the instruction faults again. */
}

void ufd_segv_init(void)
{
	struct k_sigaction old, mine = {
		.handler = (void *)segv_handler,
		.flags = SA_SIGINFO | SA_RESETHAND | UFD_SA_RESTORER,
		.restorer = UFD_RESTORER_FN,
		.mask = 0,
	};

	/* Put in and the old one read in one system call: at start-up the
	 * old one is the default (an exec resets handlers) but where SIGSEGV
	 * was ignored across it, which is put back (as a handler would be,
	 * were libufd loaded late by dlopen: a fault in another thread just
	 * then would meet ufd's, which reports and takes the default). */
	if (ufd_sys6(SYS_rt_sigaction, SIGSEGV, (long)&mine, (long)&old,
		     sizeof(mine.mask), 0, 0) == 0 &&
	    old.handler != (void *)SIG_DFL)
		ufd_sys6(SYS_rt_sigaction, SIGSEGV, (long)&old, 0, sizeof(old.mask), 0, 0);
}
