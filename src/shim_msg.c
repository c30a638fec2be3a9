/* SPDX-License-Identifier: MIT */
/*
 * shim_msg.c - the calls that carry descriptors inside their arguments:
 * SCM_RIGHTS messages (sendmsg, recvmsg and their mmsg forms), the socket
 * options that take or make a descriptor, and the calls that wait on
 * sets of descriptors (poll, ppoll, select, pselect).
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

/* ---- poll, select ---- */

/* Entries translated on the stack; larger arrays get a private mapping
 * (no malloc: poll is async-signal-safe). */
#define POLL_STACK 64

/*
 * Does the array, which the kernel has just read and written, name an
 * open virtual descriptor or a backing descriptor?  Then the call must be
 * made again on a translated copy: the kernel answered POLLNVAL for the
 * virtual one (not a number it has), and must for the backing one.
 */
static int poll_names_ufd(const struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		if (vfd_translate(fds[i].fd) != fds[i].fd)
			return 1;
	return 0;
}

/* Two pollfd entries, in one SSE2 register on x86-64 (GCC's generic
 * vectors elsewhere): the unit of poll_copy_seg's copy. */
typedef uint32_t poll_pair __attribute__((vector_size(16)));

/* The 16-bit word k of a pair: with k 0 and 4, the low halves of its two
 * numbers.  GCC's generic element access goes through the stack.  And the
 * constraint of a vector register in an asm operand. */
_Static_assert(FDMAP_SEG_SLOTS == 1U << 16, "poll_low takes a 16-bit word as a slot index");
#ifdef __SSE2__
typedef short poll_words __attribute__((vector_size(16)));
#define poll_low(x, k) ((uint16_t)__builtin_ia32_vec_ext_v8hi((poll_words)(x), (k)))
#define POLL_VREG "+x"
#else
#define poll_low(x, k) ((x)[(k) / 2] & (FDMAP_SEG_SLOTS - 1))
#define POLL_VREG "+w" /* aarch64 */
#endif

/* The accumulators of poll_copy_seg's pass. */
struct poll_acc {
	poll_pair any, all;	/* OR and AND of the entries' words */
	uint32_t busy0, busy1;	/* AND of the slots read (one of them: +4
				 * for 64 entries, GCC ANDs the pair's slots
				 * first, with a move) */
};

/*
 * Two entries of poll_copy_seg's pass: p[0..1] copied to q[0..1] with
 * their numbers' slots of the segment `slot` in place, translated.  The
 * indexes come out of the vector that was stored and accumulated, so that
 * the slots read are those of the numbers checked.
 */
static inline void poll_seg_pair(struct pollfd *q, const struct pollfd *p,
				 const uint32_t *slot, struct poll_acc *acc)
{
	poll_pair x;
	uint32_t v0, v1;

	__builtin_memcpy(&x, p, sizeof(x));
	__builtin_memcpy(q, &x, sizeof(x));
	v0 = __atomic_load_n(&slot[poll_low(x, 0)], __ATOMIC_ACQUIRE);
	v1 = __atomic_load_n(&slot[poll_low(x, 4)], __ATOMIC_ACQUIRE);
	acc->any |= x;
	acc->all &= x;
	acc->busy0 &= v0;
	acc->busy1 &= v1;
	q[0].fd = (int)(v0 >> VFD_REAL_SHIFT);
	q[1].fd = (int)(v1 >> VFD_REAL_SHIFT);
	/* One chain each: GCC would regroup the ANDs and ORs of an unrolled
	 * block into trees, at a move an entry (poll of 64 virtual
	 * descriptors +806 without this, instead of +617). */
	__asm__("" : "+r"(acc->busy0), "+r"(acc->busy1), POLL_VREG(acc->any),
		POLL_VREG(acc->all));
}

