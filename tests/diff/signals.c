/* SPDX-License-Identifier: MIT */
/*
 * signals.c - the differential test's family of signal information that
 * names a descriptor (signals): the si_fd of F_SETSIG signals, read in an
 * SA_SIGINFO handler and from sigwaitinfo/sigtimedwait, for O_ASYNC on a
 * pipe and dnotify (F_NOTIFY) on a directory; and the handler that
 * sigaction's oldact and signal() report.  The kernel raises the signals
 * for real; each record says whether si_fd is the descriptor the script
 * used, so that a virtual descriptor must show its own number, not its
 * backing descriptor's.
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

/* What the handler saw last. */
static volatile sig_atomic_t got_count, got_signo, got_code, got_fd;

static void record(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_signo = sig;
	got_code = si->si_code;
	got_fd = si->si_fd;
	got_count++;
}

static void plain_handler(int sig)
{
	(void)sig;
}

/* Wait up to two seconds for the handler to have run n times. */
static int wait_for(int n)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 200 && got_count < n; i++)
		nanosleep(&ts, NULL);
	return got_count >= n;
}

/* What the handler saw, against the descriptor the script used. */
#define NOTE_HANDLER(r, sig, fd)                                             \
	NOTE(r, "handler", "count=%d signo_ok=%d code=%d si_fd_is_fd=%d",   \
	     (int)got_count, got_signo == (sig), (int)got_code,              \
	     got_fd == (fd))

/* What sigwaitinfo or sigtimedwait returned, the same way. */
#define NOTE_INFO(r, si, fd)                                                 \
	NOTE(r, "siginfo", "signo=%d code=%d si_fd_is_fd=%d", (si).si_signo,  \
	     (si).si_code, (si).si_code > 0 && (si).si_code <= POLL_HUP       \
				   ? (si).si_fd == (fd) : -1)

/* O_ASYNC readiness of pipe p raising sig, caught by the handler: one
 * byte written, what the handler saw noted, the byte read back. */
static void async_to_handler(struct run *r, int sig, int p[2])
{
	char c;

	LOG(r, fcntl(p[0], F_SETSIG, sig));
	LOG(r, fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK));
	got_count = 0;
	LOG(r, write(p[1], "x", 1));
	LOG_BOOL(r, wait_for(1));
	NOTE_HANDLER(r, sig, p[0]);
	LOG(r, read(p[0], &c, 1));
}

/* A signalfd record, the same way. */
#define NOTE_SSI(r, ssi, fd)                                                 \
	NOTE(r, "signalfd_siginfo", "signo=%u code=%d ssi_fd_is_fd=%d",      \
	     (ssi).ssi_signo, (ssi).ssi_code, (ssi).ssi_fd == (fd))

/* The kernel's struct sigaction (x86_64, arm64), for the raw call. */
struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};

script_fn script_signals;

