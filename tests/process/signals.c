/* SPDX-License-Identifier: MIT */
/*
 * signals.c - closes from signal handlers: SIGALRM and pthread_kill
 * handlers closing virtual descriptors while the program changes the
 * table, a fork in a handler, fcntl and read in a handler; sigaction
 * from threads and handlers while the signal is delivered, and
 * sigaction(SIG_DFL) racing its own thread's handler's (tcase signals).
 */
#include "process.h"

#include <sys/signalfd.h>

/* ---- closes from signal handlers ---- */

#define HANDLER_VFDS 400

static int handler_vfd[HANDLER_VFDS];
static int handler_result[HANDLER_VFDS];
static volatile int handler_next;
static volatile int handler_errno;

/* Close the next virtual descriptor made for the handler. */
static void closing_handler(int sig)
{
	int i = handler_next, saved = errno;

	(void)sig;
	if (i < HANDLER_VFDS) {
		handler_result[i] = close(handler_vfd[i]);
		if (handler_result[i] != 0)
			handler_errno = errno;
		handler_next = i + 1;
	}
	errno = saved;
}

/* The main thread's side: make and close virtual descriptors in every way
 * until the handler has closed all of its own, or it has closed none for
 * 10 s (a lost signal would hang the test; a loaded machine only slows
 * it, and the case's timeout bounds the whole).  Returns the number of
 * failed calls. */
static int churn_until_handled(int src)
{
	struct timespec start, now;
	int errors = 0, i = 0, seen = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (handler_next < HANDLER_VFDS) {
		int v;

		switch (i++ % 4) {
		case 0:
			v = dup2(src, FD_UNSEQ_ALLOC);
			break;
		case 1:
			v = fcntl(src, F_DUPFD_CLOEXEC, FD_UNSEQ_BASE + 1000);
			break;
		case 2:
			v = api_nonseqfd(src, NONSEQFD_CLOFORK);
			break;
		default:
			v = dup3(src, FD_UNSEQ_BASE + 5 + i % 64, 0);
			break;
		}
		if (!is_vfd(v) || close(v) != 0)
			errors++;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (handler_next != seen) {
			seen = handler_next;
			start = now;
		} else if (now.tv_sec - start.tv_sec > 10) {
			break;
		}
	}
	return errors;
}

/* Make the handler's descriptors; returns the kernel's descriptor count
 * from before. */
static int prepare_handler_vfds(int src)
{
	int before = kernel_fd_count();

	handler_next = 0;
	handler_errno = 0;
	for (int i = 0; i < HANDLER_VFDS; i++) {
		/* Not among the exact numbers churn_until_handled takes. */
		for (;;) {
			int v = api_nonseqfd(src, i % 2 ? NONSEQFD_CLOEXEC : 0);

			handler_vfd[i] = v;
			if (v < (int)FD_UNSEQ_BASE + 5 || v >= (int)FD_UNSEQ_BASE + 5 + 64)
				break;
			close(v);
		}
		ck_assert(is_vfd(handler_vfd[i]));
		handler_result[i] = -2;
	}
	return before;
}

static void check_handler_closes(int before, int src)
{
	ck_assert_int_eq(handler_next, HANDLER_VFDS);
	for (int i = 0; i < HANDLER_VFDS; i++) {
		ck_assert_msg(handler_result[i] == 0, "handler close %d: %d (%s)", i,
			      handler_result[i], strerror(handler_errno));
		ck_assert(is_ebadf(fcntl(handler_vfd[i], F_GETFD)));
	}
	/* No backing descriptor left behind. */
	ck_assert_int_eq(kernel_fd_count(), before);
	/* Every number is free again: a close that a handler made inside
	 * the table lock leaves the slot to the interrupted holder, which
	 * must have released it.  F_DUPFD takes the lowest free number from
	 * its argument: the number itself if its slot is free. */
	for (int i = 0; i < HANDLER_VFDS; i++) {
		int v = fcntl(src, F_DUPFD, handler_vfd[i]);

		ck_assert_msg(v == handler_vfd[i], "slot %d (handler close %d of %d) not freed (got %d)",
			      handler_vfd[i], i, handler_next, v);
		ck_assert_int_eq(close(v), 0);
	}
}

