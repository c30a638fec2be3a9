/* SPDX-License-Identifier: MIT */
/*
 * Description: UFD_MODE=random (src/random_fd.h).  Run under ufd with
 * UFD_MODE=random (tests/meson.build: a fixed UFD_SEED, and the uniformity
 * case again with other seeds and a smaller UFD_RANDOM_MAX).
 *
 *   uniform:    many open+close cycles; every number drawn is a free one
 *               out of quarantine, and two chi-square tests find the draws
 *               uniform (thresholds at p = 1e-6, see chi_square_limit_z);
 *   quarantine: a closed number (close, close_range, fclose) is not given
 *               out by the next Q creations, and a stale descriptor gets
 *               EBADF, where the kernel would have handed its number out
 *               again at once;
 *   numbers:    F_DUPFD(n) draws from n up (the kernel's answer from N
 *               up), close-on-exec and the close-on-fork mark move with
 *               the descriptor, dup2/dup3 targets and 0, 1, 2 stay,
 *               virtual descriptors still work, record locks survive;
 *   threads:    threads creating and closing at once, and a signal
 *               handler doing so in the middle of a thread's creations:
 *               no descriptor is ever replaced (each file stays its
 *               own).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd_check.h"
#include "ufd_test.h"

/* Q, the quarantine's length: N / 4 (random_fd.h). */
static int quarantine_q(void)
{
	return random_range_n() / 4;
}

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

/* The lowest number not open: where the kernel puts a new descriptor. */
static int lowest_free(void)
{
	int n = 0;

	while (is_open(n))
		n++;
	return n;
}

/*
 * The chi-square value that a statistic with df degrees of freedom exceeds
 * (upper, z = 4.753) or stays below (lower, z = -4.753) with probability
 * 1e-6, by Wilson-Hilferty: (X/df)^(1/3) is nearly normal with mean
 * 1 - 2/(9 df) and variance 2/(9 df), and 4.753 is the normal's upper 1e-6
 * point.  Checked against the exact law: the tail is 3e-7 to 1e-6 for df
 * from 17 to 1012.
 */
static double chi_square_limit_z(int df, double z)
{
	double v = 2.0 / (9.0 * df), c = 1.0 - v + z * sqrt(v);

	return df * c * c * c;
}

static double chi_square_limit(int df)
{
	return chi_square_limit_z(df, 4.753);
}

static double chi_square_lower(int df)
{
	return chi_square_limit_z(df, -4.753);
}

/* ---- uniform ---- */

/*
 * Cycles of open+close.  The free set F is [3, N) minus the numbers open
 * here and minus the kernel's lowest free number, where each open's
 * descriptor is before its move.  Draw i may take any number of F but the
 * previous Q draws (closed, in quarantine: random_fd.h), each with the
 * same probability.  Two statistics:
 *
 *  - counts: over many cycles every number of F is drawn as often as any
 *    other (by symmetry); Pearson's X^2 over the |F| counts, df = |F| - 1.
 *    The quarantine spreads the draws more evenly than independent ones
 *    would be, so X^2 runs below the chi-square law and the threshold is
 *    conservative (a false failure rarer than 1e-6).
 *  - ranks: draw i's rank among its candidates, scaled to [0, 1), must be
 *    uniform, draw by draw: catches a chooser that is even over time but
 *    not random (a round robin would pass the counts).  The ranks are
 *    independent, so X^2 over B bins (expected counts computed exactly
 *    per draw) follows chi-square with B - 1 df: thresholds at 1e-6 on
 *    both sides (too even is not random either).
 *
 * A draw outside its candidates (an open or quarantined number) fails at
 * once.
 */
#define RANK_BINS_MAX 50