/* Entries in a block of the loops over a poll array: fully unrolled, at
 * constant offsets, then the rest one by one.  GCC's own unrolling of a
 * loop of unknown count steps its pointers at every entry, and computes
 * where to jump in: poll_copy_seg's pair loop so (#pragma GCC unroll 8)
 * puts poll of 64 virtual descriptors at +634 and ppoll at +659 (budget
 * +652), instead of +617 and +640; not unrolled, +734 and +757. */
#define POLL_BLOCK 32

/*
 * The common array of a program that polls virtual descriptors: every
 * entry an open one, all in one segment of the map (as all are in a
 * process with fewer than 65,536).  Copies the n (> 0) entries of fds to
 * copy, translated, and returns 1 if the array is such; else 0, copy's
 * content unspecified.  Lock-free and async-signal-safe, as
 * vfd_translate.
 *
 * One pass without a branch per entry over the segment of the first
 * entry's number (any 16-bit index is one of its slots): poll_seg_pair
 * copies each pair with the slots in place and accumulates the OR and the
 * AND of the words (of which words 0 and 2 are the numbers) and of the
 * slots.  After it, one test says whether every number had the first
 * one's high bits, its segment, and whether every slot was open: the
 * slots read were then those of the numbers themselves, as loaded (the
 * caller's array may change meanwhile).  The test is made on the vectors
 * (the first number XORed into both, their number words ORed together),
 * with one move out of them.
 *
 * Why pairs in vector registers: seven instructions an entry.  The plain
 * loop, an entry at a time (its number, slot and the two accumulators in
 * general registers), takes about 14: poll of 64 virtual descriptors
 * +1,044 and ppoll +1,067 against issue 12's +652 (unrolled sixteen
 * times, +818 and +841); the OR of (number XOR first number) instead of
 * the OR and the AND, +641 and +664 (a move a pair).
 */
static inline __attribute__((always_inline)) int
poll_copy_seg(struct pollfd *copy, const struct pollfd *fds, nfds_t n)
{
	nfds_t i = 0, blocks = n & -(nfds_t)POLL_BLOCK;
	uint32_t seg = (uint32_t)fds->fd, off;
	struct poll_acc acc = { { 0 }, { 0 }, VFD_BUSY, VFD_BUSY };
	poll_pair segs;
	const uint32_t *slot;

	if (!vfd_in_space((int)seg))
		return 0;
	slot = fdmap_seg_slots(&vfd_map, seg - FD_UNSEQ_BASE);
	if (!slot)
		return 0;
	segs = (poll_pair){ seg, seg, seg, seg };
	acc.all = ~acc.any;
	/* One index for both arrays: the copy's entries are at constant
	 * offsets from the stack pointer. */
	for (; i != blocks; i += POLL_BLOCK)
#pragma GCC unroll 16 /* POLL_BLOCK / 2 */
		for (int k = 0; k < POLL_BLOCK; k += 2)
			poll_seg_pair(copy + i + k, fds + i + k, slot, &acc);
	for (; i != (n & -(nfds_t)2); i += 2)
		poll_seg_pair(copy + i, fds + i, slot, &acc);
	if (n & 1) {
		/* The last entry, as a pair of itself. */
		struct pollfd *q = copy + i;
		poll_pair x;
		uint32_t v;

		*q = fds[i];
		x = (poll_pair){ (uint32_t)q->fd, 0, (uint32_t)q->fd, 0 };
		acc.any |= x;
		acc.all &= x;
		v = __atomic_load_n(&slot[(uint32_t)q->fd & (FDMAP_SEG_SLOTS - 1)],
				    __ATOMIC_ACQUIRE);
		acc.busy0 &= v;
		q->fd = (int)(v >> VFD_REAL_SHIFT);
	}
	acc.any = (acc.any ^ segs) | (acc.all ^ segs);
	acc.any |= __builtin_shufflevector(acc.any, acc.any, 2, 3, 0, 1);
	off = acc.any[0];
	return off < FDMAP_SEG_SLOTS && (acc.busy0 & acc.busy1);
}

