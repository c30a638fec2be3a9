/* SPDX-License-Identifier: MIT */
/*
 * privlog - a tiny logging library that keeps a private descriptor.
 *
 * A library that holds a descriptor for the life of the process shares the
 * application's sequence of numbers, and the application does not know it
 * is there.  When the application "closes all descriptors" and reopens
 * files by the lowest-number rule, an ordinary descriptor of the library's
 * is closed under it, and its number is handed to the application's next
 * open(): the library then writes its lines into the application's file.
 *
 * With PRIVLOG_NONSEQ the library moves its descriptor into ufd's virtual
 * space with nonseqfd().  The number is random and far above the
 * application's range, so a loop closing 3 .. sysconf(_SC_OPEN_MAX) does
 * not reach it, NONSEQFD_HIDE keeps it out of /proc/self/fd listings, and
 * ufd refuses the application's close() of the real descriptor behind it.
 *
 * Built as libprivlog.so, linked against libufd.so; closeall_app.c shows
 * it in use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "privlog.h"
#include "ufd.h"

static int log_fd = -1;
static unsigned lines_written, lines_lost;

int privlog_open(const char *path, enum privlog_kind kind)
{
	/* O_CLOEXEC from the first instant: the application's children have
	 * no business with our log. */
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0 || kind == PRIVLOG_ORDINARY)
		return log_fd = fd;

	/* A random virtual duplicate; NONSEQFD_CLOSE gives the low number
	 * back to the application at once. */
	log_fd = nonseqfd(fd, NONSEQFD_CLOEXEC | NONSEQFD_CLOSE | NONSEQFD_HIDE);
	if (log_fd < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}

	/*
	 * ufd serves a virtual descriptor only to calls it interposes, and a
	 * call binds to the first library in the process's lookup order that
	 * defines it.  A library's own dependencies come after the
	 * application's (libc among them), so linking this library against
	 * libufd is not enough: the application must be linked with -lufd
	 * too (as pkg-config's "Requires: ufd" arranges; under --as-needed
	 * the linker keeps it only if the application calls one of ufd's
	 * functions itself) or run under LD_PRELOAD=libufd.so.  Otherwise
	 * our own write() reaches libc and the kernel, which knows no such
	 * descriptor: say so now.
	 */
	if (fcntl(log_fd, F_GETFD) < 0) {
		fprintf(stderr, "privlog: libufd is not interposing the calls of this "
				"process (link the application with -lufd)\n");
		errno = ENOSYS;
		return log_fd = -1;
	}
	return log_fd;
}

void privlog(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int len;

	len = snprintf(line, sizeof(line), "privlog %u: ", ++lines_written);
	va_start(ap, fmt);
	len += vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
	va_end(ap);
	if (len > (int)sizeof(line) - 2)
		len = (int)sizeof(line) - 2;
	line[len++] = '\n';

	/* One write() per line, so that lines stay whole in an O_APPEND file
	 * shared with other processes. */
	if (write(log_fd, line, (size_t)len) != len)
		lines_lost++;
}

unsigned privlog_lost(void)
{
	return lines_lost;
}
