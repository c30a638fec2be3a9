/* SPDX-License-Identifier: MIT */
/*
 * shim_sysdata.c - descriptors inside the structures of system calls that
 * libc has no function for, made through syscall(): bpf's union
 * bpf_attr, io_uring_register's arrays and eventfd, landlock_add_rule's
 * struct landlock_path_beneath_attr, statmount's and listmount's struct
 * mnt_id_req, kcmp's descriptors of this process.
 *
 * The kernel reads these structures itself, so a virtual descriptor in
 * them must become its backing descriptor first.  The caller's memory is
 * never changed for that: its structure is read with ufd_sys_read_self
 * into a copy (a structure ufd cannot read goes to the kernel as it is,
 * for the kernel's EFAULT), the copy translated and passed instead.  bpf
 * commands whose structure the kernel writes results into get the copy
 * written back, with the caller's own numbers.  Nothing is read while the
 * process holds no virtual descriptor (vfd_any): no number can be ufd's.
 *
 * The bpf commands covered (BPF_FDS below) are the common ones; every
 * other command, and the descriptors deeper inside (BPF_PROG_LOAD's map
 * descriptors in the instructions and fd_array, BTF and token
 * descriptors, batch map operations), pass unchanged (ufd(7), "Not
 * covered").  The commands that make a descriptor have it finished as
 * any new one (UFD_MODE=all; bpf descriptors are always close-on-exec).
 */
#include "shim.h"

#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <string.h>

#include "sys.h"
#include "syscall_nr.h"
#include "vfd_table.h"

/* Newer than the kernel headers ufd may be built with. */
#define BPF_TOKEN_CREATE_ 36
#define BPF_F_PATH_FD_ (1U << 14)
#define BPF_TCX_INGRESS_ 46
#define BPF_TCX_EGRESS_ 47
#define BPF_NETKIT_PRIMARY_ 54
#define BPF_NETKIT_PEER_ 55
#define IORING_REGISTER_USE_REGISTERED_RING_ (1U << 31)

/* The largest structure copied; a larger one passes unchanged. */
#define ATTR_MAX 512

/*
 * A copy of a caller's structure: buf, of size bytes, and the offsets of
 * the descriptors translated in it (so that the caller's own numbers can
 * be put back before a copy the kernel wrote into is written back).
 */
struct copy {
	unsigned char *buf;
	size_t size;
	size_t at[4];
	int was[4];
	int n;
};

/* The descriptor in the 32 bits at off, translated, if the structure
 * reaches that far. */
static void fd_at(struct copy *c, size_t off)
{
	int fd, real;

	if (off + sizeof(fd) > c->size || c->n == 4)
		return;
	memcpy(&fd, c->buf + off, sizeof(fd));
	real = vfd_translate(fd);
	if (real == fd)
		return;
	memcpy(c->buf + off, &real, sizeof(real));
	c->at[c->n] = off;
	c->was[c->n++] = fd;
}

static uint32_t u32_at(const struct copy *c, size_t off)
{
	uint32_t v = 0;

	if (off + sizeof(v) <= c->size)
		memcpy(&v, c->buf + off, sizeof(v));
	return v;
}

/* Is the target of attach type t a network interface's index, not a
 * descriptor? */
static int target_is_ifindex(uint32_t t)
{
	return t == BPF_XDP || t == BPF_TCX_INGRESS_ || t == BPF_TCX_EGRESS_ ||
	       t == BPF_NETKIT_PRIMARY_ || t == BPF_NETKIT_PEER_;
}

/* Does bpf command cmd make a descriptor? */
static int bpf_makes(long cmd)
{
	switch (cmd) {
	case BPF_MAP_CREATE: case BPF_PROG_LOAD: case BPF_OBJ_GET:
	case BPF_PROG_GET_FD_BY_ID: case BPF_MAP_GET_FD_BY_ID:
	case BPF_RAW_TRACEPOINT_OPEN: case BPF_BTF_LOAD: case BPF_BTF_GET_FD_BY_ID:
	case BPF_LINK_CREATE: case BPF_LINK_GET_FD_BY_ID: case BPF_ENABLE_STATS:
	case BPF_ITER_CREATE: case BPF_TOKEN_CREATE_:
		return 1;
	}
	return 0;
}

