/* SPDX-License-Identifier: MIT */
/*
 * Description: the differential test.  Each family of descriptor calls has
 * one script: a sequence of calls, misuse included, written once.  The
 * script runs twice, each time in a fresh child process and a fresh
 * temporary directory, under LD_PRELOAD=libufd.so: once on real
 * descriptors (REAL) and once with every descriptor it works with replaced
 * by a virtual duplicate (VIRTUAL).  Every call is logged - its text, its
 * result, errno when it failed, and the data it read back - and the two
 * logs must agree record by record: a virtual descriptor must give the
 * kernel's exact results and errno.
 *
 * A script never logs what legitimately differs between the runs:
 * descriptor numbers (a new descriptor is logged as "fd", valid, or the
 * error), paths and inode numbers of the run's fresh files (it logs "same
 * file as" relations instead), times and pids.
 *
 * The ufd API is reached through dlsym() so that the program needs no link
 * against ufd; without libufd.so loaded every test fails saying so.
 * CK_RUN_CASE=<family> runs one family; UFD_DIFF_DUMP=1 prints both logs
 * side by side.  Adding a family is a script and one line in FAMILIES.
 */
#define _GNU_SOURCE
/* The scripts call both the plain and the *64 names explicitly; the
 * plain ones must not be renamed to the *64 ones, nor read() and friends
 * to their _chk twins. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "ufd.h"
#include "ufd_test.h"

/*
 * In a script's process the log pipe sits at LOG_PIPE_FD: above the low
 * numbers the scripts get, below HIGH_FD, where bulk_close moves the real
 * descriptors it closes by range (so that closefrom() in the REAL run
 * cannot reach the log).
 */
#define LOG_PIPE_FD	900
#define HIGH_FD		1000
#define SCRIPT_TIMEOUT	10	/* seconds for one run of one script */

#define US '\x1f'		/* separates the fields of a record */

enum mode { MODE_REAL, MODE_VIRTUAL };

static const char *const mode_name[] = { "REAL", "VIRTUAL" };

/*
 * A run of one script.  The log is a growable buffer of records, one a
 * line: "line:label" US result US errno-name US data.  Each record is sent
 * down the pipe as soon as it is made, so that a run that crashes or
 * hangs still shows how far it got.
 */
struct run {
	enum mode mode;
	char *log;
	size_t len, cap, sent;
	int nrec;
	char dir[PATH_MAX];	/* the run's directory, its cwd */
};

typedef void script_fn(struct run *r);


/* ---- the log ---- */

static void log_put(struct run *r, const void *s, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		char *p;

		while (r->len + n + 1 > cap)
			cap *= 2;
		p = realloc(r->log, cap);
		if (!p)
			_exit(5);
		r->log = p;
		r->cap = cap;
	}
	memcpy(r->log + r->len, s, n);
	r->len += n;
	r->log[r->len] = '\0';
}

static void log_str(struct run *r, const char *s)
{
	log_put(r, s, strlen(s));
}

/* Bytes as text: printable ASCII as is, the rest as \xHH. */
static void log_escaped(struct run *r, const void *data, size_t n)
{
	const unsigned char *p = data;
	char esc[8];

	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
			log_put(r, &p[i], 1);
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
			log_str(r, esc);
		}
	}
}

static const char *errname(int e)
{
	static char buf[32];
	const char *s = strerrorname_np(e);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void log_flush(struct run *r)
{
	while (r->sent < r->len) {
		ssize_t n = write(LOG_PIPE_FD, r->log + r->sent, r->len - r->sent);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(4);
		r->sent += (size_t)n;
	}
}

/* One record.  errno is left as it was. */
static void record(struct run *r, int line, const char *label,
		   const char *result, int err, const void *data, size_t n)
{
	int saved = errno;
	char num[16];

	snprintf(num, sizeof(num), "%d:", line);
	log_str(r, num);
	log_str(r, label);
	log_put(r, (char[]){ US }, 1);
	log_str(r, result);
	log_put(r, (char[]){ US }, 1);
	if (err)
		log_str(r, errname(err));
	log_put(r, (char[]){ US }, 1);
	if (data)
		log_escaped(r, data, n);
	log_put(r, "\n", 1);
	r->nrec++;
	log_flush(r);
	errno = saved;
}

static _Noreturn __attribute__((format(printf, 2, 3))) void
fatal(struct run *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	record(r, 0, "!FATAL", "", 0, msg, strlen(msg));
	_exit(3);
}

/* A record of data only: label, and fmt as its data. */
static __attribute__((format(printf, 4, 5))) void
note(struct run *r, int line, const char *label, const char *fmt, ...)
{
	char data[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(data, sizeof(data), fmt, ap);
	va_end(ap);
	record(r, line, label, "=", 0, data, strlen(data));
}

/* The result of a call: a number, with errno if it is negative. */
static long log_ret(struct run *r, int line, const char *label, long v)
{
	int e = errno;
	char res[32];

	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, v < 0 ? e : 0, NULL, 0);
	errno = e;
	return v;
}

/* The same, and errno whatever the result (isatty: 0 and ENOTTY). */
static long log_errno(struct run *r, int line, const char *label, long v)
{
	int e = errno;
	char res[32];

	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, e, NULL, 0);
	errno = e;
	return v;
}

/* A new descriptor: "fd" if valid, since the numbers differ. */
static int log_fd(struct run *r, int line, const char *label, int v)
{
	int e = errno;

	if (v >= 0)
		record(r, line, label, "fd", 0, NULL, 0);
	else
		log_ret(r, line, label, v);
	errno = e;
	return v;
}

/* A count of bytes, with the bytes read into buf as the data. */
static long log_buf(struct run *r, int line, const char *label, long v,
		    const void *buf)
{
	int e = errno;
	char res[32];

	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, v < 0 ? e : 0, v > 0 ? buf : NULL,
	       v > 0 ? (size_t)v : 0);
	errno = e;
	return v;
}

/* The same for a vector: the first v bytes across iov. */
static long log_iov(struct run *r, int line, const char *label, long v,
		    const struct iovec *iov, int cnt)
{
	int e = errno;
	char res[32], data[256];
	size_t n = 0;

	for (int i = 0; i < cnt && v > 0 && n < (size_t)v; i++) {
		size_t k = iov[i].iov_len;

		if (k > (size_t)v - n)
			k = (size_t)v - n;
		if (k > sizeof(data) - n)
			k = sizeof(data) - n;
		memcpy(data + n, iov[i].iov_base, k);
		n += k;
	}
	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, v < 0 ? e : 0, n ? data : NULL, n);
	errno = e;
	return v;
}

/* A pointer: valid, or NULL / MAP_FAILED and errno. */
static void *log_ptr(struct run *r, int line, const char *label, void *p)
{
	int e = errno;

	if (p == MAP_FAILED)
		record(r, line, label, "MAP_FAILED", e, NULL, 0);
	else
		record(r, line, label, p ? "ptr" : "NULL", p ? 0 : e, NULL, 0);
	errno = e;
	return p;
}

/* A call that returns an error number (posix_fallocate and the like). */
static int log_errnum(struct run *r, int line, const char *label, int v)
{
	record(r, line, label, v ? errname(v) : "0", 0, NULL, 0);
	return v;
}

static int log_bool(struct run *r, int line, const char *label, int v)
{
	record(r, line, label, v ? "true" : "false", 0, NULL, 0);
	return v;
}

static void log_void(struct run *r, int line, const char *label)
{
	record(r, line, label, "done", errno, NULL, 0);
}

/*
 * The logging macros: each evaluates the call once, after clearing errno,
 * and records its text, result and errno, and returns the result.
 */
