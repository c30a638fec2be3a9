/* SPDX-License-Identifier: MIT */
/*
 * shim.h - what the shim's files share: the pointers to the real libc
 * functions, declared from calls.def, and the edge helpers.
 */
#ifndef UFD_SHIM_H
#define UFD_SHIM_H

/*
 * The wrappers define libc's own names with libc's own types, so the names
 * must not be renamed under us: _FILE_OFFSET_BITS=64 would turn fcntl into
 * fcntl64 and open into open64, and _FORTIFY_SOURCE would make read and
 * open inline functions.  Both are undone before any header is read.
 */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <aio.h>
#include <fcntl.h>
#include <glob.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <pty.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <shadow.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <utmp.h>
#include <utmpx.h>
#include <unistd.h>
#include <utmp.h>

#include "calls.h"
#include "newfd.h"
#include "placement.h"
#include "settings.h"

/* Exported entry points; everything else in the library is hidden. */
#define UFD_PUBLIC __attribute__((visibility("default")))

#define UFD_UNPAREN(...) __VA_ARGS__

/* Code that may run before a sanitizer runtime is initialised (its own
 * start-up calls getrlimit, setrlimit, sysconf): not instrumented. */
#define UFD_EARLY __attribute__((no_sanitize("address", "thread", "undefined")))

/*
 * ufd_reals.r_NAME: the next definition of NAME (libc's), with NAME's
 * type; ufd_reals.slot[UFD_CALL_NAME] is the same pointer, untyped, for
 * the start-up's resolution, which goes through the rows in a loop.
 * calls.def's UFD_ALIAS rows (second names) have none: UFD_NREALS.
 * The hand-written wrappers are declared here too, so that a row whose
 * type disagrees with glibc's declaration fails to compile (and the ones
 * glibc no longer declares, such as the fortify entry points, have a
 * prototype).  The pointers are declared hidden, as the library defines
 * them, so that a wrapper outside shim.c jumps through one directly, not
 * through its GOT entry first.
 */
