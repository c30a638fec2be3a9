/* SPDX-License-Identifier: MIT */
/*
 * Description: descriptors that an ioctl or a socket option makes
 * (TIOCGPTPEER, NS_GET_USERNS, SIOCGSKNS, getsockopt SO_PEERPIDFD), and
 * those that the creating system calls make through syscall() (openat,
 * socket, pipe2, dup, pidfd_open, memfd_create, eventfd2, ...), are new
 * descriptors like any other: virtual under UFD_MODE=all, a real number
 * in [3, N) away from the kernel's lowest under UFD_MODE=random,
 * close-on-exec under UFD_CLOEXEC=1, usable, and below the application's
 * RLIMIT_NOFILE.  Run under ufd with one of those
 * settings (tests/meson.build runs it with each); it checks what the
 * setting in its environment asks for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <linux/nsfs.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <sched.h>
#include <stdint.h>
#include <sys/wait.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mqueue.h>
#include <pty.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ufd_test.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

static int failed;

/* UFD_MODE=random: how many descriptors were made and how many of them
 * sat where the kernel would have put them (no free number below). */
static int random_made, random_lowest;

/* Is some number in [3, fd) free?  Without a move, the kernel's lowest
 * free number, none is (probed with fcntl: no descriptor made). */
static int free_below(int fd)
{
	for (int n = 3; n < fd; n++)
		if (fcntl(n, F_GETFD) == -1)
			return 1;
	return 0;
}

/* Under UFD_MODE=random: fd is a real number in [3, N), and counted. */
static void check_random(const char *call, int fd)
{
	const char *mode = getenv("UFD_MODE");

	if (!mode || strcmp(mode, "random"))
		return;
	if (fd < 3 || fd >= random_range_n() || api_is_virtual(fd)) {
		printf("FAIL %s: made %d, not a real number in [3, %d) under "
		       "UFD_MODE=random\n", call, fd, random_range_n());
		failed++;
	}
	random_made++;
	if (!free_below(fd)) {
		printf("%s: %d is the lowest free number\n", call, fd);
		random_lowest++;
	}
}

/* fd, which call made, is what the settings ask for, and open. */
/* As check, without closing fd; with cloexec 0, the close-on-exec flag
 * is not checked. */
static int check_open(const char *call, int fd, int cloexec_too)
{
	const char *all = getenv("UFD_MODE"), *cloexec = getenv("UFD_CLOEXEC");
	struct stat st;

	if (fd < 0) {
		printf("FAIL %s: -1 (%m)\n", call);
		failed++;
		return 0;
	}
	if (fstat(fd, &st) != 0) {
		printf("FAIL %s: made %d, which fstat says is not open\n", call, fd);
		failed++;
	}
	if (all && !strcmp(all, "all") && api_is_virtual(fd) != 1) {
		printf("FAIL %s: made %d, not virtual under UFD_MODE=all\n", call, fd);
		failed++;
	}
	check_random(call, fd);
	if (cloexec_too && cloexec && !strcmp(cloexec, "1") &&
	    !(fcntl(fd, F_GETFD) & FD_CLOEXEC)) {
		printf("FAIL %s: made %d, not close-on-exec under UFD_CLOEXEC=1\n", call, fd);
		failed++;
	}
	printf("%s: %d\n", call, fd);
	return 1;
}

/* Under UFD_REPORT (tests/report.sh): a use of fd after its close, so
 * that the sanitizer's report says which call made it (or that it did
 * not see it made).  A write of nothing: fcntl(F_GETFD) would be a
 * probe, which is no use. */
static void use_after_close(int fd)
{
	if (getenv("UFD_REPORT"))
		(void)!write(fd, "", 0);
}

static void check(const char *call, int fd)
{
	if (check_open(call, fd, 1)) {
		close(fd);
		use_after_close(fd);
	}
}

/* After the stream's own close: its descriptor is gone. */
static void check_closed(const char *call, int fd, int closed)
{
	if (closed != 0 || fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
		printf("FAIL %s: closing the stream returned %d, and left %d open\n",
		       call, closed, fd);
		failed++;
	}
	use_after_close(fd);
}