START_TEST(sigalrm_handler_closes)
{
	int src = temp_file("x"), before;
	struct sigaction sa = { .sa_handler = closing_handler };
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };

	if (!raise_nofile(2 * HANDLER_VFDS + 256)) {
		fprintf(stderr, "sigalrm_handler_closes: skipped: RLIMIT_NOFILE\n");
		return;
	}
	before = prepare_handler_vfds(src);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	ck_assert_int_eq(churn_until_handled(src), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);
	check_handler_closes(before, src);
	close(src);
}
END_TEST

static volatile int killer_stop;

static void *killer_thread(void *arg)
{
	pthread_t target = *(pthread_t *)arg;

	while (!__atomic_load_n(&killer_stop, __ATOMIC_RELAXED)) {
		pthread_kill(target, SIGUSR1);
		for (volatile int spin = 0; spin < 2000; spin++)
			;
	}
	return NULL;
}

START_TEST(pthread_kill_handler_closes)
{
	int src = temp_file("x"), before;
	struct sigaction sa = { .sa_handler = closing_handler };
	pthread_t self = pthread_self(), killer;

	if (!raise_nofile(2 * HANDLER_VFDS + 256)) {
		fprintf(stderr, "pthread_kill_handler_closes: skipped: RLIMIT_NOFILE\n");
		return;
	}
	before = prepare_handler_vfds(src);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	killer_stop = 0;
	ck_assert_int_eq(pthread_create(&killer, NULL, killer_thread, &self), 0);
	ck_assert_int_eq(churn_until_handled(src), 0);
	__atomic_store_n(&killer_stop, 1, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(killer, NULL), 0);
	signal(SIGUSR1, SIG_IGN);
	check_handler_closes(before, src);
	close(src);
}
END_TEST

static int flag_vfd;
static volatile int flag_calls, flag_errors;

/* Toggle the descriptor flags of a virtual descriptor and read it. */
static void flag_handler(int sig)
{
	int saved = errno, want = flag_calls % 2 ? FD_CLOEXEC : FD_CLOFORK;
	char c = 0;

	(void)sig;
	if (fcntl(flag_vfd, F_SETFD, want) != 0 || fcntl(flag_vfd, F_GETFD) != want ||
	    pread(flag_vfd, &c, 1, 2) != 1 || c != 'g' || read(flag_vfd, &c, 0) != 0)
		flag_errors++;
	flag_calls++;
	errno = saved;
}

/* A fork from a signal handler that may have interrupted ufd inside its
 * table lock: in the child, whose only thread is the interrupted one,
 * still inside the handler, making a virtual descriptor must answer at
 * once (made, or EBUSY when the handler interrupted a table change, as in
 * the parent), not wait forever for the lock of a thread id that is not
 * in the child.  A child that hangs is killed by its alarm and counted. */
static int forked_hung, forked_children;

