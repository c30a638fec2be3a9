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
 * the thread, so that no handler of its runs in the middle), before the
 * trampoline is installed, and never cleared: the trampoline reads it
 * lock-free and always finds a handler.  The lock also makes the kernel's
 * action and the table change together, so that oldact is the handler of
 * the last install.  A change to SIG_DFL or SIG_IGN in a single-threaded
 * process takes no lock and blocks no signal ("the fast change" below):
 * two system calls fewer per call.  Fork keeps the table (process memory,
 * like the kernel's actions); exec resets the kernel's actions, and the
 * table with the process.
 *
 *   - ssi_fd of the records read from a signalfd: see "signalfd" below.
 *
 * syscall(SYS_rt_sigtimedwait) rewrites it too, and syscall(SYS_rt_sigaction)
 * installs the trampoline as sigaction does (shim_syscall.c, with the
 * kernel's struct sigaction).
 */
#include "shim.h"

#include <pthread.h>

#include "procfs.h"
#include "sys.h"
#include "text.h"
#include "vfd_table.h"

typedef void (*siginfo_handler)(int, siginfo_t *, void *);

/* A sanitizer's start-up installs its handlers through sigaction (and so
 * through ufd's, which comes after it) before its runtime is ready: the
 * paths of sigaction and signal are UFD_EARLY, not instrumented. */

/* The program's SA_SIGINFO handler per signal, where the kernel may hold
 * the trampoline. */
static siginfo_handler handlers[_NSIG];

/* The lock: 0 when free, else its holder's name, the address of a
 * thread-local of its thread (the same in a fork child, where the thread
 * id is another), so that a signal handler can tell that its own thread
 * holds it. */
static __thread char sig_me __attribute__((tls_model("initial-exec")));
static uintptr_t sig_lock_word;

/* Take the lock for this thread: 1, or 0 if this thread holds it already
 * (a handler that interrupted a fork between its handlers, or a
 * synchronous fault inside a holder: the holder changes nothing while
 * the handler runs, and the other threads stay out).  Async-signal-safe. */
UFD_EARLY static int sig_take(void)
{
	uintptr_t me = (uintptr_t)&sig_me, c = 0;

	while (!__atomic_compare_exchange_n(&sig_lock_word, &c, me, 0,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		if (c == me)
			return 0;
		ufd_sys6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
		c = 0;
	}
	return 1;
}

UFD_EARLY void ufd_signal_vfork_end(void)
{
	if (__atomic_load_n(&sig_lock_word, __ATOMIC_RELAXED))
		__atomic_store_n(&sig_lock_word, 0, __ATOMIC_RELEASE);
}

/* Block every signal of this thread (saving the mask in *saved), then
 * take the lock (*taken: sig_take's answer).  Raw system calls:
 * async-signal-safe. */
UFD_EARLY static void sig_lock(sigset_t *saved, int *taken)
{
	sigset_t all;

	sigfillset(&all);
	ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)saved,
		 _NSIG / 8, 0, 0);
	*taken = sig_take();
}

UFD_EARLY static void sig_unlock(const sigset_t *saved, int taken)
{
	if (taken)
		__atomic_store_n(&sig_lock_word, 0, __ATOMIC_RELEASE);
	ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)saved, 0, _NSIG / 8,
		 0, 0);
}

/*
 * Fork: the child must not inherit the lock held by another thread in the
 * middle of a change (handlers[] and the kernel's action apart).  The
 * lock is taken without blocking signals: a handler of this thread that
 * runs between the fork's handlers (glibc 2.36's fork does not block
 * signals) finds the lock its own (sig_take) and goes ahead, which is
 * sound because the fork changes nothing under it; the child has the
 * same name for its thread.  A single-threaded process has no other
 * thread to keep out, and its own thread can hold the lock here only if
 * a handler forked in the middle of a change, which resumes in the child
 * and lets go of it: nothing is taken nor written then (fork_held stays
 * 0, a page not copied).  Not instrumented: fork_held is ordered by the
 * lock, which the sanitizers do not see.
 */
static int fork_held;

UFD_EARLY UFD_FORK void ufd_signal_fork_prepare(void)
{
	if (!__libc_single_threaded)
		fork_held = sig_take();
}

UFD_EARLY UFD_FORK void ufd_signal_fork_release(void)
{
	if (fork_held) {
		fork_held = 0;
		__atomic_store_n(&sig_lock_word, 0, __ATOMIC_RELEASE);
	}
}