/*
 * Streams whose descriptor libc makes (fopen, tmpfile, popen, opendir):
 * the descriptor fileno or dirfd gives is what the settings ask for, the
 * stream works on it, and closing the stream closes it.  (popen's
 * descriptor is libc's to make close-on-exec or not: not checked.)
 */
static void check_streams(void)
{
	char line[256], path[64];
	struct dirent *ent;
	FILE *fp;
	DIR *dir;
	int fd;

	snprintf(path, sizeof(path), "/tmp/ufd-made-fds-%d", (int)getpid());
	fp = fopen(path, "w");
	if (fp && check_open("fopen(w)", fd = fileno(fp), 1)) {
		if (fputs("written\n", fp) < 0)
			failed++, printf("FAIL fputs\n");
		check_closed("fopen(w)", fd, fclose(fp));
	}
	fp = fopen(path, "r");
	if (fp && check_open("fopen(r)", fd = fileno(fp), 1)) {
		if (!fgets(line, sizeof(line), fp) || strcmp(line, "written\n"))
			failed++, printf("FAIL fopen(r): read back '%s'\n", line);
		check_closed("fopen(r)", fd, fclose(fp));
	}
	unlink(path);
	fp = tmpfile();
	if (fp && check_open("tmpfile", fd = fileno(fp), 1)) {
		line[0] = '\0';
		if (fputs("temporary\n", fp) < 0 || fseek(fp, 0, SEEK_SET) != 0 ||
		    !fgets(line, sizeof(line), fp) || strcmp(line, "temporary\n"))
			failed++, printf("FAIL tmpfile: read back '%s'\n", line);
		check_closed("tmpfile", fd, fclose(fp));
	}
	fp = popen("echo from the shell", "r");
	if (fp && check_open("popen", fd = fileno(fp), 0)) {
		line[0] = '\0';
		if (!fgets(line, sizeof(line), fp) || strcmp(line, "from the shell\n"))
			failed++, printf("FAIL popen: read '%s'\n", line);
		check_closed("popen", fd, pclose(fp));
	}
	dir = opendir("/");
	if (dir && check_open("opendir", fd = dirfd(dir), 1)) {
		ent = readdir(dir);
		if (!ent)
			failed++, printf("FAIL opendir: readdir found nothing\n");
		check_closed("opendir", fd, closedir(dir));
	}
	if (!fp || !dir)
		failed++, printf("FAIL a stream could not be made (%m)\n");
}

/* A call the kernel may refuse here (permissions, configuration): only
 * checked when it made a descriptor. */
static void check_maybe(const char *call, long fd)
{
	if (fd < 0)
		printf("%s: not here (%m)\n", call);
	else
		check(call, (int)fd);
}

/* A call qemu-user does not implement (ENOSYS there, never from the
 * kernel for these): skipped under the emulator, else checked. */
static void check_unless_emulated(const char *call, long fd)
{
	if (fd < 0 && errno == ENOSYS &&
	    skip_under_emulator(call, "qemu-user does not implement it"))
		return;
	check(call, (int)fd);
}

/* Both descriptors of a pair. */
static void check_pair(const char *call, long r, int fds[2])
{
	char name[64];

	if (r != 0) {
		check(call, -1);
		return;
	}
	snprintf(name, sizeof(name), "%s[0]", call);
	check(name, fds[0]);
	snprintf(name, sizeof(name), "%s[1]", call);
	check(name, fds[1]);
}

/* The creating system calls made through syscall(). */
static void check_syscalls(void)
{
	int fds[2], l, c;
	sigset_t mask;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t salen;

	check("syscall(SYS_openat)", (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY, 0));
#ifdef SYS_open /* the old calls: x86-64 has them, aarch64 not */
	check("syscall(SYS_open)", (int)syscall(SYS_open, "/dev/null", O_RDONLY, 0));
#endif
	check("syscall(SYS_socket)", (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0));
	check_pair("syscall(SYS_socketpair)", syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, fds), fds);
	check_pair("syscall(SYS_pipe2)", syscall(SYS_pipe2, fds, 0), fds);