/*
 * The other arrays, those poll_copy_seg does not take on the stack (n >
 * POLL_STACK: it is tried on the mapping; or not all open virtual
 * descriptors of one segment): a copy of fds (which
 * the kernel has just read: it can be) with every entry translated: a
 * virtual descriptor's backing one, VFD_NO_FD for a backing descriptor's
 * own number, a closed virtual number kept, so that the kernel answers
 * POLLNVAL for both as for any closed descriptor.  In stack (room for
 * POLL_STACK) or a new mapping (*mapped set to its length).  Returns the
 * copy; fds itself if the array names none of ufd's numbers (there is
 * nothing to translate); NULL if the mapping fails.
 *
 * A copy, never the caller's array translated in place and put back: the
 * kernel writes only revents there, and another thread or a signal
 * handler may read the array meanwhile, and must never see a backing
 * number there.
 */
__attribute__((noinline)) static struct pollfd *
poll_translate(struct pollfd *fds, nfds_t n, struct pollfd *stack, size_t *mapped)
{
	struct pollfd *copy = stack;

	*mapped = 0;
	if (!poll_names_ufd(fds, n))
		return fds;
	if (n > POLL_STACK) {
		*mapped = n * sizeof(*fds);
		copy = ufd_sys_mmap(NULL, *mapped, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ufd_sys_is_error((long)copy))
			return NULL;
		if (poll_copy_seg(copy, fds, n))
			return copy;
	}
	__builtin_memcpy(copy, fds, n * sizeof(*fds));
	vfd_translate_each(&copy->fd, n, sizeof(*copy));
	return copy;
}

/*
 * Give the caller the revents of the copy, and free the copy.  errno is
 * the real call's: nothing here sets it (raw munmap).  Every entry's
 * revents is written, as the kernel does; when it found nothing ready (a
 * timeout), they are all zero, and need not be read.  In blocks of
 * POLL_BLOCK, and the zero in a register: as two plain loops (each
 * #pragma GCC unroll 8), poll of 64 virtual descriptors is +699 and ppoll
 * +723, over issue 12's +652.
 */
static inline int poll_finish(struct pollfd *fds, struct pollfd *copy, nfds_t n,
			      size_t mapped, int ret)
{
	struct pollfd *p = fds, *blocks_end = fds + (n & -(nfds_t)POLL_BLOCK),
		      *end = fds + n;
	const struct pollfd *q = copy;

	if (ret == 0) {
		short zero = 0;

		/* In a register: GCC would zero one for each 16-bit store. */
		__asm__("" : "+r"(zero));
		for (; p != blocks_end; p += POLL_BLOCK)
#pragma GCC unroll 32 /* POLL_BLOCK */
			for (int k = 0; k < POLL_BLOCK; k++)
				p[k].revents = zero;
		for (; p != end; p++)
			p->revents = zero;
	} else if (ret > 0) {
		for (; p != blocks_end; p += POLL_BLOCK, q += POLL_BLOCK)
#pragma GCC unroll 32 /* POLL_BLOCK */
			for (int k = 0; k < POLL_BLOCK; k++)
				p[k].revents = q[k].revents;
		for (; p != end; p++, q++)
			p->revents = q->revents;
	}
	if (mapped)
		ufd_sys_munmap(copy, mapped);
	return ret;
}

/* The call again, poll or ppoll, on the copy of the array. */
static inline __attribute__((always_inline)) int
poll_call(struct pollfd *fds, nfds_t n, int is_ppoll, int timeout,
	  const struct timespec *ts, const sigset_t *mask)
{
	return is_ppoll ? UFD_REAL(ppoll)(fds, n, ts, mask) : UFD_REAL(poll)(fds, n, timeout);
}

/*
 * poll_virtual_body for the arrays poll_copy_seg does not take, with r
 * the first call's result (> 0): poll_translate's copy.  Out of line: the
 * common case then keeps fewer values across its calls.
 */