UFD_STARTUP void ufd_signal_init(void)
{
	pthread_atfork(ufd_signal_fork_prepare, ufd_signal_fork_release,
		       ufd_signal_fork_release);
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

/* The descriptor the program knows for the si_fd (ssi_fd) fd of a signal
 * sig with code code: the virtual one it backs, else fd. */
UFD_EARLY static int program_fd(int sig, int code, int fd)
{
	int v;

	if (sig_has_other_codes(sig) || code < POLL_IN || code > POLL_HUP ||
	    fd < 0)
		return fd;
	v = vfd_owner(fd);
	return v >= 0 ? v : fd;
}

UFD_EARLY void ufd_siginfo_fix(int sig, siginfo_t *info)
{
	int fd = program_fd(sig, info->si_code, info->si_fd);

	if (fd != info->si_fd)
		info->si_fd = fd;
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

/* Does a new action with handler h and flags need the trampoline?  Not in
 * a vfork child: `handlers` is its parent's, and the child has no virtual
 * descriptor whose si_fd would need it (it cannot make one). */
UFD_EARLY static int wants_trampoline(int sig, void *h, unsigned long flags)
{
	return sig > 0 && sig < _NSIG && sig != SIGKILL && sig != SIGSTOP &&
	       (flags & SA_SIGINFO) && h != (void *)SIG_DFL &&
	       h != (void *)SIG_IGN && h != (void *)trampoline &&
	       !vfd_in_vfork_child();
}

/* The program's handler for an old action whose handler is the kernel's
 * (the lock held). */
UFD_EARLY static void *program_handler(int sig, void *kernel_handler)
{
	if (ufd_segv_mine(kernel_handler))
		return (void *)SIG_DFL; /* shim_segv.c */
	if (kernel_handler == (void *)trampoline && sig > 0 && sig < _NSIG)
		return (void *)__atomic_load_n(&handlers[sig], __ATOMIC_RELAXED);
	return kernel_handler;
}

/*
 * The fast change: sigaction to SIG_DFL or SIG_IGN (or a look at the
 * action) in a single-threaded process, which needs no trampoline: the
 * common case (a shell's child sets a dozen signals back to SIG_DFL
 * before exec).  It blocks no signal and takes no lock, so costs no
 * rt_sigprocmask: no other thread can change an action meanwhile, and
 * the exchange is made with the raw system call, whose old action the
 * kernel writes into a record of this thread's (`struct fast`) before it
 * returns.
 *
 * A signal handler of this thread may run anywhere in it, though, and
 * make a change of its own.  Only a change that installs the trampoline
 * writes handlers[], and it matters only if it runs after the exchange,
 * when the old trampoline stood for the handler it replaces.  The kernel
 * tells which: f->old.handler is still fast_unset before the exchange and
 * never after it (a signal is delivered between system calls, not inside
 * one).  So such a change (fast_fix, in change_begin) hands each exchanged
 * fast change of its thread on the same signal, not yet fixed, the value
 * it is about to replace; the fast change reads handlers[sig] and then,
 * if fixed, takes that instead.  Either way it gets handlers[sig] as of
 * its exchange.  (glibc's sigaction could not be used: it copies the old
 * action out of its own stack after the system call, where a handler
 * cannot see it.)  The records are thread-locals, not on the stack, and
 * nest as deep as FAST_MAX, so that a handler that leaves a fast change
 * with siglongjmp leaves a stale record that nobody reads, not a pointer
 * into a dead frame; past FAST_MAX (four such jumps) the thread takes the
 * slow change.  With threads, the slow change: its lock keeps the other
 * threads out, and a fast one holding it could be abandoned the same way.
 *
 * The kernel's action is what glibc's sigaction would make: the flags
 * with SA_RESTORER and a restorer, on x86_64 a copy of glibc's
 * __restore_rt (the same bytes, which unwinders look for; never run here,
 * with SIG_DFL and SIG_IGN).  Only sa_restorer's address in a later
 * oldact differs from glibc's, a field nothing reads back but sigaction
 * itself, which replaces it.
 */
struct fast {
	struct k_sigaction old; /* the kernel writes it in the exchange */
	void *fix;
	int sig, fixed;
};

#define FAST_MAX 4
/* One thread-local object, so one relocation at every start-up where
 * each variable of its own had one. */
static __thread struct {
	struct fast recs[FAST_MAX];
	unsigned depth;
} fast_tls __attribute__((tls_model("initial-exec")));
static const char fast_unset; /* old.handler until the exchange */

#if defined(__x86_64__)
__asm__(".text\n"
	".globl ufd_restore_rt\n"
	".hidden ufd_restore_rt\n"
	".type ufd_restore_rt, @function\n"
	".align 16\n"
	"ufd_restore_rt:\n"
	"\tmovq $15, %rax\n" /* rt_sigreturn */
	"\tsyscall\n"
	".size ufd_restore_rt, .-ufd_restore_rt\n");
#endif

/* Before a change writes handlers[sig]: lock held, signals blocked. */
UFD_EARLY static void fast_fix(int sig)
{
	unsigned n = __atomic_load_n(&fast_tls.depth, __ATOMIC_RELAXED);

	for (unsigned d = 0; d < n && d < FAST_MAX; d++) {
		struct fast *f = &fast_tls.recs[d];

		if (f->sig == sig && !f->fixed &&
		    *(void *volatile *)&f->old.handler != (void *)&fast_unset) {
			f->fix = (void *)handlers[sig];
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			__atomic_store_n(&f->fixed, 1, __ATOMIC_RELAXED);
		}
	}
}

/* Is act (NULL: none) one for the fast change of signal sig?  Not the
 * signals glibc keeps for itself (32 and 33, which its sigaction
 * refuses), nor SIGABRT, whose changes later glibcs order with abort(). */
UFD_EARLY static int fast_ok(int sig, const struct sigaction *act)
{
	return __libc_single_threaded &&
	       __atomic_load_n(&fast_tls.depth, __ATOMIC_RELAXED) < FAST_MAX &&
	       sig > 0 && sig < _NSIG && sig != 32 && sig != 33 &&
	       sig != SIGABRT &&
	       (!act || act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN);
}

UFD_EARLY static int sigaction_fast(int sig, const struct sigaction *act,
				    struct sigaction *oldact)
{
	unsigned d = __atomic_load_n(&fast_tls.depth, __ATOMIC_RELAXED);
	struct fast *f = &fast_tls.recs[d], own;
	/* A vfork child has its parent thread's records: one killed inside
	 * the change would leave the parent's depth one higher.  It needs
	 * none of them: no change in it installs the trampoline
	 * (wants_trampoline), so none would fix a record. */
	int child = vfd_in_vfork_child();
	struct k_sigaction k;
	long r;

	if (act) {
		k.handler = (void *)act->sa_handler;
		k.flags = (unsigned long)act->sa_flags | UFD_SA_RESTORER;
		k.restorer = UFD_RESTORER_FN;
		memcpy(&k.mask, &act->sa_mask, sizeof(k.mask));
	}
	if (child)
		f = &own;
	f->sig = sig;
	f->fixed = 0;
	f->old.handler = (void *)&fast_unset;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!child)
		__atomic_store_n(&fast_tls.depth, d + 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r = ufd_sys6(SYS_rt_sigaction, sig, act ? (long)&k : 0,
		     oldact ? (long)&f->old : 0, sizeof(k.mask), 0, 0);
	if (r == 0 && oldact && ufd_segv_mine(f->old.handler))
		memset(&f->old, 0, sizeof(f->old)); /* SIG_DFL, as it shows */
	if (r == 0 && oldact && f->old.handler == (void *)trampoline) {
		void *h = (void *)__atomic_load_n(&handlers[sig], __ATOMIC_ACQUIRE);

		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&f->fixed, __ATOMIC_RELAXED))
			h = f->fix;
		f->old.handler = h;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!child)
		__atomic_store_n(&fast_tls.depth, d, __ATOMIC_RELAXED);
	if (r < 0)
		return ufd_ret((int)r);
	if (oldact) {
		/* As glibc fills it: the kernel's mask in the first bytes,
		 * the rest of sa_mask as it was. */
		oldact->sa_handler = (__sighandler_t)f->old.handler;
		memcpy(&oldact->sa_mask, &f->old.mask, sizeof(f->old.mask));
		oldact->sa_flags = (int)f->old.flags;
		oldact->sa_restorer = (void (*)(void))f->old.restorer;
	}
	return 0;
}