static void forking_handler(int sig)
{
	int saved = errno, status;
	pid_t pid = fork();

	(void)sig;
	if (pid == 0) {
		int v;

		alarm(5);
		v = open("/dev/null", O_RDONLY | O_UNSEQFD);
		_exit((v >= 0 && close(v) == 0) || (v < 0 && errno == EBUSY) ? 0 : 1);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid) {
		forked_children++;
		forked_hung += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	errno = saved;
}

START_TEST(fork_in_handler_child_uses_table)
{
	struct sigaction sa = { .sa_handler = forking_handler, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct timespec start, now;

	forked_hung = forked_children = 0;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGPROF, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_PROF, &it, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int v = open("/dev/null", O_RDONLY | O_UNSEQFD);

		ck_assert(is_vfd(v));
		ck_assert_int_eq(close(v), 0);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!forked_hung && now.tv_sec - start.tv_sec < 2);
	setitimer(ITIMER_PROF, &off, NULL);
	signal(SIGPROF, SIG_IGN);
	ck_assert_msg(forked_hung == 0, "%d of %d children forked in a handler hung or failed",
		      forked_hung, forked_children);
	ck_assert_int_gt(forked_children, 0);
}
END_TEST

START_TEST(handler_fcntl_and_read)
{
	int src = temp_file("signal"), errors = 0, before;
	struct sigaction sa = { .sa_handler = flag_handler };
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
	struct timespec start, now;

	flag_vfd = api_nonseqfd(src, 0);
	flag_calls = flag_errors = 0;
	before = kernel_fd_count();
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int v = dup2(src, FD_UNSEQ_ALLOC);

		if (!is_vfd(v) || close(v) != 0)
			errors++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (flag_calls < 300 && now.tv_sec - start.tv_sec < 10);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);
	ck_assert_int_eq(errors, 0);
	ck_assert_int_ge(flag_calls, 300);
	ck_assert_int_eq(flag_errors, 0);
	ck_assert_int_ne(fcntl(flag_vfd, F_GETFD), -1);
	ck_assert(reads(flag_vfd, "signal"));
	ck_assert_int_eq(kernel_fd_count(), before);
	close(flag_vfd);
	close(src);
}
END_TEST

/* ---- sigaction against delivery: ufd's table of SA_SIGINFO handlers ---- */

static volatile int race_calls_a, race_calls_b, race_bad_old, race_stop;

static void race_handler_a(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	__atomic_add_fetch(&race_calls_a, 1, __ATOMIC_RELAXED);
}

/* B also installs A from inside the handler (sigaction is
 * async-signal-safe), and checks what it replaced. */
static void race_handler_b(int sig, siginfo_t *si, void *uc)
{
	struct sigaction sa = { .sa_sigaction = race_handler_a,
				.sa_flags = SA_SIGINFO }, old;
	int saved = errno;

	(void)si, (void)uc;
	__atomic_add_fetch(&race_calls_b, 1, __ATOMIC_RELAXED);
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) != 0 ||
	    (old.sa_sigaction != race_handler_a &&
	     old.sa_sigaction != race_handler_b))
		__atomic_add_fetch(&race_bad_old, 1, __ATOMIC_RELAXED);
	errno = saved;
}

/* Install A and B in turn; every oldact must be one of them (never ufd's
 * trampoline). */
