/* SPDX-License-Identifier: MIT */
/*
 * shim_close.c - the hand-written wrappers of close,
 * close_range and closefrom (calls.def's first family): a virtual
 * descriptor's close, a backing descriptor refused, UFD_MODE=random's
 * quarantine, the sanitizer's record of the close.
 */
#include "shim.h"

#include <linux/fs.h>
#include <stdarg.h>
#include <string.h>

#include "fdname.h"
#include "procfs.h"
#include "report.h"
#include "report_out.h"
#include "sys.h"
#include "text.h"
#include "vfd_shared.h"
#include "vfd_table.h"

/* ---- close ---- */

/* The sanitizer: the closes of ufd_close that do not reach the real
 * close's pointer, where its checking close would see them
 * (shim_report.c); out of line, tail-called. */
static __attribute__((noinline, cold)) int close_reported(int fd)
{
	int r, recorded;

	if (fd == report_out_fd())
		return -EBADF; /* the reports' destination: ufd's */
	if (vfd_is_backing(fd)) {
		report_not_owned(fd, UFD_CALL_close, 0);
		return ufd_close_real(fd);
	}
	recorded = report_closing(fd, UFD_CALL_close);
	if (vfd_in_space(fd))
		return ufd_close_virtual(fd);
	r = ufd_close_real(fd);
	if (recorded && r == -EBADF)
		report_close_failed(fd);
	return r;
}

/* A close of a virtual descriptor while streams are on virtual ones: the
 * stream table closes it, keeping its backing number if a stream holds
 * it (shim.h). */
static __attribute__((noinline, cold)) int close_streamed(int fd)
{
	if (REPORTING())
		report_closing(fd, UFD_CALL_close);
	return ufd_stream_vfd_close(fd);
}

int ufd_close_slow;

__attribute__((noinline)) int ufd_close(int fd)
{
	if (vfd_in_space(fd)) {
		if (__builtin_expect(ufd_close_slow & UFD_CLOSE_STREAMS, 0))
			return close_streamed(fd);
		if (REPORTING())
			return close_reported(fd);
		return ufd_close_virtual(fd);
	}
	/* EBADF for a backing descriptor; drops a close-on-fork mark. */
	if (vfd_guarded(fd)) {
		int r;

		/* A closed stream's placeholder: ufd's, as a backing
		 * descriptor is (shim_stream_closed.c). */
		if (__builtin_expect(ufd_close_slow & UFD_CLOSE_STREAMS, 0) &&
		    ufd_stream_is_placeholder(fd))
			return -EBADF;
		r = REPORTING() ? close_reported(fd) : ufd_close_real(fd);

		/* A raw close, which close_random below does not see. */
		if (__builtin_expect(ufd_settings.mode_random, 0) && r != -EBADF)
			random_fd_closed(fd);
		return r;
	}
	/* libc's, so that interposers after ufd (a sanitizer's) see it. */
	return UFD_REAL(close)(fd) < 0 ? -errno : 0;
}

/*
 * The hot path: below vfd_guard_from there is neither a virtual nor a
 * backing descriptor nor a mark (every virtual descriptor has a backing
 * descriptor, which lowered the guard below FD_UNSEQ_BASE), so one
 * comparison sends a close straight to libc.
 */
UFD_PUBLIC int close(int fd)
{
	if (__builtin_expect(vfd_guarded(fd), 0)) {
		/* A virtual descriptor's common case straight to the table,
		 * not through ufd_close's tests (no reports, no stream on a
		 * virtual descriptor). */
		if (vfd_in_space(fd) && __builtin_expect(!ufd_close_slow, 1))
			return ufd_ret(ufd_close_virtual(fd));
		return ufd_ret(ufd_close(fd));
	}
	return UFD_REAL(close)(fd);
}

/*
 * UFD_MODE=random sees the application's closes here: close_random is put
 * in front of libc's close at start-up (ufd_random_init), so that close
 * pays nothing for it in the other modes.  It chains to the function that
 * was there, which need not be libc's.
 */
static int (*close_before_random)(int);

static int close_random(int fd)
{
	int r = close_before_random(fd);

	/* Linux frees the number even when close fails, except for EBADF. */
	if (r == 0 || errno != EBADF)
		random_fd_closed(fd);
	return r;
}

