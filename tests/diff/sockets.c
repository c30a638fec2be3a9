/* SPDX-License-Identifier: MIT */
/*
 * sockets.c - the differential test's family of sockets: socketpair and
 * Unix sockets, bind to accept, the send and recv calls, descriptors
 * passed in SCM_RIGHTS, socket options (sockets).
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* ---- sockets ---- */

static void note_addr(struct run *r, int line, const struct sockaddr_un *a,
		      socklen_t len, const struct sockaddr_un *want,
		      socklen_t want_len)
{
	note(r, line, "address", "len=%u family=%d is_bound_name=%d",
	     (unsigned)len, len >= sizeof(sa_family_t) ? a->sun_family : -1,
	     want && len == want_len && memcmp(a, want, len) == 0);
}

/* Send a descriptor with SCM_RIGHTS. */
static long send_fd(int sock, int fd)
{
	union {
		struct cmsghdr c;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { (void *)"F", 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	memset(&u, 0, sizeof(u));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL);
}

/* Receive a descriptor sent with SCM_RIGHTS, -1 if none came. */
static long recv_fd(int sock, int flags, int *fd)
{
	union {
		struct cmsghdr c;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	long n;

	*fd = -1;
	n = recvmsg(sock, &msg, flags);
	c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n;
}

/* Receive what is queued on sock, each message noted with whether it
 * carried a descriptor, and that descriptor's identity. */
static void recv_all_fds(struct run *r, int sock, const struct stat *ref)
{
	struct stat st;
	int recvd;

	while (LOG(r, recv_fd(sock, MSG_DONTWAIT, &recvd)) > 0) {
		NOTE(r, "received a descriptor", "%d", recvd >= 0);
		if (recvd >= 0) {
			LOG_STAT(r, fstat(recvd, &st), st, ref);
			LOG(r, close(recvd));
		}
	}
}

/* Make msg carry fd with SCM_RIGHTS in u. */
static void rights_msg(struct msghdr *msg, void *u, size_t size, int fd)
{
	struct cmsghdr *c;

	memset(u, 0, size);
	msg->msg_control = u;
	msg->msg_controllen = size;
	c = CMSG_FIRSTHDR(msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
}

/*
 * sendmmsg of 40 messages on a seqpacket pair (no queue limit of 10 as for
 * datagrams), with descriptors in some: none; the 3rd; the 36th (past the
 * 32 headers ufd reads in one system call); the 3rd, 20th and 36th; the
 * last.  Each message received with the descriptor in its place.
 */
static void mmsg_batches(struct run *r, int f, const struct stat *ref)
{
	enum { N = 40 };
	static const int with[][4] = { { -1 }, { 2, -1 }, { 35, -1 },
				       { 2, 19, 35, -1 }, { N - 1, -1 } };
	union {
		struct cmsghdr c;
		char buf[CMSG_SPACE(sizeof(int))];
	} u[N];
	struct iovec one = { (void *)"B", 1 };
	struct mmsghdr mm[N];
	int sp[2];

	LOG(r, socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sp));
	fd_of_pair(r, sp);
	for (size_t round = 0; round < sizeof(with) / sizeof(with[0]); round++) {
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < N; i++) {
			mm[i].msg_hdr.msg_iov = &one;
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		for (int j = 0; with[round][j] >= 0; j++)
			rights_msg(&mm[with[round][j]].msg_hdr, &u[j], sizeof(u[j]), f);
		LOG(r, sendmmsg(sp[0], mm, N, MSG_NOSIGNAL));
		for (int i = 0; i < N; i++)
			NOTE(r, "sendmmsg len", "%d %u", i, mm[i].msg_len);
		recv_all_fds(r, sp[1], ref);
	}
	LOG(r, close(sp[0]));
	LOG(r, close(sp[1]));
}

/*
 * sendmmsg of five messages, the 2nd with a descriptor, on the last page
 * before one that cannot be read: with the 4th header on that page (the
 * kernel sends three: 3); with the 3rd header the last bytes of the
 * readable one, its msg_len on the other (the 3rd is sent but not counted:
 * 2); with the 2nd's control data there (EFAULT at the 2nd: 1); with the
 * first header there (EFAULT).
 */
static void mmsg_unreadable(struct run *r, int f, const struct stat *ref)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), ctl = CMSG_SPACE(sizeof(int));
	/* The bytes of the array before the page that cannot be read. */
	const size_t before[] = { 3 * sizeof(struct mmsghdr),
				  2 * sizeof(struct mmsghdr) + sizeof(struct msghdr),
				  4 * sizeof(struct mmsghdr), 0 };
	char *area = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec one = { (void *)"U", 1 };
	int sp[2];

	must(r, area != MAP_FAILED && mprotect(area + pg, pg, PROT_NONE) == 0,
	     "a page that cannot be read");
	LOG(r, socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sp));
	fd_of_pair(r, sp);
	for (int round = 0; round < 4; round++) {
		struct mmsghdr *v = (struct mmsghdr *)(area + pg - before[round]);
		char *end = area + pg;
		union {
			struct cmsghdr c;
			char buf[CMSG_SPACE(sizeof(int))];
		} u;

		for (int i = 0; i < 5; i++) {
			if ((char *)&v[i] + sizeof(struct msghdr) > end)
				break;
			memset(&v[i].msg_hdr, 0, sizeof(v[i].msg_hdr));
			v[i].msg_hdr.msg_iov = &one;
			v[i].msg_hdr.msg_iovlen = 1;
			if (i == 1)
				rights_msg(&v[i].msg_hdr, &u, sizeof(u), f);
		}
		if (round == 2) /* the 2nd's control data across the end */
			v[1].msg_hdr.msg_control = end - ctl / 2;
		LOG(r, sendmmsg(sp[0], v, 5, MSG_NOSIGNAL));
		for (int i = 0; i < 5; i++)
			if ((char *)&v[i].msg_len + sizeof(v[i].msg_len) <= end)
				NOTE(r, "sendmmsg len", "%d %u", i, v[i].msg_len);
		recv_all_fds(r, sp[1], ref);
	}
	LOG(r, close(sp[0]));
	LOG(r, close(sp[1]));
	munmap(area, 2 * pg);
}