void script_signals(struct run *r)
{
	const int rt = SIGRTMIN, rt2 = SIGRTMIN + 1, rt3 = SIGRTMIN + 2;
	struct timespec two = { 2, 0 };
	struct sigaction sa, old;
	sigset_t set;
	siginfo_t si;
	struct signalfd_siginfo ssi[2];
	struct k_sigaction ka, kold;
	char c;
	int p[2], d, f, sfd;

	/* sigaction: oldact shows the program's own handler. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = record;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	LOG(r, sigaction(rt, &sa, NULL));
	memset(&old, 0, sizeof(old));
	LOG(r, sigaction(rt, NULL, &old));
	LOG_BOOL(r, old.sa_sigaction == record);
	NOTE(r, "oldact flags", "siginfo=%d restart=%d",
	     !!(old.sa_flags & SA_SIGINFO), !!(old.sa_flags & SA_RESTART));
	LOG(r, sigaction(rt, &sa, &old));
	LOG_BOOL(r, old.sa_sigaction == record);
	/* signal() and its kin return it too, and theirs come back as is. */
	LOG_BOOL(r, (void *)signal(rt, plain_handler) == (void *)record);
	LOG(r, sigaction(rt, &sa, &old));
	LOG_BOOL(r, old.sa_handler == plain_handler);
	NOTE(r, "oldact flags", "siginfo=%d", !!(old.sa_flags & SA_SIGINFO));
	LOG_BOOL(r, (void *)sysv_signal(rt, SIG_IGN) == (void *)record);
	LOG_BOOL(r, ssignal(rt, SIG_DFL) == SIG_IGN);
	LOG(r, sigaction(rt, &sa, &old));
	LOG_BOOL(r, old.sa_handler == SIG_DFL);
	/* The kernel's errors. */
	LOG(r, sigaction(SIGKILL, &sa, NULL));
	LOG(r, sigaction(0, &sa, &old));
	LOG(r, sigaction(_NSIG, &sa, NULL));
	LOG(r, sigaction(rt, NULL, &old));
	LOG_BOOL(r, old.sa_sigaction == record);
	LOG_BOOL(r, signal(SIGSTOP, plain_handler) == SIG_ERR);

	/* O_ASYNC and F_SETSIG on a pipe: the handler's si_fd. */
	must(r, pipe(p) == 0, "pipe");
	fd_of_pair(r, p);
	LOG(r, fcntl(p[0], F_SETOWN, getpid()));
	async_to_handler(r, rt, p);
	LOG(r, fcntl(p[0], F_GETSIG));

	/* The same signal blocked: sigwaitinfo and sigtimedwait. */
	sigemptyset(&set);
	sigaddset(&set, rt2);
	must(r, sigprocmask(SIG_BLOCK, &set, NULL) == 0, "sigprocmask");
	LOG(r, fcntl(p[0], F_SETSIG, rt2));
	LOG(r, write(p[1], "x", 1));
	memset(&si, 0, sizeof(si));
	LOG(r, sigwaitinfo(&set, &si) == rt2);
	NOTE_INFO(r, si, p[0]);
	LOG(r, read(p[0], &c, 1));
	LOG(r, write(p[1], "x", 1));
	memset(&si, 0, sizeof(si));
	LOG(r, sigtimedwait(&set, &si, &two) == rt2);
	NOTE_INFO(r, si, p[0]);
	LOG(r, read(p[0], &c, 1));
	/* The raw system call. */
	LOG(r, write(p[1], "x", 1));
	memset(&si, 0, sizeof(si));
	LOG(r, syscall(SYS_rt_sigtimedwait, &set, &si, &two, _NSIG / 8) == rt2);
	NOTE_INFO(r, si, p[0]);
	LOG(r, read(p[0], &c, 1));
	/* sigwait: the number only. */
	LOG(r, write(p[1], "x", 1));
	f = 0;
	LOG_ERRNUM(r, sigwait(&set, &f));
	LOG_BOOL(r, f == rt2);
	LOG(r, read(p[0], &c, 1));

	/* Plain SIGIO (no F_SETSIG): SI_KERNEL, no si_fd. */
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	must(r, sigprocmask(SIG_BLOCK, &set, NULL) == 0, "sigprocmask");
	LOG(r, fcntl(p[0], F_SETSIG, 0));
	LOG(r, write(p[1], "x", 1));
	memset(&si, 0, sizeof(si));
	LOG(r, sigtimedwait(&set, &si, &two) == SIGIO);
	NOTE_INFO(r, si, p[0]);
	LOG(r, read(p[0], &c, 1));
	LOG(r, fcntl(p[0], F_SETFL, O_NONBLOCK));

	/* dnotify on a directory, blocked, then to the handler. */
	LOG(r, mkdir("d", 0700));
	d = FD_OF(r, open("d", O_RDONLY | O_DIRECTORY));
	sigemptyset(&set);
	sigaddset(&set, rt3);
	must(r, sigprocmask(SIG_BLOCK, &set, NULL) == 0, "sigprocmask");
	LOG(r, fcntl(d, F_SETSIG, rt3));
	LOG(r, fcntl(d, F_NOTIFY, DN_CREATE | DN_MULTISHOT));
	LOG(r, close(LOG_FD(r, open("d/a", O_CREAT | O_WRONLY, 0600))));
	memset(&si, 0, sizeof(si));
	LOG(r, sigtimedwait(&set, &si, &two) == rt3);
	NOTE_INFO(r, si, d);
	LOG(r, sigaction(rt3, &sa, NULL));
	got_count = 0;
	must(r, sigprocmask(SIG_UNBLOCK, &set, NULL) == 0, "sigprocmask");
	LOG(r, close(LOG_FD(r, open("d/b", O_CREAT | O_WRONLY, 0600))));
	LOG_BOOL(r, wait_for(1));
	NOTE_HANDLER(r, rt3, d);

	/* A signalfd: ssi_fd of its records, through read(), the raw read
	 * and a signalfd made through syscall(). */
	sigemptyset(&set);
	sigaddset(&set, rt2);
	LOG(r, fcntl(p[0], F_SETSIG, rt2));
	LOG(r, fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK));
	sfd = LOG_FD(r, signalfd(-1, &set, SFD_NONBLOCK));
	LOG(r, write(p[1], "x", 1));
	memset(ssi, 0, sizeof(ssi));
	LOG(r, read(sfd, ssi, sizeof(ssi)));
	NOTE_SSI(r, ssi[0], p[0]);
	LOG(r, read(p[0], &c, 1));
	LOG(r, signalfd(sfd, &set, 0) == sfd);
	LOG(r, write(p[1], "x", 1));
	memset(ssi, 0, sizeof(ssi));
	LOG(r, syscall(SYS_read, sfd, ssi, sizeof(ssi)));
	NOTE_SSI(r, ssi[0], p[0]);
	LOG(r, read(p[0], &c, 1));
	LOG(r, read(sfd, ssi, sizeof(ssi)));
	LOG(r, close(sfd));
	sfd = LOG_FD(r, syscall(SYS_signalfd4, -1, &set, _NSIG / 8, SFD_NONBLOCK));
	LOG(r, write(p[1], "x", 1));
	memset(ssi, 0, sizeof(ssi));
	LOG(r, read(sfd, ssi, sizeof(ssi)));
	NOTE_SSI(r, ssi[0], p[0]);
	LOG(r, read(p[0], &c, 1));
	LOG(r, close(sfd));
	LOG(r, fcntl(p[0], F_SETFL, O_NONBLOCK));

	/* A file on a closed signalfd's number: what looks like a record
	 * naming the pipe's backing descriptor is read as written. */
	sfd = LOG_FD(r, signalfd(-1, &set, 0));
	LOG(r, close(sfd));
	f = LOG_FD(r, open("not-a-signalfd", O_RDWR | O_CREAT | O_TRUNC, 0600));
	LOG_BOOL(r, f == sfd);
	memset(ssi, 0, sizeof(ssi));
	ssi[0].ssi_signo = (uint32_t)rt2;
	ssi[0].ssi_code = POLL_IN;
	ssi[0].ssi_fd = api_backing_fd(p[0]);
	ssi[1] = ssi[0];
	LOG(r, write(f, ssi, sizeof(ssi)));
	LOG(r, lseek(f, 0, SEEK_SET));
	memset(ssi, 0, sizeof(ssi));
	LOG(r, read(f, ssi, sizeof(ssi)));
	NOTE(r, "file data", "as written=%d",
	     ssi[0].ssi_fd == api_backing_fd(p[0]) && ssi[1].ssi_fd == ssi[0].ssi_fd);
	LOG(r, close(f));

	/* syscall(SYS_rt_sigaction) with the kernel's structure (the
	 * restorer glibc's, which the kernel reports), as sigaction. */
	memset(&ka, 0, sizeof(ka));
	LOG(r, syscall(SYS_rt_sigaction, rt, NULL, &ka, _NSIG / 8));
	ka.handler = (void *)record;
	ka.flags |= SA_SIGINFO | SA_RESTART;
	ka.mask = 0;
	LOG(r, syscall(SYS_rt_sigaction, rt, &ka, NULL, _NSIG / 8));
	memset(&old, 0, sizeof(old));
	LOG(r, sigaction(rt, NULL, &old));
	LOG_BOOL(r, old.sa_sigaction == record);
	memset(&kold, 0, sizeof(kold));
	LOG(r, syscall(SYS_rt_sigaction, rt, NULL, &kold, _NSIG / 8));
	LOG_BOOL(r, kold.handler == (void *)record);
	LOG_BOOL(r, (kold.flags & SA_SIGINFO) != 0);
	LOG(r, syscall(SYS_rt_sigaction, rt, &ka, &kold, _NSIG / 8));
	LOG_BOOL(r, kold.handler == (void *)record);
	LOG(r, syscall(SYS_rt_sigaction, rt, &ka, NULL, 4));
	LOG(r, syscall(SYS_rt_sigaction, rt, null_ptr, NULL, _NSIG / 8));
	LOG(r, syscall(SYS_rt_sigaction, rt, NULL, null_ptr, _NSIG / 8));
	LOG(r, syscall(SYS_rt_sigaction, SIGKILL, &ka, NULL, _NSIG / 8));
	async_to_handler(r, rt, p);
	LOG(r, fcntl(p[0], F_SETFL, O_NONBLOCK));

	LOG(r, close(d));
	LOG(r, close(p[0]));
	LOG(r, close(p[1]));
}
