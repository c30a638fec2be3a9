/* SPDX-License-Identifier: MIT */
/*
 * shim_msg.c - the calls that carry descriptors inside their arguments:
 * SCM_RIGHTS messages (sendmsg, recvmsg and their mmsg forms), and the
 * socket options that take or make a descriptor.  The calls that wait on
 * sets of descriptors (poll, ppoll, select, pselect) are shim_poll.c.
 */
#include "shim.h"

#include <string.h>

#include "log.h"
#include "report.h"
#include "sys.h"
#include "vfd_table.h"

/* ---- SCM_RIGHTS messages ---- */


/*
 * The descriptors of control header c of msg, if it is an SCM_RIGHTS one
 * that starts inside msg_controllen: returns them, their count in *n (no
 * more than the buffer holds: a header may claim more, for the kernel's
 * EINVAL); else NULL.
 */
static int *rights_in(const struct msghdr *msg, struct cmsghdr *c, size_t *n)
{
	int *fds = (int *)CMSG_DATA(c);
	char *end = (char *)msg->msg_control + msg->msg_controllen;

	if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len < CMSG_LEN(0) || (char *)fds > end)
		return NULL;
	*n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (*n > (size_t)(end - (char *)fds) / sizeof(int))
		*n = (size_t)(end - (char *)fds) / sizeof(int);
	return fds;
}

/*
 * The one walk over the SCM_RIGHTS descriptors in msg's control data:
 * counts those that map() changes and, with store, writes the new value in
 * place.  Only ever on a message ufd may read and write: its own copy, or
 * one that recvmsg filled (the kernel has written msg_controllen bytes at
 * msg_control).
 */
static size_t map_rights(const struct msghdr *msg, int (*map)(int fd), int store)
{
	struct cmsghdr *c;
	size_t changed = 0;

	if (msg->msg_controllen < sizeof(struct cmsghdr))
		return 0;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		size_t n;
		int *fds = rights_in(msg, c, &n);

		if (!fds)
			continue;
		for (size_t i = 0; i < n; i++) {
			int fd = map(fds[i]);

			if (fd != fds[i]) {
				changed++;
				if (store)
					fds[i] = fd;
			}
		}
	}
	return changed;
}

/* UFD_MODE=all and random, and the sanitizer's records (UFD_REPORT): a
 * descriptor received with SCM_RIGHTS is a new one too. */
static inline int rights_are_new(void)
{
	return ufd_settings.mode_all | ufd_settings.mode_random | (ufd_settings.report != NULL);
}

static int received_msg(int fd)
{
	return ufd_ret_new_fd_known(fd, 0, UFD_CALL_recvmsg, 0);
}

/* With MSG_CMSG_CLOEXEC, which the kernel echoes in msg_flags. */
static int received_msg_cloexec(int fd)
{
	return ufd_ret_new_fd_known(fd, 0, UFD_CALL_recvmsg, 1);
}

static int received_mmsg(int fd)
{
	return ufd_ret_new_fd_known(fd, 0, UFD_CALL_recvmmsg, 0);
}

static int received_mmsg_cloexec(int fd)
{
	return ufd_ret_new_fd_known(fd, 0, UFD_CALL_recvmmsg, 1);
}

/* The descriptors recvmsg received into msg, as new ones; returns r. */
__attribute__((noinline)) static ssize_t received_rights(struct msghdr *msg, ssize_t r)
{
	map_rights(msg, msg->msg_flags & MSG_CMSG_CLOEXEC ? received_msg_cloexec
							 : received_msg, 1);
	return r;
}

/* A received descriptor on 0, 1 or 2 loses the close-on-exec flag that
 * UFD_CLOEXEC added (MSG_CMSG_CLOEXEC): standard streams are never
 * affected. */
static int received_std(int fd)
{
	newfd_std_fixup(fd, 1);
	return fd;
}

/* After a receive to which UFD_CLOEXEC added MSG_CMSG_CLOEXEC (the n
 * messages at msg, filled by the kernel): the kernel echoes the flag in
 * msg_flags, where the caller, who did not ask for it, would see it; and
 * 0-2 as above.  Out of line: only under UFD_CLOEXEC. */