__attribute__((noinline)) static int
poll_other(struct pollfd *fds, nfds_t n, int is_ppoll, int timeout,
	   const struct timespec *ts, const sigset_t *mask, int r)
{
	struct pollfd stack[POLL_STACK], *copy;
	size_t mapped;

	copy = poll_translate(fds, n, stack, &mapped);
	if (copy == fds) /* nothing of ufd's in it: r stands */
		return r;
	if (!copy) /* no room for a copy */
		return ufd_ret(-ENOMEM);
	r = poll_call(copy, n, is_ppoll, timeout, ts, mask);
	return poll_finish(fds, copy, n, mapped, r);
}

/*
 * poll, or ppoll if is_ppoll (with ts and mask; else timeout), on the
 * caller's array fds in a process that holds virtual descriptors.  The
 * kernel reads the array first: the call is made as it is, and only if it
 * found something (an entry with a virtual number makes it return at once,
 * with POLLNVAL for it) is the array looked at, never one the kernel could
 * not read.  If it names one of ufd's numbers, the call is made again on a
 * translated copy, whose revents are handed back; else the first result
 * stands.
 */
static inline __attribute__((always_inline)) int
poll_virtual_body(struct pollfd *fds, nfds_t n, int is_ppoll, int timeout,
		  const struct timespec *ts, const sigset_t *mask)
{
	struct pollfd stack[POLL_STACK];
	int r = poll_call(fds, n, is_ppoll, timeout, ts, mask);

	if (r <= 0)
		return r;
	/* r > 0: n > 0, as poll_copy_seg needs. */
	if (n <= POLL_STACK && poll_copy_seg(stack, fds, n))
		return poll_finish(fds, stack, n, 0,
				   poll_call(stack, n, is_ppoll, timeout, ts, mask));
	return poll_other(fds, n, is_ppoll, timeout, ts, mask, r);
}

/* Out of line: the wrappers' common case keeps no frame. */
__attribute__((noinline)) static int poll_virtual(struct pollfd *fds, nfds_t n, int timeout)
{
	return poll_virtual_body(fds, n, 0, timeout, NULL, NULL);
}

__attribute__((noinline)) static int ppoll_virtual(struct pollfd *fds, nfds_t n,
						   const struct timespec *ts,
						   const sigset_t *mask)
{
	return poll_virtual_body(fds, n, 1, 0, ts, mask);
}

/*
 * Until the process holds a virtual descriptor, no number in the array
 * can be ufd's: the call goes to libc as it is.  The fortified forms
 * check the array's length as glibc's do (which abort when it is short)
 * before the call on a copy, whose length is ufd's.
 */
UFD_PUBLIC int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (__builtin_expect(!vfd_any(), 1))
		return UFD_REAL(poll)(fds, n, timeout);
	return poll_virtual(fds, n, timeout);
}

UFD_PUBLIC int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		     const sigset_t *mask)
{
	if (__builtin_expect(!vfd_any(), 1))
		return UFD_REAL(ppoll)(fds, n, timeout, mask);
	return ppoll_virtual(fds, n, timeout, mask);
}

UFD_PUBLIC int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	if (__builtin_expect(!vfd_any(), 1) || fdslen / sizeof(*fds) < n)
		return UFD_REAL(__poll_chk)(fds, n, timeout, fdslen);
	return poll_virtual(fds, n, timeout);
}

UFD_PUBLIC int __ppoll_chk(struct pollfd *fds, nfds_t n,
			   const struct timespec *timeout, const sigset_t *mask,
			   size_t fdslen)
{
	if (__builtin_expect(!vfd_any(), 1) || fdslen / sizeof(*fds) < n)
		return UFD_REAL(__ppoll_chk)(fds, n, timeout, mask, fdslen);
	return ppoll_virtual(fds, n, timeout, mask);
}

