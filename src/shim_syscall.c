/* SPDX-License-Identifier: MIT */
/*
 * shim_syscall.c - syscall(): the descriptor arguments of the descriptor
 * system calls translated, the calls that do more than translate routed
 * to their wrappers, and the descriptors the creating calls make finished
 * as the libc calls' are (newfd.h: UFD_CLOEXEC, the application's
 * RLIMIT_NOFILE, UFD_MODE=all).  Unknown numbers pass through unchanged.
 * The numbers are the kernel's (syscall_nr.h), not the build's headers':
 * a call newer than them is translated all the same.
 */
#include "shim.h"

#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>

#include "report.h"
#include "sys.h"
#include "syscall_nr.h"
#include "vfd_shared.h"
#include "vfd_table.h"

#define A(i) (1U << (i)) /* argument i (from 0) is a descriptor */

/*
 * Which arguments of a system call are descriptors.  The calls that do
 * more than translate (close, dup2, fcntl, poll, sendmsg, socket, ...) are
 * routed to their wrappers by syscall() instead, and those that make a
 * descriptor are syscall_made_fd's.  Numbers not listed pass
 * through unchanged.
 */
static unsigned syscall_fd_args(long number)
{
	switch (number) {
	case UFD_NR_read: case UFD_NR_write: case UFD_NR_pread64: case UFD_NR_pwrite64:
	case UFD_NR_readv: case UFD_NR_writev: case UFD_NR_preadv: case UFD_NR_pwritev:
	case UFD_NR_preadv2: case UFD_NR_pwritev2: case UFD_NR_lseek: case UFD_NR_fstat:
	case UFD_NR_fstatfs: case UFD_NR_fsync: case UFD_NR_fdatasync: case UFD_NR_syncfs:
	case UFD_NR_ftruncate: case UFD_NR_fallocate: case UFD_NR_fadvise64:
	case UFD_NR_readahead: case UFD_NR_flock: case UFD_NR_fchmod: case UFD_NR_fchown:
	case UFD_NR_fchdir: case UFD_NR_getdents64: case UFD_NR_sendto: case UFD_NR_recvfrom:
	case UFD_NR_recvmmsg: case UFD_NR_bind: case UFD_NR_connect:
	case UFD_NR_listen: case UFD_NR_shutdown:
	case UFD_NR_getsockname: case UFD_NR_getpeername:
	case UFD_NR_epoll_pwait: case UFD_NR_epoll_pwait2:
	case UFD_NR_inotify_add_watch: case UFD_NR_inotify_rm_watch:
	case UFD_NR_timerfd_settime: case UFD_NR_timerfd_gettime: case UFD_NR_fgetxattr:
	case UFD_NR_fsetxattr: case UFD_NR_flistxattr: case UFD_NR_fremovexattr:
	case UFD_NR_sync_file_range: case UFD_NR_vmsplice: case UFD_NR_pidfd_send_signal:
	case UFD_NR_setns:
	/* the *at calls: the directory descriptor first */
	case UFD_NR_mkdirat: case UFD_NR_mknodat: case UFD_NR_fchownat: case UFD_NR_newfstatat:
	case UFD_NR_unlinkat: case UFD_NR_readlinkat: case UFD_NR_fchmodat:
	case UFD_NR_faccessat: case UFD_NR_faccessat2: case UFD_NR_utimensat: case UFD_NR_statx:
	case UFD_NR_name_to_handle_at: case UFD_NR_execveat:
	/* mounts, modules, message queues, landlock, processes, caches */
	case UFD_NR_mount_setattr: case UFD_NR_finit_module: case UFD_NR_mq_timedsend:
	case UFD_NR_mq_timedreceive: case UFD_NR_mq_notify: case UFD_NR_mq_getsetattr:
	case UFD_NR_landlock_restrict_self:
	case UFD_NR_process_madvise: case UFD_NR_process_mrelease:
	case UFD_NR_quotactl_fd: case UFD_NR_cachestat: case UFD_NR_fchmodat2:
	/* Linux 6.13 and 6.17: extended attributes and inode flags at a path */
	case UFD_NR_setxattrat: case UFD_NR_getxattrat: case UFD_NR_listxattrat:
	case UFD_NR_removexattrat: case UFD_NR_file_getattr: case UFD_NR_file_setattr:
#ifdef UFD_NR_getdents
	case UFD_NR_getdents: case UFD_NR_epoll_wait: case UFD_NR_futimesat:
#endif
		return A(0);
	case UFD_NR_symlinkat:
		return A(1);
	case UFD_NR_mmap:
		return A(4);
	case UFD_NR_sendfile: case UFD_NR_tee: case UFD_NR_kexec_file_load:
		return A(0) | A(1);
	case UFD_NR_splice: case UFD_NR_copy_file_range: case UFD_NR_epoll_ctl:
	case UFD_NR_renameat2: case UFD_NR_linkat: case UFD_NR_move_mount:
	case UFD_NR_renameat:
		return A(0) | A(2);
	case UFD_NR_fanotify_mark:
		return A(0) | A(3);
	}
	return 0;
}

