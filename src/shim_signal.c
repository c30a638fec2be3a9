/* SPDX-License-Identifier: MIT */
/*
 * shim_signal.c - the si_fd of signal information: the number of the
 * descriptor a signal is about, the program's rather than the kernel's.
 *
 * The kernel fills si_fd (and si_code with a POLL_* reason) in the signals
 * that F_SETSIG asks for: O_ASYNC readiness, dnotify (F_NOTIFY) and lease
 * breaks (send_sigio_to_task in fs/fcntl.c).  For a virtual descriptor it
 * is the backing descriptor's number.  A program reads si_fd in an
 * SA_SIGINFO handler or from sigwaitinfo/sigtimedwait; both see the
 * virtual number here:
 *
 *   - sigaction with an SA_SIGINFO handler records the handler in
 *     `handlers` and installs ufd's trampoline in its place, with the
 *     program's flags and mask.  The trampoline rewrites si_fd in place
 *     (ufd_siginfo_fix) and calls the program's handler with the same
 *     arguments.  SIG_DFL, SIG_IGN and handlers without SA_SIGINFO, which
 *     get no siginfo, are installed as they are.  oldact, and the old
 *     handler that signal() and its kin return, show the program's
 *     handler where the kernel holds the trampoline.
 *   - sigwaitinfo and sigtimedwait rewrite the siginfo they return.
 *
 * `handlers[sig]` is written with the lock held (blocking every signal of
 * the thread, so that a handler calling sigaction cannot deadlock on it),
 * before the trampoline is installed, and never cleared: the trampoline
 * reads it lock-free and always finds a handler.  The lock also makes the
 * kernel's action and the table change together, so that oldact is the
 * handler of the last install.  Fork keeps the table (process memory,
 * like the kernel's actions); exec resets the kernel's actions, and the
 * table with the process.
 *
 * syscall(SYS_rt_sigtimedwait) rewrites it too (shim_syscall.c).  Not
 * covered (ufd(7)): raw syscall(SYS_rt_sigaction), which reaches the
 * kernel unchanged; signalfd, whose ssi_fd is read with read().
 */
#include "shim.h"

#include <pthread.h>

#include "sys.h"
#include "vfd_table.h"

typedef void (*siginfo_handler)(int, siginfo_t *, void *);

/* A sanitizer's start-up installs its handlers through sigaction (and so
 * through ufd's, which comes after it) before its runtime is ready: the
 * paths of sigaction and signal are UFD_EARLY, not instrumented. */

/* The program's SA_SIGINFO handler per signal, where the kernel may hold
 * the trampoline. */
static siginfo_handler handlers[_NSIG];

static int sig_lock_word;

/* Block every signal of this thread (saving the mask in *saved), then
 * take the lock.  Raw system calls: async-signal-safe. */
UFD_EARLY static void sig_lock(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)saved,
		 _NSIG / 8, 0, 0);
	while (__atomic_exchange_n(&sig_lock_word, 1, __ATOMIC_ACQUIRE))
		ufd_sys6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

UFD_EARLY static void sig_unlock(const sigset_t *saved)
{
	__atomic_store_n(&sig_lock_word, 0, __ATOMIC_RELEASE);
	ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)saved, 0, _NSIG / 8,
		 0, 0);
}

/* Fork: the child must not inherit the lock held by another thread.
 * fork_mask is ordered by the lock, which the sanitizers do not see (the
 * lock is UFD_EARLY): these are not instrumented either. */
static sigset_t fork_mask;

UFD_EARLY static void fork_prepare(void)
{
	sigset_t saved;

	sig_lock(&saved);
	fork_mask = saved;
}

UFD_EARLY static void fork_release(void)
{
	sig_unlock(&fork_mask);
}

void ufd_signal_init(void)
{
	pthread_atfork(fork_prepare, fork_release, fork_release);
}

/*
 * Signals whose kernel-made si_code values 1..6 mean something else (a
 * child's exit, a fault) and whose union holds no si_fd: their siginfo is
 * never touched, even if F_SETSIG chose one of them.
 */
UFD_EARLY static int sig_has_other_codes(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE:
	case SIGTRAP: case SIGSYS:
		return 1;
	}
	return 0;
}

UFD_EARLY void ufd_siginfo_fix(int sig, siginfo_t *info)
{
	int v;

	if (sig_has_other_codes(sig) || info->si_code < POLL_IN ||
	    info->si_code > POLL_HUP || info->si_fd < 0)
		return;
	v = vfd_owner(info->si_fd);
	if (v >= 0)
		info->si_fd = v;
}

/* What the kernel calls for a program's SA_SIGINFO handler.  Not
 * instrumented: it runs before a sanitizer's own handler. */
UFD_EARLY static void trampoline(int sig, siginfo_t *info, void *uc)
{
	siginfo_handler h = (unsigned)sig < _NSIG
				    ? __atomic_load_n(&handlers[sig],
						      __ATOMIC_ACQUIRE)
				    : NULL;

	if (info)
		ufd_siginfo_fix(sig, info);
	if (h)
		h(sig, info, uc);
}