/*
 * An fd_set holds FD_SETSIZE descriptors, so a virtual one cannot be in it:
 * FD_SET of it has already written past the set (glibc's fortified FD_SET
 * aborts instead).  select() with nfds reaching the virtual space fails
 * with EBADF, what the kernel says of a set naming a closed descriptor,
 * rather than having the kernel read and write that far past the sets.
 */
static int select_reaches_virtual(int nfds)
{
	return nfds > (int)FD_UNSEQ_BASE;
}

static int select_refused(enum ufd_call call, int nfds, fd_set *r, fd_set *w,
			  fd_set *e)
{
	if (ufd_settings.report)
		ufd_report_select_wide(call, nfds, r, w, e);
	UFD_LOG("refused %s with nfds %d: virtual descriptors do not fit in "
		"an fd_set (EBADF)", ufd_call_name(call), nfds);
	return ufd_ret(-EBADF);
}

/*
 * Does one of the sets name a backing descriptor (below nfds)?  Only
 * numbers from vfd_guard_from up can be one, so this reads nothing for the
 * usual nfds: it matters below the limit, where backing descriptors go
 * when there is no room above it.  Then it reads, without faulting, the
 * one word of each set that holds each backing descriptor below nfds (a
 * set that cannot be read is the kernel's EFAULT).
 */
static int select_names_backing(int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	fd_set *sets[3] = { r, w, e };
	int b;

	if (nfds <= (int)__atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED))
		return 0;
	for (b = vfd_next_backing((int)__atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED)); b >= 0 && b < nfds;
	     b = vfd_next_backing(b + 1))
		for (int i = 0; i < 3; i++) {
			__fd_mask word;

			if (sets[i] &&
			    ufd_sys_read_self(&word, &sets[i]->fds_bits[b / __NFDBITS],
					      sizeof(word)) == (long)sizeof(word) &&
			    ((unsigned long)word >> (b % __NFDBITS) & 1))
				return 1;
		}
	return 0;
}

/* A set names a backing descriptor: EBADF, as for a closed descriptor
 * (which the number is, to the program: a use after close if it closed
 * it). */
static int select_backing(enum ufd_call call, int nfds, fd_set *r, fd_set *w,
			  fd_set *e)
{
	if (ufd_settings.report)
		ufd_report_select_ebadf(call, nfds, r, w, e, 0);
	return ufd_ret(-EBADF);
}

/* select's checks for syscall(SYS_select) and SYS_pselect6 (shim.h); the
 * wrappers below keep them inline, on their common path. */
int ufd_select_check(enum ufd_call call, int nfds, fd_set *r, fd_set *w, fd_set *e)
{
	/* The two refusals report as the wrappers' do, and give EBADF. */
	if (select_reaches_virtual(nfds)) {
		select_refused(call, nfds, r, w, e);
		return -EBADF;
	}
	if (select_names_backing(nfds, r, w, e)) {
		select_backing(call, nfds, r, w, e);
		return -EBADF;
	}
	return 0;
}

UFD_PUBLIC int select(int nfds, fd_set *r, fd_set *w, fd_set *e,
		      struct timeval *timeout)
{
	if (select_reaches_virtual(nfds))
		return select_refused(UFD_CALL_select, nfds, r, w, e);
	if (select_names_backing(nfds, r, w, e))
		return select_backing(UFD_CALL_select, nfds, r, w, e);
	return UFD_REAL(select)(nfds, r, w, e, timeout);
}

UFD_PUBLIC int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		       const struct timespec *timeout, const sigset_t *mask)
{
	if (select_reaches_virtual(nfds))
		return select_refused(UFD_CALL_pselect, nfds, r, w, e);
	if (select_names_backing(nfds, r, w, e))
		return select_backing(UFD_CALL_pselect, nfds, r, w, e);
	return UFD_REAL(pselect)(nfds, r, w, e, timeout, mask);
}

