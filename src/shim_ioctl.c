/* SPDX-License-Identifier: MIT */
/*
 * shim_ioctl.c - ioctl: the descriptor it is made on, and the requests
 * whose argument is, holds or makes a descriptor.
 *
 * An ioctl's argument is opaque to libc.  The requests ufd knows to carry
 * a descriptor are the rows of IOCTL_FDS below, each saying where the
 * descriptor is; the descriptor is translated as any descriptor argument
 * is (a backing descriptor's own number to VFD_NO_FD, for the kernel's
 * EBADF), and one the call makes is a new descriptor like any other
 * (UFD_MODE=all, UFD_CLOEXEC, the application's limit).  Every other
 * request passes unchanged: its argument is not a descriptor, or not one
 * ufd knows (ufd(7), "Not covered").
 */
#include "shim.h"

#include <linux/fs.h>
#include <linux/loop.h>
#include <linux/nsfs.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <stddef.h>

#include "sys.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* Newer than the kernel headers ufd may be built with. */
#ifndef NS_GET_PARENT
#define NS_GET_PARENT _IO(NSIO, 0x2)
#endif
#define PIDFD_IOCTL(n) _IO(0xFF, n) /* PIDFS_IOCTL_MAGIC, Linux 6.11 */

/*
 * Where a request's descriptor is:
 *   ARG       the argument itself;
 *   FIELD     a 32- or 64-bit field at an offset of the structure the
 *             argument points to (of the given size);
 *   DEDUPE    FIDEDUPERANGE: dest_fd of each struct file_dedupe_range_info;
 *   MAKES     the result is a new descriptor (for TIOCGPTPEER the argument
 *             is its open flags, which take O_CLOEXEC under UFD_CLOEXEC).
 *
 * X(request, where, struct size, field offset, field size)
 */
#define IOCTL_FDS(X)                                                                \
	X(FICLONE, ARG, 0, 0, 0)                                                   \
	X(LOOP_SET_FD, ARG, 0, 0, 0)                                               \
	X(LOOP_CHANGE_FD, ARG, 0, 0, 0)                                            \
	X(PERF_EVENT_IOC_SET_OUTPUT, ARG, 0, 0, 0)                                 \
	X(FICLONERANGE, FIELD, sizeof(struct file_clone_range),                    \
	  offsetof(struct file_clone_range, src_fd), 8)                            \
	X(LOOP_CONFIGURE, FIELD, sizeof(struct loop_config),                       \
	  offsetof(struct loop_config, fd), 4)                                     \
	X(SECCOMP_IOCTL_NOTIF_ADDFD, FIELD, sizeof(struct seccomp_notif_addfd),    \
	  offsetof(struct seccomp_notif_addfd, srcfd), 4)                          \
	X(FIDEDUPERANGE, DEDUPE, 0, 0, 0)                                          \
	X(TIOCGPTPEER, MAKES, 0, 0, 0)                                             \
	X(NS_GET_USERNS, MAKES, 0, 0, 0)                                           \
	X(NS_GET_PARENT, MAKES, 0, 0, 0)                                           \
	X(SIOCGSKNS, MAKES, 0, 0, 0)                                               \
	X(PIDFD_IOCTL(1), MAKES, 0, 0, 0) /* PIDFD_GET_CGROUP_NAMESPACE */        \
	X(PIDFD_IOCTL(2), MAKES, 0, 0, 0) /* PIDFD_GET_IPC_NAMESPACE */           \
	X(PIDFD_IOCTL(3), MAKES, 0, 0, 0) /* PIDFD_GET_MNT_NAMESPACE */           \
	X(PIDFD_IOCTL(4), MAKES, 0, 0, 0) /* PIDFD_GET_NET_NAMESPACE */           \
	X(PIDFD_IOCTL(5), MAKES, 0, 0, 0) /* PIDFD_GET_PID_NAMESPACE */           \
	X(PIDFD_IOCTL(6), MAKES, 0, 0, 0) /* ..._PID_FOR_CHILDREN_NAMESPACE */    \
	X(PIDFD_IOCTL(7), MAKES, 0, 0, 0) /* PIDFD_GET_TIME_NAMESPACE */          \
	X(PIDFD_IOCTL(8), MAKES, 0, 0, 0) /* ..._TIME_FOR_CHILDREN_NAMESPACE */   \
	X(PIDFD_IOCTL(9), MAKES, 0, 0, 0) /* PIDFD_GET_USER_NAMESPACE */          \
	X(PIDFD_IOCTL(10), MAKES, 0, 0, 0) /* PIDFD_GET_UTS_NAMESPACE */

enum where { PLAIN, ARG, FIELD, DEDUPE, MAKES };

struct ioctl_fd {
	enum where where;
	unsigned short size, offset, field;
};

/* The row of request, or PLAIN: a switch, so a few comparisons. */
static struct ioctl_fd ioctl_fd_of(unsigned long request)
{
	switch (request) {
#define ROW(req, w, size, off, field) \
	case req:                     \
		return (struct ioctl_fd){ w, size, off, field };
		IOCTL_FDS(ROW)
#undef ROW
	}
	return (struct ioctl_fd){ PLAIN, 0, 0, 0 };
}

/*
 * The structure at arg with its descriptor field translated, in copy (of
 * at least row.size bytes), or arg itself if it cannot be read (the
 * kernel's EFAULT).  Read without faulting.
 */
