/* SPDX-License-Identifier: MIT */
/*
 * report_out.c - the sanitizer's report destination (report_out.h).
 */
#define _GNU_SOURCE 1
#include "report_out.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <termios.h>

#include "reserve.h"
#include "settings.h"
#include "sys.h"
#include "text.h"
#include "vfd_shared.h"

/* The destination: 2 for stderr. */
static int out_fd = 2;
/* Its name for the summary at exit: a copy of the file's path
 * (report_out_open), since the environment that UFD_REPORT's value is in
 * may be written over by then (a process title). */
static const char *out_name;
static int failed; /* a write failed: said once */
/* The destination is a regular file, the process's RLIMIT_FSIZE soft
 * limit is finite and SIGXFSZ is not ignored: a write past the limit
 * would kill the process (the default action) or run its handler
 * (OpenSSH's sandboxed child sets the limit to 0).  Reports are then held
 * back, not written: the process must run on as without ufd.  With
 * SIGXFSZ ignored, such a write fails with EFBIG, said once on stderr. */
static int out_regular, fsize_limited;

/* Would a write past a finite file size limit raise a signal that the
 * process sees?  Asked when the limit is set (and at start-up), of the
 * disposition then: one rt_sigaction, the handler read only (the first
 * field of the kernel's struct on every architecture). */
static int sigxfsz_seen(void)
{
	unsigned long ks[8] = { 0 };

	if (ufd_sys6(SYS_rt_sigaction, SIGXFSZ, 0, (long)ks, 8, 0, 0) < 0)
		return 1;
	return ks[0] != (unsigned long)SIG_IGN;
}

/* File systems whose regular files are the kernel's controls or views,
 * not storage: writing report text there reads as a command. */
static const struct {
	long magic;
	const char *name;
} pseudo[] = {
	{ PROC_SUPER_MAGIC, "proc" },	  { SYSFS_MAGIC, "sysfs" },
	{ DEBUGFS_MAGIC, "debugfs" },	  { TRACEFS_MAGIC, "tracefs" },
	{ SECURITYFS_MAGIC, "securityfs" }, { CGROUP_SUPER_MAGIC, "cgroup" },
	{ CGROUP2_SUPER_MAGIC, "cgroup2" }, { 0x62656570, "configfs" },
	{ BPF_FS_MAGIC, "bpf" },	  { EFIVARFS_MAGIC, "efivarfs" },
	{ PSTOREFS_MAGIC, "pstore" },	  { SELINUX_MAGIC, "selinuxfs" },
	{ SMACK_MAGIC, "smackfs" },	  { BINFMTFS_MAGIC, "binfmt_misc" },
	{ 0x65735543, "fusectl" },
};

static int refuse(const char *why, const char *detail)
{
	fprintf(stderr, "ufd: UFD_REPORT=\"%s\": %s%s%s; reports go to stderr\n",
		ufd_settings.report, why, detail ? " " : "", detail ? detail : "");
	return -1;
}

/* fd is open on the destination: can it take reports?  0, or -1 after
 * the line on stderr. */
static int check(int fd)
{
	struct termios t;
	struct statfs fs;
	struct stat st;

	if (ufd_sys_fstat(fd, &st) < 0)
		return refuse("cannot be examined (fstat failed)", NULL);
	if (S_ISREG(st.st_mode)) {
		/* Those file systems have no device (major 0, as tmpfs): a
		 * file on a disk's needs no fstatfs. */
		if (major(st.st_dev) != 0) {
			out_regular = 1;
			return 0;
		}
		if (ufd_sys6(SYS_fstatfs, fd, (long)&fs, 0, 0, 0, 0) < 0)
			return refuse("cannot be examined (fstatfs failed)", NULL);
		for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
			if ((long)fs.f_type == pseudo[i].magic)
				return refuse("is a control file of the kernel, not a "
					      "place for reports: on", pseudo[i].name);
		out_regular = 1;
		return 0;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return 0;
	if (S_ISCHR(st.st_mode) && ufd_sys3(SYS_ioctl, fd, TCGETS, (long)&t) == 0)
		return 0;
	return refuse("is not a regular file, a terminal or a FIFO:",
		      S_ISCHR(st.st_mode) ? "a device that is no terminal" :
		      S_ISBLK(st.st_mode) ? "a block device" :
		      S_ISDIR(st.st_mode) ? "a directory" : "of another kind");
}

/* A close-on-exec duplicate of fd at the highest free number in
 * (floor, top), or -1. */
static int dup_below(int fd, long top, long floor)
{
	for (long at = top - 1; at > floor; at--) {
		int to = ufd_sys_fcntl(fd, F_DUPFD_CLOEXEC, at);

		if (to < 0)
			return -1;
		if (to < top)
			return to;
		ufd_sys_close(to); /* taken from at up to top: try lower */
	}
	return -1;
}

/*
 * fd moved out of the application's way, below a small table: a number
 * past the table a process has makes the kernel allocate one reaching it,
 * which every fork copies and every exec and exit walks (at the top of a
 * hard limit of 20,000 that made fork + exec with reports on half as dear
 * again; a container's limit of 2^20 would give every process an 8 MB
 * table).  So the highest free number below min(S, 1024), S the soft
 * limit: the table stays at 1,024 numbers (what select() can watch), and
 * the program's own numbers, which come from the bottom, meet it only past
 * 1,022 descriptors (its dup2 or close of it moves or keeps it:
 * report_out_make_way).  Below 64, the table a process starts with, a
 * program's 64th descriptor would get 64 where it got 63.  The limit is
 * asked only when 1,023 is past it (F_DUPFD's EINVAL).  The new
 * descriptor, or fd itself if it cannot move.
 */
static int place(int fd)
{
	struct rlimit rl;
	long top = 1024;
	int to = dup_below(fd, top, fd);

	if (to < 0 && ufd_sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl, 0, 0) == 0 &&
	    rl.rlim_cur < (rlim_t)top) {
		top = (long)rl.rlim_cur;
		to = dup_below(fd, top, fd);
	}
	if (to < 0)
		return fd;
	ufd_sys_close(fd);
	return to;
}