__attribute__((noinline, cold)) static void cloexec_added(struct msghdr *msg, int n,
							  size_t stride)
{
	for (int i = 0; i < n; i++, msg = (struct msghdr *)((char *)msg + stride)) {
		msg->msg_flags &= ~MSG_CMSG_CLOEXEC;
		map_rights(msg, received_std, 0);
	}
}

/*
 * The kernel's limit is above the application's (placement.h): received
 * descriptors past the application's limit are closed, and the message
 * truncated as the kernel truncates it at its own limit (scm_detach_fds):
 * the SCM_RIGHTS header keeps those installed before, or goes when none
 * was, and MSG_CTRUNC.  SCM_RIGHTS is the last header the kernel writes.
 */
static void rights_within_limit(struct msghdr *msg)
{
	unsigned limit = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);
	char *start = msg->msg_control;
	struct cmsghdr *c;

	if (limit == UINT_MAX)
		return;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t n, i, space;
		int *fds = rights_in(msg, c, &n);

		if (!fds)
			continue;
		for (i = 0; i < n && (unsigned)fds[i] < limit; i++)
			;
		if (i == n)
			continue;
		for (size_t j = i; j < n; j++)
			ufd_sys_close(fds[j]);
		msg->msg_flags |= MSG_CTRUNC;
		space = i ? CMSG_SPACE(i * sizeof(int)) : 0;
		if (i)
			c->cmsg_len = CMSG_LEN(i * sizeof(int));
		if ((size_t)((char *)c - start) + space < msg->msg_controllen)
			msg->msg_controllen = (size_t)((char *)c - start) + space;
		return;
	}
}

/* recvmsg unless newfd_plain (UFD_CLOEXEC, a mode, the sanitizer, or the
 * kernel's limit raised over the application's), out of line: received
 * descriptors past the application's limit go, and the others are new
 * ones in mode all and random.  Only msg is kept across the call, for a
 * small frame. */
static ssize_t recvmsg_cloexec(int fd, struct msghdr *msg, int flags);

__attribute__((noinline)) static ssize_t recvmsg_slow(int fd, struct msghdr *msg,
						      int flags)
{
	ssize_t r;

	if (__builtin_expect(ufd_settings.cloexec, 0) && !(flags & MSG_CMSG_CLOEXEC))
		return recvmsg_cloexec(fd, msg, flags);
	r = UFD_REAL(recvmsg)(vfd_translate(fd), msg, flags);
	if (r < 0 || msg->msg_controllen < sizeof(struct cmsghdr))
		return r;
	rights_within_limit(msg);
	if (!rights_are_new())
		return r;
	return received_rights(msg, r);
}

/* UFD_CLOEXEC's recvmsg: with MSG_CMSG_CLOEXEC, then the flag's traces
 * gone (cloexec_added).  Out of line, as the setting is rare. */
__attribute__((noinline, cold)) static ssize_t recvmsg_cloexec(int fd, struct msghdr *msg,
							       int flags)
{
	ssize_t r = recvmsg_slow(fd, msg, flags | MSG_CMSG_CLOEXEC);

	if (r >= 0)
		cloexec_added(msg, 1, sizeof(*msg));
	return r;
}

/* newfd_plain: a received descriptor is the application's as the kernel
 * makes it, a tail call. */
UFD_PUBLIC ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	if (__builtin_expect(newfd_plain(), 1))
		return UFD_REAL(recvmsg)(vfd_translate(fd), msg, flags);
	return recvmsg_slow(fd, msg, flags);
}

/* Messages whose headers sendmmsg reads in one system call: less than
 * 4 KiB of them, as ufd_sys_read_self_span reads. */
#define MMSG_BATCH 32

/*
 * Does one of the n headers at h (memory ufd may read) have control data
 * that may hold a descriptor?  Only if the OR of their lengths is that
 * large.  Unrolled eight times (GCC): otherwise the loop's own three
 * instructions a header, for its one OR, put sendmmsg + recvmmsg of 16
 * messages on a virtual socket at +256 instead of +181, over issue 12's
 * budget of +184 (unrolled four times +193, sixteen +217).
 */
static inline int mmsg_any_control(const struct mmsghdr *h, unsigned int n)
{
	size_t any = 0;

#pragma GCC unroll 8
	for (unsigned int i = 0; i < n; i++)
		any |= h[i].msg_hdr.msg_controllen;
	return any >= sizeof(struct cmsghdr);
}