static void *field_translated(struct ioctl_fd row, void *arg, void *copy)
{
	char *field = (char *)copy + row.offset;

	if (ufd_sys_read_self(copy, arg, row.size) != (long)row.size)
		return arg;
	if (row.field == 8) {
		int64_t fd;

		__builtin_memcpy(&fd, field, 8);
		if (fd >= INT32_MIN && fd <= INT32_MAX)
			fd = vfd_translate((int)fd);
		__builtin_memcpy(field, &fd, 8);
	} else {
		uint32_t fd;

		__builtin_memcpy(&fd, field, 4);
		fd = (uint32_t)vfd_translate((int)fd);
		__builtin_memcpy(field, &fd, 4);
	}
	return copy;
}

/*
 * FIDEDUPERANGE with every dest_fd translated: on a copy, whose results
 * (each range's bytes_deduped and status; the kernel writes the whole
 * structure back) are written back to the caller's with the caller's own
 * dest_fd numbers.  A structure the kernel would refuse as too large
 * (over a page), or that cannot be read, goes to the kernel as it is.
 */
static int dedupe(int fd, void *arg)
{
	char copy[4096];
	struct file_dedupe_range head, *range = (struct file_dedupe_range *)copy;
	/* The caller's numbers, written back in place of the translated. */
	int64_t named[(sizeof(copy) - sizeof(head)) / sizeof(struct file_dedupe_range_info)];
	size_t size;
	int r;

	if (ufd_sys_read_self(&head, arg, sizeof(head)) != (long)sizeof(head))
		return UFD_REAL(ioctl)(fd, FIDEDUPERANGE, arg);
	size = sizeof(head) + head.dest_count * sizeof(struct file_dedupe_range_info);
	if (size > sizeof(copy) || ufd_sys_read_self(copy, arg, size) != (long)size)
		return UFD_REAL(ioctl)(fd, FIDEDUPERANGE, arg);
	for (unsigned i = 0; i < head.dest_count; i++) {
		int64_t dest = named[i] = range->info[i].dest_fd;

		if (dest >= INT32_MIN && dest <= INT32_MAX)
			range->info[i].dest_fd = vfd_translate((int)dest);
	}
	r = UFD_REAL(ioctl)(fd, FIDEDUPERANGE, copy);
	if (r == 0) {
		for (unsigned i = 0; i < head.dest_count; i++)
			range->info[i].dest_fd = named[i];
		if (ufd_sys_write_self(arg, copy, size) != (long)size)
			return ufd_ret(-EFAULT);
	}
	return r;
}

/* ioctl(fd, request, arg) past the plain case: see above. */
__attribute__((noinline)) static int ioctl_slow(int fd, unsigned long request,
						void *arg)
{
	struct ioctl_fd row;
	int added = 0;

	/* A backing descriptor is not the application's, as for fcntl:
	 * FIONCLEX on it would leak it into every child. */
	if (vfd_is_backing(fd))
		return ufd_ret(-EBADF);
	/* The close-on-exec flag of a virtual descriptor is ufd's, as for
	 * fcntl(F_SETFD); its backing descriptor stays close-on-exec. */
	if ((request == FIOCLEX || request == FIONCLEX) && vfd_in_space(fd)) {
		int r = vfd_shared_gone(fd);

		return ufd_ret(r < 0 ? r
				     : vfd_set_flags(fd, VFD_CLOEXEC,
						     request == FIOCLEX ? VFD_CLOEXEC : 0));
	}
	fd = vfd_translate(fd);
	row = ioctl_fd_of(request);
	switch (row.where) {
	case ARG: {
		/* Replaced only when translated: the upper half of the
		 * register is the caller's (an int -1 passed through "..."
		 * is not (unsigned long)-1, and the kernel sees the
		 * difference: PERF_EVENT_IOC_SET_OUTPUT). */
		int named = (int)(long)arg, real = vfd_translate(named);

		if (real != named)
			arg = (void *)(long)real;
		break;
	}
	case FIELD: {
		/* Large enough for every FIELD row. */
		union {
			struct file_clone_range clone;
			struct loop_config loop;
			struct seccomp_notif_addfd addfd;
		} copy;

		/* Without virtual descriptors the field cannot be ufd's. */
		if (vfd_any())
			arg = field_translated(row, arg, &copy);
		return UFD_REAL(ioctl)(fd, request, arg);
	}
	case DEDUPE:
		if (vfd_any())
			return dedupe(fd, arg);
		break;
	case MAKES:
		if (request == TIOCGPTPEER) {
			int flags = (int)(long)arg;

			added = newfd_add_cloexec(&flags, O_CLOEXEC);
			arg = (void *)(long)flags;
		}
		return ufd_ret_new_fd(UFD_REAL(ioctl)(fd, request, arg), added,
				      UFD_CALL_ioctl);
	default:
		break;
	}
	return UFD_REAL(ioctl)(fd, request, arg);
}

/*
 * The entry point takes its optional argument as a named one, as the open
 * family does (shim_fd.c): libc's ioctl reads it always.  With fd below
 * vfd_guard_from, no virtual descriptor in the process (so none the
 * argument could name) and no setting for new descriptors, the call goes
 * straight to libc.
 */
#if defined(__x86_64__) || defined(__aarch64__)
UFD_PUBLIC int ufd_ioctl_entry(int fd, unsigned long request, void *arg) __asm__("ioctl");
UFD_PUBLIC int ufd_ioctl_entry(int fd, unsigned long request, void *arg)
{
#else
UFD_PUBLIC int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
#endif
	if (__builtin_expect(!vfd_guarded(fd) && !vfd_any() && newfd_plain(), 1))
		return UFD_REAL(ioctl)(fd, request, arg);
	return ioctl_slow(fd, request, arg);
}