/*
 * A system call that makes one descriptor and has no ufd flags to read
 * (those that have, and the old ones without a flags argument, are routed
 * to their wrappers instead): its descriptor arguments translated here,
 * and how its result is finished.  Returns 1 and fills *m, or 0.
 */
struct made_fd {
	int flag_arg; /* the argument holding the close-on-exec flag, or -1 */
	int flag;     /* that flag */
	enum ufd_call call; /* for UFD_EXCLUDE and the log */
	int always_cloexec; /* no flag: the kernel always sets close-on-exec */
};

#define MADE(arg, bit, row) (*m = (struct made_fd){ arg, bit, UFD_CALL_##row, 0 }, 1)
/* A call whose descriptor is always close-on-exec. */
#define MADE_CLOEXEC(row) (*m = (struct made_fd){ -1, 0, UFD_CALL_##row, 1 }, 1)

static int syscall_made_fd(long number, long a[6], struct made_fd *m)
{
	switch (number) {
	case UFD_NR_eventfd2:
		return MADE(1, EFD_CLOEXEC, eventfd);
	case UFD_NR_epoll_create1:
		return MADE(0, EPOLL_CLOEXEC, epoll_create1);
	case UFD_NR_inotify_init1:
		return MADE(0, IN_CLOEXEC, inotify_init1);
	case UFD_NR_timerfd_create:
		return MADE(1, TFD_CLOEXEC, timerfd_create);
	case UFD_NR_memfd_create:
		return MADE(1, MFD_CLOEXEC, memfd_create);
	case UFD_NR_fanotify_init:
		return MADE(0, FAN_CLOEXEC, fanotify_init);
	case UFD_NR_pidfd_open: /* always close-on-exec */
		return MADE_CLOEXEC(pidfd_open);
	case UFD_NR_open_by_handle_at:
		a[0] = vfd_translate((int)a[0]);
		return MADE(2, O_CLOEXEC, open_by_handle_at);
	case UFD_NR_userfaultfd:
		return MADE(0, O_CLOEXEC, syscall);
	case UFD_NR_memfd_secret:
		return MADE(0, O_CLOEXEC, syscall);
	case UFD_NR_perf_event_open:
		/* the group leader; with PERF_FLAG_PID_CGROUP, pid is the
		 * cgroup directory's descriptor */
		a[3] = vfd_translate((int)a[3]);
		if (a[4] & PERF_FLAG_PID_CGROUP)
			a[1] = vfd_translate((int)a[1]);
		return MADE(4, PERF_FLAG_FD_CLOEXEC, syscall);
	case UFD_NR_fsopen:
		return MADE(1, 1 /* FSOPEN_CLOEXEC */, syscall);
	case UFD_NR_fsmount:
		a[0] = vfd_translate((int)a[0]);
		return MADE(1, 1 /* FSMOUNT_CLOEXEC */, syscall);
	case UFD_NR_fspick:
		a[0] = vfd_translate((int)a[0]);
		return MADE(2, 1 /* FSPICK_CLOEXEC */, syscall);
	case UFD_NR_open_tree: case UFD_NR_open_tree_attr:
		a[0] = vfd_translate((int)a[0]);
		return MADE(2, O_CLOEXEC /* OPEN_TREE_CLOEXEC */, syscall);
	case UFD_NR_openat2:
		/* The close-on-exec flag is inside struct open_how: added in
		 * a copy (openat2_cloexec). */
		a[0] = vfd_translate((int)a[0]);
		return MADE(-1, 0, syscall);
	case UFD_NR_seccomp:
		/* the listener: with it, a positive result is a descriptor
		 * (the kernel refuses it with TSYNC, whose result is a tid) */
		return a[0] == SECCOMP_SET_MODE_FILTER &&
		       (a[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
		       MADE(-1, 0, syscall);
	case UFD_NR_io_uring_setup: /* always close-on-exec */
		return MADE_CLOEXEC(syscall);
	case UFD_NR_mq_open: /* always close-on-exec */
		return MADE_CLOEXEC(syscall);
	case UFD_NR_landlock_create_ruleset:
		/* a descriptor only without flags (else an ABI version) */
		return (unsigned)a[2] == 0 && MADE(-1, 0, syscall);
	case UFD_NR_signalfd4:
		/* a new descriptor only for -1 (else the one given back) */
		return (int)a[0] == -1 && MADE(3, SFD_CLOEXEC, signalfd);
	}
	return 0;
}

/*
 * openat2's struct open_how (flags first) under UFD_CLOEXEC: copied into
 * how, O_CLOEXEC added, and a[2] pointed at the copy; the caller's memory
 * is never written.  Returns 1 if it added the flag.  A structure ufd
 * cannot read, or larger than how, goes to the kernel as it is (EFAULT,
 * E2BIG are the kernel's).
 */
#define OPEN_HOW_MAX 256

static int openat2_cloexec(long a[6], uint64_t how[OPEN_HOW_MAX / 8])
{
	size_t size = (size_t)a[3];

	if (!ufd_settings.cloexec || size < sizeof(uint64_t) || size > OPEN_HOW_MAX ||
	    ufd_unmapped((void *)a[2]) ||
	    ufd_sys_read_self(how, (void *)a[2], size) != (long)size ||
	    (how[0] & O_CLOEXEC))
		return 0;
	how[0] |= O_CLOEXEC;
	a[2] = (long)how;
	return 1;
}

/*
 * The pidfd that clone3 (struct clone_args: flags, then where the pidfd
 * goes) or clone (its parent_tid argument, the third on x86_64 and arm64)
 * with CLONE_PIDFD has just written at *where in the parent: finished as
 * a new descriptor, and the number the program gets written back.  The
 * child exists already, so a pidfd past the application's limit stays as
 * the kernel made it.  Only without CLONE_VM, decided before the call: a
 * child sharing the memory may run on this very stack (vfork-like) and
 * change what the parent would read after the call; nothing is done in
 * the child (result 0).
 */
static void clone_pidfd(long where)
{
	int fd, fin;

	if (ufd_unmapped((void *)where) ||
	    ufd_sys_read_self(&fd, (void *)where, sizeof(fd)) != sizeof(fd) ||
	    fd < 0 ||
	    (unsigned)fd >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED))
		return;
	fin = newfd_finish_known(fd, 0, UFD_CALL_syscall, 1); /* always close-on-exec */
	if (fin != fd)
		ufd_sys_write_self((void *)where, &fin, sizeof(fin));
}

/* Does a clone with these flags make a pidfd ufd finishes? */
static int clone_finishes(uint64_t flags)
{
	return (flags & CLONE_PIDFD) && !(flags & CLONE_VM) && !newfd_plain();
}

/* Newer than the kernel headers ufd may be built with. */
#define IORING_ENTER_REGISTERED_RING_ (1U << 4)
#define KEYCTL_WATCH_KEY_ 32

/* The fsconfig commands whose last argument is a descriptor. */
#define FSCONFIG_SET_PATH_ 3
#define FSCONFIG_SET_PATH_EMPTY_ 4
#define FSCONFIG_SET_FD_ 5

/*
 * prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, fd): fd translated.  Before
 * PR_SET_SECCOMP, a filter (or strict mode) going in, the sanitizer loads
 * what a later report would make system calls for
 * (report_before_sandbox).  Reads four arguments whatever the caller
 * passed, as glibc's prctl does.
 */
__attribute__((no_sanitize_address)) UFD_PUBLIC int prctl(int option, ...)
{
	va_list ap;
	unsigned long a[4];

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_MM && a[0] == PR_SET_MM_EXE_FILE)
		a[1] = (unsigned long)vfd_translate((int)a[1]);
	else if (option == PR_SET_SECCOMP)
		report_before_sandbox();
	return UFD_REAL(prctl)(option, a[0], a[1], a[2], a[3]);
}