/*
 * One change of a signal's action, by libc's sigaction or the raw system
 * call, whose structures differ: change_begin takes the lock and returns
 * the handler to give the kernel in place of the new action's h (the
 * trampoline, with h recorded, or h itself); change_end, after the real
 * call (ok: it succeeded), turns *old, the old handler the kernel
 * reported (old NULL: none asked), into the program's, undoes the record
 * if the call failed, and unlocks.
 */
struct change {
	int sig, tramp, taken;
	siginfo_handler prev;
	sigset_t saved;
};

UFD_EARLY static void *change_begin(struct change *c, int sig, void *h,
				    unsigned long flags)
{
	c->sig = sig;
	c->tramp = wants_trampoline(sig, h, flags);
	sig_lock(&c->saved, &c->taken);
	if (!c->tramp)
		return h;
	c->prev = handlers[sig];
	fast_fix(sig);
	__atomic_store_n(&handlers[sig], (siginfo_handler)h, __ATOMIC_RELEASE);
	return (void *)trampoline;
}

UFD_EARLY static void change_end(struct change *c, int ok, void **old)
{
	/* The old trampoline stood for the handler before ours. */
	if (ok && old && *old == (void *)trampoline)
		*old = c->tramp ? (void *)c->prev : program_handler(c->sig, *old);
	if (!ok && c->tramp)
		__atomic_store_n(&handlers[c->sig], c->prev, __ATOMIC_RELEASE);
	sig_unlock(&c->saved, c->taken);
}

