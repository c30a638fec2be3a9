/* SPDX-License-Identifier: MIT */
/*
 * Description: the reproducers of the sanitizer's report kinds, one per
 * argument, each the shape of a documented real-world bug; run by
 * tests/report.sh under UFD_REPORT, which checks the report's kind, call
 * and stacks.  Built without -rdynamic (and twice: with and without
 * frame pointers), so the functions named below are static, found only
 * in the program's .symtab.  Each case prints what happened without ufd's
 * help (the second close hit someone else's file, ...) on stdout.
 *
 *   double-close   rsyslog and OpenSSL sharing a descriptor: the TLS
 *                  layer closes it, the log module closes it again after
 *                  the number was reused
 *   write-race     Go issue 7970: one thread closes and writes on,
 *                  another's open got the number meanwhile
 *   stderr-reuse   SQLite "how to corrupt" 1.1: a daemon closes stderr,
 *                  writes a message to 2 (reported), a database gets number
 *                  2, an error message goes to 2 (into the database)
 *   closefrom      OpenOnload 111 / proxychains-ng 439: a library's
 *                  descriptor and the program's closefrom(3)
 *   close-backing  a close-all loop by number (3 .. 65535) reaches the
 *                  backing descriptor of a virtual one (UFD_MODE=all):
 *                  refused, reported
 *   fd-set         FD_SET on a descriptor >= FD_SETSIZE (fortified:
 *                  glibc aborts), and select with nfds past it
 *   exec-leak      runc CVE-2024-21626 class: a descriptor opened without
 *                  O_CLOEXEC crosses an exec; dup2'd and F_SETFD-cleared
 *                  ones are meant to, and not reported
 *   spawn-leak     the same through posix_spawn, with a dup2 action
 *   exit-leak      a descriptor never closed (UFD_REPORT_LEAKS=1)
 *   churn          no misuse: 4 threads open and close 2,000 times each
 *                  while a SIGUSR1 handler opens and closes in them (the
 *                  records from many threads and from handlers): no
 *                  report, no deadlock
 *
 * Correct programs, which get no report (issue 23's false reports):
 *
 *   failed-close   closes of numbers never open (EBADF), then a write to
 *                  each and a second close; and the daemon idiom, a close
 *                  of 3 .. 63 and fcntl(F_GETFD) probes of them
 *   probe          "is n open?" on a number the program closed: fcntl
 *                  F_GETFD/F_GETFL, fstat, fstatat and statx with
 *                  AT_EMPTY_PATH, isatty (bash's move_to_high_fd, GCC's
 *                  jobserver check, git's stdout check); then one real
 *                  use, a read, which is reported
 *   sweep          a close-all loop over 3 .. 1023 after the program
 *                  closed 3 and 7 itself
 *   fork-sweep     a fork child that closes two of its own and runs a
 *                  close-all loop over numbers its parent closed before
 *                  the fork, and exits (inherited copies are no leaks);
 *                  then a child's double close of its parent's descriptor:
 *                  reported, with the making in the parent named so
 *   many-leaks     40 descriptors leaked at exit from one place and one
 *                  from another: two reports, one "and 39 more like it"
 *   pair-twice     not a loop: two descriptors made together (neighbours,
 *                  by default) closed twice, as a cleanup run twice:
 *                  reported
 *
 * (Files, not pipes: ThreadSanitizer's pipe aborts on a virtual number.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Not inlined, nor folded with an identical function (GCC's ICF). */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif
/* After a call that would be a tail call: keeps the caller's frame, as
 * the reproduced bugs' code had one (a tail call leaves no trace in any
 * stack). */
#define NO_TAIL() __asm__ volatile("" ::: "memory")

static const char *file; /* a scratch file, argv[2] */

static NOINLINE int open_file(int flags)
{
	int fd = open(file, flags | O_RDWR | O_CREAT, 0600);

	if (fd < 0) {
		perror(file);
		exit(2);
	}
	return fd;
}

/* ---- double close ---- */

static int shared_fd;

static NOINLINE void openssl_ssl_free(void)
{
	close(shared_fd); /* BIO_CLOSE: the TLS layer owns it too */
	NO_TAIL();
}

