/* SPDX-License-Identifier: MIT */
/*
 * api.c - the top of the library: the public API of include/ufd.h that
 * is not an interposed libc call (nonseqfd() and the queries), and the
 * one constructor, which starts every layer below in order.
 */
#include "shim.h"

#include "fdname.h"
#include "log.h"
#include "report.h"
#include "report_given.h"
#include "settings.h"
#include "sys.h"
#include "ufd.h"
#include "vfd_table.h"

#define NONSEQFD_ALL \
	(NONSEQFD_CLOEXEC | NONSEQFD_CLOFORK | NONSEQFD_CLOSE | NONSEQFD_HIDE)

/* The VFD_* flags of nonseqfd's flags (and UFD_CLOEXEC). */
static inline unsigned nonseqfd_vflags(int flags)
{
	return (flags & NONSEQFD_CLOEXEC ? VFD_CLOEXEC : 0) |
	       (flags & NONSEQFD_CLOFORK ? VFD_CLOFORK : 0) |
	       (flags & NONSEQFD_HIDE ? VFD_HIDDEN : 0) |
	       (ufd_settings.cloexec ? VFD_CLOEXEC : 0);
}

/* nonseqfd, every case: out of line, so that the common one below keeps
 * no frame. */
static __attribute__((noinline, cold)) int nonseqfd_any(int fd, int flags)
{
	static int said;
	int vfd;

	if (flags & ~NONSEQFD_ALL)
		return ufd_ret(-EINVAL);
	if (vfd_is_backing(fd))
		return ufd_ret(-EBADF);
	if (!ufd_interposed) {
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			fprintf(stderr,
				"ufd: nonseqfd: this process's descriptor calls go "
				"to libc, not to ufd (libufd.so is loaded after "
				"libc), so a virtual descriptor would be unusable: "
				"link the program itself with libufd "
				"(-Wl,--no-as-needed -lufd) or run it with "
				"LD_PRELOAD=libufd.so\n");
		return ufd_ret(-ENOSYS);
	}
	vfd = vfd_create(vfd_translate(fd), nonseqfd_vflags(flags), VFD_AT_RANDOM, 0);
	if (vfd < 0)
		return ufd_ret(vfd);
	if (ufd_settings.report) {
		fdname_pending((enum ufd_call)REPORT_CALL_NONSEQFD, report_name_of(fd), 0, 1);
		report_created(vfd, REPORT_CALL_NONSEQFD, 0);
	}
	if (flags & NONSEQFD_CLOSE)
		ufd_close(fd); /* as close(fd) would: its error is not nonseqfd's */
	return vfd;
}

UFD_PUBLIC int nonseqfd(int fd, int flags)
{
	/* The common case: known flags but NONSEQFD_CLOSE, no sanitizer, a
	 * real fd below the guard (neither virtual nor backing). */
	if (__builtin_expect((flags & ~(NONSEQFD_ALL & ~NONSEQFD_CLOSE)) ||
				     ufd_settings.report || !ufd_interposed ||
				     vfd_guarded(fd),
			     0))
		return nonseqfd_any(fd, flags);
	return ufd_ret(vfd_create(fd, nonseqfd_vflags(flags), VFD_AT_RANDOM, 0));
}

/* Is real descriptor fd open?  Asks the kernel, without going through the
 * shim's own fcntl. */
static int real_is_open(int fd)
{
	return ufd_sys_fcntl(fd, F_GETFD, 0) >= 0;
}

UFD_PUBLIC int ufd_is_virtual(int fd)
{
	if (vfd_in_space(fd))
		return vfd_slot(fd) ? 1 : ufd_ret(-EBADF);
	return real_is_open(fd) ? 0 : ufd_ret(-EBADF);
}

UFD_PUBLIC int ufd_backing_fd(int fd)
{
	if (vfd_in_space(fd)) {
		int real = vfd_translate(fd);

		return real != fd ? real : ufd_ret(-EBADF);
	}
	return real_is_open(fd) ? fd : ufd_ret(-EBADF);
}

/*
 * Before main(), and before any other library's constructor that runs
 * later: settings first (every layer reads them), the log, the real
 * functions, UFD_MODE=random's close in front of the real one, and under
 * UFD_REPORT the sanitizer's checking functions in front of those (they
 * chain to what they replace, so random mode's close comes first), the
 * table's fork handlers (its maps wait for their first use), then what
 * the shim keeps itself: the listings' fork handlers, and the exec state
 * with the descriptors this program was handed.  What a process without
 * a feature in play does not need is not run nor even read (each page of
 * code or data is a page fault in every process: HACKING.md, Start-up).
 */
__attribute__((constructor)) static void ufd_init(int argc, char **argv, char **envp)
{
	(void)argc;
	ufd_settings_load();
	ufd_log_init(ufd_settings.log);
	ufd_shim_init();
	if (ufd_settings.mode_random)
		ufd_random_init();
	if (ufd_settings.report) {
		ufd_report_shim_init();
		report_given_start(argv, envp); /* glibc passes them */
		ufd_segv_init();
	}
	vfd_start();
	ufd_stream_init();
	ufd_signal_init();
	ufd_exec_init();
}