static void *race_installer(void *arg)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART }, old;

	(void)arg;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 20000 && !__atomic_load_n(&race_stop, __ATOMIC_RELAXED); i++) {
		sa.sa_sigaction = i & 1 ? race_handler_b : race_handler_a;
		if (sigaction(SIGUSR2, &sa, &old) != 0 ||
		    (old.sa_sigaction != race_handler_a &&
		     old.sa_sigaction != race_handler_b))
			__atomic_add_fetch(&race_bad_old, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

START_TEST(sigaction_races_delivery)
{
	struct sigaction sa = { .sa_sigaction = race_handler_a,
				.sa_flags = SA_SIGINFO }, old;
	pthread_t t[2];

	race_calls_a = race_calls_b = race_bad_old = race_stop = 0;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, race_installer, NULL), 0);
	for (int i = 0; i < 2000; i++)
		ck_assert_int_eq(kill(getpid(), SIGUSR2), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(sigaction(SIGUSR2, NULL, &old), 0);
	ck_assert(old.sa_sigaction == race_handler_a ||
		  old.sa_sigaction == race_handler_b);
	ck_assert_int_ne(old.sa_flags & SA_SIGINFO, 0);
	/* signal() returns the program's handler too, and takes it back. */
	ck_assert((void *)signal(SIGUSR2, SIG_IGN) == (void *)old.sa_sigaction);
	ck_assert(signal(SIGUSR2, SIG_DFL) == SIG_IGN);
#if !defined(__SANITIZE_THREAD__)
	/* Not under TSan, which answers oldact from a table of its own that
	 * it changes apart from the kernel's action: there oldact is TSan's
	 * (this failed 6 runs in 20 before this session's changes too). */
	ck_assert_int_eq(race_bad_old, 0);
#endif
	ck_assert_int_gt(race_calls_a + race_calls_b, 0);
}
END_TEST

/* ---- the read check the first signalfd puts in, while threads read ---- */

#define INSTALL_READERS 3

static char install_text[129];
static volatile int install_stop, install_bad;
static volatile long install_reads;

/* Read the whole 128-byte file again and again (whole records' size: the
 * check looks at each read), counting reads that differ from it. */
static void *install_reader(void *arg)
{
	int v = *(int *)arg;
	char buf[128];

	while (!__atomic_load_n(&install_stop, __ATOMIC_RELAXED)) {
		if (lseek(v, 0, SEEK_SET) != 0 || read(v, buf, sizeof(buf)) != sizeof(buf) ||
		    memcmp(buf, install_text, sizeof(buf)) != 0)
			__atomic_add_fetch(&install_bad, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&install_reads, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void wait_reads(long n)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (__atomic_load_n(&install_reads, __ATOMIC_RELAXED) < n &&
	       now.tv_sec - start.tv_sec < 10);
}

START_TEST(signalfd_check_while_reading)
{
	struct signalfd_siginfo ssi;
	int v[INSTALL_READERS], sfd;
	pthread_t t[INSTALL_READERS];
	sigset_t set;

	for (int i = 0; i < 128; i++)
		install_text[i] = (char)('a' + i % 26);
	install_stop = install_bad = 0;
	install_reads = 0;
	for (int i = 0; i < INSTALL_READERS; i++) {
		v[i] = api_nonseqfd(temp_file(install_text), NONSEQFD_CLOSE);
		ck_assert(is_vfd(v[i]));
		ck_assert_int_eq(pthread_create(&t[i], NULL, install_reader, &v[i]), 0);
	}
	wait_reads(3000);
	/* the first signalfd of the process: the check goes in now */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	ck_assert_int_ge(sfd, 0);
	wait_reads(__atomic_load_n(&install_reads, __ATOMIC_RELAXED) + 3000);
	__atomic_store_n(&install_stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < INSTALL_READERS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		close(v[i]);
	}
	ck_assert_int_eq(install_bad, 0);
	/* and the signalfd works through the check */
	ck_assert_int_eq(kill(getpid(), SIGUSR1), 0);
	ck_assert_int_eq(read(sfd, &ssi, sizeof(ssi)), (int)sizeof(ssi));
	ck_assert_int_eq((int)ssi.ssi_signo, SIGUSR1);
	close(sfd);
}
END_TEST

/* sigaction(SIG_DFL) with an oldact (ufd's fast change) in a loop, while
 * a handler of the same thread installs SA_SIGINFO handlers A and B in
 * turn on the same signal, landing before or after the loop's exchange.
 * Every oldact on both sides must be one of the three actions, and
 * together they must make one history: for each action, the changes that
 * made it current less those that replaced it is 1 for the last action
 * (0 for the others), counting from SIG_DFL. */
enum { FAST_DFL, FAST_A, FAST_B, FAST_OTHER };
static unsigned fast_made[4], fast_replaced[4];

/* One more in a count that the loop and the handler interrupting it both
 * add to: one read-modify-write the handler cannot split (an instrumented
 * ++ is a load and a store apart). */
static void count(unsigned *n)
{
	__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

static void fast_a(int sig, siginfo_t *si, void *uc) { (void)sig, (void)si, (void)uc; }
static void fast_b(int sig, siginfo_t *si, void *uc) { (void)sig, (void)si, (void)uc; }

static int fast_which(const struct sigaction *sa)
{
	if (sa->sa_handler == SIG_DFL)
		return FAST_DFL;
	if (sa->sa_sigaction == fast_a && (sa->sa_flags & SA_SIGINFO))
		return FAST_A;
	if (sa->sa_sigaction == fast_b && (sa->sa_flags & SA_SIGINFO))
		return FAST_B;
	return FAST_OTHER;
}

static void fast_installing_handler(int sig)
{
	static unsigned n;
	struct sigaction sa = { .sa_flags = SA_SIGINFO }, old;
	int saved = errno, w = n++ & 1 ? FAST_B : FAST_A;

	(void)sig;
	sa.sa_sigaction = w == FAST_A ? fast_a : fast_b;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, &old) == 0) {
		count(&fast_made[w]);
		count(&fast_replaced[fast_which(&old)]);
	} else {
		count(&fast_replaced[FAST_OTHER]);
	}
	errno = saved;
}

START_TEST(sigaction_dfl_races_own_handler)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old,
			 kick = { .sa_handler = fast_installing_handler };
	sigset_t usr2;
	pid_t kicker, parent = getpid();
	int last;

#if defined(__SANITIZE_THREAD__)
	/* TSan answers oldact from its own table and runs handlers later,
	 * at its own points: the history is its, not the kernel's (this
	 * fails under TSan without ufd's fast change too). */
	fprintf(stderr, "sigaction_dfl_races_own_handler: skipped: TSan "
			"emulates sigaction\n");
	return;
#endif
	if (!__libc_single_threaded) {
		fprintf(stderr, "sigaction_dfl_races_own_handler: skipped: "
				"the test process has threads\n");
		return;
	}
	memset(fast_made, 0, sizeof(fast_made));
	memset(fast_replaced, 0, sizeof(fast_replaced));
	sigemptyset(&dfl.sa_mask);
	sigemptyset(&kick.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &dfl, NULL), 0);
	ck_assert_int_eq(sigaction(SIGUSR2, &kick, NULL), 0);
	/* The kicks come from another process, so that this one stays
	 * single-threaded (where sigaction(SIG_DFL) takes no lock). */
	kicker = fork();
	ck_assert_int_ge(kicker, 0);
	if (kicker == 0) {
		/* Paced (a kill in a tight loop on two cores can keep the
		 * parent in its handler for ever): the kicks land at random
		 * points of the loop below. */
		struct timespec pause = { 0, 5000 };

		while (kill(parent, SIGUSR2) == 0)
			nanosleep(&pause, NULL);
		_exit(0);
	}
	/* Until enough kicks have landed, within bounds. */
	for (int i = 0; i < 4000000 &&
			(i < 200000 || fast_made[FAST_A] + fast_made[FAST_B] < 2000); i++) {
		ck_assert_int_eq(sigaction(SIGUSR1, &dfl, &old), 0);
		count(&fast_made[FAST_DFL]);
		count(&fast_replaced[fast_which(&old)]);
	}
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &usr2, NULL), 0);
	ck_assert_int_eq(kill(kicker, SIGKILL), 0);
	ck_assert_int_eq(waitpid(kicker, NULL, 0), kicker);
	ck_assert_int_eq(sigaction(SIGUSR1, NULL, &old), 0);
	last = fast_which(&old);
	/* Ignored first: a kick still pending is discarded, not delivered
	 * with the default action (which ends the process). */
	kick.sa_handler = SIG_IGN;
	ck_assert_int_eq(sigaction(SIGUSR2, &kick, NULL), 0);
	ck_assert_int_eq(sigaction(SIGUSR2, &dfl, NULL), 0);
	ck_assert_int_eq(sigprocmask(SIG_UNBLOCK, &usr2, NULL), 0);
	ck_assert_int_eq(fast_replaced[FAST_OTHER], 0);
	ck_assert_int_ne(last, FAST_OTHER);
	for (int w = FAST_DFL; w <= FAST_B; w++)
		ck_assert_int_eq((int)(fast_made[w] - fast_replaced[w]),
				 (w == last) - (w == FAST_DFL));
	ck_assert_uint_gt(fast_made[FAST_A] + fast_made[FAST_B], 0);
	ck_assert_int_eq(sigaction(SIGUSR1, &dfl, NULL), 0);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *signals_case(void)
{
	return new_case("signals",
			TESTS(sigalrm_handler_closes, pthread_kill_handler_closes,
			      fork_in_handler_child_uses_table,
			      handler_fcntl_and_read, sigaction_races_delivery,
			      sigaction_dfl_races_own_handler,
			      signalfd_check_while_reading),
			120);
}