static NOINLINE void rsyslog_close_connection(void)
{
	if (close(shared_fd) == 0)
		printf("second close closed a descriptor (someone else's)\n");
	else
		printf("second close: %s\n", strerror(errno));
}

static int double_close(void)
{
	int other;

	shared_fd = open_file(0);
	openssl_ssl_free();
	other = open_file(0); /* the number is free: reused (by default) */
	printf("reused: %s\n", other == shared_fd ? "yes" : "no");
	rsyslog_close_connection();
	return 0;
}

/* ---- Go issue 7970 ---- */

static int race_fd, race_other;

static NOINLINE void *closer(void *arg)
{
	(void)arg;
	close(race_fd);
	NO_TAIL();
	return NULL;
}

static NOINLINE void *opener(void *arg)
{
	(void)arg;
	race_other = open_file(0);
	return NULL;
}

static NOINLINE void write_after_close(void)
{
	if (write(race_fd, "late", 4) == 4)
		printf("late write landed in %s\n",
		       race_fd == race_other ? "the other thread's file" : "a file");
	else
		printf("late write: %s\n", strerror(errno));
}

/* The interleaving of the bug, in order (joins, no timing): close in one
 * thread, open in another, then the first thread's write. */
static int write_race(void)
{
	pthread_t t;

	race_fd = open_file(0);
	pthread_create(&t, NULL, closer, NULL);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, opener, NULL);
	pthread_join(t, NULL);
	write_after_close();
	return 0;
}

/* ---- SQLite 1.1 ---- */

static NOINLINE void daemonize(void)
{
	close(2);
	NO_TAIL();
}

static NOINLINE int sqlite_open_db(void)
{
	int fd = open_file(0);

	NO_TAIL();
	return fd;
}

static NOINLINE void log_error(const char *msg)
{
	if (write(2, msg, strlen(msg)) >= 0)
		printf("error message written to descriptor 2\n");
	else
		printf("error message: %s\n", strerror(errno));
}

static int stderr_reuse(void)
{
	int db;

	daemonize();
	/* A message before the number is reused: EBADF, reported.  After
	 * it, the database's: numbers 0-2 are never moved (not in
	 * UFD_MODE=all either), so that write lands in the database unseen
	 * (ufd(7), "Sanitizer"). */
	log_error("starting\n");
	db = sqlite_open_db();
	printf("database got %s\n", db == 2 ? "2" : "another number");
	log_error("disk I/O error\n");
	return 0;
}

/* ---- closefrom over a library's descriptor ---- */

static int lib_fd = -1;

/* The library keeps its descriptor hidden (NONSEQFD_HIDE), as
 * privlog does; nonseqfd from the preloaded libufd. */
static NOINLINE void onload_lib_init(void)
{
	int (*nonseq)(int, int) = (int (*)(int, int))dlsym(RTLD_DEFAULT, "nonseqfd");
	int fd = open_file(O_CLOEXEC);

	if (!nonseq) {
		printf("no nonseqfd: not under ufd\n");
		exit(77);
	}
	lib_fd = nonseq(fd, 1 /* CLOEXEC */ | 4 /* CLOSE */ | 8 /* HIDE */);
}

static NOINLINE void daemon_close_all(void)
{
	closefrom(3);
	NO_TAIL();
}

static int close_from(void)
{
	onload_lib_init();
	daemon_close_all();
	printf("library descriptor after closefrom: %s\n",
	       fcntl(lib_fd, F_GETFD) >= 0 ? "open" : "closed");
	return 0;
}

/* ---- a close-all loop and ufd's backing descriptor ---- */

static NOINLINE void close_all_by_number(int upto)
{
	for (int fd = 3; fd < upto; fd++)
		close(fd);
	NO_TAIL();
}

static int close_backing(void)
{
	int (*backing_of)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "ufd_backing_fd");
	int fd = open_file(0), b;

	if (!backing_of) {
		printf("no ufd_backing_fd: not under ufd\n");
		exit(77);
	}
	b = backing_of(fd);
	printf("backing %s\n", b != fd ? "apart" : "same");
	close_all_by_number(b + 1);
	printf("descriptor after the loop: %s\n",
	       fcntl(fd, F_GETFD) >= 0 ? "open" : "closed");
	return 0;
}

