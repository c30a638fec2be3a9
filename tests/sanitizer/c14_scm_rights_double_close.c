/* SPDX-License-Identifier: MIT */
/*
 * c14: a descriptor received with SCM_RIGHTS closed twice: the receiver
 * hands the descriptor to a handler that closes it when done, and its own
 * clean-up closes the received descriptor again (CWE-1341; a recurring
 * bug in descriptor-passing code, where ownership moves with the
 * message).
 *
 * expect: double-close in release_message
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bug.h"

static void send_fd(int sock, int fd)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c1 = CMSG_FIRSTHDR(&msg);

	c1->cmsg_level = SOL_SOCKET;
	c1->cmsg_type = SCM_RIGHTS;
	c1->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c1), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg");
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1 || !CMSG_FIRSTHDR(&msg))
		die("recvmsg");
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	return fd;
}

static NOINLINE void handle_upload(int fd)
{
	close(fd); /* the handler owns it */
	NO_TAIL();
}

static NOINLINE void release_message(int fd)
{
	close(fd); /* ... and so does the message's clean-up */
	NO_TAIL();
}

int main(void)
{
	int sv[2], f, got;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("socketpair");
	f = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (f < 0)
		die("open");
	send_fd(sv[0], f);
	close(f);
	got = recv_fd(sv[1]);
	handle_upload(got);
	release_message(got);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
