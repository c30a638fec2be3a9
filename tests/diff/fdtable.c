/* SPDX-License-Identifier: MIT */
/*
 * fdtable.c - the differential test's families of the descriptor table:
 * fcntl, dup* and ioctl (fdflags); syscall() with descriptors
 * (raw_syscall); close_range and closefrom (bulk_close).
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

/* ---- fdflags: fcntl, dup*, ioctl ---- */

static void note_flock(struct run *r, int line, const struct flock *fl)
{
	note(r, line, "flock", "type=%d whence=%d start=%lld len=%lld pid=%s",
	     fl->l_type, fl->l_whence, (long long)fl->l_start,
	     (long long)fl->l_len,
	     fl->l_pid == 0 ? "0" : fl->l_pid == -1 ? "-1" :
	     fl->l_pid == getpid() ? "self" : "other");
}

script_fn script_fdflags;

void script_fdflags(struct run *r)
{
	struct flock fl;
	struct stat st, ref;
	char buf[16];
	int fd, fd2, ro, d, p[2], m, m2, n, bad, one = 1, zero = 0;

	make_file(r, "f", "0123456789");
	must(r, stat("f", &ref) == 0, "stat f");
	fd = FD_OF(r, open("f", O_RDWR));
	fd2 = FD_OF(r, open("f", O_RDWR | O_CLOEXEC));
	ro = FD_OF(r, open("f", O_RDONLY));

	/* Descriptor and file flags. */
	LOG(r, fcntl(fd, F_GETFD));
	LOG(r, fcntl(fd2, F_GETFD));
	LOG(r, fcntl(fd, F_SETFD, FD_CLOEXEC));
	LOG(r, fcntl(fd, F_GETFD));
	LOG(r, fcntl(fd, F_SETFD, 0));
	LOG(r, fcntl64(fd, F_GETFD));
	LOG(r, fcntl(fd, F_GETFL));
	LOG(r, fcntl(ro, F_GETFL));
	LOG(r, fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK));
	LOG(r, fcntl(fd, F_GETFL));
	LOG(r, fcntl64(fd, F_SETFL, 0));
	LOG(r, fcntl64(fd, F_GETFL));

	/* Duplicates with small arguments: real descriptors in both runs. */
	n = LOG_FD(r, fcntl(fd, F_DUPFD, 10));
	LOG_BOOL(r, n >= 10 && !is_vfd(n));
	LOG(r, fcntl(n, F_GETFD));
	LOG_STAT(r, fstat(n, &st), st, &ref);
	LOG(r, close(n));
	n = LOG_FD(r, fcntl(fd, F_DUPFD_CLOEXEC, 10));
	LOG_BOOL(r, n >= 10 && !is_vfd(n));
	LOG(r, fcntl(n, F_GETFD));
	LOG(r, close(n));
	n = LOG_FD(r, fcntl64(fd2, F_DUPFD, 0));
	LOG(r, fcntl(n, F_GETFD));
	LOG(r, close(n));
	LOG_FD(r, fcntl(fd, F_DUPFD, -1));
	LOG_FD(r, fcntl(fd, F_DUPFD, 1 << 25));
	LOG_FD(r, fcntl64(fd, F_DUPFD_CLOEXEC, INT_MAX));

	/* Locks: process-associated and open-file-description ones. */
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 10 };
	LOG(r, fcntl(fd, F_SETLK, &fl));
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 10 };
	if (LOG(r, fcntl(fd2, F_GETLK, &fl)) == 0)
		note_flock(r, __LINE__, &fl);
	LOG(r, fcntl(fd, F_SETLKW, &fl));
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 20, .l_len = 5 };
	LOG(r, fcntl(fd, F_OFD_SETLK, &fl));
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			     .l_start = 20, .l_len = 5 };
	if (LOG(r, fcntl(fd2, F_OFD_GETLK, &fl)) == 0)
		note_flock(r, __LINE__, &fl);
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 22, .l_len = 1 };
	LOG(r, fcntl(fd2, F_OFD_SETLK, &fl));
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 30, .l_len = 1 };
	LOG(r, fcntl64(fd2, F_OFD_SETLKW, &fl));
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 40, .l_len = 1, .l_pid = 1 };
	LOG(r, fcntl(fd2, F_OFD_SETLK, &fl));
	fl = (struct flock){ .l_type = 42, .l_whence = SEEK_SET };
	LOG(r, fcntl(fd, F_SETLK, &fl));
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
	LOG(r, fcntl(ro, F_SETLK, &fl));
	fl = (struct flock){ .l_type = F_UNLCK, .l_whence = SEEK_SET };
	LOG(r, fcntl(fd, F_SETLK, &fl));
	LOG(r, fcntl(fd, F_OFD_SETLK, &fl));

	/* Owner, signal, lease. */
	LOG(r, fcntl(fd, F_SETOWN, getpid()));
	LOG_BOOL(r, fcntl(fd, F_GETOWN) == getpid());
	LOG(r, fcntl(fd, F_SETSIG, SIGUSR1));
	LOG(r, fcntl(fd, F_GETSIG));
	LOG(r, fcntl(fd, F_GETLEASE));
	LOG(r, fcntl(fd, 0x7fff));

	/* Pipe size. */
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, fcntl(p[0], F_GETPIPE_SZ));
	LOG(r, fcntl(p[1], F_SETPIPE_SZ, 8192));
	LOG(r, fcntl(p[0], F_GETPIPE_SZ));
	LOG(r, fcntl(p[0], F_SETPIPE_SZ, 1 << 30));
	LOG(r, fcntl(fd, F_GETPIPE_SZ));
	LOG(r, fcntl(fd, F_SETPIPE_SZ, 8192));

	/* Seals. */
	m = FD_OF(r, memfd_create("seal", MFD_ALLOW_SEALING | MFD_CLOEXEC));
	LOG(r, fcntl(m, F_GETFD));
	LOG(r, write(m, "sealed", 6));
	LOG(r, fcntl(m, F_GET_SEALS));
	LOG(r, fcntl(m, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK));
	LOG(r, fcntl(m, F_GET_SEALS));
	LOG(r, write(m, "x", 1));
	LOG(r, ftruncate(m, 1));
	LOG(r, fcntl(m, F_ADD_SEALS, 0x40000000));
	LOG(r, fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
	LOG(r, fcntl(fd, F_GET_SEALS));
	m2 = FD_OF(r, memfd_create("noseal", 0));
	LOG(r, fcntl(m2, F_GET_SEALS));
	LOG(r, fcntl(m2, F_ADD_SEALS, F_SEAL_WRITE));

	/* dup, dup2 onto a real number, dup3. */
	n = LOG_FD(r, dup(fd));
	LOG_BOOL(r, !is_vfd(n));
	LOG_STAT(r, fstat(n, &st), st, &ref);
	LOG(r, fcntl(n, F_GETFD));
	LOG(r, close(n));
	n = LOG_FD(r, dup(fd2));
	LOG(r, fcntl(n, F_GETFD));
	LOG(r, close(n));
	LOG(r, dup2(fd, 200));
	LOG(r, fcntl(200, F_GETFD));
	LOG_STAT(r, fstat(200, &st), st, &ref);
	LOG(r, dup2(fd2, 200));
	LOG(r, fcntl(200, F_GETFD));
	LOG(r, close(200));
	LOG_BOOL(r, dup2(fd, fd) == fd);
	LOG(r, dup2(fd, -1));
	LOG(r, dup2(fd, INT_MAX));
	LOG(r, dup3(fd, 201, O_CLOEXEC));
	LOG(r, fcntl(201, F_GETFD));
	LOG_STAT(r, fstat(201, &st), st, &ref);
	LOG(r, dup3(fd, 201, 0));
	LOG(r, fcntl(201, F_GETFD));
	LOG(r, close(201));
	LOG(r, dup3(fd, 202, 0x1234));
	LOG(r, dup3(fd, fd, 0));
	LOG(r, dup3(fd, fd, O_CLOEXEC));
	LOG(r, dup3(fd, -1, 0));

	/* ioctl */
	LOG(r, write(p[1], "abc", 3));
	n = -1;
	LOG(r, ioctl(p[0], FIONREAD, &n));
	NOTE(r, "FIONREAD", "%d", n);
	LOG(r, lseek(fd, 4, SEEK_SET));
	n = -1;
	LOG(r, ioctl(fd, FIONREAD, &n));
	NOTE(r, "FIONREAD", "%d", n);
	LOG(r, ioctl(fd, FIONBIO, &one));
	LOG(r, fcntl(fd, F_GETFL) & O_NONBLOCK);
	LOG(r, ioctl(fd, FIONBIO, &zero));
	LOG(r, fcntl(fd, F_GETFL) & O_NONBLOCK);
	LOG(r, ioctl(fd, FIOCLEX));
	LOG(r, fcntl(fd, F_GETFD));
	LOG(r, ioctl(fd, FIONCLEX));
	LOG(r, fcntl(fd, F_GETFD));
	LOG(r, ioctl(fd, FIOASYNC, &one));
	LOG(r, fcntl(fd, F_GETFL) & O_ASYNC);
	LOG(r, ioctl(fd, FIOASYNC, &zero));
	LOG(r, ioctl(fd, 0x12345678));
	LOG(r, ioctl(p[0], TCGETS, buf));
	d = FD_OF(r, open(".", O_RDONLY | O_DIRECTORY));
	LOG(r, ioctl(d, FIONREAD, &n));

	/* A closed descriptor. */
	bad = closed_fd(r);
	LOG(r, fcntl(bad, F_GETFD));
	LOG(r, fcntl(bad, F_SETFD, FD_CLOEXEC));
	LOG(r, fcntl(bad, F_GETFL));
	LOG(r, fcntl(bad, F_SETFL, O_NONBLOCK));
	LOG(r, fcntl(bad, F_DUPFD, 10));
	LOG(r, fcntl(bad, F_DUPFD_CLOEXEC, 0));
	fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
	LOG(r, fcntl(bad, F_GETLK, &fl));
	LOG(r, fcntl(bad, F_SETLK, &fl));
	LOG(r, fcntl(bad, F_OFD_GETLK, &fl));
	LOG(r, fcntl(bad, F_GETPIPE_SZ));
	LOG(r, fcntl(bad, F_GET_SEALS));
	LOG(r, fcntl64(bad, F_GETFL));
	LOG(r, fcntl(bad, 0x7fff));
	LOG(r, dup(bad));
	LOG(r, dup2(bad, 200));
	LOG(r, dup2(bad, bad));
	LOG(r, dup3(bad, 200, 0));
	LOG(r, dup3(bad, 200, 0x1234));
	LOG(r, ioctl(bad, FIONREAD, &n));
	LOG(r, ioctl(bad, FIOCLEX));
	LOG(r, ioctl(bad, 0x12345678));

	/* Negative numbers. */
	LOG(r, fcntl(-1, F_GETFD));
	LOG(r, fcntl(-1, F_SETFL, 0));
	LOG(r, fcntl(INT_MIN, F_DUPFD, 0));
	LOG(r, dup(-1));
	LOG(r, dup2(-1, 200));
	LOG(r, dup3(-1, 200, 0));
	LOG(r, ioctl(-1, FIONREAD, &n));

	LOG(r, close(fd));
	LOG(r, close(fd2));
	LOG(r, close(ro));
	LOG(r, close(d));
	LOG(r, close(m));
	LOG(r, close(m2));
	LOG(r, close(p[0]));
	LOG(r, close(p[1]));
}