/* ---- fd_set ---- */

static NOINLINE void select_wide(int fd)
{
	fd_set set;
	struct timeval tv = { 0, 0 };

	/* select reads only whole sets: nfds past FD_SETSIZE with a set
	 * that large is the caller's own buffer overflow; here the sets are
	 * NULL, so the call is harmless and only nfds is wrong. */
	(void)set;
	select(fd + 1, NULL, NULL, NULL, &tv);
	NO_TAIL();
}

static NOINLINE void watch_fd(int fd)
{
	fd_set set;

	FD_ZERO(&set);
	FD_SET(fd, &set); /* fortified: glibc aborts */
	printf("FD_SET did not abort\n");
}

static int fd_set_case(void)
{
	struct rlimit rl;
	int fd = open_file(0), big;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 1200) {
		printf("hard RLIMIT_NOFILE %lu < 1200\n", (unsigned long)rl.rlim_max);
		return 77;
	}
	if (rl.rlim_cur < 1200) {
		rl.rlim_cur = 1200;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	big = dup2(fd, 1100);
	select_wide(big);
	fflush(stdout);
	watch_fd(big);
	return 0;
}

/* ---- exec and spawn ---- */

static NOINLINE int open_config_leaky(void)
{
	int fd = open_file(0); /* no O_CLOEXEC */

	NO_TAIL();
	return fd;
}

/* Descriptors meant for the child: dup2 onto a chosen number, and
 * close-on-exec cleared. */
static void meant_for_child(void)
{
	int a = open_file(O_CLOEXEC), b = open_file(O_CLOEXEC);

	dup2(a, 20);
	fcntl(b, F_SETFD, 0);
	close(a);
}

static int exec_leak(void)
{
	char *argv[] = { "true", NULL };

	open_config_leaky();
	meant_for_child();
	execve("/bin/true", argv, environ);
	perror("execve");
	return 2;
}

static int spawn_leak(void)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "true", NULL };
	int named = open_file(0);
	pid_t pid;

	open_config_leaky();
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, named, 5);
	if (posix_spawn(&pid, "/bin/true", &fa, NULL, argv, environ) != 0)
		return 2;
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}

/* ---- exit ---- */

static NOINLINE void open_and_forget(void)
{
	open_file(0);
	NO_TAIL();
}

static int exit_leak(void)
{
	open_and_forget();
	return 0;
}

/* ---- churn ---- */

static void on_usr1(int sig)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	(void)sig;
	if (fd >= 0)
		close(fd);
}

static void *churn_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		int fd = open_file(O_CLOEXEC);

		if (i % 100 == 0)
			raise(SIGUSR1);
		close(fd);
	}
	return NULL;
}

static int churn(void)
{
	pthread_t t[4];

	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn_thread, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("churn done\n");
	return 0;
}

/* ---- correct programs: no report ---- */

/* Closes that fail (EBADF: never open) close nothing: neither the next
 * EBADF nor a second close is a misuse of a closed descriptor. */
static int failed_close(void)
{
	int fd, n = 0;

	for (fd = 500; fd < 564; fd++) {
		n += close(fd) < 0 && errno == EBADF;
		n += write(fd, "x", 1) < 0 && errno == EBADF;
		n += close(fd) < 0 && errno == EBADF;
	}
	/* A daemon: close everything above stderr, then probe. */
	for (fd = 3; fd < 64; fd++)
		close(fd);
	for (fd = 3; fd < 64; fd++)
		n += fcntl(fd, F_GETFD) < 0 && errno == EBADF;
	printf("EBADF %d times\n", n);
	return 0;
}

static NOINLINE void read_closed(int fd)
{
	char c;

	if (read(fd, &c, 1) < 0)
		printf("read: %s\n", strerror(errno));
}

/* The ways to ask "is n open?", each on a number the program closed. */
static int probe(void)
{
	struct stat st;
	struct statx stx;
	int fd = open_file(0), n = 0;

	close(fd);
	n += fcntl(fd, F_GETFD) < 0;
	n += fcntl(fd, F_GETFL) < 0;
	n += fstat(fd, &st) < 0;
	n += fstatat(fd, "", &st, AT_EMPTY_PATH) < 0;
	n += statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, &stx) < 0;
	n += !isatty(fd) && errno == EBADF;
	printf("%d probes said closed\n", n);
	read_closed(fd); /* a use: reported */
	return 0;
}