UFD_EARLY static int sigaction_with(int (*real)(int, const struct sigaction *,
				      struct sigaction *),
			  int sig, const struct sigaction *act,
			  struct sigaction *oldact)
{
	struct sigaction mine, old;
	struct change c;
	void *h;
	int r, err;

	if (fast_ok(sig, act))
		return sigaction_fast(sig, act, oldact);
	h = change_begin(&c, sig, act ? (void *)act->sa_sigaction : NULL,
			 act ? (unsigned long)act->sa_flags : 0);

	if (c.tramp) {
		mine = *act;
		mine.sa_sigaction = (siginfo_handler)h;
	}
	r = real(sig, c.tramp ? &mine : act, oldact ? &old : NULL);
	err = errno;
	if (r == 0 && oldact && ufd_segv_mine((void *)old.sa_sigaction)) {
		/* ufd's SIGSEGV handler shows as the default it replaced. */
		old.sa_handler = SIG_DFL;
		old.sa_flags = 0;
		old.sa_restorer = NULL;
		sigemptyset(&old.sa_mask);
	}
	h = oldact && r == 0 ? (void *)old.sa_sigaction : NULL;
	change_end(&c, r == 0, oldact ? &h : NULL);
	if (r == 0 && oldact) {
		old.sa_sigaction = (siginfo_handler)h;
		*oldact = old;
	}
	errno = err;
	return r;
}

