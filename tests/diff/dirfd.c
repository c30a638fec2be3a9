/* SPDX-License-Identifier: MIT */
/*
 * dirfd.c - the differential test's families of descriptors in paths:
 * every *at call with a directory descriptor (dirfd_calls); /dev/fd/N,
 * /proc/self/fd/N and /proc/<pid>/fd/N (devfd_paths).
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

/* ---- dirfd_calls: every *at call with a directory descriptor ---- */

/* The stable fields of name; its mtime only once a script has set it. */
static void note_fstatat(struct run *r, int line, int dfd, const char *name,
			 int flags, int mtime_set)
{
	struct stat st;

	if (fstatat(dfd, name, &st, flags) == 0)
		note(r, line, name, "mode=%o size=%lld nlink=%lu mtime=%lld",
		     (unsigned)st.st_mode, (long long)st.st_size,
		     (unsigned long)st.st_nlink,
		     mtime_set ? (long long)st.st_mtim.tv_sec : -1LL);
	else
		note(r, line, name, "fstatat: %s", errname(errno));
}

static void note_same_inode(struct run *r, int line, int dfd, const char *a,
			    const char *b)
{
	struct stat sa, sb;
	int ok = fstatat(dfd, a, &sa, AT_SYMLINK_NOFOLLOW) == 0 &&
		 fstatat(dfd, b, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		 sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;

	note(r, line, "same inode", "%s %s: %d", a, b, ok);
}

script_fn script_dirfd_calls;

void script_dirfd_calls(struct run *r)
{
	const struct timespec ts[2] = { { 1000000000, 0 }, { 1100000000, 0 } };
	const struct timeval tv[2] = { { 1200000000, 0 }, { 1300000000, 0 } };
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	char buf[256] = "", ab_f[PATH_MAX], ab_ln[PATH_MAX], ab_x[PATH_MAX];
	int d, fd, file, mnt, bad, mount_id, mount_id2;

	must(r, mkdir("d", 0755) == 0, "mkdir d");
	abs_path(r, ab_f, sizeof(ab_f), "d/f");
	abs_path(r, ab_ln, sizeof(ab_ln), "d/ln");
	abs_path(r, ab_x, sizeof(ab_x), "d/absdir");
	d = FD_OF(r, open("d", O_RDONLY | O_DIRECTORY));

	/* openat */
	fd = LOG_FD(r, openat(d, "f", O_CREAT | O_RDWR, 0644));
	LOG(r, write(fd, "abc", 3));
	LOG(r, close(fd));
	LOG_FD(r, openat(d, "f", O_CREAT | O_EXCL | O_RDWR, 0644));
	LOG_FD(r, openat(d, "missing", O_RDONLY));
	LOG_FD(r, openat(d, "f", O_RDONLY | O_DIRECTORY));
	LOG_FD(r, openat(d, "f", O_RDONLY | 0x40000000));
	fd = FD_OF(r, openat64(d, "f", O_RDONLY));
	LOG_BUF(r, read(fd, buf, sizeof(buf)), buf);
	LOG(r, close(fd));
	fd = FD_OF(r, openat(d, ".", O_RDONLY | O_DIRECTORY));
	LOG(r, close(fd));
	file = FD_OF(r, openat(d, "f", O_RDWR));
	LOG_FD(r, openat(file, "x", O_RDONLY));

	/* mkdirat, symlinkat, readlinkat */
	LOG(r, mkdirat(d, "sub", 0755));
	LOG(r, mkdirat(d, "sub", 0755));
	LOG(r, mkdirat(d, "nope/x", 0755));
	LOG(r, mkdirat(file, "x", 0755));
	note_fstatat(r, __LINE__, d, "sub", 0, 0);
	LOG(r, symlinkat("f", d, "ln"));
	LOG(r, symlinkat("f", d, "ln"));
	LOG(r, symlinkat("f", file, "ln"));
	LOG_BUF(r, readlinkat(d, "ln", buf, sizeof(buf)), buf);
	LOG_BUF(r, readlinkat(d, "ln", buf, 0), buf);
	LOG_BUF(r, readlinkat(d, "f", buf, sizeof(buf)), buf);
	LOG_BUF(r, readlinkat(d, "", buf, sizeof(buf)), buf);
	LOG_BUF(r, readlinkat(d, "missing", buf, sizeof(buf)), buf);
	LOG_BUF(r, readlinkat(file, "ln", buf, sizeof(buf)), buf);

	/* linkat, renameat, renameat2 */
	LOG(r, linkat(d, "f", d, "hard", 0));
	note_same_inode(r, __LINE__, d, "f", "hard");
	LOG(r, linkat(d, "f", AT_FDCWD, "d/hard2", 0));
	note_same_inode(r, __LINE__, d, "f", "hard2");
	LOG(r, linkat(d, "ln", d, "hardln", 0));
	note_same_inode(r, __LINE__, d, "ln", "hardln");
	LOG(r, linkat(d, "ln", d, "hardln2", AT_SYMLINK_FOLLOW));
	note_same_inode(r, __LINE__, d, "f", "hardln2");
	LOG(r, linkat(file, "", d, "hardempty", AT_EMPTY_PATH));
	note_same_inode(r, __LINE__, d, "f", "hardempty");
	LOG(r, linkat(d, "missing", d, "x", 0));
	LOG(r, linkat(d, "f", d, "hard", 0));
	LOG(r, linkat(d, "f", d, "x", 0x40000000));
	LOG(r, linkat(file, "f", d, "x", 0));
	LOG(r, renameat(d, "hard", d, "renamed"));
	note_same_inode(r, __LINE__, d, "f", "renamed");
	LOG(r, renameat(d, "missing", d, "z"));
	LOG(r, renameat(d, "renamed", file, "z"));
	LOG(r, renameat(d, "sub", d, "f"));
	LOG(r, renameat2(d, "ln", d, "renamed", RENAME_NOREPLACE));
	LOG(r, renameat2(d, "ln", d, "renamed", RENAME_EXCHANGE));
	note_same_inode(r, __LINE__, d, "f", "ln");
	LOG(r, renameat2(d, "ln", d, "renamed", RENAME_EXCHANGE));
	LOG(r, renameat2(d, "ln", d, "gone", RENAME_EXCHANGE));
	LOG(r, renameat2(d, "ln", d, "x", 0x40000000));
	LOG(r, renameat2(d, "hard2", AT_FDCWD, "d/moved", 0));

	/* faccessat, fchmodat, fchownat */
	LOG(r, faccessat(d, "f", R_OK | W_OK, 0));
	LOG(r, faccessat(d, "f", F_OK, AT_EACCESS));
	LOG(r, faccessat(d, "ln", F_OK, AT_SYMLINK_NOFOLLOW));
	LOG(r, faccessat(d, "missing", F_OK, 0));
	LOG(r, faccessat(d, "f", 0777, 0));
	LOG(r, faccessat(d, "f", F_OK, 0x40000000));
	LOG(r, faccessat(file, "f", F_OK, 0));
	LOG(r, faccessat(file, "", R_OK, AT_EMPTY_PATH));
	LOG(r, fchmodat(d, "f", 0600, 0));
	note_fstatat(r, __LINE__, d, "f", 0, 0);
	LOG(r, fchmodat(d, "ln", 0640, AT_SYMLINK_NOFOLLOW));
	LOG(r, fchmodat(d, "missing", 0600, 0));
	LOG(r, fchmodat(d, "f", 0600, 0x40000000));
	LOG(r, fchmodat(file, "f", 0600, 0));
	LOG(r, fchownat(d, "f", getuid(), getgid(), 0));
	LOG(r, fchownat(d, "ln", getuid(), getgid(), AT_SYMLINK_NOFOLLOW));
	LOG(r, fchownat(file, "", getuid(), getgid(), AT_EMPTY_PATH));
	LOG(r, fchownat(d, "missing", getuid(), getgid(), 0));
	LOG(r, fchownat(d, "f", getuid(), getgid(), 0x40000000));

	/* utimensat, futimesat */
	LOG(r, utimensat(d, "f", ts, 0));
	note_fstatat(r, __LINE__, d, "f", 0, 1);
	LOG(r, utimensat(d, "ln", ts, AT_SYMLINK_NOFOLLOW));
	note_fstatat(r, __LINE__, d, "ln", AT_SYMLINK_NOFOLLOW, 1);
	LOG(r, utimensat(file, "", ts, AT_EMPTY_PATH));
	note_fstatat(r, __LINE__, d, "f", 0, 1);
	LOG(r, utimensat(d, "missing", ts, 0));
	LOG(r, utimensat(d, "f", ts, 0x40000000));
	LOG(r, futimesat(d, "f", tv));
	note_fstatat(r, __LINE__, d, "f", 0, 1);
	LOG(r, futimesat(d, "missing", tv));
	LOG(r, futimesat(file, "f", tv));

	/* mknodat, mkfifoat */
	LOG(r, mknodat(d, "fifo", S_IFIFO | 0644, 0));
	note_fstatat(r, __LINE__, d, "fifo", 0, 0);
	LOG(r, mknodat(d, "fifo", S_IFIFO | 0644, 0));
	LOG(r, mknodat(d, "reg", S_IFREG | 0600, 0));
	note_fstatat(r, __LINE__, d, "reg", 0, 0);
	LOG(r, mknodat(d, "weird", 0170000 | 0600, 0));
	LOG(r, mknodat(file, "fifo", S_IFIFO | 0644, 0));
	LOG(r, mkfifoat(d, "fifo2", 0600));
	note_fstatat(r, __LINE__, d, "fifo2", 0, 0);
	LOG(r, mkfifoat(d, "fifo2", 0600));
	LOG(r, mkfifoat(file, "fifo3", 0600));

	/* name_to_handle_at, open_by_handle_at */
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (LOG(r, name_to_handle_at(d, "f", &h.fh, &mount_id, 0)) == 0) {
		mount_id2 = -1;
		h.fh.handle_bytes = MAX_HANDLE_SZ;
		name_to_handle_at(AT_FDCWD, "d/f", &h.fh, &mount_id2, 0);
		NOTE(r, "handle", "type=%d bytes=%u same_mount=%d",
		     h.fh.handle_type, h.fh.handle_bytes, mount_id == mount_id2);
		mnt = FD_OF(r, open(".", O_RDONLY | O_DIRECTORY));
		fd = FD_OF(r, open_by_handle_at(mnt, &h.fh, O_RDONLY));
		if (fd >= 0) {
			LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);
			LOG(r, close(fd));
		}
		LOG_FD(r, open_by_handle_at(file, &h.fh, O_RDONLY));
		LOG(r, close(mnt));
	}
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	LOG(r, name_to_handle_at(d, "", &h.fh, &mount_id, AT_EMPTY_PATH));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	LOG(r, name_to_handle_at(file, "", &h.fh, &mount_id, AT_EMPTY_PATH));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	LOG(r, name_to_handle_at(d, "missing", &h.fh, &mount_id, 0));
	h.fh.handle_bytes = 0;
	LOG(r, name_to_handle_at(d, "f", &h.fh, &mount_id, 0));
	NOTE(r, "handle_bytes wanted", "%u", h.fh.handle_bytes);
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	LOG(r, name_to_handle_at(d, "f", &h.fh, &mount_id, 0x40000000));

	/* getdents64 on the directory descriptor, twice. */
	log_getdents(r, __LINE__, d);
	LOG(r, lseek(d, 0, SEEK_SET));
	log_getdents(r, __LINE__, d);
	LOG(r, getdents64(file, buf, sizeof(buf)));

	/* unlinkat */
	LOG(r, unlinkat(d, "renamed", 0));
	LOG(r, unlinkat(d, "sub", 0));
	LOG(r, unlinkat(d, "sub", AT_REMOVEDIR));
	LOG(r, unlinkat(d, "sub", AT_REMOVEDIR));
	LOG(r, unlinkat(d, "f", AT_REMOVEDIR));
	LOG(r, unlinkat(d, "missing", 0));
	LOG(r, unlinkat(d, "hardln", 0x40000000));
	LOG(r, unlinkat(file, "x", 0));
	LOG(r, lseek(d, 0, SEEK_SET));
	log_getdents(r, __LINE__, d);

	/* AT_FDCWD */
	LOG(r, mkdirat(AT_FDCWD, "d2", 0700));
	LOG(r, faccessat(AT_FDCWD, "d2", X_OK, 0));
	LOG(r, unlinkat(AT_FDCWD, "d2", AT_REMOVEDIR));
	fd = FD_OF(r, openat(AT_FDCWD, "d/f", O_RDONLY));
	LOG_BUF(r, read(fd, buf, sizeof(buf)), buf);
	LOG(r, close(fd));

	/* A closed directory descriptor: relative paths fail with EBADF,
	 * absolute ones ignore it.  The one call here that makes a
	 * descriptor is last, as it may get the closed number. */
	bad = closed_fd(r);
	LOG(r, mkdirat(bad, "x", 0755));
	LOG(r, mkdirat(bad, ab_x, 0755));
	LOG(r, unlinkat(bad, "x", AT_REMOVEDIR));
	LOG(r, unlinkat(bad, ab_x, AT_REMOVEDIR));
	LOG(r, renameat(bad, "x", AT_FDCWD, "y"));
	LOG(r, renameat(AT_FDCWD, "d/moved", bad, "y"));
	LOG(r, renameat(bad, ab_f, bad, ab_x));
	LOG(r, renameat(bad, ab_x, bad, ab_f));
	LOG(r, renameat2(bad, "x", AT_FDCWD, "y", 0));
	LOG(r, renameat2(bad, ab_f, bad, ab_ln, RENAME_EXCHANGE));
	LOG(r, renameat2(bad, ab_ln, bad, ab_f, RENAME_EXCHANGE));
	LOG(r, linkat(bad, "x", AT_FDCWD, "y", 0));
	LOG(r, linkat(bad, ab_f, bad, ab_x, 0));
	LOG(r, unlinkat(bad, ab_x, 0));
	LOG(r, linkat(bad, "", d, "y", AT_EMPTY_PATH));
	LOG(r, symlinkat("t", bad, "x"));
	LOG_BUF(r, readlinkat(bad, "x", buf, sizeof(buf)), buf);
	LOG_BUF(r, readlinkat(bad, ab_ln, buf, sizeof(buf)), buf);
	LOG(r, faccessat(bad, "x", F_OK, 0));
	LOG(r, faccessat(bad, ab_f, R_OK, 0));
	LOG(r, fchmodat(bad, "x", 0600, 0));
	LOG(r, fchmodat(bad, ab_f, 0600, 0));
	LOG(r, fchownat(bad, "x", getuid(), getgid(), 0));
	LOG(r, fchownat(bad, ab_f, getuid(), getgid(), 0));
	LOG(r, utimensat(bad, "x", ts, 0));
	LOG(r, utimensat(bad, ab_f, ts, 0));
	LOG(r, utimensat(bad, "", ts, AT_EMPTY_PATH));
	LOG(r, futimesat(bad, "x", tv));
	LOG(r, futimesat(bad, ab_f, tv));
	LOG(r, mknodat(bad, "x", S_IFIFO | 0600, 0));
	LOG(r, mkfifoat(bad, "x", 0600));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	LOG(r, name_to_handle_at(bad, "x", &h.fh, &mount_id, 0));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	LOG(r, open_by_handle_at(bad, &h.fh, O_RDONLY));
	LOG(r, getdents64(bad, buf, sizeof(buf)));
	LOG_FD(r, openat(bad, "x", O_RDONLY));
	fd = LOG_FD(r, openat(bad, ab_f, O_RDONLY));
	if (fd >= 0)
		LOG(r, close(fd));

	/* Negative numbers other than AT_FDCWD. */
	LOG_FD(r, openat(-1, "x", O_RDONLY));
	LOG(r, mkdirat(-5, "x", 0755));
	LOG(r, unlinkat(-1, "x", 0));
	LOG(r, symlinkat("t", -1, "x"));
	LOG(r, faccessat(-1, "x", F_OK, 0));
	LOG(r, utimensat(-1, "", ts, AT_EMPTY_PATH));
	LOG(r, getdents64(-1, buf, sizeof(buf)));
	fd = LOG_FD(r, openat(-1, ab_f, O_RDONLY));
	if (fd >= 0)
		LOG(r, close(fd));

	LOG(r, close(file));
	LOG(r, close(d));
}