static NOINLINE void close_all_above_stderr(void)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	NO_TAIL();
}

/* A close-all loop meets numbers the program closed: not double closes.
 * (The dup2's number is neither a nor b, which UFD_MODE=random may have
 * put at 7: close(a) then close(7) would be a true double close.) */
static int sweep(void)
{
	int a = open_file(0), b = open_file(0), to = 7;

	while (to == a || to == b)
		to++;
	dup2(a, to);
	close(a);
	close(to);
	printf("closed %d and %d, open %d\n", a, to, b);
	close_all_above_stderr();
	return 0;
}

static NOINLINE void child_double_close(int fd)
{
	close(fd);
	if (close(fd) < 0)
		printf("child: second close: %s\n", strerror(errno));
}

/* The parent closes a descriptor, forks; the child closes two of its
 * own, runs a close-all loop and exits.  Then a child that double-closes
 * one of its parent's descriptors. */
static int fork_sweep(void)
{
	int a = open_file(0), b = open_file(0), p[2], status;
	pid_t pid;

	close(a);
	p[0] = open_file(0);
	p[1] = open_file(0);
	printf("parent %ld\n", (long)getpid());
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		close(p[1]);
		close_all_above_stderr();
		exit(0);
	}
	close(p[0]);
	close(p[1]);
	waitpid(pid, &status, 0);
	pid = fork();
	if (pid == 0) {
		child_double_close(b);
		exit(0);
	}
	waitpid(pid, &status, 0);
	close(b);
	return 0;
}

static NOINLINE void leak_one(void)
{
	open_file(0);
	NO_TAIL();
}

static NOINLINE void leak_other(void)
{
	open_file(0);
	NO_TAIL();
}

/* One call site of leak_one: GCC 14 at -O2 unrolls this loop by two,
 * which gives two call sites, two stacks and so two reports. */
static int many_leaks(void)
{
#pragma GCC unroll 1
	for (int i = 0; i < 40; i++)
		leak_one();
	leak_other();
	return 0;
}

static NOINLINE void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
	NO_TAIL();
}

static int pair_twice(void)
{
	int p[2] = { open_file(0), open_file(0) };

	printf("pair %d %d\n", p[0], p[1]);
	close_pair(p);
	close_pair(p);
	return 0;
}

/* ---- a frame ufd's unwinder does not follow ---- */

/* Over 16 KiB of locals: without a frame pointer its unwind rule is no
 * simple one (unwind.h), so the stack past it comes from backtrace(),
 * which loads libgcc_s at this first need, not at start-up. */
static NOINLINE void close_with_big_buffer(int fd)
{
	volatile char buf[40000];

	buf[0] = 1;
	buf[sizeof(buf) - 1] = (char)fd;
	close(fd);
	NO_TAIL();
}

static NOINLINE void big_frame_caller(void)
{
	int fd = open_file(0);

	close_with_big_buffer(fd);
	close_with_big_buffer(fd);
	NO_TAIL();
}

static int big_frame(void)
{
	big_frame_caller();
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} cases[] = {
		{ "double-close", double_close }, { "write-race", write_race },
		{ "stderr-reuse", stderr_reuse }, { "closefrom", close_from },
		{ "fd-set", fd_set_case },	  { "exec-leak", exec_leak },
		{ "spawn-leak", spawn_leak },	  { "exit-leak", exit_leak },
		{ "churn", churn },		  { "close-backing", close_backing },
		{ "failed-close", failed_close }, { "probe", probe },
		{ "sweep", sweep },		  { "fork-sweep", fork_sweep },
		{ "many-leaks", many_leaks },	  { "pair-twice", pair_twice },
		{ "big-frame", big_frame },
	};

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 3) {
		fprintf(stderr, "usage: report_cases CASE SCRATCH-FILE\n");
		return 2;
	}
	file = argv[2];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(argv[1], cases[i].name))
			return cases[i].fn();
	fprintf(stderr, "report_cases: no case %s\n", argv[1]);
	return 2;
}