/* Does act need the trampoline? */
UFD_EARLY static int wants_trampoline(int sig, const struct sigaction *act)
{
	return act && sig > 0 && sig < _NSIG && sig != SIGKILL &&
	       sig != SIGSTOP && (act->sa_flags & SA_SIGINFO) &&
	       act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN &&
	       act->sa_sigaction != trampoline;
}

/* The program's handler for an old action whose handler is the kernel's
 * (the lock held). */
UFD_EARLY static void *program_handler(int sig, void *kernel_handler)
{
	if (kernel_handler == (void *)trampoline && sig > 0 && sig < _NSIG)
		return (void *)__atomic_load_n(&handlers[sig], __ATOMIC_RELAXED);
	return kernel_handler;
}

UFD_EARLY static int sigaction_with(int (*real)(int, const struct sigaction *,
				      struct sigaction *),
			  int sig, const struct sigaction *act,
			  struct sigaction *oldact)
{
	struct sigaction mine, old;
	siginfo_handler prev = NULL;
	sigset_t saved;
	int r, tramp = wants_trampoline(sig, act), err;

	sig_lock(&saved);
	if (tramp) {
		prev = handlers[sig];
		mine = *act;
		mine.sa_sigaction = trampoline;
		__atomic_store_n(&handlers[sig], act->sa_sigaction,
				 __ATOMIC_RELEASE);
	}
	r = real(sig, tramp ? &mine : act, oldact ? &old : NULL);
	err = errno;
	if (r == 0 && oldact) {
		void *h = (void *)old.sa_sigaction;

		/* The old trampoline stood for the handler before ours. */
		if (h == (void *)trampoline)
			h = tramp ? (void *)prev : program_handler(sig, h);
		old.sa_sigaction = (siginfo_handler)h;
		*oldact = old;
	}
	if (r != 0 && tramp)
		__atomic_store_n(&handlers[sig], prev, __ATOMIC_RELEASE);
	sig_unlock(&saved);
	errno = err;
	return r;
}

UFD_EARLY UFD_PUBLIC int sigaction(int sig, const struct sigaction *act,
			 struct sigaction *oldact)
{
	return sigaction_with(UFD_REAL(sigaction), sig, act, oldact);
}

UFD_EARLY UFD_PUBLIC int __sigaction(int sig, const struct sigaction *act,
			   struct sigaction *oldact)
{
	return sigaction_with(UFD_REAL(__sigaction), sig, act, oldact);
}

/*
 * signal() and its kin install a handler without SA_SIGINFO, which gets
 * no si_fd: libc's function does it.  What it returns is the old handler,
 * which may be the trampoline: the program's handler is shown instead.
 * The lock keeps the table what it was when the trampoline was installed.
 */
UFD_EARLY static __sighandler_t signal_with(__sighandler_t (*real)(int, __sighandler_t),
				  int sig, __sighandler_t handler)
{
	sigset_t saved;
	__sighandler_t r;
	int err;

	sig_lock(&saved);
	r = real(sig, handler);
	err = errno;
	if (r != SIG_ERR)
		r = (__sighandler_t)program_handler(sig, (void *)r);
	sig_unlock(&saved);
	errno = err;
	return r;
}

UFD_EARLY UFD_PUBLIC __sighandler_t signal(int sig, __sighandler_t handler)
{
	return signal_with(UFD_REAL(signal), sig, handler);
}

UFD_EARLY UFD_PUBLIC __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	return signal_with(UFD_REAL(bsd_signal), sig, handler);
}

UFD_EARLY UFD_PUBLIC __sighandler_t ssignal(int sig, __sighandler_t handler)
{
	return signal_with(UFD_REAL(ssignal), sig, handler);
}

UFD_EARLY UFD_PUBLIC __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	return signal_with(UFD_REAL(sysv_signal), sig, handler);
}

UFD_EARLY UFD_PUBLIC __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	return signal_with(UFD_REAL(__sysv_signal), sig, handler);
}

UFD_EARLY UFD_PUBLIC __sighandler_t sigset(int sig, __sighandler_t handler)
{
	return signal_with(UFD_REAL(sigset), sig, handler);
}

/* The kernel wrote *info (the call succeeded): it is writable. */
UFD_PUBLIC int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	int r = UFD_REAL(sigwaitinfo)(set, info);

	if (r > 0 && info)
		ufd_siginfo_fix(r, info);
	return r;
}

UFD_PUBLIC int sigtimedwait(const sigset_t *set, siginfo_t *info,
			    const struct timespec *timeout)
{
	int r = UFD_REAL(sigtimedwait)(set, info, timeout);

	if (r > 0 && info)
		ufd_siginfo_fix(r, info);
	return r;
}