#ifdef SYS_pipe
	check_pair("syscall(SYS_pipe)", syscall(SYS_pipe, fds), fds);
#endif
	check("syscall(SYS_dup)", (int)syscall(SYS_dup, 0));
	check("syscall(SYS_fcntl, F_DUPFD)", (int)syscall(SYS_fcntl, 0, F_DUPFD, 3));
	check("syscall(SYS_pidfd_open)", (int)syscall(SYS_pidfd_open, getpid(), 0));
	check("syscall(SYS_memfd_create)", (int)syscall(SYS_memfd_create, "made", 0));
	check("syscall(SYS_eventfd2)", (int)syscall(SYS_eventfd2, 0, 0));
#ifdef SYS_eventfd
	check("syscall(SYS_eventfd)", (int)syscall(SYS_eventfd, 0));
#endif
	check("syscall(SYS_epoll_create1)", (int)syscall(SYS_epoll_create1, 0));
#ifdef SYS_epoll_create
	check("syscall(SYS_epoll_create)", (int)syscall(SYS_epoll_create, 1));
#endif
	check("syscall(SYS_inotify_init1)", (int)syscall(SYS_inotify_init1, 0));
#ifdef SYS_inotify_init
	check("syscall(SYS_inotify_init)", (int)syscall(SYS_inotify_init));
#endif
	check("syscall(SYS_timerfd_create)", (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 0));
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	check("syscall(SYS_signalfd4)", (int)syscall(SYS_signalfd4, -1, &mask, 8, 0));
#ifdef SYS_signalfd
	check("syscall(SYS_signalfd)", (int)syscall(SYS_signalfd, -1, &mask, 8));
#endif
	/* accept and accept4: a listening socket in the abstract namespace */
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "ufd-made-%d", getpid());
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1));
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, salen) != 0 || listen(l, 4) != 0) {
		check("listening socket", -1);
		return;
	}
	for (int i = 0; i < 2; i++) {
		c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(c, (struct sockaddr *)&sa, salen) != 0)
			check("connect", -1);
		if (i == 0)
			check("syscall(SYS_accept4)", (int)syscall(SYS_accept4, l, NULL, NULL, 0));
		else
			check("syscall(SYS_accept)", (int)syscall(SYS_accept, l, NULL, NULL));
		close(c);
	}
	close(l);
	/* refused by some kernels' settings or privileges */
	check_maybe("syscall(SYS_userfaultfd)", syscall(SYS_userfaultfd, 0));
	check_maybe("syscall(SYS_io_uring_setup)", syscall(SYS_io_uring_setup, 1, (char[120]){ 0 }));
	check_maybe("syscall(SYS_bpf, BPF_MAP_CREATE)",
		    syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */,
			    (unsigned[5]){ 2 /* array */, 4, 4, 1, 0 }, 20));
	check_maybe("syscall(SYS_landlock_create_ruleset)",
		    syscall(SYS_landlock_create_ruleset, (unsigned long long[]){ 1 }, 8, 0));
}

/*
 * Descriptors made inside other structures through syscall(): openat2's
 * (UFD_CLOEXEC sets O_CLOEXEC in a copy of struct open_how, never in the
 * caller's), the pidfd clone3 and clone write with CLONE_PIDFD, and the
 * listener of a seccomp filter (in a child, which the filter stays on).
 */
struct clone_args_ {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		stack_size, tls;
};

struct open_how_ {
	uint64_t flags, mode, resolve;
};

static void check_pidfd_of(const char *call, long pid, int pidfd)
{
	siginfo_t si;

	if (pid == 0)
		_exit(0);
	if (pid < 0) {
		printf("%s: not here (%m)\n", call);
		return;
	}
	if (check_open(call, pidfd, 1) &&
	    (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) != 0 || si.si_pid != pid)) {
		printf("FAIL %s: waitid(P_PIDFD, %d): %m\n", call, pidfd);
		failed++;
	}
	close(pidfd);
	use_after_close(pidfd);
}

