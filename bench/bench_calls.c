/* SPDX-License-Identifier: MIT */
/*
 * bench_calls - descriptor operations, one by one, for callgrind and for a
 * clock.  Not linked against ufd: an unmodified program, run with and
 * without LD_PRELOAD=libufd.so by bench/run.
 *
 *   bench_calls N OP...       each OP: set up, two warm-up iterations, then
 *                             bench_op(OP, N) and bench_op(OP, 2N); run
 *                             under callgrind with --zero-before=bench_op
 *                             --dump-after=bench_op, each call is one dump,
 *                             and (2N - N) / N is the operation's count with
 *                             start-up and set-up cancelled.  Prints
 *                             "measured OP" per OP, in dump order.
 *   bench_calls time N OP     nanoseconds per operation, best of 3 loops.
 *   bench_calls fork N        N virtual descriptors, then fork_op: the
 *                             child _exits at once (its dump at exit
 *                             holds the fork's work in the child).
 *   bench_calls exec N        N virtual descriptors, then exec_op: execve
 *                             of this program (argv[0], a full path) with
 *                             "nop": the hand-off.
 *   bench_calls loop N OP     OP N times, nothing else (for a clock).
 *   bench_calls spawn N       N times fork, execve of this program with
 *                             "nop", waitpid (bench/sanitizer.sh: what a
 *                             new process costs with reports on).
 *   bench_calls nop           nothing (the exec'd image).
 *   bench_calls list          the operations.
 *
 * An OP whose descriptors come out of the wrong kind (a v... operation
 * that makes a real descriptor, say, because ufd is not loaded) is an
 * error: exit status 2.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ufd.h"
#include "sys.h"

extern int __open_2(const char *path, int flags);

#define NPOLL 64  /* descriptors in poll, ppoll and select */
#define NMSG 16   /* messages per sendmmsg / recvmmsg */
#define TARGET 100 /* the real number dup2 and dup3 write to */

/* The state the operations share, made by their set-up functions. */
static int zero_fd = -1;	       /* /dev/zero */
static int raw_fd = -1;		       /* /dev/zero, opened by a raw system call */
static int vzero_fd = -1;	       /* a virtual duplicate of it */
static int sp[2] = { -1, -1 };	       /* a stream socketpair, for messages */
static int dg[2] = { -1, -1 };	       /* a datagram socketpair, for mmsg */
static int listen_fd = -1;	       /* an AF_UNIX listener */
static struct sockaddr_un listen_addr;
static int epoll_fd = -1;
static struct pollfd pfds[NPOLL];
static fd_set sel_set;
static int sel_max;
static int (*nonseqfd_fn)(int, int);
static int made_virtual;	       /* set by the body: 1 virtual, 0 real */

static int is_virtual(int fd)
{
	return fd >= (int)FD_UNSEQ_BASE;
}

/* note: record the kind of descriptor a body made (checked at warm-up). */
static int note(int fd)
{
	made_virtual = is_virtual(fd);
	return fd;
}

static int virtual_of(int fd)
{
	int v = dup2(fd, (int)FD_UNSEQ_ALLOC);

	if (v >= 0 && fd > 2)
		close(fd);
	return v;
}

/* ---- set-up ---- */

static int setup_zero(void)
{
	if (zero_fd < 0)
		zero_fd = open("/dev/zero", O_RDONLY);
	return zero_fd < 0 ? -1 : 0;
}

static int setup_raw(void)
{
	if (raw_fd < 0)
		raw_fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)"/dev/zero",
				       O_RDONLY, 0, 0, 0);
	return raw_fd < 0 ? -1 : 0;
}

static int setup_vzero(void)
{
	if (setup_zero() < 0)
		return -1;
	if (vzero_fd < 0)
		vzero_fd = dup2(zero_fd, (int)FD_UNSEQ_ALLOC);
	return is_virtual(vzero_fd) ? 0 : -1;
}

static int setup_pair(int type, int flags, int *p)
{
	if (p[0] < 0 && socketpair(AF_UNIX, type | flags, 0, p) != 0)
		return -1;
	return !flags || is_virtual(p[0]) ? 0 : -1;
}

static int setup_sp(void) { return setup_pair(SOCK_STREAM, 0, sp); }
static int setup_vsp(void) { return setup_pair(SOCK_STREAM, SOCK_UNSEQ, sp); }
static int setup_dg(void) { return setup_pair(SOCK_DGRAM, 0, dg); }
static int setup_vdg(void) { return setup_pair(SOCK_DGRAM, SOCK_UNSEQ, dg); }