/* out_name: path, copied beside the layer's other variables, written at
 * start-up anyway, or (a long path) into the sanitizer's reserved memory
 * (a page touched, no system call), or path itself if that fails. */
static void keep_name(const char *path)
{
	static char buf[128];
	size_t len = strlen(path) + 1;
	char *copy = len <= sizeof(buf) ? buf : ufd_reserve(len);

	out_name = ufd_sys_is_error((long)copy) ? path : memcpy(copy, path, len);
}

int report_out_open(void)
{
	const char *path = ufd_settings.report;
	int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	struct rlimit rl;
	int fd;

	if (!strcmp(path, "stderr"))
		return 0;
	/* The last component is not followed to a regular file (a link
	 * planted where the user's file would be made); /dev/stderr and the
	 * like, links to a terminal or a pipe, are. */
	fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path, flags | O_NOFOLLOW, 0644,
			   0, 0);
	if (fd == -ELOOP) {
		struct stat st;

		fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path, flags & ~O_CREAT,
				   0, 0, 0);
		if (fd >= 0 && (ufd_sys_fstat(fd, &st) < 0 || S_ISREG(st.st_mode))) {
			ufd_sys_close(fd);
			return refuse("is a symbolic link to a regular file, not "
				      "followed", NULL);
		}
	}
	if (fd == -ENXIO)
		return refuse("is a FIFO without a reader, or a socket", NULL);
	if (fd < 0)
		return refuse("cannot be opened for appending:", strerror(-fd));
	if (check(fd) < 0) {
		ufd_sys_close(fd);
		return -1;
	}
	/* O_NONBLOCK kept the open from waiting for a FIFO's reader; a
	 * report waits for room as the program's own output would.  (A
	 * regular file's writes never wait.) */
	if (!out_regular)
		ufd_sys_fcntl(fd, F_SETFL, O_WRONLY | O_APPEND);
	out_fd = place(fd);
	keep_name(path);
	if (out_regular &&
	    ufd_sys6(SYS_prlimit64, 0, RLIMIT_FSIZE, 0, (long)&rl, 0, 0) == 0)
		report_out_fsize_set(rl.rlim_cur);
	return 0;
}

void report_out_fsize_set(unsigned long long soft)
{
	if (out_regular)
		__atomic_store_n(&fsize_limited, soft != RLIM_INFINITY && sigxfsz_seen(),
				 __ATOMIC_RELAXED);
}

int report_out_fd(void)
{
	int fd = __atomic_load_n(&out_fd, __ATOMIC_RELAXED);

	return fd == 2 ? -1 : fd;
}

const char *report_out_name(void)
{
	return report_out_fd() >= 0 && out_name ? out_name : "stderr";
}

void report_out_make_way(int fd)
{
	int was = __atomic_load_n(&out_fd, __ATOMIC_RELAXED), to;

	/* A vfork child's out_fd is its parent's, and it reports nothing
	 * (report.c): its dup2 may take the number in its own table. */
	if (fd != was || was == 2 || vfd_in_vfork_child())
		return;
	/* Still high: the highest free number below it, else any. */
	to = dup_below(was, was, 2);
	if (to < 0)
		to = ufd_sys_fcntl(was, F_DUPFD_CLOEXEC, 3);
	if (to < 0)
		return; /* the program's call closes it: reports then fail, said */
	__atomic_store_n(&out_fd, to, __ATOMIC_RELAXED);
	ufd_sys_close(was);
}

/* Say once on stderr that a report could not be written (err: -errno). */
static void say_failed(long err)
{
	char line[128] = "ufd: UFD_REPORT: a report could not be written (errno ";
	size_t n = strlen(line);
	static const char tail[] = "); reports are being lost\n";

	if (__atomic_exchange_n(&failed, 1, __ATOMIC_RELAXED))
		return;
	n = (size_t)(ufd_put_decimal(line + n, (unsigned long)-err) - line);
	memcpy(line + n, tail, sizeof(tail) - 1);
	ufd_sys6(SYS_write, 2, (long)line, (long)(n + sizeof(tail) - 1), 0, 0, 0);
}

void report_out_write(const char *buf, size_t len)
{
	if (__atomic_load_n(&fsize_limited, __ATOMIC_RELAXED))
		return; /* held back: no stderr line either, which may be a file */
	while (len) {
		int fd = __atomic_load_n(&out_fd, __ATOMIC_RELAXED);
		long r = ufd_sys6(SYS_write, fd, (long)buf, (long)len, 0, 0, 0);

		if (r == -EINTR)
			continue;
		if (r <= 0) {
			if (fd != 2)
				say_failed(r < 0 ? r : -EIO);
			return;
		}
		buf += r;
		len -= (size_t)r;
	}
}