#define LOG(r, expr) log_ret(r, __LINE__, #expr, (errno = 0, (long)(expr)))
#define LOG_ERRNO(r, expr) \
	log_errno(r, __LINE__, #expr, (errno = 0, (long)(expr)))
#define LOG_FD(r, expr) log_fd(r, __LINE__, #expr, (errno = 0, (int)(expr)))
#define LOG_BUF(r, expr, buf) \
	log_buf(r, __LINE__, #expr, (errno = 0, (long)(expr)), buf)
#define LOG_IOV(r, expr, iov, cnt) \
	log_iov(r, __LINE__, #expr, (errno = 0, (long)(expr)), iov, cnt)
#define LOG_PTR(r, expr) \
	log_ptr(r, __LINE__, #expr, (errno = 0, (void *)(expr)))
#define LOG_ERRNUM(r, expr) log_errnum(r, __LINE__, #expr, (int)(expr))
#define LOG_BOOL(r, expr) log_bool(r, __LINE__, #expr, !!(expr))
#define LOG_VOID(r, expr) \
	((void)(errno = 0), (void)(expr), log_void(r, __LINE__, #expr))
#define NOTE(r, label, ...) note(r, __LINE__, label, __VA_ARGS__)

/*
 * fd_of - the descriptor a script works with.  REAL: real_fd itself.
 * VIRTUAL: a virtual duplicate that replaces it (nonseqfd with
 * NONSEQFD_CLOSE, keeping close-on-exec), checked to be virtual so that
 * the test cannot pass without the shim.  A failed creation (< 0) passes
 * through: its record already shows the failure.
 */
static int fd_of(struct run *r, int real_fd)
{
	int flags = NONSEQFD_CLOSE, v;

	if (r->mode == MODE_REAL || real_fd < 0)
		return real_fd;
	if (fcntl(real_fd, F_GETFD) == FD_CLOEXEC)
		flags |= NONSEQFD_CLOEXEC;
	v = api_nonseqfd(real_fd, flags);
	if (!is_vfd(v))
		fatal(r, "fd_of(%d): nonseqfd() returned %d (%s), "
			 "not a virtual descriptor", real_fd, v,
		      strerror(errno));
	return v;
}

/* Log the call that makes a descriptor, then pass it through fd_of. */
#define FD_OF(r, expr) \
	fd_of(r, log_fd(r, __LINE__, #expr, (errno = 0, (int)(expr))))

static void fd_of_pair(struct run *r, int p[2])
{
	p[0] = fd_of(r, p[0]);
	p[1] = fd_of(r, p[1]);
}

/* ---- helpers for the scripts ---- */

/* Passed where a call expects a buffer, to get EFAULT; a variable, so
 * that the compiler does not see a constant null. */
static void *volatile null_ptr;

/* Out-of-range counts, in variables for the same reason. */
static volatile int minus_one = -1;
static volatile int too_many_iov = IOV_MAX + 1;

static void must(struct run *r, int ok, const char *what)
{
	if (!ok)
		fatal(r, "set-up failed: %s: %s", what, strerror(errno));
}

/* Create name in the run's directory holding text (set-up, unlogged). */
static void make_file(struct run *r, const char *name, const char *text)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t n = strlen(text);

	must(r, fd >= 0, name);
	must(r, write(fd, text, n) == (ssize_t)n, name);
	must(r, close(fd) == 0, name);
}

/* A descriptor number, through fd_of, that is closed again: in both runs
 * the next descriptor made may reuse it, so use it at once. */
static int closed_fd(struct run *r)
{
	int fd = FD_OF(r, open("/dev/null", O_RDONLY));

	LOG(r, close(fd));
	return fd;
}

/* path below the run's directory, as an absolute path. */
static const char *abs_path(struct run *r, char *buf, size_t size,
			    const char *path)
{
	if (snprintf(buf, size, "%s/%s", r->dir, path) >= (int)size)
		fatal(r, "path too long: %s/%s", r->dir, path);
	return buf;
}

static int same_file(dev_t dev, ino_t ino, const struct stat *ref)
{
	return ref && dev == ref->st_dev && ino == ref->st_ino;
}

/* The stable fields of a stat result, for struct stat and stat64. */
#define NOTE_STAT(r, st, ref)                                                  \
	NOTE(r, "stat", "mode=%o size=%lld nlink=%lu own=%d same_file=%d",     \
	     (unsigned)(st).st_mode, (long long)(st).st_size,                  \
	     (unsigned long)(st).st_nlink,                                     \
	     (st).st_uid == getuid() && (st).st_gid == getgid(),               \
	     same_file((st).st_dev, (ino_t)(st).st_ino, ref))

/* A stat-like call, and the fields of its result if it succeeded. */
#define LOG_STAT(r, expr, st, ref)                                          \
	do {                                                                \
		memset(&(st), 0, sizeof(st));                               \
		if (log_ret(r, __LINE__, #expr, (errno = 0, (long)(expr))) == 0) \
			NOTE_STAT(r, st, ref);                              \
	} while (0)

#define LOG_STATX(r, expr, stx, ref)                                          \
	do {                                                                  \
		memset(&(stx), 0, sizeof(stx));                               \
		if (log_ret(r, __LINE__, #expr, (errno = 0, (long)(expr))) == 0) \
			NOTE(r, "statx",                                      \
			     "mask_basic=%d mode=%o size=%lld nlink=%u "      \
			     "same_file=%d",                                  \
			     ((stx).stx_mask & STATX_BASIC_STATS) ==          \
				     STATX_BASIC_STATS,                       \
			     (unsigned)(stx).stx_mode,                        \
			     (long long)(stx).stx_size, (stx).stx_nlink,      \
			     same_file(makedev((stx).stx_dev_major,           \
					       (stx).stx_dev_minor),          \
				       (ino_t)(stx).stx_ino, ref));           \
	} while (0)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A list of names, sorted, as one record of data. */
static void note_names(struct run *r, int line, const char *label,
		       char **names, int n)
{
	char data[2048] = "";
	size_t len = 0;

	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++) {
		int k = snprintf(data + len, sizeof(data) - len, "%s%s",
				 i ? "," : "", names[i]);

		if (k < 0 || (size_t)k >= sizeof(data) - len)
			break;
		len += (size_t)k;
	}
	note(r, line, label, "%d: %s", n, data);
}

/* Read a directory with getdents64 to its end, log the sorted names and
 * types. */
static void log_getdents(struct run *r, int line, int fd)
{
	union {
		struct dirent64 d;
		char buf[4096];
	} u;
	char names[64][80], *list[64];
	int n = 0;
	ssize_t got;

	while ((got = log_ret(r, line, "getdents64(fd, &u, sizeof(u))",
			      (errno = 0, getdents64(fd, &u, sizeof(u))))) > 0) {
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(u.buf + off);

			if (n < 64) {
				snprintf(names[n], sizeof(names[n]), "%.60s/%d",
					 d->d_name, d->d_type);
				list[n] = names[n];
				n++;
			}
			off += d->d_reclen;
		}
	}
	if (got == 0)
		note_names(r, line, "getdents64 names", list, n);
}

/* Is the cwd the run's directory/sub? */
static int cwd_is(struct run *r, const char *sub)
{
	char cwd[PATH_MAX], want[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)))
		return 0;
	if (snprintf(want, sizeof(want), "%s%s%s", r->dir, *sub ? "/" : "",
		     sub) >= (int)sizeof(want))
		return 0;
	return strcmp(cwd, want) == 0;
}

/* ==== the scripts ==== */

/* ---- io: read, write, p*, *v, *v2, lseek on a file and a pipe ---- */

static void script_io(struct run *r)
{
	char buf[64] = "", b1[4], b2[5];
	struct iovec iov[2] = { { b1, sizeof(b1) }, { b2, sizeof(b2) } };
	struct iovec wv[2] = { { (void *)"IO", 2 }, { (void *)"VEC", 3 } };
	int fd, ro, wo, dfd, p[2], bad;

	make_file(r, "data", "0123456789abcdefghij");
	fd = FD_OF(r, open("data", O_RDWR));
	LOG_BUF(r, read(fd, buf, 4), buf);
	LOG(r, write(fd, "WXYZ", 4));
	LOG(r, lseek(fd, 0, SEEK_CUR));
	LOG(r, lseek64(fd, 2, SEEK_SET));
	LOG_BUF(r, read(fd, buf, sizeof(buf)), buf);
	LOG_BUF(r, read(fd, buf, sizeof(buf)), buf);
	LOG(r, lseek(fd, 0, SEEK_END));
	LOG(r, lseek64(fd, -3, SEEK_END));
	LOG(r, lseek(fd, -100, SEEK_SET));
	LOG(r, lseek(fd, 0, 42));
	LOG(r, lseek(fd, 0, SEEK_DATA));
	LOG(r, lseek64(fd, 0, SEEK_HOLE));
	LOG(r, lseek(fd, 100, SEEK_DATA));
	LOG_BUF(r, pread(fd, buf, 6, 3), buf);
	LOG_BUF(r, pread64(fd, buf, 6, 10), buf);
	LOG(r, pwrite(fd, "pw", 2, 0));
	LOG(r, pwrite64(fd, "PW64", 4, 18));
	LOG_BUF(r, pread(fd, buf, 4, -1), buf);
	LOG_BUF(r, pread64(fd, buf, 4, 1000), buf);
	LOG(r, pwrite(fd, "x", 1, -5));
	LOG(r, lseek(fd, 0, SEEK_SET));
	LOG(r, writev(fd, wv, 2));
	LOG(r, lseek(fd, 1, SEEK_SET));
	LOG_IOV(r, readv(fd, iov, 2), iov, 2);
	LOG_IOV(r, preadv(fd, iov, 2, 3), iov, 2);
	LOG_IOV(r, preadv64(fd, iov, 2, 5), iov, 2);
	LOG(r, pwritev(fd, wv, 2, 10));
	LOG(r, pwritev64(fd, wv, 2, 12));
	LOG_IOV(r, preadv2(fd, iov, 2, 8, 0), iov, 2);
	LOG_IOV(r, preadv2(fd, iov, 2, -1, 0), iov, 2);
	LOG_IOV(r, preadv64v2(fd, iov, 2, 0, 0), iov, 2);
	LOG_IOV(r, preadv64v2(fd, iov, 2, -1, 0), iov, 2);
	LOG(r, pwritev2(fd, wv, 2, 14, RWF_DSYNC));
	LOG(r, pwritev64v2(fd, wv, 1, -1, 0));
	LOG(r, pwritev64v2(fd, wv, 2, 16, 0));
	LOG(r, pwritev2(fd, wv, 2, 0, 0x40000000));
	LOG_IOV(r, preadv2(fd, iov, 2, 0, 0x40000000), iov, 2);
	LOG(r, lseek(fd, 0, SEEK_CUR));
	LOG_IOV(r, readv(fd, iov, minus_one), iov, 2);
	LOG(r, writev(fd, wv, 0));
	LOG(r, writev(fd, wv, too_many_iov));
	LOG_BUF(r, read(fd, buf, 0), buf);
	LOG_BUF(r, read(fd, null_ptr, 4), buf);
	LOG(r, write(fd, null_ptr, 4));
	LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);

	/* Opened for one direction only, and a directory. */
	ro = FD_OF(r, open("data", O_RDONLY));
	LOG(r, write(ro, "x", 1));
	LOG(r, pwrite(ro, "x", 1, 0));
	LOG(r, writev(ro, wv, 2));
	LOG(r, pwritev2(ro, wv, 2, 0, 0));
	wo = FD_OF(r, open("data", O_WRONLY | O_APPEND));
	LOG_BUF(r, read(wo, buf, 4), buf);
	LOG_IOV(r, preadv(wo, iov, 2, 0), iov, 2);
	LOG(r, write(wo, "end", 3));
	LOG(r, pwrite(wo, "P", 1, 0));
	LOG(r, lseek(wo, 0, SEEK_CUR));
	LOG_BUF(r, pread(ro, buf, sizeof(buf), 0), buf);
	dfd = FD_OF(r, open(".", O_RDONLY | O_DIRECTORY));
	LOG_BUF(r, read(dfd, buf, 4), buf);
	LOG(r, write(dfd, "x", 1));
	LOG(r, lseek(dfd, 0, SEEK_SET));
	LOG_BUF(r, pread(dfd, buf, 4, 0), buf);

	/* A pipe: ESPIPE for everything with an offset. */
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, write(p[1], "hello pipe", 10));
	LOG_BUF(r, read(p[0], buf, 5), buf);
	LOG(r, lseek(p[0], 0, SEEK_CUR));
	LOG(r, lseek64(p[1], 0, SEEK_SET));
	LOG_BUF(r, pread(p[0], buf, 2, 0), buf);
	LOG_BUF(r, pread64(p[0], buf, 2, 0), buf);
	LOG(r, pwrite(p[1], "x", 1, 0));
	LOG(r, pwrite64(p[1], "x", 1, 0));
	LOG_IOV(r, preadv(p[0], iov, 2, 0), iov, 2);
	LOG(r, pwritev(p[1], wv, 2, 0));
	LOG_IOV(r, preadv2(p[0], iov, 2, -1, 0), iov, 2);
	LOG(r, pwritev2(p[1], wv, 2, -1, 0));
	LOG(r, pwritev2(p[1], wv, 2, 0, 0));
	LOG_IOV(r, preadv64v2(p[0], iov, 2, 0, 0), iov, 2);
	LOG_IOV(r, readv(p[0], iov, 2), iov, 2);
	LOG_BUF(r, read(p[0], buf, 4), buf);
	LOG_BUF(r, read(p[1], buf, 4), buf);
	LOG(r, write(p[0], "x", 1));
	LOG(r, close(p[1]));
	LOG_BUF(r, read(p[0], buf, 4), buf);
	LOG(r, close(p[0]));

	/* A closed descriptor. */
	bad = closed_fd(r);
	LOG_BUF(r, read(bad, buf, 1), buf);
	LOG(r, write(bad, "x", 1));
	LOG_BUF(r, pread(bad, buf, 1, 0), buf);
	LOG_BUF(r, pread64(bad, buf, 1, 0), buf);
	LOG(r, pwrite(bad, "x", 1, 0));
	LOG(r, pwrite64(bad, "x", 1, 0));
	LOG_IOV(r, readv(bad, iov, 2), iov, 2);
	LOG(r, writev(bad, wv, 2));
	LOG_IOV(r, preadv(bad, iov, 2, 0), iov, 2);
	LOG_IOV(r, preadv64(bad, iov, 2, 0), iov, 2);
	LOG(r, pwritev(bad, wv, 2, 0));
	LOG(r, pwritev64(bad, wv, 2, 0));
	LOG_IOV(r, preadv2(bad, iov, 2, 0, 0), iov, 2);
	LOG_IOV(r, preadv64v2(bad, iov, 2, 0, 0), iov, 2);
	LOG(r, pwritev2(bad, wv, 2, 0, 0));
	LOG(r, pwritev64v2(bad, wv, 2, 0, 0));
	LOG(r, lseek(bad, 0, SEEK_SET));
	LOG(r, lseek64(bad, 0, SEEK_SET));
	LOG(r, close(bad));

	/* Negative numbers. */
	LOG_BUF(r, read(-1, buf, 1), buf);
	LOG(r, write(-1, "x", 1));
	LOG_BUF(r, pread(-7, buf, 1, 0), buf);
	LOG(r, pwrite64(INT_MIN, "x", 1, 0));
	LOG_IOV(r, readv(-1, iov, 2), iov, 2);
	LOG(r, pwritev2(-1, wv, 2, 0, 0));
	LOG(r, lseek(-1, 0, SEEK_SET));
	LOG(r, lseek64(INT_MIN, 0, SEEK_SET));

	LOG(r, close(fd));
	LOG(r, close(ro));
	LOG(r, close(wo));
	LOG(r, close(dfd));
	LOG_BUF(r, read(fd, buf, 1), buf);
	LOG(r, close(fd));
}

/* ---- stat: fstat, fstatat, statx, fstatfs, fstatvfs, fpathconf ---- */

static void note_statfs(struct run *r, int line, long type, long bsize,
			long namelen, long flags, const struct statfs *ref)
{
	note(r, line, "statfs", "type_same=%d bsize=%ld namelen=%ld flags=%#lx",
	     ref ? type == (long)ref->f_type : -1, bsize, namelen, flags);
}

static void script_stat(struct run *r)
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

static void script_fileops(struct run *r)
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

static void script_dirfd_calls(struct run *r)
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

static void script_sockets(struct run *r)
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

/* ---- pipes_splice ---- */

static void script_pipes_splice(struct run *r)
{
	char buf[64] = "", vbuf[] = "vmspliced";
	struct iovec viov = { vbuf, 9 };
	off64_t off, off2;
	off_t soff;
	int p[2], q[2], x[2], y[2], src, dst, ro, bad;

	make_file(r, "src", "0123456789");
	make_file(r, "dst", "");
	LOG(r, pipe(x));
	fd_of_pair(r, x);
	LOG(r, fcntl(x[0], F_GETFL));
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, pipe2(q, O_NONBLOCK | O_CLOEXEC));
	fd_of_pair(r, q);
	LOG(r, fcntl(q[1], F_GETFL));
	LOG(r, fcntl(q[1], F_GETFD));
	LOG(r, pipe2(y, 0x12345));
	src = FD_OF(r, open("src", O_RDONLY));
	dst = FD_OF(r, open("dst", O_RDWR));
	ro = FD_OF(r, open("src", O_RDONLY));

	LOG(r, write(x[1], "blocking pipe", 13));
	LOG_BUF(r, read(x[0], buf, sizeof(buf)), buf);

	/* splice */
	off = 2;
	LOG(r, splice(src, &off, p[1], NULL, 5, 0));
	NOTE(r, "off", "%lld", (long long)off);
	LOG(r, lseek(src, 0, SEEK_CUR));
	off = 1;
	LOG(r, splice(p[0], NULL, dst, &off, 5, 0));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, splice(src, NULL, p[1], NULL, 3, SPLICE_F_NONBLOCK));
	LOG(r, lseek(src, 0, SEEK_CUR));
	LOG(r, splice(p[0], NULL, dst, NULL, 64, SPLICE_F_NONBLOCK));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, splice(p[0], NULL, dst, NULL, 64, SPLICE_F_NONBLOCK));
	LOG(r, splice(src, NULL, dst, NULL, 4, 0));
	off = 0;
	LOG(r, splice(p[0], &off, dst, NULL, 4, 0));
	LOG(r, splice(src, NULL, p[0], NULL, 4, 0));
	LOG(r, splice(src, NULL, p[1], NULL, 4, 0x40000000));

	/* tee */
	LOG(r, write(p[1], "teedata", 7));
	LOG(r, tee(p[0], q[1], 3, SPLICE_F_NONBLOCK));
	LOG_BUF(r, read(q[0], buf, sizeof(buf)), buf);
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, tee(p[0], q[1], 3, SPLICE_F_NONBLOCK));
	LOG(r, tee(src, q[1], 3, 0));
	LOG(r, tee(p[0], dst, 3, 0));
	LOG(r, tee(p[0], p[1], 3, 0));

	/* vmsplice */
	LOG(r, vmsplice(p[1], &viov, 1, 0));
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, vmsplice(src, &viov, 1, 0));
	LOG(r, vmsplice(p[1], &viov, 1, 0x40000000));
	LOG(r, vmsplice(p[0], &viov, 1, SPLICE_F_NONBLOCK));
	LOG_BUF(r, read(p[1], buf, sizeof(buf)), buf);

	/* sendfile */
	soff = 3;
	LOG(r, sendfile(p[1], src, &soff, 4));
	NOTE(r, "soff", "%lld", (long long)soff);
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, lseek(src, 0, SEEK_SET));
	LOG(r, sendfile64(dst, src, NULL, 4));
	LOG(r, lseek(src, 0, SEEK_CUR));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, sendfile(p[1], p[0], NULL, 4));
	LOG(r, sendfile(src, dst, NULL, 4));
	LOG(r, sendfile(p[1], src, &soff, 0));

	/* copy_file_range */
	off = 4;
	off2 = 2;
	LOG(r, copy_file_range(src, &off, dst, &off2, 5, 0));
	NOTE(r, "offs", "%lld %lld", (long long)off, (long long)off2);
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, lseek(src, 7, SEEK_SET));
	LOG(r, lseek(dst, 0, SEEK_SET));
	LOG(r, copy_file_range(src, NULL, dst, NULL, 3, 0));
	LOG(r, lseek(src, 0, SEEK_CUR));
	LOG(r, lseek(dst, 0, SEEK_CUR));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, copy_file_range(src, NULL, dst, NULL, 1, 1));
	LOG(r, copy_file_range(p[0], NULL, dst, NULL, 1, 0));
	LOG(r, copy_file_range(src, NULL, p[1], NULL, 1, 0));
	LOG(r, copy_file_range(src, NULL, ro, NULL, 1, 0));

	/* A closed descriptor on either side. */
	bad = closed_fd(r);
	LOG(r, splice(bad, NULL, p[1], NULL, 1, 0));
	LOG(r, splice(p[0], NULL, bad, NULL, 1, 0));
	LOG(r, tee(bad, q[1], 1, 0));
	LOG(r, tee(p[0], bad, 1, 0));
	LOG(r, vmsplice(bad, &viov, 1, 0));
	LOG(r, sendfile(bad, src, NULL, 1));
	LOG(r, sendfile(p[1], bad, NULL, 1));
	LOG(r, sendfile64(dst, bad, NULL, 1));
	LOG(r, copy_file_range(bad, NULL, dst, NULL, 1, 0));
	LOG(r, copy_file_range(src, NULL, bad, NULL, 1, 0));
	LOG(r, close(bad));

	/* Negative numbers. */
	LOG(r, splice(-1, NULL, p[1], NULL, 1, 0));
	LOG(r, tee(p[0], -1, 1, 0));
	LOG(r, vmsplice(-1, &viov, 1, 0));
	LOG(r, sendfile(-1, src, NULL, 1));
	LOG(r, copy_file_range(src, NULL, -1, NULL, 1, 0));

	/* End of file on the pipe once the write end is closed. */
	LOG(r, close(p[1]));
	LOG(r, splice(p[0], NULL, dst, NULL, 4, 0));
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, close(p[0]));
	LOG(r, close(q[0]));
	LOG(r, close(q[1]));
	LOG(r, close(x[0]));
	LOG(r, close(x[1]));
	LOG(r, close(src));
	LOG(r, close(dst));
	LOG(r, close(ro));
}