static int setup_listen_flags(int flags)
{
	if (listen_fd >= 0)
		return 0;
	listen_addr.sun_family = AF_UNIX;
	snprintf(listen_addr.sun_path, sizeof(listen_addr.sun_path),
		 "/tmp/bench_calls.%d", (int)getpid());
	unlink(listen_addr.sun_path);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | flags, 0);
	if (listen_fd < 0 || (flags && !is_virtual(listen_fd)) ||
	    bind(listen_fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) != 0 ||
	    listen(listen_fd, 16) != 0)
		return -1;
	return 0;
}

static int setup_listen(void) { return setup_listen_flags(0); }
static int setup_vlisten(void) { return setup_listen_flags(SOCK_UNSEQ); }

static int setup_poll_kind(int virt)
{
	FD_ZERO(&sel_set);
	for (int i = 0; i < NPOLL; i += 2) {
		int p[2];

		if (pipe(p) != 0)
			return -1;
		pfds[i].fd = virt ? virtual_of(p[0]) : p[0];
		pfds[i + 1].fd = virt ? virtual_of(p[1]) : p[1];
		pfds[i].events = pfds[i + 1].events = POLLIN;
		for (int j = i; j < i + 2; j++) {
			if (pfds[j].fd < 0 || (virt && !is_virtual(pfds[j].fd)))
				return -1;
			if (pfds[j].fd < FD_SETSIZE) {
				FD_SET(pfds[j].fd, &sel_set);
				if (pfds[j].fd >= sel_max)
					sel_max = pfds[j].fd + 1;
			}
		}
	}
	return 0;
}

static int setup_poll(void) { return setup_poll_kind(0); }
static int setup_vpoll(void) { return setup_poll_kind(1); }

/* select takes numbers below FD_SETSIZE only: under UFD_MODE=all the
 * pipes are virtual, and there is nothing to measure. */
static int setup_select(void)
{
	return setup_poll() < 0 || sel_max == 0 ? -1 : 0;
}

static int setup_epoll_kind(int virt)
{
	if (setup_pair(SOCK_STREAM, virt ? SOCK_UNSEQ : 0, sp) < 0)
		return -1;
	epoll_fd = epoll_create1(0);
	if (virt)
		epoll_fd = virtual_of(epoll_fd);
	return epoll_fd < 0 || (virt && !is_virtual(epoll_fd)) ? -1 : 0;
}

static int setup_epoll(void) { return setup_epoll_kind(0); }
static int setup_vepoll(void) { return setup_epoll_kind(1); }

static int setup_nonseqfd(void)
{
	nonseqfd_fn = (int (*)(int, int))dlsym(RTLD_DEFAULT, "nonseqfd");
	return nonseqfd_fn && setup_zero() == 0 ? 0 : -1;
}

/* ---- the operations: one iteration each; 0 on success ---- */

static int close_ok(int fd)
{
	return fd >= 0 && close(fd) == 0 ? 0 : 1;
}

static int op_open(void) { return close_ok(note(open("/dev/null", O_RDONLY))); }
static int op_vopen(void) { return close_ok(note(open("/dev/null", O_RDONLY | O_UNSEQFD))); }
/* open + close at call depth 20: with reports on, each makes a stack
 * capture of 16 frames of this program's (bench/run's capture row). */
#define DEEP 20
static volatile int deep_sink;
static __attribute__((noinline)) int deep(int depth)
{
	int r = depth ? deep(depth - 1) : op_open();

	deep_sink++; /* no tail call */
	return r;
}
static int op_deepopen(void) { return deep(DEEP); }
/* open, a 1-byte read, close: bench/sanitizer.sh's third workload. */
static int op_orc(void)
{
	char c;
	int fd = note(open("/dev/zero", O_RDONLY));

	if (fd < 0 || read(fd, &c, 1) != 1)
		return 1;
	return close_ok(fd);
}
static int op_openat(void) { return close_ok(note(openat(AT_FDCWD, "/dev/null", O_RDONLY))); }
static int op_vopenat(void) { return close_ok(note(openat(AT_FDCWD, "/dev/null", O_RDONLY | O_UNSEQFD))); }
static int op_open2(void) { return close_ok(note(__open_2("/dev/null", O_RDONLY))); }
static int op_vopen2(void) { return close_ok(note(__open_2("/dev/null", O_RDONLY | O_UNSEQFD))); }
static int op_socket(void) { return close_ok(note(socket(AF_UNIX, SOCK_STREAM, 0))); }
static int op_vsocket(void) { return close_ok(note(socket(AF_UNIX, SOCK_STREAM | SOCK_UNSEQ, 0))); }