/* Reads six arguments whatever the caller passed, as glibc's syscall()
 * reads six registers: not an overflow for AddressSanitizer to flag. */
__attribute__((no_sanitize_address)) UFD_PUBLIC long syscall(long number, ...)
{
	va_list ap;
	long a[6];
	unsigned fds;
	struct made_fd m;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	/* A filter going in: what a later report needs, loaded first. */
	if (number == UFD_NR_seccomp &&
	    (a[0] == SECCOMP_SET_MODE_FILTER || a[0] == SECCOMP_SET_MODE_STRICT))
		report_before_sandbox();
	switch (number) {
	case UFD_NR_close:
		return close((int)a[0]);
	case UFD_NR_prctl:
		return prctl((int)a[0], a[1], a[2], a[3], a[4]);
	case UFD_NR_close_range:
		return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
	case UFD_NR_dup:
		return dup((int)a[0]);
	case UFD_NR_pidfd_getfd:
		return pidfd_getfd((int)a[0], (int)a[1], (unsigned)a[2]);
	case UFD_NR_dup3:
		return dup3((int)a[0], (int)a[1], (int)a[2]);
#ifdef UFD_NR_dup2
	case UFD_NR_dup2:
		return dup2((int)a[0], (int)a[1]);
#endif
	case UFD_NR_fcntl:
		return fcntl((int)a[0], (int)a[1], a[2]);
	case UFD_NR_ioctl:
		return ioctl((int)a[0], (unsigned long)a[1], a[2]);
	case UFD_NR_openat:
		return openat((int)a[0], (const char *)a[1], (int)a[2], (mode_t)a[3]);
#ifdef UFD_NR_open
	case UFD_NR_open:
		return open((const char *)a[0], (int)a[1], (mode_t)a[2]);
#endif
	/* Calls that make descriptors and take ufd's flags (SOCK_UNSEQ,
	 * O_CLOFORK...), make two, or have a flagged successor that
	 * UFD_CLOEXEC switches to: their wrappers. */
	case UFD_NR_socket:
		return socket((int)a[0], (int)a[1], (int)a[2]);
	case UFD_NR_socketpair:
		return socketpair((int)a[0], (int)a[1], (int)a[2], (int *)a[3]);
	case UFD_NR_accept:
		return accept((int)a[0], (struct sockaddr *)a[1], (socklen_t *)a[2]);
	case UFD_NR_accept4:
		return accept4((int)a[0], (struct sockaddr *)a[1], (socklen_t *)a[2],
			       (int)a[3]);
	case UFD_NR_pipe2:
		return pipe2((int *)a[0], (int)a[1]);
#ifdef UFD_NR_pipe
	case UFD_NR_pipe:
		return pipe((int *)a[0]);
#endif
#ifdef UFD_NR_creat
	case UFD_NR_creat:
		return creat((const char *)a[0], (mode_t)a[1]);
#endif
#ifdef UFD_NR_epoll_create
	case UFD_NR_epoll_create:
		return epoll_create((int)a[0]);
#endif
#ifdef UFD_NR_inotify_init
	case UFD_NR_inotify_init:
		return inotify_init();
#endif
#ifdef UFD_NR_eventfd
	case UFD_NR_eventfd: /* is eventfd2(count, 0) */
		number = UFD_NR_eventfd2;
		a[1] = 0;
		break;
#endif
#ifdef UFD_NR_signalfd
	case UFD_NR_signalfd: /* is signalfd4(fd, mask, size, 0) */
		number = UFD_NR_signalfd4;
		a[3] = 0;
		break;
#endif
	/* Descriptors inside data: SCM_RIGHTS, SO_PEERPIDFD, SO_ATTACH_BPF. */
	case UFD_NR_recvmsg:
		return recvmsg((int)a[0], (struct msghdr *)a[1], (int)a[2]);
#ifdef __LP64__
	case UFD_NR_recvmmsg:
		return recvmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2],
				(int)a[3], (struct timespec *)a[4]);