/* ---- raw_syscall: syscall() with descriptors ---- */

script_fn script_raw_syscall;

void script_raw_syscall(struct run *r)
{
	struct stat st, ref;
	char buf[64] = "";
	int fd, d, n, p[2], bad;

	make_file(r, "raw", "raw syscall data");
	must(r, stat("raw", &ref) == 0, "stat raw");
	fd = FD_OF(r, open("raw", O_RDWR));
	d = FD_OF(r, open(".", O_RDONLY | O_DIRECTORY));

	LOG_BUF(r, syscall(SYS_read, fd, buf, 3), buf);
	LOG(r, syscall(SYS_write, fd, "RAW", 3));
	LOG(r, syscall(SYS_lseek, fd, 0, SEEK_CUR));
	LOG_BUF(r, syscall(SYS_pread64, fd, buf, 8, 4), buf);
	LOG(r, syscall(SYS_pwrite64, fd, "pw", 2, 0));
	LOG_STAT(r, syscall(SYS_fstat, fd, &st), st, &ref);
	LOG_STAT(r, syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH), st, &ref);
	LOG_STAT(r, syscall(SYS_newfstatat, d, "raw", &st, 0), st, &ref);
	LOG(r, syscall(SYS_fcntl, fd, F_GETFD));
	LOG(r, syscall(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC));
	LOG(r, syscall(SYS_fcntl, fd, F_GETFD));
	LOG(r, fcntl(fd, F_GETFD));
	LOG(r, syscall(SYS_fcntl, fd, F_SETFD, 0));
	LOG(r, syscall(SYS_fcntl, fd, F_GETFL));
	LOG(r, syscall(SYS_ftruncate, fd, 10));
	LOG(r, syscall(SYS_fsync, fd));
	LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);
	n = LOG_FD(r, syscall(SYS_dup, fd));
	LOG_STAT(r, fstat(n, &st), st, &ref);
	LOG(r, syscall(SYS_close, n));
	n = LOG_FD(r, syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 10));
	LOG(r, fcntl(n, F_GETFD));
	LOG(r, syscall(SYS_close, n));
	LOG(r, syscall(SYS_dup3, fd, 200, O_CLOEXEC));
	LOG(r, fcntl(200, F_GETFD));
	LOG(r, syscall(SYS_close, 200));
	n = FD_OF(r, syscall(SYS_openat, d, "raw", O_RDONLY));
	LOG_BUF(r, syscall(SYS_read, n, buf, 4), buf);
	LOG(r, syscall(SYS_close, n));
	LOG(r, syscall(SYS_getdents64, d, buf, sizeof(buf)) > 0);
	LOG(r, syscall(SYS_faccessat, d, "raw", R_OK));
	LOG(r, syscall(SYS_pipe2, p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, syscall(SYS_write, p[1], "piped", 5));
	LOG_BUF(r, syscall(SYS_read, p[0], buf, sizeof(buf)), buf);
	LOG(r, syscall(SYS_lseek, p[0], 0, SEEK_CUR));

	/* Closed by syscall(), then gone. */
	LOG(r, syscall(SYS_close, fd));
	LOG(r, syscall(SYS_fcntl, fd, F_GETFD));
	LOG(r, fcntl(fd, F_GETFD));
	LOG(r, syscall(SYS_close, fd));

	bad = closed_fd(r);
	LOG(r, syscall(SYS_read, bad, buf, 1));
	LOG(r, syscall(SYS_fstat, bad, &st));
	LOG(r, syscall(SYS_dup, bad));
	LOG(r, syscall(SYS_close, bad));
	LOG(r, syscall(SYS_read, -1, buf, 1));
	LOG(r, syscall(SYS_close, -1));
	LOG(r, syscall(100000, 1, 2, 3));
	LOG(r, syscall(-1));
	LOG_BOOL(r, syscall(SYS_getpid) == getpid());

	LOG(r, close(d));
	LOG(r, close(p[0]));
	LOG(r, close(p[1]));
}