/* ---- poll: poll and ppoll on mixed descriptors; select on real ones ---- */

static void note_pollfds(struct run *r, int line, const struct pollfd *pfd,
			 const int *fds, int n)
{
	char data[256] = "";
	size_t len = 0;

	for (int i = 0; i < n && len < sizeof(data); i++)
		len += (size_t)snprintf(data + len, sizeof(data) - len,
					"%s%#x%s", i ? " " : "",
					(unsigned)pfd[i].revents,
					pfd[i].fd == fds[i] ? "" : "(fd changed)");
	note(r, line, "revents", "%s", data);
}

static void script_poll(struct run *r)
{
	const struct timespec ts0 = { 0, 0 }, bad_ts = { 0, -1 };
	struct timeval tv0;
	struct pollfd pfd[8], *many;
	struct rlimit rl;
	nfds_t too_many;
	int fds[8];
	sigset_t mask;
	fd_set rset, wset;
	char buf[16];
	int p[2], q[2], bad, closed_real, sel, n = 0;
	size_t big_size;
	fd_set *big;

	/* More entries than RLIMIT_NOFILE, all ignored: EINVAL.  An array
	 * that big, as the sanitizers read all of it. */
	must(r, getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1U << 24,
	     "RLIMIT_NOFILE");
	too_many = (nfds_t)rl.rlim_cur + 1;
	many = calloc(too_many, sizeof(*many));
	must(r, many != NULL, "calloc pollfds");
	for (nfds_t i = 0; i < too_many; i++)
		many[i].fd = -1;

	sigemptyset(&mask);
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, pipe2(q, O_NONBLOCK));	/* stays real in both runs */
	LOG(r, write(p[1], "x", 1));

	bad = closed_fd(r);
	fds[n++] = p[0];
	fds[n++] = q[0];
	fds[n++] = -1;
	fds[n++] = p[1];
	fds[n++] = bad;
	fds[n++] = q[1];
	fds[n++] = -5;
	fds[n++] = p[0];
	for (int i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ fds[i], POLLIN, 0 };
	pfd[3].events = POLLOUT;
	pfd[5].events = POLLOUT;
	pfd[7].events = POLLOUT | POLLPRI;

	LOG(r, poll(pfd, (nfds_t)n, 0));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, poll(pfd, (nfds_t)n, 10));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, ppoll(pfd, (nfds_t)n, &ts0, NULL));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, ppoll(pfd, (nfds_t)n, &ts0, &mask));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, ppoll(pfd, (nfds_t)n, &bad_ts, NULL));
	LOG(r, poll(NULL, 0, 0));
	LOG(r, poll(many, too_many, 0));
	LOG(r, poll(pfd + 2, 1, 0));
	note_pollfds(r, __LINE__, pfd + 2, fds + 2, 1);
	LOG(r, poll(pfd + 4, 1, 0));
	note_pollfds(r, __LINE__, pfd + 4, fds + 4, 1);

	/* Drained, then hung up. */
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, poll(pfd, 1, 0));
	note_pollfds(r, __LINE__, pfd, fds, 1);
	LOG(r, close(p[1]));
	LOG(r, ppoll(pfd, 1, &ts0, NULL));
	note_pollfds(r, __LINE__, pfd, fds, 1);

	/* select and pselect with real descriptors only. */
	LOG(r, write(q[1], "y", 1));
	FD_ZERO(&rset);
	FD_ZERO(&wset);
	FD_SET(q[0], &rset);
	FD_SET(q[1], &wset);
	tv0 = (struct timeval){ 0, 0 };
	LOG(r, select(q[1] + 1, &rset, &wset, NULL, &tv0));
	NOTE(r, "select sets", "r=%d w=%d", FD_ISSET(q[0], &rset),
	     FD_ISSET(q[1], &wset));
	FD_ZERO(&rset);
	FD_ZERO(&wset);
	FD_SET(q[0], &rset);
	FD_SET(q[1], &rset);
	LOG(r, pselect(q[1] + 1, &rset, NULL, NULL, &ts0, &mask));
	NOTE(r, "pselect sets", "r0=%d r1=%d", FD_ISSET(q[0], &rset),
	     FD_ISSET(q[1], &rset));
	tv0 = (struct timeval){ 0, 0 };
	LOG(r, select(-1, NULL, NULL, NULL, &tv0));

	/*
	 * A descriptor select() cannot take: VIRTUAL, a virtual descriptor
	 * (beyond any fd_set, so EBADF); REAL, a closed real one (EBADF).
	 * The set is made big enough to hold the number.
	 */
	closed_real = open("/dev/null", O_RDONLY);
	must(r, closed_real >= 0 && close(closed_real) == 0, "closed_real");
	sel = r->mode == MODE_VIRTUAL ? p[0] : closed_real;
	big_size = ((size_t)sel / 64 + 1) * 8;
	big = mmap(NULL, big_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	must(r, big != MAP_FAILED, "mmap fd_set");
	((unsigned long *)big)[sel / 64] |= 1UL << (sel % 64);
	tv0 = (struct timeval){ 0, 0 };
	LOG(r, select(sel + 1, big, NULL, NULL, &tv0));
	((unsigned long *)big)[sel / 64] |= 1UL << (sel % 64);
	LOG(r, pselect(sel + 1, big, NULL, NULL, &ts0, NULL));
	munmap(big, big_size);
	free(many);

	LOG(r, close(p[0]));
	LOG(r, close(q[0]));
	LOG(r, close(q[1]));
}