static void check_inside(void)
{
	struct open_how_ how = { .flags = O_RDONLY };
	struct clone_args_ ca = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD };
	int pidfd = -1, status;
	long pid;

	check_unless_emulated("syscall(SYS_openat2)",
			      syscall(SYS_openat2, AT_FDCWD, "/dev/null", &how, sizeof(how)));
	if (how.flags != O_RDONLY) {
		printf("FAIL syscall(SYS_openat2) changed the caller's open_how\n");
		failed++;
	}
	fflush(stdout);
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	check_pidfd_of("syscall(SYS_clone3, CLONE_PIDFD)", pid, pidfd);
	pidfd = -1;
	pid = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
	check_pidfd_of("syscall(SYS_clone, CLONE_PIDFD)", pid, pidfd);

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog prog = { .len = 1, .filter = &allow };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(2);
		check_maybe("syscall(SYS_seccomp, NEW_LISTENER)",
			    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog));
		fflush(stdout);
		_exit(failed ? 1 : 0);
	}
	if (pid < 0 || waitpid((pid_t)pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		printf("FAIL the seccomp child\n");
		failed++;
	}
}

/*
 * A signalfd, itself a new descriptor, and the records read from it: an
 * O_ASYNC signal of a pipe names the pipe's descriptor in ssi_fd, the
 * number the program has (virtual under UFD_MODE=all), through read()
 * and the raw read.
 */
static void check_signalfd(void)
{
	struct signalfd_siginfo ssi;
	int p[2], sfd, sig = SIGRTMIN + 3;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 || pipe(p) != 0 ||
	    fcntl(p[0], F_SETOWN, getpid()) != 0 || fcntl(p[0], F_SETSIG, sig) != 0 ||
	    fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
		printf("FAIL signalfd set-up: %m\n");
		failed++;
		return;
	}
	sfd = signalfd(-1, &set, SFD_NONBLOCK);
	if (!check_open("signalfd", sfd, 1))
		return;
	for (int raw = 0; raw < 2; raw++) {
		long n;
		char c;

		memset(&ssi, 0, sizeof(ssi));
		if (write(p[1], "x", 1) != 1)
			break;
		n = raw ? syscall(SYS_read, sfd, &ssi, sizeof(ssi))
			: read(sfd, &ssi, sizeof(ssi));
		if (n != (long)sizeof(ssi) || ssi.ssi_fd != p[0] ||
		    ((int)ssi.ssi_signo != sig &&
		     !skip_under_emulator("signalfd's ssi_signo",
					  "qemu-user passes F_SETSIG's real-time "
					  "signal to the kernel untranslated"))) {
			printf("FAIL %s on signalfd %d: %ld, signal %u, ssi_fd %d, not %d\n",
			       raw ? "syscall(SYS_read)" : "read", sfd, n,
			       ssi.ssi_signo, ssi.ssi_fd, p[0]);
			failed++;
		}
		if (read(p[0], &c, 1) != 1)
			break;
	}
	close(sfd);
	use_after_close(sfd);
	close(p[0]);
	close(p[1]);
}

/* The creating functions the audit found (tests/audit.py), and a use of
 * what they made: openpty, getpt, shm_open, mq_open (mq_send, mq_receive,
 * mq_close on it), dprintf into a new pipe. */