/* ---- bulk_close: close_range and closefrom over the script's own ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * n descriptors of /dev/null, real ones moved to HIGH_FD and up (so that
 * in the REAL run a range over them holds nothing of the framework's),
 * through fd_of, sorted.
 */
static void make_high(struct run *r, int *fds, int n)
{
	for (int i = 0; i < n; i++) {
		int low = open("/dev/null", O_RDONLY);

		must(r, low >= 0, "open /dev/null");
		fds[i] = fcntl(low, F_DUPFD, HIGH_FD);
		must(r, fds[i] >= HIGH_FD, "F_DUPFD HIGH_FD");
		close(low);
		fds[i] = fd_of(r, fds[i]);
	}
	qsort(fds, (size_t)n, sizeof(*fds), cmp_int);
}

script_fn script_bulk_close;

void script_bulk_close(struct run *r)
{
	int v[5], c[3], d[4], e[2], bad;

	/* close_range over all but the lowest. */
	make_high(r, v, 5);
	LOG(r, close_range((unsigned)v[1], (unsigned)v[4], 0));
	for (int i = 0; i < 5; i++)
		LOG(r, fcntl(v[i], F_GETFD));
	LOG(r, close(v[4]));
	LOG(r, close_range((unsigned)v[1], (unsigned)v[4], 0));
	LOG(r, close(v[0]));	/* out of the way of the ranges below */

	/* CLOSE_RANGE_CLOEXEC, bad flags, first > last, UNSHARE. */
	make_high(r, c, 3);
	LOG(r, close_range((unsigned)c[0], (unsigned)c[2], CLOSE_RANGE_CLOEXEC));
	for (int i = 0; i < 3; i++)
		LOG(r, fcntl(c[i], F_GETFD));
	LOG(r, close_range((unsigned)c[0], (unsigned)c[2], 0x80));
	LOG(r, close_range((unsigned)c[2], (unsigned)c[0], 0));
	LOG(r, fcntl(c[0], F_GETFD));
	LOG(r, close_range((unsigned)c[1], (unsigned)c[1], 0));
	LOG(r, fcntl(c[1], F_GETFD));
	LOG(r, fcntl(c[2], F_GETFD));
	LOG(r, close_range((unsigned)c[0], (unsigned)c[2], CLOSE_RANGE_UNSHARE));
	for (int i = 0; i < 3; i++)
		LOG(r, fcntl(c[i], F_GETFD));

	/* closefrom the second lowest: only the lowest stays. */
	make_high(r, d, 4);
	LOG_VOID(r, closefrom(d[1]));
	for (int i = 0; i < 4; i++)
		LOG(r, fcntl(d[i], F_GETFD));
	LOG(r, close(d[0]));

	/* close_range to ~0U, and a range of closed numbers. */
	make_high(r, e, 2);
	LOG(r, close_range((unsigned)e[0], ~0U, 0));
	LOG(r, fcntl(e[0], F_GETFD));
	LOG(r, fcntl(e[1], F_GETFD));
	LOG(r, close_range((unsigned)e[0], (unsigned)e[1], 0));
	bad = closed_fd(r);
	LOG(r, close_range((unsigned)bad, (unsigned)bad, 0));
	LOG(r, close(bad));
	LOG(r, close(-1));
	LOG(r, close_range(5, 4, 0));
	LOG(r, close_range(~0U, ~0U, 0x80));
}