/* ---- epoll ---- */

static int cmp_event(const void *a, const void *b)
{
	const struct epoll_event *x = a, *y = b;

	return x->data.u64 < y->data.u64 ? -1 : x->data.u64 > y->data.u64;
}

static void note_events(struct run *r, int line, struct epoll_event *ev, int n)
{
	char data[512] = "";
	size_t len = 0;

	if (n <= 0)
		return;
	qsort(ev, (size_t)n, sizeof(*ev), cmp_event);
	for (int i = 0; i < n && len < sizeof(data); i++)
		len += (size_t)snprintf(data + len, sizeof(data) - len,
					"%s%#llx:%#x", i ? " " : "",
					(unsigned long long)ev[i].data.u64,
					(unsigned)ev[i].events);
	note(r, line, "events", "%s", data);
}

#define EP_WAIT(r, expr, ev) \
	note_events(r, __LINE__, ev, \
		    (int)log_ret(r, __LINE__, #expr, (errno = 0, (long)(expr))))

static void script_epoll(struct run *r)
{
	const struct timespec ts0 = { 0, 0 };
	struct epoll_event ev, out[8];
	sigset_t mask;
	int ep, ep2, old, p[2], q[2], f, bad;

	sigemptyset(&mask);
	ep = FD_OF(r, epoll_create1(EPOLL_CLOEXEC));
	LOG(r, fcntl(ep, F_GETFD));
	LOG_FD(r, epoll_create1(0x1234));
	LOG_FD(r, epoll_create(0));
	old = FD_OF(r, epoll_create(1));
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, pipe2(q, O_NONBLOCK));
	fd_of_pair(r, q);
	make_file(r, "reg", "regular");
	f = FD_OF(r, open("reg", O_RDONLY));

	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x1111000000000001ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x2222000000000002ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, q[0], &ev));
	ev = (struct epoll_event){ EPOLLOUT, { .u64 = 0x3333000000000003ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);
	ev = (struct epoll_event){ EPOLLIN | EPOLLET,
				   { .u64 = 0x2222000000000022ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_MOD, q[0], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_MOD, q[1], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_DEL, q[1], NULL));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
	LOG(r, epoll_ctl(ep, 99, p[0], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev));
	LOG(r, epoll_ctl(p[0], EPOLL_CTL_ADD, q[1], &ev));
	ev = (struct epoll_event){ EPOLLIN | EPOLLEXCLUSIVE, { .u64 = 9 } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));

	LOG(r, write(p[1], "x", 1));
	LOG(r, write(q[1], "y", 1));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);
	EP_WAIT(r, epoll_wait(ep, out, 1, 0), out);
	EP_WAIT(r, epoll_pwait(ep, out, 8, 0, NULL), out);
	EP_WAIT(r, epoll_pwait(ep, out, 8, 0, &mask), out);
	EP_WAIT(r, epoll_pwait2(ep, out, 8, &ts0, NULL), out);
	EP_WAIT(r, epoll_pwait2(ep, out, 8, NULL, &mask), out);
	LOG(r, epoll_wait(ep, out, 0, 0));
	LOG(r, epoll_wait(p[0], out, 8, 0));
	LOG(r, epoll_pwait2(p[0], out, 8, &ts0, NULL));

	LOG(r, epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);

	/* Epoll in epoll, and an old-style epoll descriptor. */
	ep2 = FD_OF(r, epoll_create1(0));
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x4444000000000004ULL } };
	LOG(r, epoll_ctl(ep2, EPOLL_CTL_ADD, ep, &ev));
	EP_WAIT(r, epoll_wait(ep2, out, 8, 0), out);
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, ep2, &ev));
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x5555000000000005ULL } };
	LOG(r, epoll_ctl(old, EPOLL_CTL_ADD, q[0], &ev));
	EP_WAIT(r, epoll_wait(old, out, 8, 0), out);

	/* A registered descriptor closed: its registration goes with it. */
	LOG(r, close(p[1]));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);

	/* A closed descriptor, as the epoll descriptor and as the target. */
	bad = closed_fd(r);
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 1 } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, bad, &ev));
	LOG(r, epoll_ctl(bad, EPOLL_CTL_ADD, q[0], &ev));
	LOG(r, epoll_wait(bad, out, 8, 0));
	LOG(r, epoll_pwait(bad, out, 8, 0, NULL));
	LOG(r, epoll_pwait2(bad, out, 8, &ts0, NULL));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, -1, &ev));
	LOG(r, epoll_ctl(-1, EPOLL_CTL_ADD, q[0], &ev));
	LOG(r, epoll_wait(-1, out, 8, 0));

	LOG(r, close(ep));
	LOG(r, close(ep2));
	LOG(r, close(old));
	LOG(r, close(p[0]));
	LOG(r, close(q[0]));
	LOG(r, close(q[1]));
	LOG(r, close(f));
}

