/* SPDX-License-Identifier: MIT */
/*
 * log.c - UFD_LOG.
 *
 * The file is opened, written once and closed for every line, with raw
 * system calls, rather than held open: a descriptor of ufd's own would
 * have to be hidden from the application (close-all loops, close_range,
 * /proc/self/fd listings) and re-opened across fork and exec, and a log
 * is a debugging aid, not a hot path.  O_APPEND and one write() per line
 * keep the lines of a whole process tree whole and in order.
 *
 * The cost: for the duration of each write the log file takes the lowest
 * free descriptor number, which another thread of the application could
 * have wanted at that instant; and a dup2 onto that number by another
 * thread at that instant would have the line written into its file and
 * then closed.  A debugging aid's price, in threaded programs only.
 *
 * The file must be a regular file, checked with fstat after each open:
 * a FIFO or a device could block (O_NONBLOCK keeps the open itself from
 * waiting for a FIFO's reader) or raise SIGPIPE when a reader goes away,
 * and writing to a regular file does neither.  The last component is not
 * followed if it is a symbolic link (O_NOFOLLOW).
 *
 * Lines are never written with ufd's table lock held (a write can take a
 * while, and every other thread's table change would wait): vfd_table's
 * lock and unlock call ufd_log_hold and ufd_log_release, and a line this
 * thread (or a signal handler that interrupted it) makes in between goes
 * into a per-thread buffer that the release writes, once the lock is
 * free.  The buffer is reserved with compare-and-swap on a thread-local
 * counter, so a handler's line cannot tear the line it interrupted; it is
 * bounded, and lines that do not fit are counted and reported in their
 * place.
 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "settings.h"
#include "sys.h"
#include "text.h"

int ufd_log_on;

/* Absolute, so that the process and its children may chdir freely. */
static char log_path[PATH_MAX];

#define LINE_MAX_BYTES 512

struct line {
	char buf[LINE_MAX_BYTES];
	size_t len;
};