#define OFF(field) offsetof(union bpf_attr, field)

/*
 * The descriptors of command cmd's structure in c, translated.  Returns 1
 * if the kernel writes results into the structure (the copy is written
 * back), else 0.
 */
static int bpf_translate(long cmd, struct copy *c)
{
	switch (cmd) {
	case BPF_MAP_LOOKUP_ELEM: case BPF_MAP_UPDATE_ELEM: case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_GET_NEXT_KEY: case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
	case BPF_MAP_FREEZE:
		fd_at(c, OFF(map_fd));
		return 0;
	case BPF_PROG_ATTACH: case BPF_PROG_DETACH:
		if (!target_is_ifindex(u32_at(c, OFF(attach_type))))
			fd_at(c, OFF(target_fd));
		fd_at(c, OFF(attach_bpf_fd));
		if (u32_at(c, OFF(attach_flags)) & BPF_F_REPLACE)
			fd_at(c, OFF(replace_bpf_fd));
		return 0;
	case BPF_OBJ_PIN: case BPF_OBJ_GET:
		if (cmd == BPF_OBJ_PIN)
			fd_at(c, OFF(bpf_fd));
		/* path_fd follows file_flags, with BPF_F_PATH_FD (Linux 6.5) */
		if (u32_at(c, OFF(file_flags)) & BPF_F_PATH_FD_)
			fd_at(c, OFF(file_flags) + 4);
		return 0;
	case BPF_PROG_TEST_RUN:
		fd_at(c, OFF(test.prog_fd));
		return 1;
	case BPF_OBJ_GET_INFO_BY_FD:
		fd_at(c, OFF(info.bpf_fd));
		return 1;
	case BPF_LINK_CREATE:
		fd_at(c, OFF(link_create.prog_fd));
		if (!target_is_ifindex(u32_at(c, OFF(link_create.attach_type))))
			fd_at(c, OFF(link_create.target_fd));
		return 0;
	case BPF_LINK_DETACH:
		fd_at(c, OFF(link_detach.link_fd));
		return 0;
	}
	return 0;
}

/*
 * Read the caller's structure at p (size bytes, at most max) into c (buf
 * given).  Returns 1, or 0 when there is nothing to do: no virtual
 * descriptor in the process, or a structure ufd cannot read or hold,
 * which the kernel is given as it is.
 */
static int copy_in(struct copy *c, const void *p, size_t size, size_t max)
{
	c->size = size;
	c->n = 0;
	return vfd_any() && size <= max && !ufd_unmapped(p) &&
	       ufd_sys_read_self(c->buf, p, size) == (long)size;
}

static long bpf_call(long a[6])
{
	unsigned char buf[ATTR_MAX];
	struct copy c = { .buf = buf };
	int copied = copy_in(&c, (void *)a[1], (size_t)(unsigned)a[2], ATTR_MAX);
	int back = copied ? bpf_translate(a[0], &c) : 0;
	long r;

	if (!c.n) /* nothing translated: the caller's own structure */
		copied = back = 0;
	r = UFD_REAL(syscall)(UFD_NR_bpf, a[0], copied ? (long)buf : a[1], a[2]);
	if (back) {
		/* what the kernel wrote, with the caller's own numbers */
		for (int i = 0; i < c.n; i++)
			memcpy(buf + c.at[i], &c.was[i], sizeof(int));
		ufd_sys_write_self((void *)a[1], buf, c.size);
	}
	if (r >= 0 && bpf_makes(a[0]) && !newfd_plain())
		r = ufd_ret_new_fd((int)r, 0, UFD_CALL_syscall);
	return r;
}