/* ---- fdflags: fcntl, dup*, ioctl ---- */

static void note_flock(struct run *r, int line, const struct flock *fl)
{
	note(r, line, "flock", "type=%d whence=%d start=%lld len=%lld pid=%s",
	     fl->l_type, fl->l_whence, (long long)fl->l_start,
	     (long long)fl->l_len,
	     fl->l_pid == 0 ? "0" : fl->l_pid == -1 ? "-1" :
	     fl->l_pid == getpid() ? "self" : "other");
}

static void script_fdflags(struct run *r)
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

/* ---- misc: eventfd, timerfd, signalfd, inotify, memfd+mmap, tty calls,
 * pidfd, setns, fanotify ---- */

static void note_inotify(struct run *r, int line, const char *buf, long n)
{
	char data[512] = "";
	size_t len = 0;

	for (long off = 0; off < n && len < sizeof(data);) {
		const struct inotify_event *ev =
			(const struct inotify_event *)(buf + off);

		len += (size_t)snprintf(data + len, sizeof(data) - len,
					"[wd=%d mask=%#x name=%s]", ev->wd,
					ev->mask, ev->len ? ev->name : "");
		off += (long)(sizeof(*ev) + ev->len);
	}
	note(r, line, "inotify events", "%s", data);
}

static void script_misc(struct run *r)
{
	union {
		struct inotify_event ev;
		struct signalfd_siginfo si;
		struct fanotify_event_metadata fm;
		char buf[1024];
	} u;
	struct itimerspec its, cur;
	struct termios tio;
	struct stat st, ref;
	sigset_t mask, mask2;
	eventfd_t ev;
	uint64_t u64;
	char buf[128], pts[128] = "";
	const char *name;
	char *map;
	long got;
	int e, t, s, s2, in, wd, mem, f, wo, pidfd, ns, fan, d, pm, ptsfd, bad;

	make_file(r, "plain", "not a tty");
	must(r, stat("plain", &ref) == 0, "stat plain");
	f = FD_OF(r, open("plain", O_RDWR));

	/* eventfd */
	e = FD_OF(r, eventfd(3, EFD_NONBLOCK));
	ev = 0;
	LOG(r, eventfd_read(e, &ev));
	NOTE(r, "eventfd value", "%llu", (unsigned long long)ev);
	LOG(r, eventfd_read(e, &ev));
	LOG(r, eventfd_write(e, 5));
	u64 = 0;
	LOG(r, read(e, &u64, sizeof(u64)));
	NOTE(r, "eventfd value", "%llu", (unsigned long long)u64);
	u64 = 7;
	LOG(r, write(e, &u64, sizeof(u64)));
	LOG(r, read(e, buf, 4));
	LOG(r, eventfd_read(e, &ev));
	NOTE(r, "eventfd value", "%llu", (unsigned long long)ev);
	LOG(r, eventfd_write(e, UINT64_MAX));
	LOG(r, eventfd_read(f, &ev));
	LOG_FD(r, eventfd(0, 0x1234));

	/* timerfd */
	t = FD_OF(r, timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
	LOG(r, fcntl(t, F_GETFD));
	its = (struct itimerspec){ { 0, 0 }, { 100, 0 } };
	memset(&cur, 0xff, sizeof(cur));
	LOG(r, timerfd_settime(t, 0, &its, &cur));
	NOTE(r, "old", "%lld %lld", (long long)cur.it_value.tv_sec,
	     (long long)cur.it_interval.tv_sec);
	if (LOG(r, timerfd_gettime(t, &cur)) == 0)
		NOTE(r, "timerfd_gettime", "interval=%lld armed=%d",
		     (long long)cur.it_interval.tv_sec,
		     cur.it_value.tv_sec > 0 && cur.it_value.tv_sec <= 100);
	LOG(r, read(t, &u64, sizeof(u64)));
	its = (struct itimerspec){ { 0, 0 }, { 0, 1 } };
	LOG(r, timerfd_settime(t, TFD_TIMER_ABSTIME, &its, NULL));
	u64 = 0;
	LOG(r, read(t, &u64, sizeof(u64)));
	NOTE(r, "expirations", "%llu", (unsigned long long)u64);
	LOG(r, timerfd_settime(t, 0x40000000, &its, NULL));
	its.it_value.tv_nsec = -1;
	LOG(r, timerfd_settime(t, 0, &its, NULL));
	LOG(r, timerfd_settime(f, 0, &its, NULL));
	LOG(r, timerfd_gettime(f, &cur));
	LOG_FD(r, timerfd_create(12345, 0));

	/* signalfd: given a signalfd, signalfd() returns that descriptor. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	mask2 = mask;
	sigaddset(&mask2, SIGUSR2);
	must(r, sigprocmask(SIG_BLOCK, &mask2, NULL) == 0, "sigprocmask");
	s = FD_OF(r, signalfd(-1, &mask, SFD_NONBLOCK));
	s2 = LOG_FD(r, signalfd(s, &mask2, 0));
	LOG_BOOL(r, s2 == s);
	LOG(r, raise(SIGUSR2));
	if (LOG(r, read(s, &u.si, sizeof(u.si))) > 0)
		NOTE(r, "ssi_signo", "%u", u.si.ssi_signo);
	LOG(r, read(s, &u.si, sizeof(u.si)));
	LOG_FD(r, signalfd(f, &mask, 0));
	LOG_FD(r, signalfd(-1, &mask, 0x1234));

	/* inotify */
	in = FD_OF(r, inotify_init1(IN_NONBLOCK));
	wd = LOG(r, inotify_add_watch(in, ".", IN_CREATE | IN_DELETE));
	LOG(r, inotify_add_watch(in, ".", IN_CREATE | IN_MASK_ADD));
	make_file(r, "newfile", "");
	LOG(r, unlink("newfile"));
	got = LOG(r, read(in, &u, sizeof(u)));
	if (got > 0)
		note_inotify(r, __LINE__, u.buf, got);
	LOG(r, inotify_rm_watch(in, wd));
	got = LOG(r, read(in, &u, sizeof(u)));
	if (got > 0)
		note_inotify(r, __LINE__, u.buf, got);
	LOG(r, inotify_rm_watch(in, wd));
	LOG(r, inotify_rm_watch(in, 999));
	LOG(r, inotify_add_watch(in, "missing", IN_CREATE));
	LOG(r, inotify_add_watch(in, ".", 0));
	LOG(r, inotify_add_watch(f, ".", IN_CREATE));
	LOG(r, inotify_rm_watch(f, 1));
	LOG_FD(r, inotify_init1(0x1234));

	/* memfd and mmap */
	mem = FD_OF(r, memfd_create("mapped", MFD_CLOEXEC));
	LOG(r, write(mem, "mapped bytes", 12));
	LOG(r, ftruncate(mem, 4096));
	map = LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, mem, 0));
	if (map != MAP_FAILED) {
		NOTE(r, "mapped", "%.12s", map);
		munmap(map, 4096);
	}
	map = LOG_PTR(r, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			      f, 0));
	if (map != MAP_FAILED) {
		NOTE(r, "mapped", "%.9s", map);
		munmap(map, 4096);
	}
	wo = FD_OF(r, open("plain", O_WRONLY));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, wo, 0));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, e, 0));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, mem, 1));
	LOG_FD(r, memfd_create("x", 0x1234));

	/* Not a tty, and a tty. */
	LOG_ERRNO(r, isatty(f));
	LOG_PTR(r, ttyname(f));
	LOG_ERRNUM(r, ttyname_r(f, buf, sizeof(buf)));
	LOG(r, tcgetattr(f, &tio));
	LOG(r, tcgetpgrp(f));
	LOG(r, tcflush(f, TCIFLUSH));
	pm = FD_OF(r, posix_openpt(O_RDWR | O_NOCTTY));
	LOG(r, grantpt(pm));
	LOG(r, unlockpt(pm));
	LOG_ERRNUM(r, ptsname_r(pm, pts, sizeof(pts)));
	LOG_BOOL(r, strncmp(pts, "/dev/pts/", 9) == 0);
	ptsfd = FD_OF(r, open(pts, O_RDWR | O_NOCTTY));
	LOG_ERRNO(r, isatty(ptsfd));
	name = LOG_PTR(r, ttyname(ptsfd));
	LOG_BOOL(r, name && strcmp(name, pts) == 0);
	LOG_ERRNUM(r, ttyname_r(ptsfd, buf, sizeof(buf)));
	LOG_BOOL(r, strcmp(buf, pts) == 0);
	if (LOG(r, tcgetattr(ptsfd, &tio)) == 0)
		NOTE(r, "termios", "iflag=%#x oflag=%#x lflag=%#x",
		     tio.c_iflag, tio.c_oflag, tio.c_lflag);
	LOG(r, tcsetattr(ptsfd, TCSANOW, &tio));
	LOG(r, tcgetpgrp(ptsfd));

	/* pidfd */
	pidfd = FD_OF(r, pidfd_open(getpid(), 0));
	LOG(r, pidfd_send_signal(pidfd, 0, NULL, 0));
	LOG(r, pidfd_send_signal(pidfd, 0, NULL, 1));
	LOG(r, pidfd_send_signal(f, 0, NULL, 0));
	s2 = LOG_FD(r, pidfd_getfd(pidfd, f, 0));
	LOG_STAT(r, fstat(s2, &st), st, &ref);
	LOG(r, close(s2));
	LOG_FD(r, pidfd_getfd(pidfd, -1, 0));
	LOG_FD(r, pidfd_getfd(f, f, 0));
	LOG_FD(r, pidfd_open(getpid(), 0x1234));
	LOG_FD(r, pidfd_open(-1, 0));

	/* setns: joining the namespace the process is in already. */
	ns = FD_OF(r, open("/proc/self/ns/uts", O_RDONLY));
	LOG(r, setns(ns, CLONE_NEWUTS));
	LOG(r, setns(ns, CLONE_NEWNET));
	LOG(r, setns(f, 0));
	LOG(r, setns(pidfd, 0));

	/* fanotify: needs CAP_SYS_ADMIN; the rest is skipped without it. */
	fan = FD_OF(r, fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY));
	if (fan < 0) {
		NOTE(r, "fanotify", "skipped: fanotify_init: %s",
		     errname(errno));
	} else {
		must(r, mkdir("watched", 0755) == 0, "mkdir watched");
		d = FD_OF(r, open("watched", O_RDONLY | O_DIRECTORY));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, d, NULL));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, d, "x"));
		LOG(r, fanotify_mark(fan, 0x40000000, FAN_CLOSE_WRITE, d, NULL));
		LOG(r, fanotify_mark(f, FAN_MARK_ADD, FAN_CLOSE_WRITE, d, NULL));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE,
				     AT_FDCWD, "watched"));
		make_file(r, "watched/x", "");
		if (LOG(r, read(fan, &u.fm, sizeof(u))) > 0) {
			NOTE(r, "fanotify event", "len=%u vers=%u mask=%#llx "
			     "fd_valid=%d self=%d", u.fm.event_len, u.fm.vers,
			     (unsigned long long)u.fm.mask, u.fm.fd >= 0,
			     u.fm.pid == getpid());
			if (u.fm.fd >= 0)
				close(u.fm.fd);
		}
		bad = closed_fd(r);
		LOG(r, fanotify_mark(bad, FAN_MARK_ADD, FAN_CLOSE_WRITE,
				     AT_FDCWD, "."));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, bad,
				     "x"));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, bad,
				     NULL));
		LOG(r, close(d));
		LOG(r, close(fan));
	}

	/* A closed descriptor. */
	bad = closed_fd(r);
	LOG(r, eventfd_read(bad, &ev));
	LOG(r, eventfd_write(bad, 1));
	LOG(r, timerfd_settime(bad, 0, &its, NULL));
	LOG(r, timerfd_gettime(bad, &cur));
	LOG_FD(r, signalfd(bad, &mask, 0));
	LOG(r, inotify_add_watch(bad, ".", IN_CREATE));
	LOG(r, inotify_rm_watch(bad, 1));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, bad, 0));
	LOG_ERRNO(r, isatty(bad));
	LOG_PTR(r, ttyname(bad));
	LOG_ERRNUM(r, ttyname_r(bad, buf, sizeof(buf)));
	LOG(r, tcgetattr(bad, &tio));
	LOG(r, grantpt(bad));
	LOG(r, unlockpt(bad));
	LOG_ERRNUM(r, ptsname_r(bad, buf, sizeof(buf)));
	LOG(r, pidfd_send_signal(bad, 0, NULL, 0));
	LOG_FD(r, pidfd_getfd(bad, f, 0));
	LOG_FD(r, pidfd_getfd(pidfd, bad, 0));
	LOG(r, setns(bad, 0));

	/* Negative numbers. */
	LOG(r, eventfd_read(-1, &ev));
	LOG(r, timerfd_gettime(-1, &cur));
	LOG(r, inotify_add_watch(-1, ".", IN_CREATE));
	LOG_ERRNO(r, isatty(-1));
	LOG(r, tcgetattr(-1, &tio));
	LOG(r, pidfd_send_signal(-1, 0, NULL, 0));
	LOG(r, setns(-1, 0));

	LOG(r, close(e));
	LOG(r, close(t));
	LOG(r, close(s));
	LOG(r, close(in));
	LOG(r, close(mem));
	LOG(r, close(wo));
	LOG(r, close(pm));
	LOG(r, close(ptsfd));
	LOG(r, close(pidfd));
	LOG(r, close(ns));
	LOG(r, close(f));
}

