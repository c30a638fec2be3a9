/* SPDX-License-Identifier: MIT */
/*
 * shim_syscall.c - syscall(): the descriptor arguments of the descriptor
 * system calls translated, and the calls that do more than translate
 * routed to their wrappers.  Unknown numbers pass through unchanged.
 */
#include "shim.h"

#include <stdarg.h>

#include "sys.h"
#include "vfd_table.h"

#define A(i) (1U << (i)) /* argument i (from 0) is a descriptor */

/*
 * Which arguments of a system call are descriptors.  The calls that do
 * more than translate (close, dup2, fcntl, poll, sendmsg, ...) are routed
 * to their wrappers by ufd_syscall instead.  Numbers not listed pass
 * through unchanged.
 */
static unsigned syscall_fd_args(long number)
{
	switch (number) {
	case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
	case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
	case SYS_preadv2: case SYS_pwritev2: case SYS_lseek: case SYS_fstat:
	case SYS_fstatfs: case SYS_fsync: case SYS_fdatasync: case SYS_syncfs:
	case SYS_ftruncate: case SYS_fallocate: case SYS_fadvise64:
	case SYS_readahead: case SYS_flock: case SYS_fchmod: case SYS_fchown:
	case SYS_fchdir: case SYS_getdents64: case SYS_sendto: case SYS_recvfrom:
	case SYS_recvmsg: case SYS_recvmmsg: case SYS_bind: case SYS_connect:
	case SYS_listen: case SYS_accept: case SYS_accept4: case SYS_shutdown:
	case SYS_getsockname: case SYS_getpeername: case SYS_getsockopt:
	case SYS_setsockopt: case SYS_epoll_pwait: case SYS_epoll_pwait2:
	case SYS_inotify_add_watch: case SYS_inotify_rm_watch:
	case SYS_timerfd_settime: case SYS_timerfd_gettime: case SYS_fgetxattr:
	case SYS_fsetxattr: case SYS_flistxattr: case SYS_fremovexattr:
	case SYS_sync_file_range: case SYS_vmsplice: case SYS_pidfd_send_signal:
	case SYS_setns:
	/* the *at calls: the directory descriptor first */
	case SYS_mkdirat: case SYS_mknodat: case SYS_fchownat: case SYS_newfstatat:
	case SYS_unlinkat: case SYS_readlinkat: case SYS_fchmodat:
	case SYS_faccessat: case SYS_faccessat2: case SYS_utimensat: case SYS_statx:
	case SYS_name_to_handle_at: case SYS_open_by_handle_at: case SYS_execveat:
	case SYS_openat2:
#ifdef SYS_getdents
	case SYS_getdents:
#endif
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
#ifdef SYS_futimesat
	case SYS_futimesat:
#endif
		return A(0);
	case SYS_symlinkat:
		return A(1);
	case SYS_mmap:
		return A(4);
	case SYS_sendfile: case SYS_tee:
		return A(0) | A(1);
	case SYS_splice: case SYS_copy_file_range: case SYS_epoll_ctl:
	case SYS_renameat2: case SYS_linkat:
#ifdef SYS_renameat
	case SYS_renameat:
#endif
		return A(0) | A(2);
	case SYS_fanotify_mark:
		return A(0) | A(3);
	}
	return 0;
}

/* Reads six arguments whatever the caller passed, as glibc's syscall()
 * reads six registers: not an overflow for AddressSanitizer to flag. */
__attribute__((no_sanitize_address)) UFD_PUBLIC long syscall(long number, ...)
{
	va_list ap;
	long a[6];
	unsigned fds;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	switch (number) {
	case SYS_close:
		return close((int)a[0]);
	case SYS_close_range:
		return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
	case SYS_dup:
		return dup((int)a[0]);
	case SYS_pidfd_getfd:
		return pidfd_getfd((int)a[0], (int)a[1], (unsigned)a[2]);
	case SYS_dup3:
		return dup3((int)a[0], (int)a[1], (int)a[2]);
#ifdef SYS_dup2
	case SYS_dup2:
		return dup2((int)a[0], (int)a[1]);
#endif
	case SYS_fcntl:
		return fcntl((int)a[0], (int)a[1], a[2]);
	case SYS_ioctl:
		return ioctl((int)a[0], (unsigned long)a[1], a[2]);
	case SYS_openat:
		return openat((int)a[0], (const char *)a[1], (int)a[2], (mode_t)a[3]);
#ifdef SYS_open
	case SYS_open:
		return open((const char *)a[0], (int)a[1], (mode_t)a[2]);
#endif
	case SYS_signalfd4: {
		/* As signalfd(): the virtual descriptor given comes back. */
		int fd = (int)a[0], real = vfd_translate(fd);
		long r = UFD_REAL(syscall)(number, (long)real, a[1], a[2], a[3]);

		return r >= 0 && real != fd && r == real ? fd : r;
	}
	case SYS_rt_sigtimedwait: {
		/* As sigtimedwait(): si_fd the virtual descriptor. */
		long r = UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3]);

		if (r > 0 && a[1])
			ufd_siginfo_fix((int)r, (siginfo_t *)a[1]);
		return r;
	}
	case SYS_waitid:
		if (a[0] == P_PIDFD)
			a[1] = vfd_translate((int)a[1]);
		return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4]);
	/* The application's view of its descriptor limit (shim_limits.c). */
	case SYS_prlimit64:
		return prlimit64((pid_t)a[0], (__rlimit_resource_t)a[1],
				 (const struct rlimit64 *)a[2], (struct rlimit64 *)a[3]);
#ifdef SYS_getrlimit
	case SYS_getrlimit: {
		long r = UFD_REAL(syscall)(number, a[0], a[1]);
		unsigned shown = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

		/* The kernel wrote the limits (EFAULT otherwise). */
		if (r == 0 && a[0] == RLIMIT_NOFILE && shown != UINT_MAX)
			((struct rlimit *)a[1])->rlim_cur = shown;
		return r;
	}
	case SYS_setrlimit:
		return setrlimit((__rlimit_resource_t)a[0], (const struct rlimit *)a[1]);
#endif
	case SYS_sendmsg:
		return sendmsg((int)a[0], (const struct msghdr *)a[1], (int)a[2]);
	case SYS_sendmmsg:
		return sendmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2],
				(int)a[3]);
	case SYS_ppoll:
		return ppoll((struct pollfd *)a[0], (nfds_t)a[1],
			     (const struct timespec *)a[2], (const sigset_t *)a[3]);
#ifdef SYS_poll
	case SYS_poll:
		return poll((struct pollfd *)a[0], (nfds_t)a[1], (int)a[2]);
#endif
	}
	fds = syscall_fd_args(number);
	for (int i = 0; fds; i++, fds >>= 1)
		if (fds & 1)
			a[i] = vfd_translate((int)a[i]);
	return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