static int socketpair_flags(int flags)
{
	int p[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | flags, 0, p) != 0)
		return 1;
	note(p[0]);
	return close_ok(p[0]) + close_ok(p[1]);
}

static int op_socketpair(void) { return socketpair_flags(0); }
static int op_vsocketpair(void) { return socketpair_flags(SOCK_UNSEQ); }

/* A client connects to the listener (real, in every mode), and the
 * listener's side is accepted: accept (flags < 0) or accept4. */
static int accept_one(int flags)
{
	int c = socket(AF_UNIX, SOCK_STREAM, 0), a;

	if (c < 0 || connect(c, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) != 0)
		return 1;
	a = flags < 0 ? accept(listen_fd, NULL, NULL) : accept4(listen_fd, NULL, NULL, flags);
	note(a);
	return close_ok(a) + close_ok(c);
}

static int op_accept(void) { return accept_one(-1); }
static int op_accept4(void) { return accept_one(SOCK_CLOEXEC); }
static int op_vaccept4(void) { return accept_one(SOCK_UNSEQ); }

/* pipe (flags < 0) or pipe2, and two closes. */
static int pipe_flags(int flags)
{
	int p[2];

	if ((flags < 0 ? pipe(p) : pipe2(p, flags)) != 0)
		return 1;
	note(p[0]);
	return close_ok(p[0]) + close_ok(p[1]);
}

static int op_pipe(void) { return pipe_flags(-1); }
static int op_pipe2(void) { return pipe_flags(O_CLOEXEC); }

static int op_dup(void) { return close_ok(note(dup(zero_fd))); }
static int op_vdup(void) { return close_ok(note(dup(vzero_fd))); }
static int op_dup2(void) { return close_ok(note(dup2(zero_fd, TARGET))); }
static int op_vdup2(void) { return close_ok(note(dup2(zero_fd, (int)FD_UNSEQ_ALLOC))); }
static int op_dup3(void) { return close_ok(note(dup3(zero_fd, TARGET, O_CLOEXEC))); }
static int op_vdup3(void) { return close_ok(note(dup3(zero_fd, (int)FD_UNSEQ_ALLOC, O_CLOEXEC))); }
static int op_nonseqfd(void) { return close_ok(note(nonseqfd_fn(zero_fd, 0))); }
static int op_fcntl(void) { note(zero_fd); return fcntl(zero_fd, F_GETFD) < 0; }
static int op_vfcntl(void) { note(vzero_fd); return fcntl(vzero_fd, F_GETFD) < 0; }

/* close alone: the descriptor comes from a raw dup system call of a
 * descriptor ufd never saw, which costs the same with or without ufd. */
static int op_close(void)
{
	return close_ok(note((int)ufd_sys6(SYS_dup, raw_fd, 0, 0, 0, 0, 0)));
}

static int read_none(int fd)
{
	char c;

	note(fd);
	return read(fd, &c, 0) != 0;
}

static int op_read(void) { return read_none(zero_fd); }
static int op_vread(void) { return read_none(vzero_fd); }

static int op_msg(void)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	note(sp[0]);
	return sendmsg(sp[0], &m, 0) != 1 || recvmsg(sp[1], &m, 0) != 1;
}

static int op_mmsg(void)
{
	static char buf[NMSG];
	static struct iovec iov[NMSG];
	static struct mmsghdr mm[NMSG];

	for (int i = 0; i < NMSG; i++) {
		iov[i] = (struct iovec){ &buf[i], 1 };
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	note(dg[0]);
	return sendmmsg(dg[0], mm, NMSG, 0) != NMSG ||
	       recvmmsg(dg[1], mm, NMSG, MSG_DONTWAIT, NULL) != NMSG;
}

static int op_fopen(void)
{
	FILE *f = fopen("/dev/null", "r");

	if (!f)
		return 1;
	note(fileno(f));
	return fclose(f) != 0;
}

static int op_opendir(void)
{
	DIR *d = opendir("/");

	if (!d)
		return 1;
	note(dirfd(d));
	return closedir(d) != 0;
}

static int op_poll(void) { note(pfds[0].fd); return poll(pfds, NPOLL, 0) != 0; }

static int op_ppoll(void)
{
	struct timespec t = { 0, 0 };

	note(pfds[0].fd);
	return ppoll(pfds, NPOLL, &t, NULL) != 0;
}

static int op_select(void)
{
	fd_set r = sel_set;
	struct timeval t = { 0, 0 };

	note(pfds[0].fd);
	return select(sel_max, &r, NULL, NULL, &t) != 0;
}

static int op_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN }, out[4];

	note(epoll_fd);
	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, sp[0], &ev) != 0 ||
	       epoll_ctl(epoll_fd, EPOLL_CTL_DEL, sp[0], NULL) != 0 ||
	       epoll_wait(epoll_fd, out, 4, 0) != 0;
}