/* ---- stdio: fdopen and fdopendir on a virtual descriptor ---- */

static void script_stdio(struct run *r)
{
	struct dirent *de;
	char buf[64] = "", names[16][64], *list[16];
	FILE *fp;
	DIR *dir;
	struct dirent **ents;
	int fd, ro, d, p[2], bad, n;

	make_file(r, "s", "");
	make_file(r, "ro", "read only");
	must(r, mkdir("d", 0755) == 0, "mkdir d");
	make_file(r, "d/a", "");
	make_file(r, "d/b", "");
	make_file(r, "d/c", "");

	/* fdopen */
	fd = FD_OF(r, open("s", O_RDWR));
	fp = LOG_PTR(r, fdopen(fd, "r+"));
	if (fp) {
		LOG_BOOL(r, fileno(fp) == fd);
		LOG(r, fwrite("hello stdio", 1, 11, fp));
		LOG(r, fflush(fp));
		LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);
		LOG(r, fseek(fp, 6, SEEK_SET));
		LOG(r, ftell(fp));
		LOG_BUF(r, fread(buf, 1, 5, fp), buf);
		LOG(r, ftell(fp));
		LOG(r, lseek(fd, 0, SEEK_CUR));
		rewind(fp);
		LOG_PTR(r, fgets(buf, sizeof(buf), fp));
		NOTE(r, "fgets", "%s", buf);
		LOG(r, fprintf(fp, "+%d", 42));
		LOG(r, fseeko(fp, 0, SEEK_END));
		LOG(r, ftello(fp));
		LOG(r, fputs("!", fp));
		LOG(r, fflush(fp));
		LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);
		LOG(r, ferror(fp));
		LOG(r, fclose(fp));
		LOG(r, fcntl(fd, F_GETFD));
	}
	ro = FD_OF(r, open("ro", O_RDONLY));
	LOG_PTR(r, fdopen(ro, "w"));
	LOG_PTR(r, fdopen(ro, "q"));
	fp = LOG_PTR(r, fdopen(ro, "r"));
	if (fp) {
		LOG_BUF(r, fread(buf, 1, sizeof(buf), fp), buf);
		LOG(r, feof(fp));
		LOG(r, fputc('x', fp));
		LOG(r, ferror(fp) != 0);
		LOG(r, fclose(fp));
		LOG(r, fcntl(ro, F_GETFD));
	}
	LOG(r, pipe(p));
	fd_of_pair(r, p);
	fp = LOG_PTR(r, fdopen(p[1], "w"));
	if (fp) {
		LOG(r, fputs("through a pipe", fp));
		LOG(r, fclose(fp));
	}
	fp = LOG_PTR(r, fdopen(p[0], "r"));
	if (fp) {
		LOG_BUF(r, fread(buf, 1, sizeof(buf), fp), buf);
		LOG(r, fseek(fp, 0, SEEK_SET));
		LOG(r, fclose(fp));
	}

	/* fdopendir */
	d = FD_OF(r, open("d", O_RDONLY | O_DIRECTORY));
	dir = LOG_PTR(r, fdopendir(d));
	if (dir) {
		LOG_BOOL(r, dirfd(dir) == d);
		n = 0;
		while ((de = readdir(dir)) && n < 16) {
			snprintf(names[n], sizeof(names[n]), "%.60s", de->d_name);
			list[n] = names[n];
			n++;
		}
		note_names(r, __LINE__, "readdir", list, n);
		LOG_VOID(r, rewinddir(dir));
		n = 0;
		while ((de = readdir(dir)))
			n++;
		NOTE(r, "readdir again", "%d", n);
		n = LOG(r, scandirat(d, ".", &ents, NULL, alphasort));
		for (int i = 0; i < n; i++) {
			list[i < 16 ? i : 15] = ents[i]->d_name;
		}
		if (n > 0 && n <= 16)
			note_names(r, __LINE__, "scandirat", list, n);
		for (int i = 0; i < n; i++)
			free(ents[i]);
		if (n >= 0)
			free(ents);
		LOG(r, closedir(dir));
		LOG(r, fcntl(d, F_GETFD));
	}
	fd = FD_OF(r, open("s", O_RDONLY));
	LOG_PTR(r, fdopendir(fd));
	LOG(r, close(fd));

	/* A closed descriptor, a negative one. */
	bad = closed_fd(r);
	LOG_PTR(r, fdopen(bad, "r"));
	LOG_PTR(r, fdopendir(bad));
	LOG(r, scandirat(bad, ".", &ents, NULL, alphasort));
	LOG_PTR(r, fdopen(-1, "r"));
	LOG_PTR(r, fdopendir(-1));
}