START_TEST(uniform)
{
	int n = random_range_n(), q = quarantine_q(), low, f = 0, cycles, warm;
	int *recent, *count, *cand, *held_out;
	char *in_f;
	double rank_expected[RANK_BINS_MAX] = { 0 }, x2 = 0, r2 = 0;
	long rank_seen[RANK_BINS_MAX] = { 0 };
	int bins;

	/* a few numbers open in the range: never drawn */
	for (int k = 0; k < 6 && n > 40; k++)
		ck_assert_int_eq(dup2(0, n / 2 + 3 * k), n / 2 + 3 * k);
	low = lowest_free();
	in_f = calloc((size_t)n, 1);
	count = calloc((size_t)n, sizeof(int));
	cand = calloc((size_t)n, sizeof(int));
	recent = calloc((size_t)q + 1, sizeof(int)); /* a ring of the last Q draws */
	held_out = calloc((size_t)n, sizeof(int));  /* times in that ring */
	ck_assert_ptr_nonnull(in_f);
	ck_assert_ptr_nonnull(count);
	ck_assert_ptr_nonnull(cand);
	ck_assert_ptr_nonnull(recent);
	ck_assert_ptr_nonnull(held_out);
	for (int k = 3; k < n; k++)
		if (k != low && !is_open(k))
			in_f[k] = 1, f++;
	ck_assert_int_gt(f - q, 1);
	/* at most one bin per candidate: no bin empty for any draw */
	bins = (f - q) / 2 < RANK_BINS_MAX ? (f - q) / 2 : RANK_BINS_MAX;
	/* Q cycles first, so that no quarantine from before is left */
	warm = q + 1;
	cycles = 50 * f;
	for (int i = 0; i < warm + cycles; i++) {
		int fd = open("/dev/null", O_RDONLY), c = 0, rank = -1;

		ck_assert_int_ge(fd, 3);
		ck_assert_int_lt(fd, n);
		ck_assert_int_eq(close(fd), 0);
		if (i >= warm) {
			/* the candidates, in order: F minus the last Q draws */
			for (int k = 3; k < n; k++) {
				if (!in_f[k] || held_out[k])
					continue;
				if (k == fd)
					rank = c;
				cand[c++] = k;
			}
			if (rank < 0)
				ck_abort_msg("draw %d: %d was not a candidate (open, "
					     "or closed less than %d creations ago)",
					     i, fd, q);
			count[fd]++;
			rank_seen[(long)rank * bins / c]++;
			for (int r = 0; r < c; r++)
				rank_expected[(long)r * bins / c] += 1.0 / c;
		}
		if (q > 0) {
			if (i >= q)
				held_out[recent[i % q]]--;
			recent[i % q] = fd;
			held_out[fd]++;
		}
	}
	for (int k = 3; k < n; k++) {
		double e = (double)cycles / f;

		if (in_f[k])
			x2 += (count[k] - e) * (count[k] - e) / e;
		else
			ck_assert_int_eq(count[k], 0);
	}
	for (int b = 0; b < bins; b++)
		r2 += (rank_seen[b] - rank_expected[b]) * (rank_seen[b] - rank_expected[b]) /
		      rank_expected[b];
	printf("uniform: N %d, Q %d, %d free, %d cycles: counts X^2 %.1f (df %d, "
	       "limit %.1f), ranks X^2 %.1f (df %d, limits %.1f to %.1f)\n",
	       n, q, f, cycles, x2, f - 1, chi_square_limit(f - 1), r2,
	       bins - 1, chi_square_lower(bins - 1), chi_square_limit(bins - 1));
	ck_assert_double_lt(x2, chi_square_limit(f - 1));
	ck_assert_double_lt(r2, chi_square_limit(bins - 1));
	/* and not too even either, for the ranks, which are independent (a
	 * chooser that spreads its ranks evenly is not random) */
	ck_assert_double_gt(r2, chi_square_lower(bins - 1));
	free(in_f);
	free(count);
	free(cand);
	free(recent);
	free(held_out);
}
END_TEST

/* ---- quarantine ---- */

/* After `closed` was closed, the next Q creations (kept open) never give
 * it, and it is not open: a stale use gets EBADF.  Closes them all. */