/* The operations, by name: its set-up (run once), one iteration, and the
 * kind of descriptor it must make (1 virtual, 0 real, -1 either: under
 * UFD_MODE=all the real operations make virtual descriptors). */
struct op {
	const char *name;
	int (*setup)(void);
	int (*body)(void);
	int virt;
};

static const struct op ops[] = {
	{ "open", NULL, op_open, -1 },
	{ "vopen", NULL, op_vopen, 1 },
	{ "deepopen", NULL, op_deepopen, -1 },
	{ "orc", NULL, op_orc, -1 },
	{ "openat", NULL, op_openat, -1 },
	{ "vopenat", NULL, op_vopenat, 1 },
	{ "open2", NULL, op_open2, -1 },
	{ "vopen2", NULL, op_vopen2, 1 },
	{ "socket", NULL, op_socket, -1 },
	{ "vsocket", NULL, op_vsocket, 1 },
	{ "socketpair", NULL, op_socketpair, -1 },
	{ "vsocketpair", NULL, op_vsocketpair, 1 },
	{ "accept", setup_listen, op_accept, -1 },
	{ "vaccept", setup_vlisten, op_accept, -1 },
	{ "accept4", setup_listen, op_accept4, -1 },
	{ "vaccept4", setup_vlisten, op_vaccept4, 1 },
	{ "pipe", NULL, op_pipe, -1 },
	{ "pipe2", NULL, op_pipe2, -1 },
	{ "dup", setup_zero, op_dup, -1 },
	{ "vdup", setup_vzero, op_vdup, -1 },
	{ "dup2", setup_zero, op_dup2, 0 },
	{ "vdup2", setup_zero, op_vdup2, 1 },
	{ "dup3", setup_zero, op_dup3, 0 },
	{ "vdup3", setup_zero, op_vdup3, 1 },
	{ "nonseqfd", setup_nonseqfd, op_nonseqfd, 1 },
	{ "fcntl", setup_zero, op_fcntl, -1 },
	{ "vfcntl", setup_vzero, op_vfcntl, 1 },
	{ "close", setup_raw, op_close, 0 },
	{ "read", setup_zero, op_read, -1 },
	{ "vread", setup_vzero, op_vread, 1 },
	{ "msg", setup_sp, op_msg, -1 },
	{ "vmsg", setup_vsp, op_msg, 1 },
	{ "mmsg", setup_dg, op_mmsg, -1 },
	{ "vmmsg", setup_vdg, op_mmsg, 1 },
	{ "fopen", NULL, op_fopen, -1 },
	{ "opendir", NULL, op_opendir, -1 },
	{ "poll", setup_poll, op_poll, -1 },
	{ "vpoll", setup_vpoll, op_poll, 1 },
	{ "ppoll", setup_poll, op_ppoll, -1 },
	{ "vppoll", setup_vpoll, op_ppoll, 1 },
	{ "select", setup_select, op_select, 0 },
	{ "epoll", setup_epoll, op_epoll, -1 },
	{ "vepoll", setup_vepoll, op_epoll, 1 },
};

#define NOPS (int)(sizeof(ops) / sizeof(ops[0]))

static long run_loop(const struct op *op, long n)
{
	long bad = 0;

	for (long i = 0; i < n; i++)
		bad += op->body();
	return bad;
}

/* The measured call: callgrind zeroes its counters as it is entered and
 * dumps them as it returns. */
__attribute__((noinline)) long bench_op(const struct op *op, long n);

__attribute__((noinline)) long bench_op(const struct op *op, long n)
{
	return run_loop(op, n);
}