/* ---- io_uring_register ---- */

/*
 * A copy of the caller's array of n descriptors at p, translated: in
 * stack (of FDS_STACK) or in a mapping of *mapped bytes (the caller
 * unmaps it).  NULL if there is nothing to do (no virtual descriptor, or
 * none in the array) or the array cannot be read or held: the kernel gets
 * the caller's.
 */
#define FDS_STACK 64
#define FDS_MAX (1U << 20) /* the kernel's most registered files */

static int *fds_copy(const void *p, unsigned n, int *stack, size_t *mapped)
{
	int *fds = stack, changed = 0;
	size_t len = (size_t)n * sizeof(int);

	*mapped = 0;
	if (!vfd_any() || !n || n > FDS_MAX || ufd_unmapped(p))
		return NULL;
	if (n > FDS_STACK) {
		fds = ufd_sys_mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ufd_sys_is_error((long)fds))
			return NULL;
		*mapped = len;
	}
	if (ufd_sys_read_self(fds, p, len) == (long)len)
		for (unsigned i = 0; i < n; i++) {
			int real = vfd_translate(fds[i]);

			changed |= real != fds[i];
			fds[i] = real;
		}
	if (changed)
		return fds;
	if (*mapped)
		ufd_sys_munmap(fds, len);
	*mapped = 0;
	return NULL;
}


static long uring_register(long a[6])
{
	unsigned op = (unsigned)a[1], n = 0;
	unsigned char sbuf[64];
	struct copy c = { .buf = sbuf };
	int stack[FDS_STACK], *fds = NULL, one;
	size_t mapped = 0, data_at = 0;
	long r;

	if (!(op & IORING_REGISTER_USE_REGISTERED_RING_))
		a[0] = vfd_translate((int)a[0]);
	switch (op & ~IORING_REGISTER_USE_REGISTERED_RING_) {
	case IORING_REGISTER_EVENTFD: case IORING_REGISTER_EVENTFD_ASYNC:
		c.buf = (unsigned char *)&one;
		if (copy_in(&c, (void *)a[2], sizeof(one), sizeof(one))) {
			fd_at(&c, 0);
			if (c.n)
				a[2] = (long)&one;
		}
		break;
	case IORING_REGISTER_FILES:
		if ((fds = fds_copy((void *)a[2], (unsigned)a[3], stack, &mapped)))
			a[2] = (long)fds;
		break;
	case IORING_REGISTER_FILES_UPDATE: /* nr_args descriptors */
		if (copy_in(&c, (void *)a[2], sizeof(struct io_uring_files_update),
			    sizeof(sbuf))) {
			n = (unsigned)a[3];
			data_at = offsetof(struct io_uring_files_update, fds);
		}
		break;
	case IORING_REGISTER_FILES2: /* the structure is nr_args bytes */
		if (copy_in(&c, (void *)a[2], (size_t)(unsigned)a[3], sizeof(sbuf))) {
			n = u32_at(&c, offsetof(struct io_uring_rsrc_register, nr));
			data_at = offsetof(struct io_uring_rsrc_register, data);
		}
		break;
	case IORING_REGISTER_FILES_UPDATE2:
		if (copy_in(&c, (void *)a[2], (size_t)(unsigned)a[3], sizeof(sbuf))) {
			n = u32_at(&c, offsetof(struct io_uring_rsrc_update2, nr));
			data_at = offsetof(struct io_uring_rsrc_update2, data);
		}
		break;
	}
	if (n && data_at + sizeof(uint64_t) <= c.size) {
		uint64_t data;

		memcpy(&data, c.buf + data_at, sizeof(data));
		if ((fds = fds_copy((void *)(uintptr_t)data, n, stack, &mapped))) {
			data = (uint64_t)(uintptr_t)fds;
			memcpy(c.buf + data_at, &data, sizeof(data));
			a[2] = (long)c.buf;
		}
	}
	r = UFD_REAL(syscall)(UFD_NR_io_uring_register, a[0], a[1], a[2], a[3]);
	if (mapped)
		ufd_sys_munmap(fds, mapped);
	return r;
}

