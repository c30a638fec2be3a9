/* SPDX-License-Identifier: MIT */
/*
 * files.c - the differential test's families of a file through its
 * descriptor: fstat, statx, fstatfs, fstatvfs, fpathconf (stat); the calls
 * that change the file, its size, times, locks and attributes (fileops).
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

/* ---- stat: fstat, fstatat, statx, fstatfs, fstatvfs, fpathconf ---- */

static void note_statfs(struct run *r, int line, long type, long bsize,
			long namelen, long flags, const struct statfs *ref)
{
	note(r, line, "statfs", "type_same=%d bsize=%ld namelen=%ld flags=%#lx",
	     ref ? type == (long)ref->f_type : -1, bsize, namelen, flags);
}

script_fn script_stat;

void script_stat(struct run *r)
{
	struct stat st, ref, nul;
	struct stat64 st64;
	struct statx stx;
	struct statfs sfs, sfs_ref;
	struct statfs64 sfs64;
	struct statvfs svfs;
	struct statvfs64 svfs64;
	char apath[PATH_MAX];
	int fd, dfd, nfd, p[2], bad;

	make_file(r, "st", "stat me");
	must(r, stat("st", &ref) == 0, "stat st");
	must(r, stat("/dev/null", &nul) == 0, "stat /dev/null");
	must(r, statfs(".", &sfs_ref) == 0, "statfs .");
	abs_path(r, apath, sizeof(apath), "st");

	fd = FD_OF(r, open("st", O_RDWR));
	LOG_STAT(r, fstat(fd, &st), st, &ref);
	LOG_STAT(r, fstat64(fd, &st64), st64, &ref);
	LOG_STAT(r, fstatat(fd, "", &st, AT_EMPTY_PATH), st, &ref);
	LOG_STAT(r, fstatat64(fd, "", &st64, AT_EMPTY_PATH), st64, &ref);
	LOG_STAT(r, fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW),
		 st, &ref);
	LOG_STAT(r, fstatat(fd, "", &st, 0), st, &ref);
	LOG_STAT(r, fstatat(fd, "x", &st, 0), st, &ref);
	LOG_STAT(r, fstatat(fd, "", &st, 0x40000000), st, &ref);
	LOG_STAT(r, fstatat(fd, apath, &st, 0), st, &ref);

	dfd = FD_OF(r, open(".", O_RDONLY | O_DIRECTORY));
	LOG_STAT(r, fstatat(dfd, "st", &st, 0), st, &ref);
	LOG_STAT(r, fstatat64(dfd, "st", &st64, AT_SYMLINK_NOFOLLOW), st64, &ref);
	LOG_STAT(r, fstatat(dfd, "missing", &st, 0), st, &ref);
	LOG_STAT(r, fstatat(dfd, "", &st, AT_EMPTY_PATH), st, NULL);
	LOG_STAT(r, fstatat(AT_FDCWD, "st", &st, 0), st, &ref);

	LOG_STATX(r, statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx), stx,
		  &ref);
	LOG_STATX(r, statx(dfd, "st", 0, STATX_BASIC_STATS, &stx), stx, &ref);
	LOG_STATX(r, statx(dfd, "st", AT_STATX_DONT_SYNC, STATX_SIZE, &stx), stx,
		  &ref);
	LOG_STATX(r, statx(fd, "", AT_EMPTY_PATH, STATX__RESERVED, &stx), stx,
		  &ref);
	LOG_STATX(r, statx(fd, "x", 0, STATX_BASIC_STATS, &stx), stx, &ref);
	LOG_STATX(r, statx(fd, "", 0x40000000, STATX_BASIC_STATS, &stx), stx,
		  &ref);
	LOG_STATX(r, statx(fd, "", 0, STATX_BASIC_STATS, &stx), stx, &ref);

	if (LOG(r, fstatfs(fd, &sfs)) == 0)
		note_statfs(r, __LINE__, (long)sfs.f_type, (long)sfs.f_bsize,
			    (long)sfs.f_namelen, (long)sfs.f_flags, &sfs_ref);
	if (LOG(r, fstatfs64(dfd, &sfs64)) == 0)
		note_statfs(r, __LINE__, (long)sfs64.f_type, (long)sfs64.f_bsize,
			    (long)sfs64.f_namelen, (long)sfs64.f_flags, &sfs_ref);
	if (LOG(r, fstatvfs(fd, &svfs)) == 0)
		NOTE(r, "statvfs", "bsize=%lu namemax=%lu flag=%#lx",
		     svfs.f_bsize, svfs.f_namemax, svfs.f_flag);
	if (LOG(r, fstatvfs64(dfd, &svfs64)) == 0)
		NOTE(r, "statvfs64", "bsize=%lu namemax=%lu flag=%#lx",
		     svfs64.f_bsize, svfs64.f_namemax, svfs64.f_flag);

	LOG(r, fpathconf(fd, _PC_NAME_MAX));
	LOG(r, fpathconf(fd, _PC_LINK_MAX));
	LOG(r, fpathconf(fd, _PC_FILESIZEBITS));
	LOG(r, fpathconf(fd, _PC_2_SYMLINKS));
	LOG(r, fpathconf(fd, _PC_CHOWN_RESTRICTED));
	LOG(r, fpathconf(dfd, _PC_PATH_MAX));
	LOG(r, fpathconf(dfd, _PC_NAME_MAX));
	LOG(r, fpathconf(fd, -1));

	/* A pipe and a character device. */
	LOG(r, pipe(p));
	fd_of_pair(r, p);
	LOG_STAT(r, fstat(p[0], &st), st, NULL);
	LOG(r, fpathconf(p[1], _PC_PIPE_BUF));
	if (LOG(r, fstatfs(p[0], &sfs)) == 0)
		note_statfs(r, __LINE__, (long)sfs.f_type, (long)sfs.f_bsize,
			    (long)sfs.f_namelen, (long)sfs.f_flags, NULL);
	nfd = FD_OF(r, open("/dev/null", O_WRONLY));
	LOG_STAT(r, fstat(nfd, &st), st, &nul);
	LOG_BOOL(r, st.st_rdev == nul.st_rdev);
	LOG_STATX(r, statx(nfd, "", AT_EMPTY_PATH, STATX_TYPE, &stx), stx, &nul);

	/* A closed descriptor: relative paths fail, absolute ones do not. */
	bad = closed_fd(r);
	LOG_STAT(r, fstat(bad, &st), st, &ref);
	LOG_STAT(r, fstat64(bad, &st64), st64, &ref);
	LOG_STAT(r, fstatat(bad, "", &st, AT_EMPTY_PATH), st, &ref);
	LOG_STAT(r, fstatat64(bad, "", &st64, AT_EMPTY_PATH), st64, &ref);
	LOG_STAT(r, fstatat(bad, "st", &st, 0), st, &ref);
	LOG_STAT(r, fstatat(bad, apath, &st, 0), st, &ref);
	LOG_STATX(r, statx(bad, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx), stx,
		  &ref);
	LOG_STATX(r, statx(bad, "st", 0, STATX_BASIC_STATS, &stx), stx, &ref);
	LOG_STATX(r, statx(bad, apath, 0, STATX_BASIC_STATS, &stx), stx, &ref);
	LOG(r, fstatfs(bad, &sfs));
	LOG(r, fstatfs64(bad, &sfs64));
	LOG(r, fstatvfs(bad, &svfs));
	LOG(r, fstatvfs64(bad, &svfs64));
	LOG(r, fpathconf(bad, _PC_NAME_MAX));
	LOG(r, fpathconf(bad, _PC_LINK_MAX));

	/* Negative numbers. */
	LOG_STAT(r, fstat(-1, &st), st, &ref);
	LOG_STAT(r, fstat64(-9, &st64), st64, &ref);
	LOG_STAT(r, fstatat(-1, "", &st, AT_EMPTY_PATH), st, &ref);
	LOG_STAT(r, fstatat(-5, "st", &st, 0), st, &ref);
	LOG_STAT(r, fstatat(-5, apath, &st, 0), st, &ref);
	LOG_STATX(r, statx(-1, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx), stx,
		  &ref);
	LOG(r, fstatfs(-1, &sfs));
	LOG(r, fstatvfs(-1, &svfs));
	LOG(r, fpathconf(-1, _PC_NAME_MAX));

	LOG(r, close(fd));
	LOG(r, close(dfd));
	LOG(r, close(nfd));
	LOG(r, close(p[0]));
	LOG(r, close(p[1]));
	LOG_STAT(r, fstat(fd, &st), st, &ref);
}