static void assert_quarantined(int closed, const char *how)
{
	int q = quarantine_q(), *made = calloc((size_t)q, sizeof(int));
	char byte = 'x';

	ck_assert_ptr_nonnull(made);
	for (int i = 0; i < q; i++) {
		made[i] = eventfd(0, EFD_CLOEXEC);
		ck_assert_int_ge(made[i], 3);
		ck_assert_msg(made[i] != closed,
			      "%s of %d: given out again by creation %d of %d", how,
			      closed, i + 1, q);
	}
	errno = 0;
	ck_assert_int_eq(write(closed, &byte, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	for (int i = 0; i < q; i++)
		close(made[i]);
	free(made);
}

START_TEST(quarantine)
{
	int fd, raw;
	FILE *fp;

	/* Without ufd's move, the kernel gives a closed number out again at
	 * once: the lowest free one (raw calls, past the shim). */
	raw = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)"/dev/null", O_RDONLY, 0, 0, 0);
	ck_assert_int_ge(raw, 0);
	ufd_sys6(SYS_close, raw, 0, 0, 0, 0, 0);
	ck_assert_int_eq((int)ufd_sys6(SYS_openat, AT_FDCWD, (long)"/dev/null",
				       O_RDONLY, 0, 0, 0), raw);
	ufd_sys6(SYS_close, raw, 0, 0, 0, 0, 0);

	fd = open("/dev/null", O_WRONLY);
	ck_assert_int_ge(fd, 3);
	ck_assert_int_eq(close(fd), 0);
	assert_quarantined(fd, "close");

	fd = open("/dev/null", O_WRONLY);
	ck_assert_int_eq(close_range((unsigned)fd, (unsigned)fd, 0), 0);
	assert_quarantined(fd, "close_range");

	fp = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(fp);
	fd = fileno(fp);
	ck_assert_int_eq(fclose(fp), 0);
	assert_quarantined(fd, "fclose");
}
END_TEST

/* ---- numbers ---- */

START_TEST(dupfd_from)
{
	int n = random_range_n(), froms[] = { 3, 10, n / 2, n - 2, n - 1 };

	for (unsigned i = 0; i < sizeof(froms) / sizeof(froms[0]); i++) {
		for (int k = 0; k < 20; k++) {
			int cmd = k % 2 ? F_DUPFD_CLOEXEC : F_DUPFD;
			int fd = fcntl(1, cmd, froms[i]);

			ck_assert_int_ge(fd, froms[i]);
			ck_assert_int_lt(fd, n);
			ck_assert_int_eq(!!(fcntl(fd, F_GETFD) & FD_CLOEXEC), k % 2);
			close(fd);
		}
	}
	/* from N up: the kernel's answer, the lowest free number there */
	{
		struct rlimit rl;
		int fd;

		ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
		if (rl.rlim_cur > (rlim_t)n + 10) {
			fd = fcntl(1, F_DUPFD, n + 5);
			ck_assert_int_eq(fd, n + 5);
			close(fd);
		}
	}
}
END_TEST

START_TEST(targets_and_std)
{
	int fd, saved;

	/* dup2 and dup3 onto a number: that number */
	ck_assert_int_eq(dup2(1, 77), 77);
	ck_assert_int_eq(dup3(1, 78, O_CLOEXEC), 78);
	ck_assert_int_eq(fcntl(78, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(77);
	close(78);
	/* 0 closed: the next open is the kernel's 0, and stays there */
	saved = fcntl(0, F_DUPFD_CLOEXEC, 3);
	ck_assert_int_ge(saved, 3);
	close(0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(fd, 0);
	ck_assert_int_eq(dup2(saved, 0), 0);
	close(saved);
	/* close-on-exec as asked, moved or not */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
}
END_TEST

/* fd, just made and moved, has close-on-exec as the call asked (want);
 * then closed. */
static void check_cloexec(int fd, int want, const char *what)
{
	ck_assert_msg(fd >= 3, "%s: %d", what, fd);
	ck_assert_msg(!!(fcntl(fd, F_GETFD) & FD_CLOEXEC) == want,
		      "%s: close-on-exec %d after the move, asked %d", what, !want, want);
	close(fd);
}

/*
 * The move keeps close-on-exec as the call asked, whether the wrapper
 * tells the mover (open, socket, dup, the generated rows with a flag:
 * eventfd, memfd_create) or the mover asks the kernel (socketpair, pipe,
 * pipe2, F_DUPFD).
 */
START_TEST(cloexec_as_asked)
{
	int p[2], fd;

	for (int want = 0; want <= 1; want++) {
		check_cloexec(open("/dev/null", O_RDONLY | (want ? O_CLOEXEC : 0)), want,
			      "open");
		check_cloexec(socket(AF_UNIX, SOCK_DGRAM | (want ? SOCK_CLOEXEC : 0), 0),
			      want, "socket");
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | (want ? SOCK_CLOEXEC : 0),
					    0, p), 0);
		check_cloexec(p[0], want, "socketpair");
		check_cloexec(p[1], want, "socketpair");
		ck_assert_int_eq(pipe2(p, want ? O_CLOEXEC : 0), 0);
		check_cloexec(p[0], want, "pipe2");
		check_cloexec(p[1], want, "pipe2");
		check_cloexec(eventfd(0, want ? EFD_CLOEXEC : 0), want, "eventfd");
		check_cloexec(memfd_create("t", want ? MFD_CLOEXEC : 0), want, "memfd_create");
		fd = open("/dev/null", O_RDONLY | (want ? 0 : O_CLOEXEC));
		check_cloexec(fcntl(fd, want ? F_DUPFD_CLOEXEC : F_DUPFD, 3), want, "F_DUPFD");
		/* dup's copy is never close-on-exec, whatever fd is */
		check_cloexec(dup(fd), 0, "dup");
		close(fd);
	}
	ck_assert_int_eq(pipe(p), 0);
	check_cloexec(p[0], 0, "pipe");
	check_cloexec(p[1], 0, "pipe");
}
END_TEST

/* The close-on-fork mark goes with the moved descriptor: the child of a
 * fork does not have it, the parent still does. */
START_TEST(clofork_moves)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOFORK), status;
	pid_t pid;

	ck_assert_int_ge(fd, 3);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOFORK, FD_CLOFORK);
	pid = fork();
	if (pid == 0)
		_exit(fcntl(fd, F_GETFD) == -1 && errno == EBADF ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child of a fork had O_CLOFORK descriptor %d", fd);
	ck_assert(is_open(fd));
	close(fd);
}
END_TEST