static void check_audited(void)
{
	int m, s, p[2], n;
	char name[64], buf[64];
	mqd_t q;
	struct mq_attr attr = { .mq_maxmsg = 2, .mq_msgsize = 16 };

	if (openpty(&m, &s, NULL, NULL, NULL) == 0) {
		check("openpty master", dup(m)); /* dup: check closes it */
		check("openpty slave", dup(s));
		if (api_is_virtual(m) != api_is_virtual(s) ||
		    fcntl(m, F_GETFD) != fcntl(s, F_GETFD) ||
		    (getenv("UFD_CLOEXEC") && !(fcntl(m, F_GETFD) & FD_CLOEXEC))) {
			printf("FAIL openpty: master %d and slave %d differ\n", m, s);
			failed++;
		}
		close(m);
		close(s);
	}
	check_maybe("getpt", getpt());
	snprintf(name, sizeof(name), "/ufd-made-%d", getpid());
	m = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	shm_unlink(name);
	check_maybe("shm_open", m);
	q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
	mq_unlink(name);
	if (q == (mqd_t)-1) {
		printf("mq_open: not here (%m)\n");
	} else {
		check("mq_open", dup(q));
		if (mq_send(q, "mq", 3, 0) != 0 || mq_receive(q, buf, sizeof(buf), NULL) != 3 ||
		    strcmp(buf, "mq") || mq_close(q) != 0 || fcntl(q, F_GETFD) != -1) {
			printf("FAIL mq_send, mq_receive, mq_close on %d: %m\n", q);
			failed++;
		}
	}
	if (pipe(p) != 0)
		return;
	if (dprintf(p[1], "%d", 42) != 2 || (n = (int)read(p[0], buf, sizeof(buf))) != 2 ||
	    memcmp(buf, "42", 2)) {
		printf("FAIL dprintf into pipe %d: %m\n", p[1]);
		failed++;
	}
	close(p[0]);
	close(p[1]);
}

/*
 * Descriptors received with SCM_RIGHTS: recvmsg, and recvmmsg of three
 * datagrams, the first without control data, the second with one
 * descriptor, the third with two.
 */
static void check_received(void)
{
	union {
		struct cmsghdr c;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} out[3], in[3];
	struct iovec iov = { (void *)"r", 1 }, back[3];
	struct mmsghdr mm[3];
	char byte[3];
	int dg[2], fds[2], r;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) != 0 || pipe(fds) != 0) {
		printf("FAIL socketpair, pipe: %m\n");
		failed++;
		return;
	}
	memset(mm, 0, sizeof(mm));
	memset(out, 0, sizeof(out));
	for (int i = 0; i < 3; i++) {
		mm[i].msg_hdr.msg_iov = &iov;
		mm[i].msg_hdr.msg_iovlen = 1;
		if (i) {
			struct cmsghdr *c;

			mm[i].msg_hdr.msg_control = out[i].buf;
			mm[i].msg_hdr.msg_controllen = CMSG_SPACE((size_t)i * sizeof(int));
			c = CMSG_FIRSTHDR(&mm[i].msg_hdr);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN((size_t)i * sizeof(int));
			memcpy(CMSG_DATA(c), fds, (size_t)i * sizeof(int));
		}
	}
	/* One by sendmsg, for recvmsg; then the three. */
	if (sendmsg(dg[0], &mm[1].msg_hdr, 0) != 1 || sendmmsg(dg[0], mm, 3, 0) != 3) {
		printf("FAIL sendmsg, sendmmsg with SCM_RIGHTS: %m\n");
		failed++;
		return;
	}
	for (int round = 0; round < 2; round++) {
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < 3; i++) {
			back[i] = (struct iovec){ &byte[i], 1 };
			mm[i].msg_hdr.msg_iov = &back[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = in[i].buf;
			mm[i].msg_hdr.msg_controllen = sizeof(in[i].buf);
		}
		r = round ? recvmmsg(dg[1], mm, 3, MSG_DONTWAIT, NULL)
			  : (int)(recvmsg(dg[1], &mm[0].msg_hdr, MSG_DONTWAIT) == 1);
		if (r != (round ? 3 : 1)) {
			printf("FAIL %s: %d (%m)\n", round ? "recvmmsg" : "recvmsg", r);
			failed++;
			continue;
		}
		for (int i = 0; i < r; i++) {
			struct cmsghdr *c = CMSG_FIRSTHDR(&mm[i].msg_hdr);
			size_t n = c ? (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;
			int got[2];

			if (n != (size_t)(round ? i : 1)) {
				printf("FAIL %s: message %d with %zu descriptors\n",
				       round ? "recvmmsg" : "recvmsg", i, n);
				failed++;
				continue;
			}
			memcpy(got, CMSG_DATA(c ? c : &in[i].c), n * sizeof(int));
			for (size_t j = 0; j < n; j++)
				check(round ? "recvmmsg SCM_RIGHTS" : "recvmsg SCM_RIGHTS", got[j]);
		}
	}
	close(dg[0]);
	close(dg[1]);
	close(fds[0]);
	close(fds[1]);
}