/*
 * In a child whose seccomp filter answers process_vm_readv with err
 * (ENOSYS: a kernel before 3.2; EPERM: a sandbox), where ufd reads the
 * caller's memory directly: sendmmsg of three messages, the 2nd with a
 * descriptor.  The child's exit status: 0 if all three came, the 2nd with
 * the descriptor (the same file), else which went wrong.
 */
static int mmsg_without_vm_readv(int f, const struct stat *ref, int err)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };
	union {
		struct cmsghdr c;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec one = { (void *)"S", 1 };
	struct mmsghdr mm[3];
	struct stat st;
	int sp[2], status, recvd;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sp) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
			_exit(10);
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < 3; i++) {
			mm[i].msg_hdr.msg_iov = &one;
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		rights_msg(&mm[1].msg_hdr, &u, sizeof(u), f);
		if (sendmmsg(sp[0], mm, 3, MSG_NOSIGNAL) != 3)
			_exit(11);
		for (int i = 0; i < 3; i++) {
			if (recv_fd(sp[1], MSG_DONTWAIT, &recvd) != 1 || (recvd >= 0) != (i == 1))
				_exit(12 + i);
			if (recvd >= 0 && (fstat(recvd, &st) != 0 || st.st_ino != ref->st_ino ||
					   st.st_dev != ref->st_dev))
				_exit(15);
		}
		_exit(0);
	}
	close(sp[0]);
	close(sp[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

script_fn script_sockets;

void script_sockets(struct run *r)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX }, got, nowhere;
	socklen_t alen, addr_len, ilen;
	char buf[64] = "", b1[3], b2[8], m1[8], m2[8];
	struct iovec iov[2] = { { b1, sizeof(b1) }, { b2, sizeof(b2) } };
	struct iovec wv[2] = { { (void *)"msg", 3 }, { (void *)"-vec", 4 } };
	struct msghdr msg;
	struct mmsghdr mm[2];
	struct iovec mv[2] = { { m1, sizeof(m1) }, { m2, sizeof(m2) } };
	struct iovec mw[2] = { { (void *)"one", 3 }, { (void *)"two!", 4 } };
	struct ucred cred;
	struct stat st, ref;
	int sv[2], dg[2], lst, cli, cli2, conn, conn2, f, recvd, val, bad;

	make_file(r, "secret", "secret contents");
	must(r, stat("secret", &ref) == 0, "stat secret");
	f = FD_OF(r, open("secret", O_RDONLY));

	/* A connected pair. */
	LOG(r, socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
	fd_of_pair(r, sv);
	LOG(r, send(sv[0], "ping", 4, MSG_NOSIGNAL));
	LOG_BUF(r, recv(sv[1], buf, sizeof(buf), MSG_PEEK), buf);
	LOG_BUF(r, recv(sv[1], buf, sizeof(buf), 0), buf);
	LOG_BUF(r, recv(sv[1], buf, sizeof(buf), 0), buf);
	LOG_BUF(r, recv(sv[1], buf, sizeof(buf), 0x40000000), buf);
	LOG(r, sendto(sv[1], "x", 1, MSG_NOSIGNAL, NULL, 0));
	alen = sizeof(got);
	LOG_BUF(r, recvfrom(sv[0], buf, sizeof(buf), 0, (struct sockaddr *)&got,
			    &alen), buf);
	NOTE(r, "recvfrom alen", "%u", (unsigned)alen);
	LOG(r, sendto(sv[1], "x", 1, MSG_NOSIGNAL, (struct sockaddr *)&addr,
		      sizeof(addr)));
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = wv;
	msg.msg_iovlen = 2;
	LOG(r, sendmsg(sv[0], &msg, MSG_NOSIGNAL));
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	LOG_IOV(r, recvmsg(sv[1], &msg, 0), iov, 2);
	NOTE(r, "recvmsg flags", "%#x", (unsigned)msg.msg_flags);
	LOG_IOV(r, recvmsg(sv[1], &msg, 0), iov, 2);

	/* A descriptor passed over the pair, and its identity. */
	LOG(r, send_fd(sv[0], f));
	if (LOG(r, recv_fd(sv[1], MSG_CMSG_CLOEXEC, &recvd)) > 0) {
		LOG_BOOL(r, recvd >= 0);
		LOG(r, fcntl(recvd, F_GETFD));
		recvd = fd_of(r, recvd);
		LOG_BUF(r, pread(recvd, buf, 6, 0), buf);
		LOG_STAT(r, fstat(recvd, &st), st, &ref);
		LOG(r, close(recvd));
	}

	/* Datagrams: sendmmsg and recvmmsg. */
	LOG(r, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, dg));
	fd_of_pair(r, dg);
	memset(mm, 0, sizeof(mm));
	mm[0].msg_hdr.msg_iov = &mw[0];
	mm[0].msg_hdr.msg_iovlen = 1;
	mm[1].msg_hdr.msg_iov = &mw[1];
	mm[1].msg_hdr.msg_iovlen = 1;
	LOG(r, sendmmsg(dg[0], mm, 2, MSG_NOSIGNAL));
	NOTE(r, "sendmmsg lens", "%u %u", mm[0].msg_len, mm[1].msg_len);
	memset(mm, 0, sizeof(mm));
	mm[0].msg_hdr.msg_iov = &mv[0];
	mm[0].msg_hdr.msg_iovlen = 1;
	mm[1].msg_hdr.msg_iov = &mv[1];
	mm[1].msg_hdr.msg_iovlen = 1;
	if (LOG(r, recvmmsg(dg[1], mm, 2, MSG_DONTWAIT, NULL)) == 2)
		NOTE(r, "recvmmsg", "%u:%.*s %u:%.*s", mm[0].msg_len,
		     (int)mm[0].msg_len, m1, mm[1].msg_len, (int)mm[1].msg_len,
		     m2);
	LOG(r, recvmmsg(dg[1], mm, 2, MSG_DONTWAIT, NULL));
	LOG(r, sendmmsg(dg[0], mm, 0, 0));

	/*
	 * sendmmsg with a descriptor in the second of three messages, then
	 * in the first of two: in the virtual run, the messages before it
	 * go in one real sendmmsg, it and the rest one by one.  Each
	 * message received, with the descriptor in its place.
	 */
	{
		union {
			struct cmsghdr c;
			char buf[CMSG_SPACE(sizeof(int))];
		} u;
		struct iovec one = { (void *)"R", 1 };
		struct mmsghdr rm[3];
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		memset(rm, 0, sizeof(rm));
		for (int i = 0; i < 3; i++) {
			rm[i].msg_hdr.msg_iov = &one;
			rm[i].msg_hdr.msg_iovlen = 1;
		}
		rm[1].msg_hdr.msg_control = u.buf;
		rm[1].msg_hdr.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&rm[1].msg_hdr);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &f, sizeof(int));
		for (int round = 0; round < 2; round++) {
			int count = round ? 2 : 3;

			LOG(r, sendmmsg(dg[0], rm, (unsigned)count, MSG_NOSIGNAL));
			NOTE(r, "sendmmsg lens", "%u %u %u", rm[0].msg_len,
			     rm[1].msg_len, rm[2].msg_len);
			for (int i = 0; i < count; i++) {
				if (LOG(r, recv_fd(dg[1], MSG_DONTWAIT, &recvd)) > 0 &&
				    recvd >= 0) {
					LOG_STAT(r, fstat(recvd, &st), st, &ref);
					LOG(r, close(recvd));
				}
				NOTE(r, "received a descriptor", "%d", recvd >= 0);
			}
			/* The descriptor in the first message. */
			rm[0].msg_hdr = rm[1].msg_hdr;
			rm[1].msg_hdr.msg_control = NULL;
			rm[1].msg_hdr.msg_controllen = 0;
		}
	}

	mmsg_batches(r, f, &ref);
	if (!skip_under_emulator("sockets: sendmmsg before an unreadable page",
				 "qemu-user has no process_vm_readv, so ufd reads "
				 "the caller's memory itself (as under a sandbox "
				 "refusing it), and an unreadable page faults"))
		mmsg_unreadable(r, f, &ref);
	LOG(r, mmsg_without_vm_readv(f, &ref, ENOSYS));
	LOG(r, mmsg_without_vm_readv(f, &ref, EPERM));

	/* Options and names. */
	ilen = sizeof(val);
	if (LOG(r, getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &val, &ilen)) == 0)
		NOTE(r, "SO_TYPE", "%d len %u", val, (unsigned)ilen);
	ilen = sizeof(val);
	if (LOG(r, getsockopt(sv[0], SOL_SOCKET, SO_DOMAIN, &val, &ilen)) == 0)
		NOTE(r, "SO_DOMAIN", "%d", val);
	ilen = sizeof(val);
	if (LOG(r, getsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &val, &ilen)) == 0)
		NOTE(r, "SO_RCVBUF", "%d", val);
	val = 4096;
	LOG(r, setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)));
	ilen = sizeof(val);
	if (LOG(r, getsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &val, &ilen)) == 0)
		NOTE(r, "SO_RCVBUF", "%d", val);
	ilen = sizeof(val);
	if (LOG(r, getsockopt(sv[0], SOL_SOCKET, SO_ERROR, &val, &ilen)) == 0)
		NOTE(r, "SO_ERROR", "%d", val);
	ilen = sizeof(cred);
	if (LOG(r, getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cred, &ilen)) == 0)
		NOTE(r, "SO_PEERCRED", "self=%d uid=%d gid=%d",
		     cred.pid == getpid(), cred.uid == getuid(),
		     cred.gid == getgid());
	ilen = sizeof(val);
	LOG(r, getsockopt(sv[0], SOL_SOCKET, 0x7fff, &val, &ilen));
	LOG(r, getsockopt(sv[0], 0x7fff, 1, &val, &ilen));
	LOG(r, setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &val, 1));
	alen = sizeof(got);
	if (LOG(r, getsockname(sv[0], (struct sockaddr *)&got, &alen)) == 0)
		note_addr(r, __LINE__, &got, alen, NULL, 0);
	alen = sizeof(got);
	if (LOG(r, getpeername(sv[0], (struct sockaddr *)&got, &alen)) == 0)
		note_addr(r, __LINE__, &got, alen, NULL, 0);
	LOG(r, sockatmark(sv[1]));

	/* A listening socket with an abstract name, per pid and run. */
	snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
		 "ufd-diff-%d-%c", (int)getpid(), mode_name[r->mode][0]);
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			       strlen(addr.sun_path + 1));
	nowhere = addr;
	nowhere.sun_path[1] = 'X';
	lst = FD_OF(r, socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0));
	LOG(r, bind(lst, (struct sockaddr *)&addr, addr_len));
	LOG(r, bind(lst, (struct sockaddr *)&addr, addr_len));
	alen = sizeof(got);
	if (LOG(r, getsockname(lst, (struct sockaddr *)&got, &alen)) == 0)
		note_addr(r, __LINE__, &got, alen, &addr, addr_len);
	LOG(r, listen(lst, 4));
	LOG_FD(r, accept(lst, NULL, NULL));
	cli = FD_OF(r, socket(AF_UNIX, SOCK_STREAM, 0));
	LOG(r, connect(cli, (struct sockaddr *)&nowhere, addr_len));
	LOG(r, connect(cli, (struct sockaddr *)&addr, addr_len));
	LOG(r, connect(cli, (struct sockaddr *)&addr, addr_len));
	alen = sizeof(got);
	if (LOG(r, getpeername(cli, (struct sockaddr *)&got, &alen)) == 0)
		note_addr(r, __LINE__, &got, alen, &addr, addr_len);
	alen = sizeof(got);
	conn = FD_OF(r, accept(lst, (struct sockaddr *)&got, &alen));
	NOTE(r, "accept alen", "%u", (unsigned)alen);
	LOG(r, send(cli, "hi", 2, MSG_NOSIGNAL));
	LOG_BUF(r, recv(conn, buf, sizeof(buf), MSG_DONTWAIT), buf);
	LOG(r, write(conn, "back", 4));
	LOG_BUF(r, read(cli, buf, sizeof(buf)), buf);
	alen = sizeof(got);
	if (LOG(r, getpeername(conn, (struct sockaddr *)&got, &alen)) == 0)
		note_addr(r, __LINE__, &got, alen, NULL, 0);
	alen = sizeof(got);
	if (LOG(r, getsockname(conn, (struct sockaddr *)&got, &alen)) == 0)
		note_addr(r, __LINE__, &got, alen, &addr, addr_len);
	cli2 = FD_OF(r, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	LOG(r, connect(cli2, (struct sockaddr *)&addr, addr_len));
	conn2 = LOG_FD(r, accept4(lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK));
	LOG(r, fcntl(conn2, F_GETFD));
	LOG(r, fcntl(conn2, F_GETFL) & O_NONBLOCK);
	conn2 = fd_of(r, conn2);
	LOG_BUF(r, recv(conn2, buf, sizeof(buf), 0), buf);
	LOG_FD(r, accept4(lst, NULL, NULL, 0x1234));
	LOG_FD(r, accept4(lst, NULL, NULL, SOCK_NONBLOCK));
	LOG(r, listen(sv[0], 1));
	LOG(r, bind(cli, (struct sockaddr *)&addr, 1));
	LOG(r, connect(sv[0], (struct sockaddr *)&addr, addr_len));
	LOG_FD(r, accept(sv[0], NULL, NULL));

	/* shutdown */
	LOG(r, shutdown(cli, SHUT_WR));
	LOG_BUF(r, recv(conn, buf, sizeof(buf), MSG_DONTWAIT), buf);
	LOG(r, send(cli, "late", 4, MSG_NOSIGNAL));
	LOG(r, shutdown(cli, 99));
	LOG(r, shutdown(sv[0], SHUT_RDWR));
	LOG_BUF(r, recv(sv[1], buf, sizeof(buf), 0), buf);

	/* Not a socket. */
	LOG(r, send(f, "x", 1, MSG_NOSIGNAL));
	LOG_BUF(r, recv(f, buf, 1, 0), buf);
	LOG(r, sendto(f, "x", 1, 0, NULL, 0));
	LOG_BUF(r, recvfrom(f, buf, 1, 0, NULL, NULL), buf);
	LOG(r, sendmsg(f, &msg, 0));
	LOG(r, recvmsg(f, &msg, 0));
	LOG(r, sendmmsg(f, mm, 1, 0));
	LOG(r, recvmmsg(f, mm, 1, 0, NULL));
	LOG(r, shutdown(f, SHUT_RD));
	ilen = sizeof(val);
	LOG(r, getsockopt(f, SOL_SOCKET, SO_TYPE, &val, &ilen));
	LOG(r, setsockopt(f, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)));
	alen = sizeof(got);
	LOG(r, getsockname(f, (struct sockaddr *)&got, &alen));
	LOG(r, getpeername(f, (struct sockaddr *)&got, &alen));
	LOG(r, bind(f, (struct sockaddr *)&addr, addr_len));
	LOG(r, listen(f, 1));
	LOG(r, connect(f, (struct sockaddr *)&addr, addr_len));
	LOG_FD(r, accept(f, NULL, NULL));
	LOG_FD(r, accept4(f, NULL, NULL, 0));
	LOG(r, sockatmark(f));

	/* A closed descriptor. */
	bad = closed_fd(r);
	LOG(r, send(bad, "x", 1, MSG_NOSIGNAL));
	LOG_BUF(r, recv(bad, buf, 1, 0), buf);
	LOG(r, sendto(bad, "x", 1, 0, NULL, 0));
	LOG_BUF(r, recvfrom(bad, buf, 1, 0, NULL, NULL), buf);
	LOG(r, sendmsg(bad, &msg, 0));
	LOG(r, recvmsg(bad, &msg, 0));
	LOG(r, sendmmsg(bad, mm, 1, 0));
	LOG(r, recvmmsg(bad, mm, 1, 0, NULL));
	LOG(r, shutdown(bad, SHUT_RD));
	LOG(r, getsockopt(bad, SOL_SOCKET, SO_TYPE, &val, &ilen));
	LOG(r, setsockopt(bad, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)));
	LOG(r, getsockname(bad, (struct sockaddr *)&got, &alen));
	LOG(r, getpeername(bad, (struct sockaddr *)&got, &alen));
	LOG(r, bind(bad, (struct sockaddr *)&addr, addr_len));
	LOG(r, listen(bad, 1));
	LOG(r, connect(bad, (struct sockaddr *)&addr, addr_len));
	LOG_FD(r, accept(bad, NULL, NULL));
	LOG_FD(r, accept4(bad, NULL, NULL, 0));
	LOG(r, sockatmark(bad));
	LOG(r, send_fd(sv[1], bad));

	/* Negative numbers. */
	LOG(r, send(-1, "x", 1, 0));
	LOG(r, recvmsg(-1, &msg, 0));
	LOG(r, getsockopt(-1, SOL_SOCKET, SO_TYPE, &val, &ilen));
	LOG(r, connect(-1, (struct sockaddr *)&addr, addr_len));
	LOG_FD(r, accept4(-1, NULL, NULL, 0));
	LOG(r, send_fd(sv[1], -1));

	LOG(r, close(sv[0]));
	LOG(r, close(sv[1]));
	LOG(r, close(dg[0]));
	LOG(r, close(dg[1]));
	LOG(r, close(lst));
	LOG(r, close(cli));
	LOG(r, close(cli2));
	LOG(r, close(conn));
	LOG(r, close(conn2));
	LOG(r, close(f));
}