void ufd_random_init(void)
{
	if (!ufd_settings.mode_random)
		return;
	random_fd_init();
	UFD_REAL_PUT_FRONT(close, close_random, close_before_random);
}

/* close_range and closefrom: what they closed, for UFD_MODE=random. */
static int closed_range(int r, unsigned first, unsigned last, unsigned flags)
{
	if (__builtin_expect(ufd_settings.mode_random, 0) && r == 0 &&
	    !(flags & CLOSE_RANGE_CLOEXEC))
		random_fd_closed_range(first, last);
	return r;
}

/* vfd_close_range, through the next close when a preload follows ufd
 * (shim_chain.c). */
static int close_range_any(unsigned first, unsigned last, unsigned flags)
{
	if (__builtin_expect(ufd_close_chained, 0))
		return ufd_chain_close_range(first, last, flags);
	return vfd_close_range(first, last, flags);
}

/* close_range_any, but for the sanitizer's report destination (ufd's
 * own, report_out.h), which stays open: the range is closed on each side
 * of it. */
static int close_range_keeping(unsigned first, unsigned last, unsigned flags)
{
	int keep = ufd_settings.report ? report_out_fd() : -1, r = 0;

	if (keep < 0 || (unsigned)keep < first || (unsigned)keep > last)
		return close_range_any(first, last, flags);
	if ((unsigned)keep > first)
		r = close_range_any(first, (unsigned)keep - 1, flags);
	if (r == 0 && (unsigned)keep < last)
		r = close_range_any((unsigned)keep + 1, last, flags);
	return r;
}

/*
 * The sanitizer: close_range or closefrom (call) over [first, last]
 * spans libraries' hidden descriptors (which it leaves alone: reported),
 * and closes the program's (recorded).  Not ufd's backing descriptors,
 * which the range closes with their virtual ones and else leaves alone,
 * silently: a range names no number, and ranges around the descriptors a
 * program keeps (Python's subprocess child: [3, keep - 1], [keep + 1,
 * ~0U]) span the backing ones of those it keeps.
 */
static void close_range_report(unsigned first, unsigned last, unsigned flags,
			       enum ufd_call call)
{
	int fd;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC) || first > last)
		return;
	for (fd = vfd_next_hidden(first > FD_UNSEQ_BASE ? (int)first - 1 : -1);
	     fd >= 0 && (unsigned)fd <= last; fd = vfd_next_hidden(fd))
		report_not_owned(fd, call, 1);
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		report_closing_range(first, last, call);
}

/* close_range_keeping, but while streams are on virtual descriptors the
 * stream table closes the range: a stream's number stays held, as after
 * close (shim_stream_closed.c). */
static int close_range_streams(unsigned first, unsigned last, unsigned flags)
{
	if (__builtin_expect(ufd_close_slow & UFD_CLOSE_STREAMS, 0) && first <= last &&
	    !(flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) &&
	    !(flags & CLOSE_RANGE_CLOEXEC))
		return ufd_stream_close_range(first, last, flags, close_range_keeping);
	return close_range_keeping(first, last, flags);
}

UFD_PUBLIC int close_range(unsigned int first, unsigned int last, int flags)
{
	if (ufd_settings.report)
		close_range_report(first, last, (unsigned)flags, UFD_CALL_close_range);
	return ufd_ret(closed_range(close_range_streams(first, last, (unsigned)flags),
				    first, last, (unsigned)flags));
}

/*
 * glibc's closefrom is close_range(lowfd, ~0U, 0) with a fallback through
 * /proc/self/fd for kernels without close_range, which would close backing
 * descriptors too; ufd needs close_range (Linux 5.9), and like glibc it
 * aborts rather than leave a descriptor open that the caller wanted closed.
 */
UFD_PUBLIC void closefrom(int lowfd)
{
	unsigned first = lowfd < 0 ? 0 : (unsigned)lowfd;
	int r;

	if (ufd_settings.report)
		close_range_report(first, ~0U, 0, UFD_CALL_closefrom);
	r = closed_range(close_range_streams(first, ~0U, 0), first, ~0U, 0);

	if (r < 0) {
		static const char msg[] = "ufd: closefrom: close_range failed\n";

		ufd_sys6(SYS_write, 2, (long)msg, sizeof(msg) - 1, 0, 0, 0);
		abort();
	}
}
