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
 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "env.h"
#include "sys.h"

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

static int open_log(void)
{
	return (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)log_path,
			     O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
			     0644, 0, 0);
}

void ufd_log_line(const char *fmt, ...)
{
	struct line l = { .len = 0 };
	int saved = errno, fd;
	va_list ap;

	put_str(&l, "ufd[");
	put_num(&l, (unsigned long)ufd_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0), 0);
	put_str(&l, "] ");
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

	fd = open_log();
	if (fd >= 0) {
		ufd_sys6(SYS_write, fd, (long)l.buf, (long)l.len, 0, 0, 0);
		ufd_sys_close(fd);
	}
	errno = saved;
}

void ufd_log_init(void)
{
	const char *s = ufd_env("UFD_LOG");
	size_t dir_len = 0;
	int fd;

	if (!s || !*s)
		return;
	if (s[0] != '/') {
		long r = ufd_sys6(SYS_getcwd, (long)log_path, sizeof(log_path),
				  0, 0, 0, 0);

		if (ufd_sys_is_error(r)) {
			fprintf(stderr, "ufd: UFD_LOG=\"%s\": cannot resolve "
				"against the working directory (%s); not logging\n",
				s, strerror((int)-r));
			return;
		}
		dir_len = strlen(log_path);
		if (dir_len < sizeof(log_path))
			log_path[dir_len++] = '/';
	}
	if (dir_len + strlen(s) >= sizeof(log_path)) {
		fprintf(stderr, "ufd: UFD_LOG=\"%s\": path too long; not logging\n", s);
		return;
	}
	strcpy(log_path + dir_len, s);
	fd = open_log();
	if (fd < 0) {
		fprintf(stderr, "ufd: UFD_LOG=\"%s\": cannot open for appending "
			"(%s); not logging\n", s, strerror(-fd));
		return;
	}
	ufd_sys_close(fd);
	ufd_log_on = 1;
}