#endif
	case UFD_NR_getsockopt:
		return getsockopt((int)a[0], (int)a[1], (int)a[2], (void *)a[3],
				  (socklen_t *)a[4]);
	case UFD_NR_setsockopt:
		return setsockopt((int)a[0], (int)a[1], (int)a[2], (const void *)a[3],
				  (socklen_t)a[4]);
	/* Descriptors inside structures (shim_sysdata.c). */
	case UFD_NR_bpf: case UFD_NR_io_uring_register: case UFD_NR_landlock_add_rule:
	case UFD_NR_statmount: case UFD_NR_listmount: case UFD_NR_kcmp:
		return ufd_syscall_inside(number, a);
	case UFD_NR_fsconfig:
		a[0] = vfd_translate((int)a[0]);
		if ((int)a[1] == FSCONFIG_SET_FD_ || (int)a[1] == FSCONFIG_SET_PATH_ ||
		    (int)a[1] == FSCONFIG_SET_PATH_EMPTY_)
			a[4] = vfd_translate((int)a[4]);
		return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4]);
	}

	switch (number) {
	case UFD_NR_signalfd4: {
		if ((int)a[0] == -1)
			break; /* makes one: below */
		/* As signalfd(): the virtual descriptor given comes back. */
		int fd = (int)a[0], real = vfd_translate(fd);
		long r = UFD_REAL(syscall)(number, (long)real, a[1], a[2], a[3]);

		if (r >= 0 && real != fd && r == real)
			r = fd;
		if (r >= 0)
			ufd_signalfd_made((int)r);
		return r;
	}
	case UFD_NR_rt_sigaction:
		/* As sigaction(): SA_SIGINFO handlers see the program's si_fd. */
		return ufd_ret((int)ufd_rt_sigaction((int)a[0], (const void *)a[1],
						     (void *)a[2],
						     (unsigned long)a[3]));
	case UFD_NR_rt_sigtimedwait: {
		/* As sigtimedwait(): si_fd the virtual descriptor. */
		long r = UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3]);

		if (r > 0 && a[1])
			ufd_siginfo_fix((int)r, (siginfo_t *)a[1]);
		return r;
	}
	case UFD_NR_waitid:
		if (a[0] == P_PIDFD)
			a[1] = vfd_translate((int)a[1]);
		return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4]);
	/* Calls whose descriptor argument depends on another argument. */
	case UFD_NR_io_uring_enter: /* else a registered ring's index */
		if (!((unsigned)a[3] & IORING_ENTER_REGISTERED_RING_))
			a[0] = vfd_translate((int)a[0]);
		break;
	case UFD_NR_keyctl: /* keyctl(KEYCTL_WATCH_KEY, key, queue, id) */
		if ((int)a[0] == KEYCTL_WATCH_KEY_)
			a[2] = vfd_translate((int)a[2]);
		break;
	/* Descriptor sets: refused as select() refuses them (shim_poll.c). */