/* The descriptors recvmmsg received into the r (> 0) messages of vec (the
 * kernel has written their headers), as new ones; returns r.  Out of
 * line: only for headers with control data (mmsg_any_control). */
__attribute__((noinline)) static int mmsg_received(struct mmsghdr *vec, int r)
{
	for (int i = 0; i < r; i++) {
		rights_within_limit(&vec[i].msg_hdr);
		if (rights_are_new())
			map_rights(&vec[i].msg_hdr,
				   vec[i].msg_hdr.msg_flags & MSG_CMSG_CLOEXEC
					   ? received_mmsg_cloexec : received_mmsg, 1);
	}
	return r;
}

static int recvmmsg_cloexec(int fd, struct mmsghdr *vec, unsigned int n, int flags,
			    struct timespec *timeout);

/* recvmmsg unless newfd_plain, out of line, as recvmsg_slow. */
__attribute__((noinline)) static int recvmmsg_slow(int fd, struct mmsghdr *vec,
						   unsigned int n, int flags,
						   struct timespec *timeout)
{
	int r;

	if (__builtin_expect(ufd_settings.cloexec, 0) && !(flags & MSG_CMSG_CLOEXEC))
		return recvmmsg_cloexec(fd, vec, n, flags, timeout);
	r = UFD_REAL(recvmmsg)(vfd_translate(fd), vec, n, flags, timeout);
	if (r > 0 && mmsg_any_control(vec, (unsigned int)r))
		return mmsg_received(vec, r);
	return r;
}

/* UFD_CLOEXEC's recvmmsg, as recvmsg_cloexec. */
__attribute__((noinline, cold)) static int recvmmsg_cloexec(int fd, struct mmsghdr *vec,
							    unsigned int n, int flags,
							    struct timespec *timeout)
{
	int r = recvmmsg_slow(fd, vec, n, flags | MSG_CMSG_CLOEXEC, timeout);

	if (r > 0)
		cloexec_added(&vec->msg_hdr, r, sizeof(*vec));
	return r;
}

UFD_PUBLIC int recvmmsg(int fd, struct mmsghdr *vec, unsigned int n, int flags,
			struct timespec *timeout)
{
	if (__builtin_expect(newfd_plain(), 1))
		return UFD_REAL(recvmmsg)(vfd_translate(fd), vec, n, flags, timeout);
	return recvmmsg_slow(fd, vec, n, flags, timeout);
}

/* The kernel refuses control data past net.core.optmem_max (20 KiB by
 * default), so a copy on the stack up to this size covers every message it
 * would accept; larger ones go to the kernel as they are, to be refused. */
#define CONTROL_COPY_MAX 65536

/*
 * The control data of the message whose header `copy` is (ufd's copy, with
 * sizeof(struct cmsghdr) <= msg_controllen <= CONTROL_COPY_MAX) read into
 * control, msg_controllen bytes, and copy pointed at it: returns 1; 0 if
 * it cannot be read (the kernel's EFAULT).
 */
static int read_control(struct msghdr *copy, void *control)
{
	if (ufd_sys_read_self(control, copy->msg_control, copy->msg_controllen) !=
	    (long)copy->msg_controllen)
		return 0;
	copy->msg_control = control;
	return 1;
}

/* Is a header's msg_controllen one that read_control reads?  Below, no
 * descriptor fits; above, the kernel refuses the message. */
static inline int control_to_read(const struct msghdr *h)
{
	return h->msg_controllen >= sizeof(struct cmsghdr) &&
	       h->msg_controllen <= CONTROL_COPY_MAX;
}

/*
 * sendmsg(fd, msg, flags) in a process that holds virtual descriptors: if
 * the message carries a virtual or a backing descriptor with SCM_RIGHTS,
 * it is sent from a copy with them translated (a backing descriptor must
 * never be sent: VFD_NO_FD, for the kernel's EBADF).  msg is read with
 * ufd_sys_read_self, before the kernel does; what cannot be read goes to
 * the kernel as it is, for its EFAULT.
 */
