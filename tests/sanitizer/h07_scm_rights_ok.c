/* SPDX-License-Identifier: MIT */
/*
 * h07 (healthy): descriptor passing done right: the sender closes its
 * copy after sending, the receiver closes the received one once, a
 * redirection with dup2 onto a chosen number crosses an exec on purpose,
 * and a child leaves the parent's descriptors to the parent.
 *
 * expect: none
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bug.h"

int main(void)
{
	char c = 'x', buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = buf, .msg_controllen = sizeof(buf) };
	struct cmsghdr *cm;
	int sv[2], f, got, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		die("socketpair");
	if ((f = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		die("open");
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &f, sizeof(int));
	if (sendmsg(sv[0], &msg, 0) != 1)
		die("sendmsg");
	close(f);
	msg.msg_controllen = sizeof(buf);
	if (recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC) != 1 || !(cm = CMSG_FIRSTHDR(&msg)))
		die("recvmsg");
	memcpy(&got, CMSG_DATA(cm), sizeof(int));
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (dup2(got, 1) != 1)
			_exit(126);
		execl("/bin/echo", "echo", "into the passed descriptor", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || status != 0)
		die("child");
	close(got);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