static void put_str(struct line *l, const char *s)
{
	if (!s)
		s = "(null)";
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

static void put_num(struct line *l, unsigned long n, int negative)
{
	char digits[21], *end = digits;

	if (negative)
		*end++ = '-';
	end = ufd_put_decimal(end, n);
	for (char *d = digits; d < end && l->len < sizeof(l->buf) - 1; d++)
		l->buf[l->len++] = *d;
}

/* Open the log for one line: the descriptor, -errno, or -EINVAL (closed
 * again) if it is not a regular file, with its kind in *st. */
static int open_log(const char *path, struct stat *st)
{
	int fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path,
			       O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY |
				       O_NONBLOCK | O_NOFOLLOW,
			       0644, 0, 0);

	if (fd < 0)
		return fd;
	if (ufd_sys_fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		ufd_sys_close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Append buf to the file at path with one open, write and close. */
static void ufd_log_file_write(const char *path, const char *buf, size_t len)
{
	struct stat st;
	int fd = open_log(path, &st);

	if (fd >= 0) {
		ufd_sys6(SYS_write, fd, (long)buf, (long)len, 0, 0, 0);
		ufd_sys_close(fd);
	}
}

static void write_log(const char *buf, size_t len)
{
	ufd_log_file_write(log_path, buf, len);
}

/* ---- holding lines while the table lock is held ---- */

#define TLS_IE __attribute__((tls_model("initial-exec")))
#define HELD_MAX 2048

__thread unsigned ufd_log_depth TLS_IE;     /* ufd_log_hold calls not released */
/* This thread's held lines: one thread-local object, so one relocation
 * at every start-up where each variable of its own had one. */
static __thread struct {
	unsigned len;	   /* bytes reserved in buf */
	unsigned lost;	   /* lines that did not fit */
	int flushing;	   /* a release is writing buf */
	char buf[HELD_MAX];
} held TLS_IE;

/* Add a line to this thread's held lines; 0, or -1 if it does not fit. */
static int hold_line(const char *buf, size_t len)
{
	unsigned at = __atomic_load_n(&held.len, __ATOMIC_RELAXED);

	do {
		if (at + len > HELD_MAX) {
			__atomic_add_fetch(&held.lost, 1, __ATOMIC_RELAXED);
			return -1;
		}
	} while (!__atomic_compare_exchange_n(&held.len, &at, at + (unsigned)len, 0,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	/* [at, at + len) is this line's: a handler that interrupts the copy
	 * reserves after it. */
	__builtin_memcpy(held.buf + at, buf, len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 0;
}

static void lost_line(unsigned lost);

/* Write the held lines; this thread holds no table lock. */
static void flush_held(void)
{
	unsigned done = 0, len, lost;

	if (__atomic_load_n(&held.flushing, __ATOMIC_RELAXED))
		return; /* a handler inside a flush: the flush writes ours too */
	__atomic_store_n(&held.flushing, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (;;) {
		len = __atomic_load_n(&held.len, __ATOMIC_RELAXED);
		if (done < len) {
			write_log(held.buf + done, len - done);
			done = len;
			continue;
		}
		lost = __atomic_exchange_n(&held.lost, 0, __ATOMIC_RELAXED);
		if (lost)
			lost_line(lost);
		if (!__atomic_compare_exchange_n(&held.len, &len, 0, 0, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			continue; /* a handler's line came meanwhile */
		done = 0;
		__atomic_store_n(&held.flushing, 0, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		/* A handler between the reset and here left its line (it saw
		 * a flush under way): take it too. */
		if (!__atomic_load_n(&held.len, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&held.lost, __ATOMIC_RELAXED))
			return;
		__atomic_store_n(&held.flushing, 1, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
}

void ufd_log_release_held(void)
{
	if (__atomic_load_n(&held.len, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&held.lost, __ATOMIC_RELAXED))
		flush_held();
}

void ufd_log_flush_held(void)
{
	if (ufd_log_on)
		flush_held();
}

UFD_FORK void ufd_log_fork_child(int released)
{
	/* The parent writes what was held; the child's lock is reset.  Each
	 * word is written only if set: the thread's TLS page is then not
	 * copied in a child that never logged (a page fault per fork). */
	if (held.len | held.lost | held.flushing) {
		held.len = 0;
		held.lost = 0;
		held.flushing = 0;
	}
	if (released && ufd_log_depth)
		ufd_log_depth = 0;
}

/* Start a line: "ufd[PID] ". */
static void line_start(struct line *l)
{
	put_str(l, "ufd[");
	put_num(l, (unsigned long)ufd_sys_getpid(), 0);
	put_str(l, "] ");
}

static void lost_line(unsigned lost)
{
	struct line l = { .len = 0 };

	line_start(&l);
	put_num(&l, lost, 0);
	put_str(&l, " log lines lost: the per-thread buffer for lines made "
		    "while the table lock is held was full\n");
	write_log(l.buf, l.len);
}

void ufd_log_line(const char *fmt, ...)
{
	struct line l = { .len = 0 };
	int saved = errno;
	va_list ap;

	line_start(&l);
	va_start(ap, fmt);
	for (const char *p = fmt; *p && l.len < sizeof(l.buf) - 1; p++) {
		if (*p != '%' || !p[1]) {
			l.buf[l.len++] = *p;
			continue;
		}
		switch (*++p) {
		case 'd': {
			int v = va_arg(ap, int);

			put_num(&l, v < 0 ? -(unsigned long)v : (unsigned long)v, v < 0);
			break;
		}
		case 'u':
			put_num(&l, va_arg(ap, unsigned), 0);
			break;
		case 's':
			put_str(&l, va_arg(ap, const char *));
			break;
		default:
			l.buf[l.len++] = *p;
			break;
		}
	}
	va_end(ap);
	l.buf[l.len++] = '\n';

	if (__atomic_load_n(&ufd_log_depth, __ATOMIC_RELAXED))
		hold_line(l.buf, l.len);
	else
		write_log(l.buf, l.len);
	errno = saved;
}

/* Resolve s, the value of setting, against the working directory into
 * path (PATH_MAX bytes) and check that it opens for appending as a
 * regular file: 0, or a message on stderr and -1. */
static int ufd_log_file_init(const char *setting, const char *s, char *path)
{
	size_t dir_len = 0;
	struct stat st;
	int fd;

	if (s[0] != '/') {
		long r = ufd_sys6(SYS_getcwd, (long)path, PATH_MAX, 0, 0, 0, 0);

		if (ufd_sys_is_error(r)) {
			fprintf(stderr, "ufd: %s=\"%s\": cannot resolve "
				"against the working directory (%s); ignored\n",
				setting, s, strerror((int)-r));
			return -1;
		}
		dir_len = strlen(path);
		if (dir_len < PATH_MAX)
			path[dir_len++] = '/';
	}
	if (dir_len + strlen(s) >= PATH_MAX) {
		fprintf(stderr, "ufd: %s=\"%s\": path too long; ignored\n",
			setting, s);
		return -1;
	}
	strcpy(path + dir_len, s);
	fd = open_log(path, &st);
	if (fd == -EINVAL || fd == -ELOOP || fd == -ENXIO) {
		/* Not a regular file: say what it is.  ELOOP is O_NOFOLLOW's
		 * answer for a symbolic link, ENXIO O_NONBLOCK's for a FIFO
		 * without a reader. */
		if (fd != -EINVAL &&
		    ufd_sys6(SYS_newfstatat, AT_FDCWD, (long)path, (long)&st,
			     AT_SYMLINK_NOFOLLOW, 0, 0) < 0)
			st.st_mode = 0;
		fprintf(stderr, "ufd: %s=\"%s\": not a regular file (%s); "
			"ignored\n", setting, s,
			S_ISLNK(st.st_mode) ? "a symbolic link, not followed" :
			S_ISFIFO(st.st_mode) ? "a FIFO" :
			S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
			S_ISSOCK(st.st_mode) ? "a socket" :
			S_ISDIR(st.st_mode) ? "a directory" : strerror(-fd));
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "ufd: %s=\"%s\": cannot open for appending "
			"(%s); ignored\n", setting, s, strerror(-fd));
		return -1;
	}
	ufd_sys_close(fd);
	return 0;
}

UFD_STARTUP void ufd_log_init(const char *s)
{
	if (s && *s && ufd_log_file_init("UFD_LOG", s, log_path) == 0)
		ufd_log_on = 1;
}