__attribute__((noinline)) static ssize_t send_translated(int fd,
							 const struct msghdr *msg,
							 int flags)
{
	struct msghdr copy;

	if (ufd_sys_read_self(&copy, msg, sizeof(copy)) != (long)sizeof(copy) ||
	    !control_to_read(&copy))
		return UFD_REAL(sendmsg)(fd, msg, flags);

	_Alignas(struct cmsghdr) char control[copy.msg_controllen];

	if (!read_control(&copy, control) || !map_rights(&copy, vfd_translate, 1))
		return UFD_REAL(sendmsg)(fd, msg, flags);
	return UFD_REAL(sendmsg)(fd, &copy, flags);
}

UFD_PUBLIC ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	fd = vfd_translate(fd);
	/* No virtual descriptor: no number in the message can be ufd's. */
	if (__builtin_expect(!vfd_any(), 1))
		return UFD_REAL(sendmsg)(fd, msg, flags);
	return send_translated(fd, msg, flags);
}

/* Does the message whose header h is (ufd's copy, control_to_read) carry
 * a virtual or a backing descriptor?  No if its control data cannot be
 * read: the kernel's EFAULT stops sendmmsg there. */
__attribute__((noinline)) static int rights_to_translate(const struct msghdr *h)
{
	struct msghdr copy = *h;
	_Alignas(struct cmsghdr) char control[copy.msg_controllen];

	return read_control(&copy, control) && map_rights(&copy, vfd_translate, 0);
}

/* ufd_sys_read_self, out of line where it is rare. */
__attribute__((noinline)) static long read_self_slow(void *dst, const void *src, size_t len)
{
	return ufd_sys_read_self(dst, src, len);
}

/* The first of the n headers (ufd's copies) whose message carries a
 * virtual or a backing descriptor, or n.  Out of line: rare. */
__attribute__((noinline)) static unsigned int mmsg_rights(const struct mmsghdr *head,
							  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (control_to_read(&head[i].msg_hdr) && rights_to_translate(&head[i].msg_hdr))
			break;
	return i;
}

/*
 * The first of vec's n messages that carries a virtual or a backing
 * descriptor with SCM_RIGHTS, or n if none does before the first that
 * cannot be read (where the kernel's sendmmsg stops: the count sent before
 * it, or EFAULT).  The headers are read MMSG_BATCH at a time, as the
 * kernel reads them (each mmsghdr's msghdr, not its msg_len), with one
 * process_vm_readv; the control data only of those that have any.  vec
 * may be NULL or unmapped: it is only read through the kernel.
 */
static inline __attribute__((always_inline)) unsigned int
mmsg_first_to_translate(const struct mmsghdr *vec, unsigned int n)
{
	struct mmsghdr head[MMSG_BATCH];
	unsigned int from = 0;

	while (from < n) {
		unsigned int k = n - from < MMSG_BATCH ? n - from : MMSG_BATCH, whole, i;
		const void *at = (const void *)((uintptr_t)vec + from * sizeof(*vec));
		size_t len = (k - 1) * sizeof(*vec) + sizeof(struct msghdr);
		long got = ufd_sys_read_self_span(head, at, len);

		whole = k;
		if (__builtin_expect(got != (long)len, 0)) {
			if (got == -ENOSYS || got == -EPERM)
				got = read_self_slow(head, at, len);
			if (got < (long)sizeof(struct msghdr))
				break;
			/* The headers read whole. */
			whole = (unsigned int)(((size_t)got - sizeof(struct msghdr)) /
					       sizeof(*vec)) + 1;
		}
		/* Those that have control data are looked at. */
		if (__builtin_expect(mmsg_any_control(head, whole), 0) &&
		    (i = mmsg_rights(head, whole)) < whole)
			return from + i;
		if (whole < k)
			break;
		from += k;
	}
	return n;
}

/*
 * The common case of mmsg_first_to_translate: are vec's n messages (0 < n
 * <= MMSG_BATCH) readable whole, none with control data that may hold a
 * descriptor?  Then none carries one to translate.  Else 0, for the
 * general walk.  One straight read, with no state kept for a next batch.
 */
static inline __attribute__((always_inline)) int
mmsg_batch_plain(const struct mmsghdr *vec, unsigned int n)
{
	struct mmsghdr head[MMSG_BATCH];
	size_t len = (n - 1) * sizeof(*vec) + sizeof(struct msghdr);

	return ufd_sys_read_self_span(head, vec, len) == (long)len &&
	       !mmsg_any_control(head, n);
}