/* ---- devfd_paths: /dev/fd/N, /proc/self/fd/N, /proc/<pid>/fd/N ---- */

static void script_devfd_paths(struct run *r)
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
		LOG_STAT(r, stat(path, &st), st, &ref);
		if (LOG(r, lstat(path, &st)) == 0)
			NOTE(r, "lstat", "link=%d mode=%o", S_ISLNK(st.st_mode),
			     (unsigned)st.st_mode & 0777);
		LOG(r, access(path, R_OK | W_OK));
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
			 * ufd's): a known difference, see README "Limits". */
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

/* ---- raw_syscall: syscall() with descriptors ---- */

static void script_raw_syscall(struct run *r)
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

static void script_bulk_close(struct run *r)
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

/* ==== the framework ==== */

/* Every family: one line each. */
#define FAMILIES(X)       \
	X(io)             \
	X(stat)           \
	X(fileops)        \
	X(dirfd_calls)    \
	X(sockets)        \
	X(pipes_splice)   \
	X(poll)           \
	X(epoll)          \
	X(fdflags)        \
	X(misc)           \
	X(stdio)          \
	X(devfd_paths)    \
	X(raw_syscall)    \
	X(bulk_close)

/* A script's process: the log at LOG_PIPE_FD, a fresh umask, a time limit,
 * the run's directory as the cwd. */
static _Noreturn void child_main(script_fn *script, enum mode mode,
				 const char *dir, int wfd)
{
	struct run r = { .mode = mode };

	if (dup2(wfd, LOG_PIPE_FD) != LOG_PIPE_FD)
		_exit(2);
	close(wfd);
	/* Check's handler, inherited, would kill the whole test. */
	signal(SIGALRM, SIG_DFL);
	alarm(SCRIPT_TIMEOUT);
	umask(022);
	signal(SIGPIPE, SIG_IGN);
	snprintf(r.dir, sizeof(r.dir), "%s", dir);
	if (chdir(dir) != 0)
		fatal(&r, "chdir %s: %s", dir, strerror(errno));
	script(&r);
	record(&r, 0, "!END", "", 0, NULL, 0);
	_exit(0);
}

