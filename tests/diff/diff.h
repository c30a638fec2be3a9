/* SPDX-License-Identifier: MIT */
/*
 * diff.h - what the differential test's files share: the run of a script
 * and its log, the logging macros the scripts are written with, fd_of, and
 * the helpers of the scripts (all in harness.c).  Include it first: it
 * sets the feature macros before any system header.
 */
#ifndef UFD_DIFF_H
#define UFD_DIFF_H

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

/* ufd's API, held by harness.c for every file of this test. */
#define UFD_TEST_SHARED_API
#include "ufd.h"
#include "ufd_check.h"
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

extern const char *const mode_name[];	/* by enum mode */

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

/* ---- the log (harness.c) ---- */

const char *errname(int e);
__attribute__((format(printf, 4, 5))) void
note(struct run *r, int line, const char *label, const char *fmt, ...);
long log_ret(struct run *r, int line, const char *label, long v);
long log_errno(struct run *r, int line, const char *label, long v);
int log_fd(struct run *r, int line, const char *label, int v);
long log_buf(struct run *r, int line, const char *label, long v,
	     const void *buf);
long log_iov(struct run *r, int line, const char *label, long v,
	     const struct iovec *iov, int cnt);
void *log_ptr(struct run *r, int line, const char *label, void *p);
int log_errnum(struct run *r, int line, const char *label, int v);
int log_bool(struct run *r, int line, const char *label, int v);
void log_void(struct run *r, int line, const char *label);

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

int fd_of(struct run *r, int real_fd);
void fd_of_pair(struct run *r, int p[2]);

/* Log the call that makes a descriptor, then pass it through fd_of. */
#define FD_OF(r, expr) \
	fd_of(r, log_fd(r, __LINE__, #expr, (errno = 0, (int)(expr))))

/* ---- helpers for the scripts (harness.c) ---- */

extern void *volatile null_ptr;
extern volatile int minus_one, too_many_iov;

void must(struct run *r, int ok, const char *what);
void make_file(struct run *r, const char *name, const char *text);
int closed_fd(struct run *r);
const char *abs_path(struct run *r, char *buf, size_t size,
		     const char *path);
int same_file(dev_t dev, ino_t ino, const struct stat *ref);
void note_names(struct run *r, int line, const char *label,
		char **names, int n);
void log_getdents(struct run *r, int line, int fd);
int cwd_is(struct run *r, const char *sub);

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

/* ---- the framework (harness.c) ---- */

/* Run script once on real descriptors and once on virtual ones, compare
 * the logs, and fail the Check test at the first difference. */
void run_family(const char *name, script_fn *script);

#endif /* UFD_DIFF_H */
