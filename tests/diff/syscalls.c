/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - the differential test's family of system calls newer than
 * the libc headers ufd may be built with (new_syscalls), made through
 * syscall() by the kernel's own numbers, as a program with newer headers
 * or a hand-written number would: fchmodat2, cachestat, the *xattrat
 * calls, file_getattr/file_setattr, open_tree_attr, statmount and
 * listmount with a mount namespace descriptor (Linux 6.18); and the calls
 * whose descriptor depends on another argument: kcmp, keyctl's
 * KEYCTL_WATCH_KEY, prctl's PR_SET_MM_EXE_FILE.  In
 * the VIRTUAL run their descriptors are virtual: the kernel must answer as
 * in the REAL run.  A kernel without a call answers ENOSYS in both runs.
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

#include <linux/kcmp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

/* The kernel's numbers (tests/syscalls/): the same on x86-64 and
 * aarch64 from 424 up; glibc 2.36's headers stop at 450. */
#define NR_cachestat 451
#define NR_fchmodat2 452
#define NR_statmount 457
#define NR_listmount 458
#define NR_setxattrat 463
#define NR_getxattrat 464
#define NR_listxattrat 465
#define NR_removexattrat 466
#define NR_open_tree_attr 467
#define NR_file_getattr 468
#define NR_file_setattr 469

/* struct xattr_args, struct cachestat_range and struct cachestat,
 * struct file_attr (FILE_ATTR_SIZE_VER0), struct mnt_id_req (VER0) */
struct xattr_args_ {
	uint64_t value;
	uint32_t size, flags;
};
struct cachestat_range_ {
	uint64_t off, len;
};
struct cachestat_ {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};
struct file_attr_ {
	uint64_t xflags;
	uint32_t extsize, nextents, projid, cowextsize;
};
struct mnt_id_req_ {
	uint32_t size, mnt_ns_fd;
	uint64_t mnt_id, param;
};
#define LSMT_ROOT_ 0xffffffffffffffffULL
/* <linux/keyctl.h>, <linux/watch_queue.h> */
#define KEYCTL_WATCH_KEY_ 32
#define KEY_SPEC_PROCESS_KEYRING_ (-2)
#define O_NOTIFICATION_PIPE_ O_EXCL
#define IOC_WATCH_QUEUE_SET_SIZE_ _IO('W', 0x60)
#define STATMOUNT_MNT_BASIC_ 2

script_fn script_new_syscalls;