static const struct op *find(const char *name)
{
	for (int i = 0; i < NOPS; i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

/* prepare: set-up and two warm-up iterations (lazy binding, first-use
 * allocations), checking the kind of descriptor made; 0 or -1 with a
 * message. */
static int prepare(const struct op *op)
{
	if (op->setup && op->setup() != 0) {
		fprintf(stderr, "bench_calls: %s: set-up failed\n", op->name);
		return -1;
	}
	if (run_loop(op, 2) != 0) {
		fprintf(stderr, "bench_calls: %s: the operation failed\n", op->name);
		return -1;
	}
	if (op->virt >= 0 && made_virtual != op->virt) {
		fprintf(stderr, "bench_calls: %s: made a %s descriptor\n", op->name,
			made_virtual ? "virtual" : "real");
		return -1;
	}
	return 0;
}

static double ns_per_op(const struct op *op, long n)
{
	double best = 1e30;

	for (int rep = 0; rep < 3; rep++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (run_loop(op, n) != 0)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
		if (ns < best)
			best = ns;
	}
	return best;
}

/* make_virtual: n virtual descriptors for the hand-off benchmarks. */
static int make_virtual(long n)
{
	if (setup_zero() < 0)
		return -1;
	for (long i = 0; i < n; i++)
		if (!is_virtual(dup2(zero_fd, (int)FD_UNSEQ_ALLOC))) {
			fprintf(stderr, "bench_calls: virtual descriptor %ld not made\n", i);
			return -1;
		}
	return 0;
}

/* Measured calls for the hand-off: callgrind zeroes its counters as they
 * are entered.  In fork_op, the child's dump at its exit holds the fork
 * and ufd's child handler; exec_op's image dumps before each execve (ufd's
 * and libc's) and the new image at its exit. */
__attribute__((noinline)) int fork_op(void);
__attribute__((noinline)) int exec_op(char *self);

__attribute__((noinline)) int fork_op(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return pid < 0 || waitpid(pid, &status, 0) != pid || status != 0;
}

__attribute__((noinline)) int exec_op(char *self)
{
	char *argv[] = { self, (char *)"nop", NULL };
	char *envp[] = { (char *)"BENCH_PART=post", NULL };
	extern char **environ;
	int n = 0;

	/* The same environment, BENCH_PART changed: callgrind's output file
	 * of the new image is named after it. */
	while (environ[n])
		n++;
	char **env = calloc((size_t)n + 2, sizeof(*env));
	if (!env)
		return 1;
	for (int i = 0, j = 0; i < n; i++)
		if (strncmp(environ[i], "BENCH_PART=", 11))
			env[j++] = environ[i];
	for (int j = 0; j <= n; j++)
		if (!env[j]) {
			env[j] = envp[0];
			break;
		}
	execve(self, argv, env);
	perror("bench_calls: execve");
	return 1;
}

/* spawn: n children, each exec'ing self with "nop"; 0 if all exit 0. */
static int spawn(char *self, long n)
{
	char *argv[] = { self, (char *)"nop", NULL };
	extern char **environ;

	for (long i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			execve(self, argv, environ);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct op *op;

	if (argc == 2 && !strcmp(argv[1], "nop"))
		return 0;
	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (int i = 0; i < NOPS; i++)
			printf("%s\n", ops[i].name);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return make_virtual(atol(argv[2])) < 0 ? 2 : fork_op();
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		op = find(argv[3]);
		return !op || (op->setup && op->setup() != 0) || run_loop(op, atol(argv[2]));
	}
	if (argc == 3 && !strcmp(argv[1], "spawn"))
		return spawn(argv[0], atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "exec"))
		return make_virtual(atol(argv[2])) < 0 ? 2 : exec_op(argv[0]);
	if (argc == 4 && !strcmp(argv[1], "time")) {
		double ns;

		op = find(argv[3]);
		if (!op || prepare(op) < 0)
			return 2;
		ns = ns_per_op(op, atol(argv[2]));
		if (ns < 0)
			return 1;
		printf("%.2f\n", ns);
		return 0;
	}
	if (argc < 3 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: bench_calls N OP... | time N OP | fork N | exec N | loop N OP | spawn N | nop | list\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		long n = atol(argv[1]);

		op = find(argv[i]);
		if (!op) {
			fprintf(stderr, "bench_calls: no operation %s\n", argv[i]);
			return 2;
		}
		if (prepare(op) < 0)
			return 2;
		if (bench_op(op, n) != 0 || bench_op(op, 2 * n) != 0) {
			fprintf(stderr, "bench_calls: %s failed\n", op->name);
			return 1;
		}
		printf("measured %s\n", op->name);
		fflush(stdout);
	}
	if (listen_fd >= 0)
		unlink(listen_addr.sun_path);
	return 0;
}