UFD_EARLY long ufd_rt_sigaction(int sig, const void *act, void *oldact,
				unsigned long setsize)
{
	struct k_sigaction mine, old;
	struct change c;
	void *h;
	long r;

	/* What the kernel refuses before it reads anything (a bad size, an
	 * unreadable act) it refuses itself. */
	if (setsize != sizeof(mine.mask) ||
	    (act && (ufd_unmapped(act) ||
		     ufd_sys_read_self(&mine, act, sizeof(mine)) != sizeof(mine))))
		return ufd_sys6(SYS_rt_sigaction, sig, (long)act, (long)oldact,
				(long)setsize, 0, 0);
	h = change_begin(&c, sig, act ? mine.handler : NULL, act ? mine.flags : 0);
	mine.handler = h;
	r = ufd_sys6(SYS_rt_sigaction, sig, act ? (long)&mine : 0,
		     oldact ? (long)&old : 0, (long)setsize, 0, 0);
	if (r == 0 && oldact && ufd_segv_mine(old.handler))
		memset(&old, 0, sizeof(old));
	h = oldact && r == 0 ? old.handler : NULL;
	change_end(&c, r == 0, oldact ? &h : NULL);
	if (r == 0 && oldact) {
		old.handler = h;
		/* The kernel too changes the action before it writes oldact. */
		if (ufd_unmapped(oldact) ||
		    ufd_sys_write_self(oldact, &old, sizeof(old)) != sizeof(old))
			r = -EFAULT;
	}
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
	int err, taken;

	sig_lock(&saved, &taken);
	r = real(sig, handler);
	err = errno;
	if (r != SIG_ERR)
		r = (__sighandler_t)program_handler(sig, (void *)r);
	sig_unlock(&saved, taken);
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

/*
 * signalfd.  Its records (struct signalfd_siginfo) are read with read(),
 * the hot path, which must not pay for them.  So nothing happens until
 * the process makes its first signalfd (ufd_signalfd_made): then a
 * checking function goes in front of the real read and __read_chk, by
 * one atomic store of each pointer, and calls whatever was there before.
 * It looks at a read's result only if it is whole records, the process
 * holds virtual descriptors, and the descriptor is marked as a signalfd
 * (sfd_marks, by the real descriptor's number, below SFD_MARKS).  A mark
 * is a hint: a marked descriptor may have been closed and its number
 * reused, so the kernel is asked (where /proc/self/fd/N points) before a
 * byte is changed, and a stale mark is dropped (should another thread
 * make a signalfd on that very number meanwhile, its mark may go too:
 * its records then keep the kernel's number, nothing worse).  A process that never
 * makes a signalfd pays nothing; one that does pays a few instructions a
 * read, and a readlink per read of a signalfd while it holds virtual
 * descriptors.
 *
 * Not covered (ufd(7)): signalfds this process did not make through
 * signalfd() or syscall() (inherited across exec, received in a message)
 * and copies of one (dup, fcntl(F_DUPFD), nonseqfd: a new number, not
 * marked); readv and raw syscall(SYS_readv) on a signalfd.
 */
#define SFD_MARKS (1U << 20) /* the kernel's default nr_open */
#define SFD_WORD_BITS (8 * sizeof(unsigned long))

static unsigned long sfd_marks[SFD_MARKS / SFD_WORD_BITS];
static int sfd_installed;
static ssize_t (*read_before)(int, void *, size_t);
static ssize_t (*read_chk_before)(int, void *, size_t, size_t);

static int sfd_marked(int fd)
{
	return (unsigned)fd < SFD_MARKS &&
	       (__atomic_load_n(&sfd_marks[fd / SFD_WORD_BITS],
				__ATOMIC_RELAXED) >>
		(fd % SFD_WORD_BITS)) & 1;
}

/* Is fd a signalfd now?  Asks the kernel with raw calls: async-signal-safe,
 * errno untouched.  No (so nothing changed) when /proc is not there. */
static int is_signalfd(int fd)
{
	static const char want[] = "anon_inode:[signalfd]";
	char link[sizeof(want) + 1]; /* one more: a longer link differs */

	return ufd_proc_fd_link(fd, link, sizeof(link)) == (long)sizeof(want) - 1 &&
	       memcmp(link, want, sizeof(want) - 1) == 0;
}

/* After a read of r bytes into buf from real descriptor fd. */
static void sfd_after_read(int fd, void *buf, ssize_t r)
{
	const size_t size = sizeof(struct signalfd_siginfo);

	if (r < (ssize_t)size || (size_t)r % size || !vfd_any() ||
	    !sfd_marked(fd))
		return;
	if (!is_signalfd(fd)) {
		__atomic_and_fetch(&sfd_marks[fd / SFD_WORD_BITS],
				   ~(1UL << (fd % SFD_WORD_BITS)), __ATOMIC_RELAXED);
		return;
	}
	/* The kernel has just written the records: readable and writable,
	 * but not necessarily aligned. */
	for (char *p = buf; p < (char *)buf + r; p += size) {
		struct signalfd_siginfo ssi;
		int fixed;

		memcpy(&ssi, p, size);
		fixed = program_fd((int)ssi.ssi_signo, ssi.ssi_code, ssi.ssi_fd);
		if (fixed != ssi.ssi_fd) {
			ssi.ssi_fd = fixed;
			memcpy(p, &ssi, size);
		}
	}
}

void ufd_signalfd_read(int fd, void *buf, ssize_t r)
{
	if (__atomic_load_n(&sfd_installed, __ATOMIC_RELAXED))
		sfd_after_read(fd, buf, r);
}

static ssize_t read_checked(int fd, void *buf, size_t count)
{
	ssize_t r = __atomic_load_n(&read_before, __ATOMIC_ACQUIRE)(fd, buf, count);

	sfd_after_read(fd, buf, r);
	return r;
}

static ssize_t read_chk_checked(int fd, void *buf, size_t count, size_t buflen)
{
	ssize_t r = __atomic_load_n(&read_chk_before, __ATOMIC_ACQUIRE)(
		fd, buf, count, buflen);

	sfd_after_read(fd, buf, r);
	return r;
}

void ufd_signalfd_made(int fd)
{
	int real = vfd_translate(fd);

	if ((unsigned)real < SFD_MARKS)
		__atomic_or_fetch(&sfd_marks[real / SFD_WORD_BITS],
				  1UL << (real % SFD_WORD_BITS), __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&sfd_installed, 1, __ATOMIC_ACQ_REL))
		return;
	UFD_REAL_PUT_FRONT(read, read_checked, read_before);
	UFD_REAL_PUT_FRONT(__read_chk, read_chk_checked, read_chk_before);
}