/* ---- fileops: the calls that change a file through its descriptor ---- */

static void note_mtime(struct run *r, int line, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0)
		note(r, line, "mtime", "%lld.%09ld", (long long)st.st_mtim.tv_sec,
		     st.st_mtim.tv_nsec);
	else
		note(r, line, "mtime", "fstat: %s", errname(errno));
}

static void note_size_mode(struct run *r, int line, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0)
		note(r, line, "size/mode", "%lld %o", (long long)st.st_size,
		     (unsigned)st.st_mode);
	else
		note(r, line, "size/mode", "fstat: %s", errname(errno));
}

script_fn script_fileops;

void script_fileops(struct run *r)
{
	const struct timespec ts[2] = { { 1000000000, 5 }, { 1100000000, 7 } };
	const struct timespec bad_ts[2] = { { 0, 2000000000L }, { 0, 0 } };
	const struct timespec omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	const struct timeval tv[2] = { { 1200000000, 1 }, { 1300000000, 2 } };
	char buf[128];
	int fd, fd2, ro, sub, p[2], bad;

	make_file(r, "f", "hello world");
	fd = FD_OF(r, open("f", O_RDWR));
	fd2 = FD_OF(r, open("f", O_RDWR));
	ro = FD_OF(r, open("f", O_RDONLY));
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);

	LOG(r, fchmod(fd, 0600));
	note_size_mode(r, __LINE__, fd);
	LOG(r, fchmod(ro, 0640));
	note_size_mode(r, __LINE__, fd);
	LOG(r, fchown(fd, getuid(), getgid()));
	LOG(r, fchown(fd, (uid_t)-1, (gid_t)-1));
	LOG(r, fsync(fd));
	LOG(r, fsync(p[1]));
	LOG(r, fdatasync(fd));
	LOG(r, fdatasync(p[0]));
	LOG(r, syncfs(fd));
	LOG(r, syncfs(p[0]));

	LOG(r, ftruncate(fd, 4));
	note_size_mode(r, __LINE__, fd);
	LOG(r, ftruncate64(fd, 100));
	note_size_mode(r, __LINE__, fd);
	LOG(r, ftruncate(fd, -1));
	LOG(r, ftruncate(ro, 0));
	LOG(r, ftruncate(p[1], 0));

	LOG(r, fallocate(fd, 0, 0, 4096));
	note_size_mode(r, __LINE__, fd);
	LOG(r, fallocate64(fd, FALLOC_FL_KEEP_SIZE, 4096, 4096));
	note_size_mode(r, __LINE__, fd);
	LOG(r, fallocate(fd, 0, 0, 0));
	LOG(r, fallocate(fd, 0x40000000, 0, 1));
	LOG(r, fallocate(ro, 0, 0, 1));
	LOG(r, fallocate(p[1], 0, 0, 1));
	LOG_ERRNUM(r, posix_fallocate(fd, 0, 8192));
	note_size_mode(r, __LINE__, fd);
	LOG_ERRNUM(r, posix_fallocate64(fd, 0, 9000));
	note_size_mode(r, __LINE__, fd);
	LOG_ERRNUM(r, posix_fallocate(fd, 0, -1));
	LOG_ERRNUM(r, posix_fallocate(ro, 0, 1));
	LOG_ERRNUM(r, posix_fallocate(p[1], 0, 1));
	LOG_ERRNUM(r, posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL));
	LOG_ERRNUM(r, posix_fadvise64(fd, 0, 100, POSIX_FADV_DONTNEED));
	LOG_ERRNUM(r, posix_fadvise(fd, 0, 0, 99));
	LOG_ERRNUM(r, posix_fadvise(p[0], 0, 0, POSIX_FADV_NORMAL));

	LOG(r, flock(fd, LOCK_EX));
	LOG(r, flock(fd2, LOCK_EX | LOCK_NB));
	LOG(r, flock(fd2, LOCK_SH | LOCK_NB));
	LOG(r, flock(fd, LOCK_UN));
	LOG(r, flock(fd2, LOCK_SH | LOCK_NB));
	LOG(r, flock(fd, LOCK_SH | LOCK_NB));
	LOG(r, flock(fd, LOCK_EX | LOCK_NB));
	LOG(r, flock(fd2, LOCK_UN));
	LOG(r, flock(fd, 0x100));
	LOG(r, lockf(fd, F_LOCK, 10));
	LOG(r, lockf(fd, F_TEST, 10));
	LOG(r, lockf(fd, F_TLOCK, 20));
	LOG(r, lockf64(fd, F_ULOCK, 0));
	LOG(r, lockf(fd, 99, 0));
	LOG(r, lockf(ro, F_LOCK, 10));
	LOG(r, readahead(fd, 0, 4096));
	LOG(r, readahead(p[0], 0, 4096));
	LOG(r, sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE));
	LOG(r, sync_file_range(fd, 0, 0, 0x40));
	LOG(r, sync_file_range(fd, -1, 0, 0));
	LOG(r, sync_file_range(p[1], 0, 0, SYNC_FILE_RANGE_WRITE));

	LOG(r, futimens(fd, ts));
	note_mtime(r, __LINE__, fd);
	LOG(r, futimens(fd, omit));
	note_mtime(r, __LINE__, fd);
	LOG(r, futimens(fd, bad_ts));
	LOG(r, futimens(ro, ts));
	LOG(r, futimens(fd, NULL));
	LOG(r, futimes(fd, tv));
	note_mtime(r, __LINE__, fd);
	LOG(r, futimes(fd, NULL));

	/* user.* xattrs: ENOTSUP where unsupported, the same in both. */
	LOG(r, fsetxattr(fd, "user.k", "v1", 2, 0));
	LOG_BUF(r, fgetxattr(fd, "user.k", buf, sizeof(buf)), buf);
	LOG_BUF(r, fgetxattr(fd2, "user.k", buf, 1), buf);
	LOG_BUF(r, fgetxattr(fd, "user.k", buf, 0), buf);
	LOG_BUF(r, fgetxattr(fd, "user.missing", buf, sizeof(buf)), buf);
	LOG_BUF(r, flistxattr(fd, buf, sizeof(buf)), buf);
	LOG_BUF(r, flistxattr(ro, buf, 0), buf);
	LOG(r, fsetxattr(fd, "user.k", "v2", 2, XATTR_CREATE));
	LOG(r, fsetxattr(fd, "user.new", "v2", 2, XATTR_REPLACE));
	LOG(r, fsetxattr(fd, "user.k", "v3", 2, 0x40));
	LOG(r, fsetxattr(fd, "bogus.k", "v", 1, 0));
	LOG(r, fsetxattr(ro, "user.k", "v4", 2, XATTR_REPLACE));
	LOG_BUF(r, fgetxattr(fd, "user.k", buf, sizeof(buf)), buf);
	LOG(r, fremovexattr(fd, "user.k"));
	LOG(r, fremovexattr(fd, "user.k"));
	LOG_BUF(r, flistxattr(fd, buf, sizeof(buf)), buf);
	LOG(r, fsetxattr(p[0], "user.k", "v", 1, 0));

	/* fchdir, then where the process is. */
	must(r, mkdir("sub", 0755) == 0, "mkdir sub");
	sub = FD_OF(r, open("sub", O_RDONLY | O_DIRECTORY));
	LOG(r, fchdir(sub));
	LOG_BOOL(r, cwd_is(r, "sub"));
	LOG(r, fchdir(fd));
	LOG_BOOL(r, cwd_is(r, "sub"));
	LOG(r, chdir(r->dir));
	LOG_BOOL(r, cwd_is(r, ""));

	/* A closed descriptor. */
	bad = closed_fd(r);
	LOG(r, fchmod(bad, 0600));
	LOG(r, fchown(bad, getuid(), getgid()));
	LOG(r, fsync(bad));
	LOG(r, fdatasync(bad));
	LOG(r, syncfs(bad));
	LOG(r, ftruncate(bad, 0));
	LOG(r, ftruncate64(bad, 0));
	LOG(r, fallocate(bad, 0, 0, 1));
	LOG(r, fallocate64(bad, 0, 0, 1));
	LOG_ERRNUM(r, posix_fallocate(bad, 0, 1));
	LOG_ERRNUM(r, posix_fallocate64(bad, 0, 1));
	LOG_ERRNUM(r, posix_fadvise(bad, 0, 0, POSIX_FADV_NORMAL));
	LOG_ERRNUM(r, posix_fadvise64(bad, 0, 0, POSIX_FADV_NORMAL));
	LOG(r, flock(bad, LOCK_EX));
	LOG(r, lockf(bad, F_LOCK, 0));
	LOG(r, lockf64(bad, F_TEST, 0));
	LOG(r, readahead(bad, 0, 1));
	LOG(r, sync_file_range(bad, 0, 0, 0));
	LOG(r, futimens(bad, ts));
	LOG(r, futimes(bad, tv));
	LOG_BUF(r, fgetxattr(bad, "user.k", buf, sizeof(buf)), buf);
	LOG(r, fsetxattr(bad, "user.k", "v", 1, 0));
	LOG_BUF(r, flistxattr(bad, buf, sizeof(buf)), buf);
	LOG(r, fremovexattr(bad, "user.k"));
	LOG(r, fchdir(bad));

	/* Negative numbers. */
	LOG(r, fchmod(-1, 0600));
	LOG(r, fsync(-1));
	LOG(r, ftruncate(-1, 0));
	LOG(r, fallocate(-1, 0, 0, 1));
	LOG_ERRNUM(r, posix_fadvise(-1, 0, 0, POSIX_FADV_NORMAL));
	LOG(r, flock(-1, LOCK_EX));
	LOG(r, futimens(-1, ts));
	LOG(r, fsetxattr(-1, "user.k", "v", 1, 0));
	LOG(r, fchdir(-1));

	LOG(r, close(fd));
	LOG(r, close(fd2));
	LOG(r, close(ro));
	LOG(r, close(sub));
	LOG(r, close(p[0]));
	LOG(r, close(p[1]));
}