#ifdef UFD_NR_select
	case UFD_NR_select:
#endif
	case UFD_NR_pselect6: {
		int r = ufd_select_check(number == UFD_NR_pselect6 ? UFD_CALL_pselect
								  : UFD_CALL_select,
					 (int)a[0], (fd_set *)a[1], (fd_set *)a[2],
					 (fd_set *)a[3]);

		if (r)
			return ufd_ret(r);
		break;
	}
	/* The application's view of its descriptor limit (shim_limits.c). */
	case UFD_NR_prlimit64:
		return prlimit64((pid_t)a[0], (__rlimit_resource_t)a[1],
				 (const struct rlimit64 *)a[2], (struct rlimit64 *)a[3]);
#ifdef UFD_NR_getrlimit
	case UFD_NR_getrlimit: {
		long r = UFD_REAL(syscall)(number, a[0], a[1]);
		unsigned shown = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

		/* The kernel wrote the limits (EFAULT otherwise). */
		if (r == 0 && a[0] == RLIMIT_NOFILE && shown != UINT_MAX)
			((struct rlimit *)a[1])->rlim_cur = shown;
		return r;
	}
	case UFD_NR_setrlimit:
		return setrlimit((__rlimit_resource_t)a[0], (const struct rlimit *)a[1]);
#endif
	case UFD_NR_sendmsg:
		return sendmsg((int)a[0], (const struct msghdr *)a[1], (int)a[2]);
	case UFD_NR_sendmmsg:
		return sendmmsg((int)a[0], (struct mmsghdr *)a[1], (unsigned)a[2],
				(int)a[3]);
	case UFD_NR_ppoll:
		return ppoll((struct pollfd *)a[0], (nfds_t)a[1],
			     (const struct timespec *)a[2], (const sigset_t *)a[3]);