#define UFD_HIDDEN __attribute__((visibility("hidden")))
union ufd_reals {
	struct {
#define UFD_WRAP(name, ret, err, params, args, fds) ret (*r_##name) params;
#define UFD_HAND(name, ret, err, params, args, why) ret (*r_##name) params;
#define UFD_HANDV(name, ret, err, params, args, last, extra, nextra, why) \
	ret (*r_##name)(UFD_UNPAREN params, ...);
#define UFD_ALIAS(name, ret, err, params, args, why)
#define UFD_ALIASV(name, ret, err, params, args, last, extra, nextra, why)
#include "calls.def"
	};
	void *slot[UFD_NREALS];
};
extern UFD_HIDDEN union ufd_reals ufd_reals;

#define UFD_HAND(name, ret, err, params, args, why) UFD_PUBLIC ret name params;
#define UFD_HANDV(name, ret, err, params, args, last, extra, nextra, why) \
	UFD_PUBLIC ret name(UFD_UNPAREN params, ...);
#include "calls.def"

/* The real function behind name.  The pointers are written once per name
 * (by its stub or the constructor) and read on every call: relaxed atomics,
 * which compile to plain moves, keep that well-defined for ThreadSanitizer. */
#define UFD_REAL(name) __atomic_load_n(&ufd_reals.r_##name, __ATOMIC_RELAXED)

/* At start-up (api.c's constructor): keep the tables of the objects up
 * to libc, where each row's stub finds its real function on first use
 * (async-signal-safe), and resolve close; or, when they cannot be kept,
 * resolve the real functions now, but for calls.def's UFD_LAZY rows (none
 * async-signal-safe), which wait for their first use unless UFD_REPORT or
 * UFD_MODE is set.  Sets ufd_interposed.  Nothing needs it earlier: each
 * pointer starts at a stub that resolves it on first use.  Not
 * async-signal-safe. */
void ufd_shim_init(void);

/* Resolve call's real function now if its pointer is still the stub it
 * starts at (a row before its first use), as the stub would (the kept
 * tables, else dlsym): then UFD_REAL(name) is the real function, or one
 * put in front of it, never a stub (an alias row of calls.def, without a
 * pointer: nothing).  Keeps errno.  Not
 * async-signal-safe (dlsym, for a name the kept tables do not answer). */
void ufd_shim_resolve(enum ufd_call call);

/*
 * Put fn in front of NAME's real function: prev (a pointer variable of
 * the same type) gets the function fn replaces, which fn must call on;
 * that may itself be one put in front before (random mode's close, then
 * the sanitizer's).  The row is resolved first, at any time (even before
 * ufd's constructor): prev saved while the pointer is still its stub
 * would have fn look the real function up on every call.  The one way
 * ufd_reals.r_NAME changes after start-up's resolution.  Not
 * async-signal-safe.
 */
#define UFD_REAL_PUT_FRONT(name, fn, prev)                                   \
	do {                                                                 \
		ufd_shim_resolve(UFD_CALL_##name);                           \
		__atomic_store_n(&(prev), UFD_REAL(name), __ATOMIC_RELEASE); \
		__atomic_store_n(&ufd_reals.r_##name, (fn), __ATOMIC_RELEASE); \
	} while (0)

/*
 * The real function of row call as its stub finds it, whatever the row's
 * pointer holds now: for a function put in front of a row before its
 * first use, without resolving it, so that a process pays the look-up
 * only for the rows it calls (the sanitizer's 200-odd, shim_report.c).
 * Async-signal-safe as the stubs are: the kept tables answer every row
 * that can be still at its stub; dlsym only for a function libc lacks.
 * Keeps errno.
 */
void *ufd_shim_real(enum ufd_call call);

/* The stubs' section (shim.c): a row's pointer into it is a row not
 * resolved yet. */
extern const char __start_ufd_stubs[] UFD_HIDDEN;
extern const char __stop_ufd_stubs[] UFD_HIDDEN;

/* At start-up, after ufd_shim_init and random mode's close, only under
 * UFD_REPORT: the sanitizer's checking functions in front of the real
 * ones (shim_report.c). */
void ufd_report_shim_init(void);

/*
 * The sanitizer's look at select's and pselect's sets (call), for the
 * wrappers' refusals (shim_poll.c) and the checking functions; only under
 * UFD_REPORT.  The sets are read without faulting.
 * ufd_report_select_wide: nfds past FD_SETSIZE: an fd-set-overflow
 * report of the highest descriptor set at or past FD_SETSIZE (nfds - 1
 * if none is).  ufd_report_select_ebadf: the call failed with EBADF: a
 * use-after-close report of each descriptor in the sets, below nfds and
 * FD_SETSIZE, that the program closed; kernel_read: the kernel's EBADF,
 * after it read those bytes of the sets, which are then read directly
 * (no system call: a seccomp filter may forbid process_vm_readv).  Not
 * async-signal-safe (reports).
 */
void ufd_report_select_wide(enum ufd_call call, int nfds, fd_set *r, fd_set *w,
			    fd_set *e);
void ufd_report_select_ebadf(enum ufd_call call, int nfds, fd_set *r, fd_set *w,
			     fd_set *e, int kernel_read);

/*
 * Paths naming a descriptor: /dev/fd/N, /proc/self/fd/N,
 * /proc/thread-self/fd/N and /proc/<own pid>/fd/N, and the same with
 * fdinfo for fd.  For an open virtual N, the call is made on the path
 * rewritten to name N's backing descriptor; a backing descriptor's number
 * is rewritten to VFD_NO_FD, which the kernel answers with ENOENT.  A
 * call that only reads (stat, access, readlink, open without O_CREAT or
 * O_TRUNC) is made first, and its path looked at after
 * (ufd_path_after); one that changes what the path names (truncate,
 * chmod, exec, open with O_CREAT...) is looked at before
 * (ufd_path_before).  Both return 0 for nothing to do (the call stands as
 * the kernel made it, or is made as the caller asked), or n: make the call
 * (again) with ufd_path(path, buf, n), buf of n bytes (after a call that
 * made something, a descriptor, the caller undoes it first).
 *
 * ufd_path_before reads only with ufd_sys_read_self, which fails rather
 * than faults; ufd_path_after only after the kernel has read the whole
 * path (its call succeeded, or failed with ENOENT, err).  Neither reads
 * anything while the process holds no virtual descriptor (vfd_any): one
 * load on the common path.  ufd_path returns path itself if it cannot do
 * better (the descriptor closed since, the path unreadable).
 */
size_t ufd_path_before(const char *path);
size_t ufd_path_after(const char *path, int err);
const char *ufd_path(const char *path, char *buf, size_t size);

/* In a wrapper of a call that changes what path names, before the call:
 * path (a variable) rewritten as ufd_path_before says, in a buffer this
 * declares. */
#define UFD_PATH_BEFORE(path)                                  \
	size_t path##_size_ = ufd_path_before(path);           \
	char path##_buf_[path##_size_ ? path##_size_ : 1];     \
	if (path##_size_)                                      \
		path = ufd_path(path, path##_buf_, path##_size_)

/* Is path the directory listing this process's descriptors (/proc/self/fd,
 * /dev/fd, /proc/<own pid>/fd, /proc/thread-self/fd)? */
int ufd_path_is_fd_dir(const char *path);

/*
 * The descriptor of a stream libc has just made with its own calls
 * (fopen, freopen, tmpfile, popen; fp may be NULL), finished as a new
 * descriptor: under UFD_MODE=all it becomes virtual, and the stream
 * moves onto its backing descriptor, as fdopen's on a virtual descriptor
 * is: fileno gives the virtual one.  Standard streams and streams
 * UFD_EXCLUDE names stay real.  Past the application's limit (libc's
 * open got a number in ufd's room), the descriptor is closed, the stream
 * freed and NULL returned with EMFILE, as without ufd (popen's wrapper
 * checks before: pclose must wait for its child).  Returns fp, or NULL
 * with errno; else keeps errno.  shim_stream.c.
 */
FILE *ufd_stream_made(FILE *fp, enum ufd_call call);

/* ufd_stream_made for a stream whose descriptor libc made close-on-exec
 * (cloexec 1) or not (0), as its mode said: UFD_MODE=random need not ask
 * the kernel (-1: as ufd_stream_made). */
FILE *ufd_stream_made_known(FILE *fp, enum ufd_call call, int cloexec);

/*
 * Streams on virtual descriptors (shim_stream_closed.c; while there is
 * one, ufd_close_slow has UFD_CLOSE_STREAMS).  ufd_stream_on_vfd says a
 * stream was made on vfd's backing descriptor backing; ufd_stream_off
 * that the stream on real descriptor backing is being closed by fclose,
 * and returns the virtual descriptor closed under it (a placeholder holds
 * backing: the fclose is a second close), or -1.  ufd_stream_vfd_close
 * closes vfd (virtual) as ufd_close_virtual does, but if a stream holds
 * its backing descriptor it keeps that number taken by a placeholder on
 * which every read and write fails with EBADF, until the stream's fclose;
 * it returns 0 or -errno.  All take a try-lock, and do nothing (or close
 * as ufd_close_virtual) when it is taken: async-signal-safe.
 */
void ufd_stream_on_vfd(int vfd, int backing);
int ufd_stream_off(int backing);
int ufd_stream_vfd_close(int vfd);

/*
 * close_range or closefrom over [first, last] (flags valid, without
 * CLOSE_RANGE_CLOEXEC, first <= last) while streams are on virtual
 * descriptors: a stream's virtual descriptor in the range is closed as
 * ufd_stream_vfd_close closes it (its number held), and the placeholders
 * in the range stay, ufd's as backing descriptors are; close_fn closes
 * the rest, each stretch between them.  Returns close_fn's first failure
 * or 0.  ufd_stream_is_placeholder: is real descriptor fd a placeholder
 * (1 or 0)?  Both take the try-lock (when it is taken: close_fn over the
 * whole range; 0): async-signal-safe.
 */
int ufd_stream_close_range(unsigned first, unsigned last, unsigned flags,
			   int (*close_fn)(unsigned, unsigned, unsigned));
int ufd_stream_is_placeholder(int fd);

/*
 * For the sanitizer, a double fclose (shim_stream_closed.c): fclose is
 * about to close stream fp, descriptor fd (ufd_stream_closing); the
 * descriptor fp had when it was closed, if fp is a stream closed before
 * and not a live one again, or -1 (ufd_stream_closed_before).  Lock-free,
 * async-signal-safe.
 */
void ufd_stream_closing(FILE *fp, int fd);
int ufd_stream_closed_before(FILE *fp);

/* A close of a virtual descriptor takes ufd_close's long way, not the
 * table's fast one (shim_close.c's close): UFD_CLOSE_REPORT, reports are on
 * (ufd_report_shim_init); UFD_CLOSE_STREAMS, a stream is on a virtual
 * descriptor (shim_stream_closed.c).  One load on the fast path for both. */
#define UFD_CLOSE_REPORT 1
#define UFD_CLOSE_STREAMS 2
extern int ufd_close_slow __attribute__((visibility("hidden")));

/*
 * Before a call in which libc opens a descriptor of its own with
 * internal calls ufd does not see (scandir: shim_dir.c): while the
 * kernel's limit is raised above the application's (placement.h), that
 * descriptor could get a number past the application's limit, where the
 * kernel would have failed libc's open.  Asks for a number as the kernel
 * would give it (one O_PATH open of "/", closed).  Returns 0, or -EMFILE
 * when it is past the application's limit; 0 too when the limit is not
 * raised or the open fails (libc's then fails as it will).  Another
 * thread may take or free a number meanwhile, as it may without ufd.
 * Async-signal-safe.  shim_limits.c.
 */
int ufd_app_room(void);

/* At start-up: fork handlers for the lock of the listings of
 * /proc/self/fd (shim_dir.c). */
void ufd_stream_init(void);

/*
 * UFD_MODE=random's start-up, from the constructor after ufd_shim_init:
 * random_fd_init, and close_random in front of the real close (whatever
 * function is there: one after ufd may chain to it too).  Does nothing in
 * the other modes.  Not async-signal-safe.
 */
void ufd_random_init(void);

/*
 * If info (of signal sig, written by the kernel) is an F_SETSIG signal's
 * (si_code POLL_IN..POLL_HUP) about a backing descriptor, its si_fd
 * becomes the virtual descriptor.  Signals whose kernel codes 1..6 mean
 * something else (SIGCHLD, SIGSEGV, ...) are left alone.  Lock-free and
 * async-signal-safe; errno untouched.  shim_signal.c.
 */
void ufd_siginfo_fix(int sig, siginfo_t *info);

/*
 * syscall(SYS_rt_sigaction, sig, act, oldact, setsize) with the kernel's
 * struct sigaction, as sigaction(): an SA_SIGINFO handler is called
 * through ufd's trampoline, oldact shows the program's handler.  Returns
 * 0 or -errno (the kernel's: EINVAL, EFAULT).  Async-signal-safe.
 */
long ufd_rt_sigaction(int sig, const void *act, void *oldact,
		      unsigned long setsize);

/*
 * Descriptor fd (the program's number, >= 0) is a signalfd this process
 * has just made or given to signalfd(): from now on read(), __read_chk()
 * and syscall(SYS_read) on it give records whose ssi_fd names the
 * program's descriptor, as ufd_siginfo_fix does (the first call puts
 * ufd's check in front of the real read functions).  Keeps errno.
 * shim_signal.c.
 */
void ufd_signalfd_made(int fd);

/* After a raw read of r bytes into buf from real descriptor fd: the
 * records of a signalfd fixed as read()'s are.  Async-signal-safe. */
void ufd_signalfd_read(int fd, void *buf, ssize_t r);

/* At start-up: fork handlers for the lock of the table of signal
 * handlers (shim_signal.c). */
void ufd_signal_init(void);

/*
 * The kernel's struct sigaction (x86_64 and arm64 alike: both have
 * SA_RESTORER), for syscall(SYS_rt_sigaction) and ufd's own raw calls.
 * Its mask is sigsetsize bytes, which the kernel refuses unless 8.  The
 * flag and restorer glibc's sigaction adds: on x86_64 SA_RESTORER and
 * ufd_restore_rt, a copy of glibc's __restore_rt (the same bytes, which
 * unwinders look for); arm64 sets none (shim_signal.c).
 */
struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};
#if defined(__x86_64__)
#define UFD_SA_RESTORER 0x04000000UL /* SA_RESTORER */
void ufd_restore_rt(void) __attribute__((visibility("hidden")));
#define UFD_RESTORER_FN ((void *)ufd_restore_rt)
#else
#define UFD_SA_RESTORER 0UL
#define UFD_RESTORER_FN NULL
#endif

/*
 * The sanitizer's SIGSEGV handler, which reports an FD_SET on a virtual
 * descriptor before the crash (shim_segv.c).  ufd_segv_init installs it
 * when SIGSEGV's action is the default: from the constructor, when
 * reports are on.  ufd_segv_mine: is handler it (1 or 0)?  Then the
 * program is shown the default action it stands for.  Async-signal-safe.
 */
void ufd_segv_init(void);
int ufd_segv_mine(const void *handler);

/* Its fork handlers, for a fork that runs none (_Fork): prepare takes the
 * lock where threads may hold it; release, in the parent and the child,
 * lets go of it.  Async-signal-safe. */
void ufd_signal_fork_prepare(void);
void ufd_signal_fork_release(void);

/* In the parent after a real vfork (ufd_vfork_end): the lock of the table
 * of signal handlers let go, in case the child died holding it (it was
 * free when the vfork began: one thread, every signal blocked).
 * Async-signal-safe. */
void ufd_signal_vfork_end(void);

/*
 * syscall(number, a...) for the system calls whose structures hold
 * descriptors and that libc has no function for: bpf, io_uring_register,
 * landlock_add_rule, statmount and listmount (mnt_id_req's mnt_ns_fd),
 * kcmp (KCMP_FILE, KCMP_EPOLL_TFD).  The descriptors are translated in
 * copies (never in the caller's memory); a descriptor bpf makes is
 * finished as a new one.  Returns what syscall() returns.  shim_sysdata.c.
 */
long ufd_syscall_inside(long number, long a[6]);

/*
 * select() and pselect() on sets of nfds descriptors: 0 if the kernel may
 * be asked, or -EBADF when nfds reaches the virtual descriptors (reported
 * as call under UFD_REPORT) or a set names a backing descriptor.  Reads
 * the sets without faulting.  shim_poll.c.
 */
int ufd_select_check(enum ufd_call call, int nfds, fd_set *r, fd_set *w, fd_set *e);

/* At start-up, after the table: where libufd.so is, whether children get
 * it (UFD_INHERIT), and the descriptors handed off by the program that
 * exec'd this one (UFD_HANDOFF).  shim_exec.c. */
void ufd_exec_init(void);

/* Close fd, virtual or real, as the application's close() does.
 * Returns 0 or -errno. */
int ufd_close(int fd);

/* libufd.so's file name as the loader has it (absolute, or as
 * LD_PRELOAD gave it), found by ufd_shim_init's walk; NULL if it was not. */
extern const char *ufd_self_name;

/* 0 if the process's libc calls do not reach ufd's wrappers (see
 * ufd_shim_init): a virtual descriptor would be unusable. */
extern int ufd_interposed;

/* ---- a preload after ufd (shim_chain.c) ---- */

/* 1 if the close after ufd's is not libc's but another preload's, listed
 * after ufd (ufd_shim_init, ufd_chain_found): it saw the backing
 * descriptors made (the calls ufd makes through it), so it must see them
 * closed. */
extern int ufd_close_chained;

/* At start-up, with ufd_shim_init's walk: is close_fn, the close the walk
 * found after ufd, another object's than libc's?  1 or 0 (0 if the walk
 * cannot tell).  Not async-signal-safe. */
struct ufd_symbols;
int ufd_chain_found(const struct ufd_symbols *walk, void *close_fn);

/* ufd_close_virtual when ufd_close_chained: fd's backing descriptor closed
 * through the preload's close.  0 or -errno. */
int ufd_chain_close_virtual(int fd);

/* Close virtual descriptor fd (in the virtual space, open or not) for the
 * application: vfd_close_in_space, or with a preload after ufd
 * ufd_chain_close_virtual.  Returns 0 or -errno. */
static inline int ufd_close_virtual(int fd)
{
	if (__builtin_expect(!ufd_close_chained, 1))
		return vfd_close_in_space(fd);
	return ufd_chain_close_virtual(fd);
}

/* The application's close of real descriptor fd at or past the guard
 * (vfd_real_close), through the preload's close with one after ufd.
 * Returns 0 or -errno. */
int ufd_close_real(int fd);

/* close_range with a preload after ufd (ufd_close_chained): returns 0 or
 * -errno, as vfd_close_range. */
int ufd_chain_close_range(unsigned first, unsigned last, unsigned flags);

/*
 * The caller's memory.  A program under ufd must never die where the
 * kernel would have answered EFAULT, so the shim reads what the caller
 * passes only where it is known to be readable.  Every such place:
 *
 *   paths: stat family, access, readlink, name_to_handle_at, open
 *     without O_CREAT/O_TRUNC (PATH rows, OPEN_SLOW): after the kernel has
 *     read and walked the path (ufd_path_after);
 *   paths: truncate, fchmodat, fchownat, utimensat, futimesat, linkat,
 *     chdir, inotify_add_watch, realpath, scandirat, spawn file actions'
 *     open (PATH_MUT rows), open with O_CREAT/O_TRUNC, the fopen family,
 *     opendir, exec and spawn: before the call, with ufd_sys_read_self
 *     (ufd_path_before);
 *   poll, ppoll: the array, after the kernel has read and written it;
 *   select, pselect: one word of each set per backing descriptor below
 *     nfds, with ufd_sys_read_self, and only where nfds reaches
 *     vfd_guard_from;
 *   sendmsg, sendmmsg: the msghdr and its control data, with
 *     ufd_sys_read_self; recvmsg, recvmmsg (UFD_MODE=all): the control
 *     data the kernel has just written;
 *   ioctl(FICLONERANGE): its structure, with ufd_sys_read_self;
 *   syscall(): openat2's open_how (under UFD_CLOEXEC), rt_sigaction's
 *     structures, the structures and arrays of bpf, io_uring_register
 *     and landlock_add_rule, with ufd_sys_read_self, and the pidfd
 *     clone/clone3 wrote, with ufd_sys_read_self and ufd_sys_write_self;
 *     bpf's copy written back with ufd_sys_write_self;
 *   read() of a signalfd: the records the kernel has just written;
 *   exec, spawn, system, popen: the environment, with ufd_sys_read_self
 *     (shim_exec.c, shim_spawn.c);
 *   pipe, pipe2, socketpair, getrlimit, prlimit: what the kernel has just
 *     written;
 *   the mode strings of fopen, freopen, fdopen, and the first character
 *     of opendir's path (and the second, after a '/'): before libc, which
 *     reads them itself, in user space, before any system call;
 *   fclose, fileno, fileno_unlocked: the stream's descriptor (_fileno),
 *     as libc's own fileno and fclose read it.
 *
 * All but the last three only while the process holds a virtual descriptor
 * (vfd_any): before that no number can be ufd's, and nothing is read.
 * ufd_sys_read_self (sys.h) fails rather than faults, except where a
 * seccomp filter refuses process_vm_readv.
 *
 * ufd_unmapped: a pointer no program can have mapped (null, the first
 * page, the kernel's half): rejected before any read.
 */
static inline int ufd_unmapped(const void *p)
{
	return (uintptr_t)p < 4096 || (intptr_t)p < 0;
}

/*
 * The edge.  Below the exported entry points every function returns >= 0
 * or -errno; these turn that into libc's convention as the wrapper
 * returns.
 *
 * ufd_ret: a result >= 0 is returned as is; -errno becomes -1 and errno.
 */
static inline int ufd_ret(int r)
{
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

/*
 * ufd_ret_new_fd: the result r of the real function of a call that makes
 * a descriptor (a descriptor, or -1 with errno set), as the application
 * gets it: finished by newfd.h, or EMFILE past the application's
 * RLIMIT_NOFILE.  A failure compares at or above every limit too
 * (unsigned), so that the common case costs one comparison.
 * ufd_ret_new_fd_known: the same for a call whose flags said whether it
 * made the descriptor close-on-exec (cloexec 1 or 0: newfd_finish_known).
 */
static inline int ufd_ret_new_fd_known(int r, int added, enum ufd_call call,
				       int cloexec)
{
	if (__builtin_expect((unsigned)r >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED), 0))
		return r < 0 ? r : ufd_ret(newfd_past_limit(r));
	return newfd_finish_known(r, added, call, cloexec);
}

/*
 * The result r of a real call that made a descriptor for a call with
 * ufd's own flags (O_UNSEQFD, O_CLOFORK, SOCK_UNSEQ, SOCK_CLOFORK:
 * newfd_finish_flagged with VFD_* flags vflags; virt: a virtual one was
 * asked for), as the application gets it.  Out of line (shim_fd.c): its
 * callers' common case (no ufd flag) then needs no frame.
 */
int ufd_ret_flagged(int r, int virt, unsigned vflags, int added, enum ufd_call call);

/* Are the sanitizer's reports on?  For the close and dup wrappers. */
#define REPORTING() __builtin_expect(ufd_settings.report != NULL, 0)

static inline int ufd_ret_new_fd(int r, int added, enum ufd_call call)
{
	return ufd_ret_new_fd_known(r, added, call, -1);
}

/*
 * A spawn of posix_spawn's shape made by spawn_fn(arg, env) (glibc 2.39's
 * pidfd_spawn and pidfd_spawnp, shim_pidfd_spawn.c) as posix_spawnp's
 * wrapper makes its own (shim_spawn.c): the sanitizer's look at the
 * actions, the hand-off in env.  Returns spawn_fn's error number, or the
 * one making env failed with.  Not async-signal-safe.
 */
int ufd_spawn_as(enum ufd_call call, const posix_spawn_file_actions_t *actions,
		 char *const argv[], char *const envp[],
		 int (*spawn_fn)(void *arg, char *const env[]), void *arg);

#endif /* UFD_SHIM_H */