/* ---- devfd_paths: /dev/fd/N, /proc/self/fd/N, /proc/<pid>/fd/N ---- */

script_fn script_devfd_paths;

void script_devfd_paths(struct run *r)
{
	char paths[3][64], target[PATH_MAX], buf[PATH_MAX] = "", line[256];
	char missing[64];
	struct stat st, ref;
	FILE *fp;
	DIR *dir;
	struct dirent *de;
	int fd, o, found;

	make_file(r, "target", "devfd contents");
	must(r, stat("target", &ref) == 0, "stat target");
	abs_path(r, target, sizeof(target), "target");
	fd = FD_OF(r, open("target", O_RDWR));
	snprintf(paths[0], sizeof(paths[0]), "/dev/fd/%d", fd);
	snprintf(paths[1], sizeof(paths[1]), "/proc/self/fd/%d", fd);
	snprintf(paths[2], sizeof(paths[2]), "/proc/%d/fd/%d", (int)getpid(), fd);

	for (int i = 0; i < 3; i++) {
		const char *path = paths[i];
		char *real;

		o = FD_OF(r, open(path, O_RDONLY));
		LOG_BUF(r, read(o, buf, sizeof(buf)), buf);
		LOG_STAT(r, fstat(o, &st), st, &ref);
		LOG(r, close(o));
		o = FD_OF(r, openat(AT_FDCWD, path, O_RDWR));
		LOG(r, pwrite(o, "D", 1, 0));
		LOG(r, close(o));
		/* With O_CREAT the path is looked at before the call. */
		o = FD_OF(r, open(path, O_RDWR | O_CREAT, 0600));
		LOG_STAT(r, fstat(o, &st), st, &ref);
		LOG(r, close(o));
		LOG_STAT(r, stat(path, &st), st, &ref);
		if (LOG(r, lstat(path, &st)) == 0)
			NOTE(r, "lstat", "link=%d mode=%o", S_ISLNK(st.st_mode),
			     (unsigned)st.st_mode & 0777);
		LOG(r, access(path, R_OK | W_OK));
		/* The xattr calls by path: ls -l of coreutils 9.7 asks for
		 * a file's ACLs with them, and prints "?" where they fail.
		 * user.* xattrs: ENOTSUP where unsupported, the same in both. */
		LOG(r, llistxattr(path, buf, sizeof(buf)));
		LOG(r, listxattr(path, buf, sizeof(buf)));
		LOG(r, setxattr(path, "user.devfd", "v", 1, 0));
		LOG(r, lsetxattr(path, "user.devfd", "v", 1, 0));
		LOG_BUF(r, getxattr(path, "user.devfd", buf, sizeof(buf)), buf);
		LOG(r, lgetxattr(path, "user.devfd", buf, sizeof(buf)));
		LOG(r, removexattr(path, "user.devfd"));
		LOG(r, lremovexattr(path, "user.devfd"));
		memset(buf, 0, sizeof(buf));
		if (LOG(r, readlink(path, buf, sizeof(buf) - 1)) > 0)
			NOTE(r, "readlink", "is_target=%d", strcmp(buf, target) == 0);
		real = LOG_PTR(r, realpath(path, NULL));
		if (real) {
			LOG_BOOL(r, strcmp(real, target) == 0);
			free(real);
		}
		fp = LOG_PTR(r, fopen(path, "r"));
		if (fp) {
			LOG_BUF(r, fread(buf, 1, sizeof(buf), fp), buf);
			LOG(r, fclose(fp));
		}
	}
	LOG(r, truncate(paths[1], 5));
	LOG_STAT(r, fstat(fd, &st), st, &ref);

	/* /proc/self/fdinfo/N, and N in the /proc/self/fd listing. */
	snprintf(buf, sizeof(buf), "/proc/self/fdinfo/%d", fd);
	LOG(r, lseek(fd, 2, SEEK_SET));
	fp = LOG_PTR(r, fopen(buf, "r"));
	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			if (!strncmp(line, "pos:", 4))
				NOTE(r, "fdinfo", "%s", line);
			/* The kernel reports a backing descriptor's own
			 * close-on-exec flag (always set; the virtual one's is
			 * ufd's): a known difference, see ufd(7), "Differences from the kernel". */
			if (!strncmp(line, "flags:", 6))
				NOTE(r, "fdinfo flags", "%lo",
				     strtoul(line + 6, NULL, 8) & ~(unsigned long)O_CLOEXEC);
		}
		fclose(fp);
	}
	found = 0;
	dir = opendir("/proc/self/fd");
	while (dir && (de = readdir(dir)))
		if (atoi(de->d_name) == fd)
			found = 1;
	if (dir)
		closedir(dir);
	LOG_BOOL(r, found);

	/* Once closed, the paths are gone. */
	LOG(r, close(fd));
	LOG_FD(r, open(paths[0], O_RDONLY));
	LOG_STAT(r, stat(paths[1], &st), st, &ref);
	LOG(r, access(paths[2], F_OK));
	LOG(r, readlink(paths[1], buf, sizeof(buf)));
	LOG_PTR(r, fopen(paths[0], "r"));
	LOG_FD(r, open("/dev/fd/-1", O_RDONLY));
	LOG_FD(r, open("/proc/self/fd/abc", O_RDONLY));
	snprintf(missing, sizeof(missing), "/dev/fd/%u", FD_UNSEQ_LIMIT - 1);
	LOG_FD(r, open(missing, O_RDONLY));
}