/* O_UNSEQFD and nonseqfd work as in transparent mode. */
START_TEST(virtual_still)
{
	int v = open("/dev/null", O_RDONLY | O_UNSEQFD), w;

	load_api(1);
	ck_assert(is_vfd(v));
	ck_assert_int_eq(api_is_virtual(v), 1);
	w = api_nonseqfd(v, 0);
	ck_assert(is_vfd(w));
	ck_assert_int_eq(close(v), 0);
	ck_assert_int_eq(close(w), 0);
}
END_TEST

/* The process's POSIX record lock on a file survives a new descriptor of
 * the same file (moving it would close the kernel's number: a close of
 * any descriptor of the file drops the process's locks on it). */
START_TEST(locks_survive)
{
	char path[] = "/tmp/ufd-random-lockXXXXXX";
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = mkstemp(path), again, status;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
	again = open(path, O_RDONLY);
	ck_assert_int_ge(again, 0);
	pid = fork();
	if (pid == 0) {
		struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int c = open(path, O_RDWR);

		_exit(c >= 0 && fcntl(c, F_GETLK, &probe) == 0 &&
				      probe.l_type == F_WRLCK ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	unlink(path);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the lock was dropped by the open of descriptor %d", again);
	close(again);
	close(fd);
}
END_TEST

/* ---- threads ---- */

#define THREADS 4
#define ROUNDS 3000
#define HELD 8

/*
 * Each thread makes descriptors (eventfd, pipe, dup, open), holds up to
 * HELD of them, and checks at each close that the number still refers to
 * what it made (the inode it had at creation): a move that replaced an
 * open descriptor would change another thread's file under it.
 */
static void *churn(void *arg)
{
	struct { int fd; ino_t ino; dev_t dev; } held[HELD];
	long bad = 0;
	unsigned seed = (unsigned)(long)arg;

	for (int i = 0; i < HELD; i++)
		held[i].fd = -1;
	for (int r = 0; r < ROUNDS; r++) {
		int slot = (int)(rand_r(&seed) % HELD), fd = -1, p[2];
		struct stat st;

		if (held[slot].fd >= 0) {
			if (fstat(held[slot].fd, &st) != 0 || st.st_ino != held[slot].ino ||
			    st.st_dev != held[slot].dev)
				bad++;
			close(held[slot].fd);
			held[slot].fd = -1;
		}
		/* files with an inode of their own (eventfds share one) */
		switch (r % 4) {
		case 0:
			fd = memfd_create("churn", 0);
			break;
		case 1:
			if (pipe(p) == 0) {
				close(p[1]);
				fd = p[0];
			}
			break;
		case 2:
			fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			break;
		default:
			p[0] = memfd_create("churn", MFD_CLOEXEC);
			fd = p[0] < 0 ? -1 : fcntl(p[0], F_DUPFD, 3 + r % 500);
			close(p[0]);
			break;
		}
		if (fd < 0 || fstat(fd, &st) != 0) {
			bad++;
			continue;
		}
		held[slot].fd = fd;
		held[slot].ino = st.st_ino;
		held[slot].dev = st.st_dev;
	}
	for (int i = 0; i < HELD; i++)
		if (held[i].fd >= 0)
			close(held[i].fd);
	return (void *)bad;
}

START_TEST(threads)
{
	pthread_t t[THREADS];
	long bad = 0;

	for (long i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
	for (int i = 0; i < THREADS; i++) {
		void *r;

		ck_assert_int_eq(pthread_join(t[i], &r), 0);
		bad += (long)r;
	}
	ck_assert_int_eq(bad, 0);
}
END_TEST

/* A signal handler that makes and closes a descriptor, as a program may
 * (open and close are async-signal-safe): random mode's state is
 * lock-free, so the handler can interrupt a creation or a close anywhere. */
static volatile sig_atomic_t handler_bad;
static int handler_runs; /* atomic: read by the sending thread */

static void make_in_handler(int sig)
{
	int saved = errno, fd = open("/dev/null", O_RDONLY);

	(void)sig;
	if (fd < 3 || fd >= random_range_n() || close(fd) != 0)
		handler_bad = 1;
	__atomic_fetch_add(&handler_runs, 1, __ATOMIC_RELAXED);
	errno = saved;
}

static int churning = 1;

/* One signal at a time (pending ones merge), each after the last one's
 * handler ran, for as long as the target thread churns. */
static void *send_signals(void *arg)
{
	pthread_t target = *(pthread_t *)arg;

	while (__atomic_load_n(&churning, __ATOMIC_RELAXED)) {
		int before = __atomic_load_n(&handler_runs, __ATOMIC_RELAXED);

		if (pthread_kill(target, SIGUSR1) != 0)
			break;
		while (__atomic_load_n(&handler_runs, __ATOMIC_RELAXED) == before &&
		       __atomic_load_n(&churning, __ATOMIC_RELAXED))
			sched_yield();
	}
	return NULL;
}

START_TEST(signals)
{
	struct sigaction sa = { .sa_handler = make_in_handler };
	pthread_t self = pthread_self(), sender;
	void *bad = NULL;

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(pthread_create(&sender, NULL, send_signals, &self), 0);
	/* churn until a few hundred handlers have run in the middle of it */
	for (long i = 0; i < 50 && !bad && __atomic_load_n(&handler_runs, __ATOMIC_RELAXED) < 300; i++)
		bad = churn((void *)(99 + i));
	__atomic_store_n(&churning, 0, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(sender, NULL), 0);
	ck_assert_int_eq((long)bad, 0);
	ck_assert_int_eq(handler_bad, 0);
	ck_assert_int_gt(handler_runs, 0);
	printf("signals: %d handler runs\n", handler_runs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("random");
	TCase *tc = tcase_create("uniform");
	const char *mode = getenv("UFD_MODE");

	if (!mode || strcmp(mode, "random")) {
		printf("skipped: run under UFD_MODE=random (tests/meson.build)\n");
		return 77;
	}
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, uniform);
	suite_add_tcase(s, tc);
	tc = tcase_create("quarantine");
	tcase_add_test(tc, quarantine);
	suite_add_tcase(s, tc);
	tc = tcase_create("numbers");
	tcase_add_test(tc, dupfd_from);
	tcase_add_test(tc, targets_and_std);
	tcase_add_test(tc, cloexec_as_asked);
	tcase_add_test(tc, clofork_moves);
	tcase_add_test(tc, virtual_still);
	tcase_add_test(tc, locks_survive);
	suite_add_tcase(s, tc);
	tc = tcase_create("threads");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, threads);
	tcase_add_test(tc, signals);
	suite_add_tcase(s, tc);
	return ufd_test_run_suite(s);
}