#ifdef UFD_NR_poll
	case UFD_NR_poll:
		return poll((struct pollfd *)a[0], (nfds_t)a[1], (int)a[2]);
#endif
	case UFD_NR_clone3: {
		uint64_t head[2]; /* flags, pidfd */
		void *ta;
		long r;

		if (a[1] < (long)sizeof(head) || ufd_unmapped((void *)a[0]) ||
		    ufd_sys_read_self(head, (void *)a[0], sizeof(head)) != sizeof(head))
			return UFD_REAL(syscall)(number, a[0], a[1]);
		vfd_shared_files_note(head[0]);
		/* A child sharing the memory: counted (vfd_shared.h), and
		 * nothing after the call, as below. */
		if (head[0] & CLONE_VM) {
			vfd_shared_clone_begin(head[0]);
			return UFD_REAL(syscall)(number, a[0], a[1]);
		}
		ta = vfd_shared_tid_address();
		r = UFD_REAL(syscall)(number, a[0], a[1]);
		if (r == 0)
			vfd_shared_raw_child(ta);
		else if (r > 0 && clone_finishes(head[0]))
			clone_pidfd((long)head[1]);
		return r;
	}
	case UFD_NR_clone: {
		void *ta;
		long r;

		/* A child sharing the memory may return on this very stack
		 * (vfork-like): counted (vfd_shared.h) before, nothing done
		 * after, and the count is never ended (the child may run on). */
		vfd_shared_files_note((uint64_t)a[0]);
		if ((uint64_t)a[0] & CLONE_VM) {
			vfd_shared_clone_begin((uint64_t)a[0]);
			return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4]);
		}
		ta = vfd_shared_tid_address();
		r = UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4]);
		/* A fork that runs no fork handler: memory of its own. */
		if (r == 0)
			vfd_shared_raw_child(ta);
		else if (r > 0 && clone_finishes((uint64_t)a[0]))
			clone_pidfd(a[2]);
		return r;
	}
	}
	if (syscall_made_fd(number, a, &m)) {
		uint64_t how[OPEN_HOW_MAX / 8];
		int added = 0;
		long r;

		if (m.flag_arg >= 0 && ufd_settings.cloexec && !(a[m.flag_arg] & m.flag)) {
			a[m.flag_arg] |= m.flag;
			added = 1;
		} else if (number == UFD_NR_openat2) {
			added = openat2_cloexec(a, how);
		}
		r = UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (r >= 0 && !newfd_plain())
			r = ufd_ret_new_fd_known((int)r, added, m.call,
						 m.flag_arg >= 0 ? (a[m.flag_arg] & m.flag) != 0
						 : m.always_cloexec ? 1 : -1);
		if (r >= 0 && number == UFD_NR_signalfd4)
			ufd_signalfd_made((int)r);
		return r;
	}
	fds = syscall_fd_args(number);
	for (int i = 0; fds; i++, fds >>= 1)
		if (fds & 1)
			a[i] = vfd_translate((int)a[i]);
	if (number == UFD_NR_read) {
		long r = UFD_REAL(syscall)(number, a[0], a[1], a[2]);

		ufd_signalfd_read((int)a[0], (void *)a[1], r);
		return r;
	}
	return UFD_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