void script_new_syscalls(struct run *r)
{
	struct stat st, ref;
	struct xattr_args_ xa;
	struct cachestat_range_ range = { 0, 0 };
	struct cachestat_ cs;
	struct file_attr_ fa;
	struct mnt_id_req_ req = { sizeof(req), 0, LSMT_ROOT_, 0 };
	uint64_t ids[256], sm[64];
	char buf[64] = "";
	int fd, fd2, d, ns, t, bad, q[2];
	long n;

	make_file(r, "new", "new calls");
	must(r, stat("new", &ref) == 0, "stat new");
	fd = FD_OF(r, open("new", O_RDWR));
	fd2 = FD_OF(r, open("new", O_RDONLY));
	d = FD_OF(r, open(".", O_RDONLY | O_DIRECTORY));
	ns = FD_OF(r, open("/proc/self/ns/mnt", O_RDONLY));
	bad = closed_fd(r); /* after the opens: not reused by them */

	/* fchmodat2 (Linux 6.6): LTP fchmodat2_01 */
	LOG(r, syscall(NR_fchmodat2, d, "new", 0640, 0));
	LOG_STAT(r, fstatat(d, "new", &st, 0), st, &ref);
	LOG(r, syscall(NR_fchmodat2, d, "new", 0600, AT_SYMLINK_NOFOLLOW));
	LOG_STAT(r, fstatat(d, "new", &st, 0), st, &ref);
	LOG(r, syscall(NR_fchmodat2, fd, "", 0644, AT_EMPTY_PATH));
	LOG_STAT(r, fstat(fd, &st), st, &ref);
	LOG(r, syscall(NR_fchmodat2, bad, "new", 0600, 0));
	LOG(r, syscall(NR_fchmodat2, fd, "new", 0600, 0));

	/* cachestat (Linux 6.5) */
	LOG(r, syscall(NR_cachestat, fd, &range, &cs, 0));
	LOG(r, syscall(NR_cachestat, bad, &range, &cs, 0));

	/* the *xattrat calls (Linux 6.13) */
	xa = (struct xattr_args_){ (uintptr_t)"val", 3, 0 };
	LOG(r, syscall(NR_setxattrat, d, "new", 0, "user.ufd", &xa, sizeof(xa)));
	xa = (struct xattr_args_){ (uintptr_t)buf, sizeof(buf), 0 };
	LOG_BUF(r, syscall(NR_getxattrat, d, "new", 0, "user.ufd", &xa, sizeof(xa)), buf);
	memset(buf, 0, sizeof(buf));
	LOG_BUF(r, syscall(NR_getxattrat, fd, "", AT_EMPTY_PATH, "user.ufd", &xa,
			   sizeof(xa)), buf);
	memset(buf, 0, sizeof(buf));
	LOG_BUF(r, syscall(NR_listxattrat, d, "new", 0, buf, sizeof(buf)), buf);
	LOG(r, syscall(NR_removexattrat, d, "new", 0, "user.ufd"));
	LOG(r, syscall(NR_removexattrat, bad, "new", 0, "user.ufd"));
	LOG(r, syscall(NR_listxattrat, bad, "new", 0, buf, sizeof(buf)));

	/* file_getattr, file_setattr (Linux 6.17) */
	memset(&fa, 0, sizeof(fa));
	LOG(r, syscall(NR_file_getattr, d, "new", &fa, sizeof(fa), 0));
	LOG(r, syscall(NR_file_setattr, d, "new", &fa, sizeof(fa), 0));
	LOG(r, syscall(NR_file_getattr, bad, "new", &fa, sizeof(fa), 0));

	/* open_tree_attr (Linux 6.15): without OPEN_TREE_CLONE, an O_PATH
	 * descriptor of the file, made as any new one */
	t = LOG_FD(r, syscall(NR_open_tree_attr, d, "new", O_CLOEXEC, NULL, 0));
	if (t >= 0) {
		LOG_STAT(r, fstat(t, &st), st, &ref);
		LOG(r, fcntl(t, F_GETFD));
		LOG(r, close(t));
	}
	LOG(r, syscall(NR_open_tree_attr, bad, "new", O_CLOEXEC, NULL, 0));

	/* listmount and statmount: a namespace descriptor in mnt_id_req */
	req.mnt_ns_fd = (uint32_t)ns;
	n = LOG(r, syscall(NR_listmount, &req, ids, 256, 0) > 0);
	LOG_BOOL(r, req.mnt_ns_fd == (uint32_t)ns);
	if (n > 0) {
		req.mnt_id = ids[0];
		req.param = STATMOUNT_MNT_BASIC_;
		LOG(r, syscall(NR_statmount, &req, sm, sizeof(sm), 0));
	}
	req = (struct mnt_id_req_){ sizeof(req), (uint32_t)bad, LSMT_ROOT_, 0 };
	LOG_ERRNO(r, syscall(NR_listmount, &req, ids, 256, 0) >= 0 ? 0 : -1);

	/* kcmp of this process's descriptors */
	LOG(r, syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fd, fd));
	LOG(r, syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fd, fd2) != 0);
	LOG(r, syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fd, bad));

	/* keyctl(KEYCTL_WATCH_KEY): a notification pipe's descriptor */
	if (LOG(r, pipe2(q, O_NOTIFICATION_PIPE_)) == 0) {
		fd_of_pair(r, q);
		LOG(r, ioctl(q[0], IOC_WATCH_QUEUE_SET_SIZE_, 1));
		LOG(r, syscall(SYS_keyctl, KEYCTL_WATCH_KEY_, KEY_SPEC_PROCESS_KEYRING_,
			       q[0], 1));
		LOG(r, syscall(SYS_keyctl, KEYCTL_WATCH_KEY_, KEY_SPEC_PROCESS_KEYRING_,
			       bad, 2));
		LOG(r, close(q[0]));
		LOG(r, close(q[1]));
	}

	/* prctl(PR_SET_MM, PR_SET_MM_EXE_FILE): this program's own file
	 * again (EPERM without CAP_SYS_RESOURCE, in both runs) */
	t = FD_OF(r, open("/proc/self/exe", O_RDONLY));
	LOG(r, syscall(SYS_prctl, PR_SET_MM, PR_SET_MM_EXE_FILE, t, 0, 0));
	LOG(r, syscall(SYS_prctl, PR_SET_MM, PR_SET_MM_EXE_FILE, bad, 0, 0));
	LOG(r, close(t));

	LOG(r, close(fd));
	LOG(r, close(fd2));
	LOG(r, close(d));
	LOG(r, close(ns));
}