/* ---- landlock_add_rule ---- */

static long landlock_rule(long a[6])
{
	struct landlock_path_beneath_attr attr;
	struct copy c = { .buf = (unsigned char *)&attr };

	a[0] = vfd_translate((int)a[0]);
	if (a[1] == LANDLOCK_RULE_PATH_BENEATH &&
	    copy_in(&c, (void *)a[2], sizeof(attr), sizeof(attr))) {
		fd_at(&c, offsetof(struct landlock_path_beneath_attr, parent_fd));
		if (c.n)
			a[2] = (long)&attr;
	}
	return UFD_REAL(syscall)(UFD_NR_landlock_add_rule, a[0], a[1], a[2], a[3]);
}

/* ---- statmount, listmount ---- */

/*
 * struct mnt_id_req: size, then (Linux 6.18) mnt_ns_fd, a descriptor of
 * the mount namespace to look in; 0 is none (the field was spare before),
 * so 0 is never translated.
 */
#define MNT_ID_REQ_MAX 64
#define MNT_NS_FD_AT 4

static long mount_req(long number, long a[6])
{
	unsigned char buf[MNT_ID_REQ_MAX];
	struct copy c = { .buf = buf };
	uint32_t size;

	if (vfd_any() && !ufd_unmapped((void *)a[0]) &&
	    ufd_sys_read_self(&size, (void *)a[0], sizeof(size)) == sizeof(size) &&
	    copy_in(&c, (void *)a[0], size, sizeof(buf)) && u32_at(&c, MNT_NS_FD_AT)) {
		fd_at(&c, MNT_NS_FD_AT);
		if (c.n)
			a[0] = (long)buf;
	}
	return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3]);
}

/* ---- kcmp ---- */

#define KCMP_FILE_ 0
#define KCMP_EPOLL_TFD_ 7

/*
 * kcmp(pid1, pid2, type, idx1, idx2): with KCMP_FILE both indexes are
 * descriptors, of pid1 and of pid2; with KCMP_EPOLL_TFD idx1 is pid1's
 * epoll descriptor and idx2 points to a struct kcmp_epoll_slot (efd, tfd,
 * toff) of pid2's.  Translated where the process named is this one: the
 * numbers of another process are not ufd's to read.
 */
static long kcmp_call(long a[6])
{
	long self = ufd_sys_getpid();
	uint32_t slot[3];
	struct copy c = { .buf = (unsigned char *)slot };

	if (a[2] == KCMP_FILE_ || a[2] == KCMP_EPOLL_TFD_) {
		if (a[0] == self)
			a[3] = vfd_translate((int)a[3]);
		if (a[1] == self && a[2] == KCMP_FILE_)
			a[4] = vfd_translate((int)a[4]);
		if (a[1] == self && a[2] == KCMP_EPOLL_TFD_ &&
		    copy_in(&c, (void *)a[4], sizeof(slot), sizeof(slot))) {
			fd_at(&c, 0);
			fd_at(&c, 4);
			if (c.n)
				a[4] = (long)slot;
		}
	}
	return UFD_REAL(syscall)(UFD_NR_kcmp, a[0], a[1], a[2], a[3], a[4]);
}

long ufd_syscall_inside(long number, long a[6])
{
	switch (number) {
	case UFD_NR_bpf:
		return bpf_call(a);
	case UFD_NR_io_uring_register:
		return uring_register(a);
	case UFD_NR_landlock_add_rule:
		return landlock_rule(a);
	case UFD_NR_statmount: case UFD_NR_listmount:
		return mount_req(number, a);
	case UFD_NR_kcmp:
		return kcmp_call(a);
	}
	return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