/* Under the application's RLIMIT_NOFILE, descriptors made through
 * syscall() stop at the limit with EMFILE, as libc's calls do. */
static void check_syscall_limit(void)
{
	struct rlimit rl, low;
	int made[64], n = 0, top = -1, v;
	long r;

	/* a virtual descriptor first: ufd then holds the kernel's limit
	 * above the application's (placement.h) */
	v = api_nonseqfd(0, 0);
	if (v < 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		printf("FAIL nonseqfd or getrlimit: %m\n");
		failed++;
		return;
	}
	/* the lowest free number, plus 8 */
	r = syscall(SYS_eventfd2, 0, 0);
	if (r < 0)
		return;
	close((int)r);
	/* (under UFD_MODE=random r was anywhere: the lowest free number is
	 * probed) */
	for (r = 0; fcntl((int)r, F_GETFD) != -1; r++)
		;
	low = rl;
	low.rlim_cur = (rlim_t)r + 8;
	if (setrlimit(RLIMIT_NOFILE, &low) != 0) {
		printf("setrlimit: %m\n");
		failed++;
		return;
	}
	for (n = 0; n < 64; n++) {
		made[n] = (int)syscall(SYS_eventfd2, 0, 0);
		if (made[n] < 0)
			break;
		if (made[n] > top)
			top = made[n];
	}
	if (n == 64 || errno != EMFILE || (rlim_t)top >= low.rlim_cur) {
		printf("FAIL syscall(SYS_eventfd2) under RLIMIT_NOFILE %lu: %d made, "
		       "up to %d, then %m\n", (unsigned long)low.rlim_cur, n, top);
		failed++;
	} else {
		printf("syscall(SYS_eventfd2) under RLIMIT_NOFILE %lu: %d made, then EMFILE\n",
		       (unsigned long)low.rlim_cur, n);
	}
	while (n > 0)
		close(made[--n]);
	close(v);
	setrlimit(RLIMIT_NOFILE, &rl);
}

int main(void)
{
	int master, ns, s, sv[2], pidfd = -1;
	socklen_t len = sizeof(pidfd);

	load_api(1);
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
		printf("skipped: no pseudo-terminal (%m)\n");
		return 77;
	}
	check("ioctl(TIOCGPTPEER)", ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY));
	ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	check_unless_emulated("ioctl(NS_GET_USERNS)", ioctl(ns, NS_GET_USERNS));
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	check_unless_emulated("ioctl(SIOCGSKNS)", ioctl(s, SIOCGSKNS));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 1;
	if (getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0)
		printf("getsockopt(SO_PEERPIDFD): not on this kernel (%m)\n");
	else
		check("getsockopt(SO_PEERPIDFD)", pidfd);
	check_syscalls();
	check_signalfd();
	check_inside();
	check_audited();
	check_streams();
	check_received();
	{
		const char *all = getenv("UFD_MODE");

		/* under UFD_MODE=all the kernel's low numbers free again */
		if (!all || strcmp(all, "all"))
			check_syscall_limit();
	}
	/* A random number lands on the kernel's lowest only if it falls in
	 * the block of low numbers open here (about 8 in 1,000): allow a
	 * few (fixed seed in tests/meson.build), not most. */
	if (random_made) {
		printf("UFD_MODE=random: %d made, %d at the kernel's lowest number\n",
		       random_made, random_lowest);
		if (random_lowest > 5 || random_lowest * 4 > random_made)
			failed++, printf("FAIL UFD_MODE=random: not moved\n");
	}
	printf("%s\n", failed ? "FAIL" : "ok");
	return failed ? 1 : 0;
}