struct rec {
	char *label, *result, *err, *data;
};

struct outcome {
	char *log;
	size_t len;
	int status;
	struct rec *recs;
	int n;
	int ended;	/* the script ran to its end */
};

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void run_mode(script_fn *script, enum mode mode, struct outcome *o)
{
	char tmpl[] = "/tmp/ufd-diff-XXXXXX", dir[PATH_MAX];
	size_t cap = 0;
	int p[2];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, dir));
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		child_main(script, mode, dir, p[1]);
	}
	close(p[1]);
	for (;;) {
		ssize_t n;

		if (o->len + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			o->log = realloc(o->log, cap);
			ck_assert_ptr_nonnull(o->log);
		}
		n = read(p[0], o->log + o->len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		o->len += (size_t)n;
	}
	close(p[0]);
	if (!o->log) {
		o->log = malloc(1);
		ck_assert_ptr_nonnull(o->log);
	}
	o->log[o->len] = '\0';
	while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR)
		;
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Split a log into its records, in place. */
static void parse(struct outcome *o)
{
	char *line = o->log, *nl;
	int cap = 0;

	while ((nl = strchr(line, '\n'))) {
		struct rec rc;

		*nl = '\0';
		rc.label = line;
		rc.result = strchr(rc.label, US);
		rc.err = rc.result ? strchr(rc.result + 1, US) : NULL;
		rc.data = rc.err ? strchr(rc.err + 1, US) : NULL;
		if (rc.data) {
			*rc.result++ = '\0';
			*rc.err++ = '\0';
			*rc.data++ = '\0';
			if (!strcmp(rc.label, "0:!END")) {
				o->ended = 1;
			} else {
				if (o->n == cap) {
					cap = cap ? cap * 2 : 256;
					o->recs = realloc(o->recs,
							  sizeof(*o->recs) *
								  (size_t)cap);
					ck_assert_ptr_nonnull(o->recs);
				}
				o->recs[o->n++] = rc;
			}
		}
		line = nl + 1;
	}
}

static int rec_equal(const struct rec *a, const struct rec *b)
{
	return !strcmp(a->label, b->label) && !strcmp(a->result, b->result) &&
	       !strcmp(a->err, b->err) && !strcmp(a->data, b->data);
}

/* "result errno [data]" of a record, for messages. */
static void rec_text(char *buf, size_t size, const struct rec *rc)
{
	snprintf(buf, size, "%s%s%s%s%s%s", rc->result, *rc->err ? " " : "",
		 rc->err, *rc->data ? " [" : "", rc->data,
		 *rc->data ? "]" : "");
}

static void describe_end(char *buf, size_t size, const struct outcome *o)
{
	const char *sig;

	if (WIFSIGNALED(o->status)) {
		sig = sigabbrev_np(WTERMSIG(o->status));
		snprintf(buf, size, "killed by SIG%s%s", sig ? sig : "?",
			 WTERMSIG(o->status) == SIGALRM ? " (timeout)" : "");
		return;
	}
	snprintf(buf, size, "exited with %d%s", WEXITSTATUS(o->status),
		 o->ended ? "" : " before the end of the script");
}

/* Both logs side by side, differing records marked (UFD_DIFF_DUMP=1). */
static void dump(const struct outcome *o)
{
	char a[1024], b[1024];
	int n = o[0].n > o[1].n ? o[0].n : o[1].n;

	for (int i = 0; i < n; i++) {
		const struct rec *x = i < o[0].n ? &o[0].recs[i] : NULL;
		const struct rec *y = i < o[1].n ? &o[1].recs[i] : NULL;

		a[0] = b[0] = '\0';
		if (x)
			rec_text(a, sizeof(a), x);
		if (y)
			rec_text(b, sizeof(b), y);
		fprintf(stderr, "%c %4d %-44s %-30s | %s\n",
			x && y && rec_equal(x, y) ? ' ' : '*', i + 1,
			x ? x->label : y->label, a, b);
	}
}

static void run_family(const char *name, script_fn *script)
{
	static char msg[4096];
	struct outcome o[2];
	char a[1024], b[1024];
	int n, first = -1;

	ck_assert_msg(api_nonseqfd != NULL,
		      "libufd.so is not loaded: nonseqfd() not found by "
		      "dlsym(); run this test under LD_PRELOAD=libufd.so");
	for (int m = 0; m < 2; m++) {
		run_mode(script, (enum mode)m, &o[m]);
		parse(&o[m]);
	}
	msg[0] = '\0';

	/* A run that could not go on. */
	for (int m = 0; m < 2 && !msg[0]; m++)
		for (int i = 0; i < o[m].n; i++)
			if (strstr(o[m].recs[i].label, "!FATAL")) {
				snprintf(msg, sizeof(msg), "%s, %s run: %s", name,
					 mode_name[m], o[m].recs[i].data);
				break;
			}

	/* The first record that differs. */
	n = o[0].n < o[1].n ? o[0].n : o[1].n;
	for (int i = 0; i < n && first < 0; i++)
		if (!rec_equal(&o[0].recs[i], &o[1].recs[i]))
			first = i;
	if (!msg[0] && first >= 0) {
		const struct rec *x = &o[0].recs[first], *y = &o[1].recs[first];

		rec_text(a, sizeof(a), x);
		rec_text(b, sizeof(b), y);
		if (strcmp(x->label, y->label))
			snprintf(msg, sizeof(msg),
				 "%s, record %d: REAL did `%s` -> %s, but "
				 "VIRTUAL did `%s` -> %s", name, first + 1,
				 x->label, a, y->label, b);
		else
			snprintf(msg, sizeof(msg),
				 "%s, record %d of %d: `%s`: REAL -> %s, "
				 "VIRTUAL -> %s", name, first + 1, o[0].n,
				 x->label, a, b);
	}

	/* A run that ended early, or logs of different lengths. */
	for (int m = 0; m < 2 && !msg[0]; m++) {
		if (o[m].ended && WIFEXITED(o[m].status) &&
		    WEXITSTATUS(o[m].status) == 0)
			continue;
		describe_end(a, sizeof(a), &o[m]);
		snprintf(msg, sizeof(msg), "%s, %s run %s after record %d `%s`",
			 name, mode_name[m], a, o[m].n,
			 o[m].n ? o[m].recs[o[m].n - 1].label : "");
	}
	if (!msg[0] && o[0].n != o[1].n) {
		const struct outcome *l = o[0].n > o[1].n ? &o[0] : &o[1];

		rec_text(a, sizeof(a), &l->recs[n]);
		snprintf(msg, sizeof(msg),
			 "%s: REAL made %d records, VIRTUAL %d; the first extra "
			 "one: `%s` -> %s", name, o[0].n, o[1].n,
			 l->recs[n].label, a);
	}
	if (!msg[0] && o[0].n == 0)
		snprintf(msg, sizeof(msg), "%s: the script logged nothing", name);

	fprintf(stderr, "diff %-12s REAL %d records, VIRTUAL %d records, %s\n",
		name, o[0].n, o[1].n, msg[0] ? "DIFFERENT" : "identical");
	if (getenv("UFD_DIFF_DUMP"))
		dump(o);
	for (int m = 0; m < 2; m++) {
		free(o[m].recs);
		free(o[m].log);
	}
	if (msg[0])
		ck_abort_msg("%s", msg);
}

/* One Check test per family. */
#define DECLARE_TEST(name)                              \
	START_TEST(test_##name)                         \
	{                                               \
		run_family(#name, script_##name);       \
	}                                               \
	END_TEST
FAMILIES(DECLARE_TEST)

static const struct family {
	const char *name;
	const TTest *const *test;
} families[] = {
#define FAMILY_ROW(name) { #name, &test_##name },
	FAMILIES(FAMILY_ROW)
#undef FAMILY_ROW
};

int main(void)
{
	Suite *s = suite_create("diff");
	SRunner *sr;
	int failed;

	load_api(0);
	if (!api_nonseqfd)
		fprintf(stderr, "libufd.so is not loaded: run this test under "
				"LD_PRELOAD=libufd.so\n");
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		TCase *tc = tcase_create(families[i].name);

		tcase_add_test(tc, *families[i].test);
		tcase_set_timeout(tc, 3 * SCRIPT_TIMEOUT);
		suite_add_tcase(s, tc);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