/*
 * sendmmsg on fd (translated) in a process that holds virtual descriptors,
 * out of line (the wrapper's common case keeps no frame).  The messages
 * before the first that carries a virtual SCM_RIGHTS descriptor go in one
 * real sendmmsg, not read again after their check; from that one on, one
 * sendmsg per message (send_translated, which reads that first one a
 * second time), with sendmmsg's own result rules (the count sent, or -1 if
 * the first message failed).
 */
__attribute__((noinline)) static int sendmmsg_translated(int fd, struct mmsghdr *vec,
							 unsigned int n, int flags)
{
	unsigned int i, first = mmsg_first_to_translate(vec, n);

	if (first == n)
		return UFD_REAL(sendmmsg)(fd, vec, n, flags);
	if (first) {
		int r = UFD_REAL(sendmmsg)(fd, vec, first, flags);

		if (r < (int)first)
			return r;
	}
	for (i = first; i < n; i++) {
		ssize_t r = send_translated(fd, &vec[i].msg_hdr, flags);
		unsigned int len = (unsigned int)r;

		if (r < 0)
			return i ? (int)i : -1;
		/* Written as the kernel writes it: where it cannot be, the
		 * message is sent but not counted. */
		if (ufd_sys_write_self(&vec[i].msg_len, &len, sizeof(len)) != sizeof(len))
			return i ? (int)i : ufd_ret(-EFAULT);
	}
	return (int)n;
}

/*
 * sendmmsg_translated, with the common batch (mmsg_batch_plain) first.
 * The read's two system calls take every argument register: the arguments
 * wait in memory (volatile), stored once and read back once.  As plain
 * locals GCC keeps them in saved registers, pushed and popped around it,
 * and sendmmsg + recvmmsg of 16 messages on a virtual socket cost +186
 * instead of +181, over issue 12's budget of +184.
 */
__attribute__((noinline)) static int sendmmsg_virtual(int fd, struct mmsghdr *vec,
						      unsigned int n, int flags)
{
	volatile struct {
		struct mmsghdr *vec;
		unsigned int n;
		int fd, flags;
	} c;

	c.vec = vec;
	c.n = n;
	c.fd = fd;
	c.flags = flags;
	if (n - 1 < MMSG_BATCH && mmsg_batch_plain(vec, n))
		return UFD_REAL(sendmmsg)(c.fd, c.vec, c.n, c.flags);
	return sendmmsg_translated(c.fd, c.vec, c.n, c.flags);
}

UFD_PUBLIC int sendmmsg(int fd, struct mmsghdr *vec, unsigned int n, int flags)
{
	fd = vfd_translate(fd);
	if (__builtin_expect(!vfd_any(), 1))
		return UFD_REAL(sendmmsg)(fd, vec, n, flags);
	return sendmmsg_virtual(fd, vec, n, flags);
}

/* ---- socket options that carry a descriptor ---- */

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

UFD_PUBLIC int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	int prog;

	fd = vfd_translate(fd);
	/* The program's descriptor is an int in val, which the kernel
	 * reads: a copy, translated, read without faulting. */
	if (__builtin_expect(vfd_any(), 0) && level == SOL_SOCKET &&
	    (name == SO_ATTACH_BPF || name == SO_ATTACH_REUSEPORT_EBPF) &&
	    len == sizeof(prog) &&
	    ufd_sys_read_self(&prog, val, sizeof(prog)) == (long)sizeof(prog)) {
		prog = vfd_translate(prog);
		return UFD_REAL(setsockopt)(fd, level, name, &prog, len);
	}
	return UFD_REAL(setsockopt)(fd, level, name, val, len);
}

UFD_PUBLIC int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	int r = UFD_REAL(getsockopt)(vfd_translate(fd), level, name, val, len), pidfd;

	/* SO_PEERPIDFD makes a pidfd, and writes it into val (an int, as
	 * the kernel has just written it): a new descriptor, as any other. */
	if (__builtin_expect(r == 0 && level == SOL_SOCKET && name == SO_PEERPIDFD &&
			     !newfd_plain(), 0)) {
		__builtin_memcpy(&pidfd, val, sizeof(pidfd));
		pidfd = ufd_ret_new_fd(pidfd, 0, UFD_CALL_getsockopt);
		if (pidfd < 0)
			return -1;
		__builtin_memcpy(val, &pidfd, sizeof(pidfd));
	}
	return r;
}
