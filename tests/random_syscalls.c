/* SPDX-License-Identifier: MIT */
/*
 * Description: makes one kind of descriptor COUNT times (and closes it),
 * for tests/random_syscalls.sh, which counts the system calls under
 * strace with and without ufd in UFD_MODE=random.  The kinds are those of
 * the made-fds test (tests/test_made_fds.c): opens, pipes, sockets,
 * duplicates, the fresh objects, streams, received descriptors, and the
 * creating calls made through syscall().  Usage: random_syscalls KIND
 * COUNT; `random_syscalls list` prints the kinds and how many descriptors
 * each makes per round.  Exits 0, or 1 if a call failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

static char path[64];
static int base = -1, pair[2] = { -1, -1 }, listener = -1;
static struct sockaddr_un addr;

static int ok(int fd)
{
	if (fd < 0) {
		perror("random_syscalls");
		exit(1);
	}
	return fd;
}

static void shut(int fd)
{
	close(ok(fd));
}

static void r_open(void) { shut(open(path, O_RDONLY)); }
static void r_open_cloexec(void) { shut(open(path, O_RDONLY | O_CLOEXEC)); }
static void r_openat(void) { shut(openat(AT_FDCWD, path, O_RDONLY)); }
static void r_creat(void) { shut(creat(path, 0600)); }
static void r_dup(void) { shut(dup(base)); }
static void r_f_dupfd(void) { shut(fcntl(base, F_DUPFD, 3)); }
static void r_f_dupfd_cloexec(void) { shut(fcntl(base, F_DUPFD_CLOEXEC, 3)); }
static void r_socket(void) { shut(socket(AF_UNIX, SOCK_STREAM, 0)); }
static void r_socket_cloexec(void) { shut(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)); }
static void r_eventfd(void) { shut(eventfd(0, 0)); }
static void r_epoll_create1(void) { shut(epoll_create1(0)); }
static void r_inotify_init1(void) { shut(inotify_init1(0)); }
static void r_timerfd_create(void) { shut(timerfd_create(CLOCK_MONOTONIC, 0)); }
static void r_memfd_create(void) { shut(memfd_create("x", 0)); }
static void r_pidfd_open(void) { shut((int)syscall(SYS_pidfd_open, getpid(), 0)); }
static void r_sys_openat(void) { shut((int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY)); }
static void r_sys_socket(void) { shut((int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0)); }

static void r_signalfd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	shut(signalfd(-1, &set, 0));
}

static void r_pipe(void)
{
	int fds[2];

	ok(pipe(fds));
	shut(fds[0]);
	shut(fds[1]);
}

static void r_pipe2_cloexec(void)
{
	int fds[2];

	ok(pipe2(fds, O_CLOEXEC));
	shut(fds[0]);
	shut(fds[1]);
}

static void r_socketpair(void)
{
	int fds[2];

	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, fds));
	shut(fds[0]);
	shut(fds[1]);
}

static void r_sys_pipe2(void)
{
	int fds[2];

	ok((int)syscall(SYS_pipe2, fds, 0));
	shut(fds[0]);
	shut(fds[1]);
}

static void r_fopen(void)
{
	FILE *fp = fopen(path, "r");

	if (!fp || fclose(fp) != 0)
		ok(-1);
}

static void r_opendir(void)
{
	DIR *dir = opendir("/");

	if (!dir || closedir(dir) != 0)
		ok(-1);
}

/* socket + connect + accept: two descriptors. */
static void r_accept(void)
{
	int c = ok(socket(AF_UNIX, SOCK_STREAM, 0));

	ok(connect(c, (struct sockaddr *)&addr, sizeof(addr)));
	shut(accept(listener, NULL, NULL));
	shut(c);
}

/* base passed over pair and received: one descriptor. */
static void r_recvmsg(void)
{
	char byte = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int fd;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &base, sizeof(int));
	if (sendmsg(pair[0], &msg, 0) != 1 || recvmsg(pair[1], &msg, 0) != 1)
		ok(-1);
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		ok(-1);
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	shut(fd);
}

/* The same through recvmmsg, with MSG_CMSG_CLOEXEC: one descriptor. */
static void r_recvmmsg(void)
{
	char byte = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1,
					   .msg_control = cbuf,
					   .msg_controllen = sizeof(cbuf) } };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mm.msg_hdr);
	int fd;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &base, sizeof(int));
	if (sendmsg(pair[0], &mm.msg_hdr, 0) != 1 ||
	    recvmmsg(pair[1], &mm, 1, MSG_CMSG_CLOEXEC, NULL) != 1)
		ok(-1);
	cm = CMSG_FIRSTHDR(&mm.msg_hdr);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		ok(-1);
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	shut(fd);
}

/* The kinds: name, descriptors made per round, the round. */
static const struct kind {
	const char *name;
	int fds;
	void (*round)(void);
} kinds[] = {
	{ "open", 1, r_open },
	{ "open-cloexec", 1, r_open_cloexec },
	{ "openat", 1, r_openat },
	{ "creat", 1, r_creat },
	{ "fopen", 1, r_fopen },
	{ "opendir", 1, r_opendir },
	{ "dup", 1, r_dup },
	{ "fcntl-F_DUPFD", 1, r_f_dupfd },
	{ "fcntl-F_DUPFD_CLOEXEC", 1, r_f_dupfd_cloexec },
	{ "recvmsg", 1, r_recvmsg },
	{ "recvmmsg-cloexec", 1, r_recvmmsg },
	{ "socket", 1, r_socket },
	{ "socket-cloexec", 1, r_socket_cloexec },
	{ "socketpair", 2, r_socketpair },
	{ "accept", 2, r_accept },
	{ "pipe", 2, r_pipe },
	{ "pipe2-cloexec", 2, r_pipe2_cloexec },
	{ "eventfd", 1, r_eventfd },
	{ "epoll_create1", 1, r_epoll_create1 },
	{ "inotify_init1", 1, r_inotify_init1 },
	{ "timerfd_create", 1, r_timerfd_create },
	{ "signalfd", 1, r_signalfd },
	{ "memfd_create", 1, r_memfd_create },
	{ "syscall-pidfd_open", 1, r_pidfd_open },
	{ "syscall-openat", 1, r_sys_openat },
	{ "syscall-socket", 1, r_sys_socket },
	{ "syscall-pipe2", 2, r_sys_pipe2 },
};

int main(int argc, char **argv)
{
	const struct kind *k = NULL;
	int n;

	if (argc == 2 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			printf("%s %d\n", kinds[i].name, kinds[i].fds);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: random_syscalls KIND COUNT | list\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, argv[1]))
			k = &kinds[i];
	if (!k) {
		fprintf(stderr, "random_syscalls: no kind %s\n", argv[1]);
		return 2;
	}
	n = atoi(argv[2]);
	/* The same set-up whatever the kind, made before the rounds. */
	snprintf(path, sizeof(path), "/tmp/ufd-random-syscalls-%d", (int)getpid());
	base = ok(open(path, O_RDWR | O_CREAT, 0600));
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, pair));
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s.sock", path);
	listener = ok(socket(AF_UNIX, SOCK_STREAM, 0));
	ok(bind(listener, (struct sockaddr *)&addr, sizeof(addr)));
	ok(listen(listener, 4));
	for (int i = 0; i < n; i++)
		k->round();
	unlink(addr.sun_path);
	unlink(path);
	return 0;
}
