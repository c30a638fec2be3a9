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
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
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
#include <unistd.h>

#include "calls.h"
#include "placement.h"
#include "settings.h"

/* Exported entry points; everything else in the library is hidden. */
#define UFD_PUBLIC __attribute__((visibility("default")))

#define UFD_UNPAREN(...) __VA_ARGS__

/* Code that may run before a sanitizer runtime is initialised (its own
 * start-up calls getrlimit, setrlimit, sysconf): not instrumented. */
#define UFD_EARLY __attribute__((no_sanitize("address", "thread", "undefined")))

/*
 * ufd_real_NAME: the next definition of NAME (libc's), with NAME's type.
 * The hand-written wrappers are declared here too, so that a row whose type
 * disagrees with glibc's declaration fails to compile (and the ones glibc
 * no longer declares, such as the fortify entry points, have a prototype).
 */
#define UFD_WRAP(name, ret, err, params, args, fds) \
	extern ret (*ufd_real_##name) params;
#define UFD_HAND(name, ret, err, params, args, why) \
	extern ret (*ufd_real_##name) params;       \
	UFD_PUBLIC ret name params;
#define UFD_HANDV(name, ret, err, params, args, last, extra, nextra, why) \
	extern ret (*ufd_real_##name)(UFD_UNPAREN params, ...);   \
	UFD_PUBLIC ret name(UFD_UNPAREN params, ...);
#include "calls.def"

/* The real function behind name.  The pointers are written once per name
 * (by its stub or the constructor) and read on every call: relaxed atomics,
 * which compile to plain moves, keep that well-defined for ThreadSanitizer. */
#define UFD_REAL(name) __atomic_load_n(&ufd_real_##name, __ATOMIC_RELAXED)

/* Resolve every real function now.  Idempotent; the library constructor
 * calls it, and nothing needs it earlier (each pointer starts at a stub that
 * resolves on first use). */
void ufd_resolve_all(void);

/*
 * Paths naming a descriptor (PATH rows, and open): ufd_path_size(path) is
 * 1 if path needs no rewriting, else room for the rewritten path;
 * ufd_path(path, buf, size) returns path itself or its rewritten form in
 * buf (of that size).  /dev/fd/N, /proc/self/fd/N,
 * /proc/thread-self/fd/N and /proc/<own pid>/fd/N, for an open virtual N,
 * are rewritten to name N's backing descriptor instead, and so are the
 * same paths with fdinfo in place of fd.
 */
size_t ufd_path_size(const char *path);
const char *ufd_path(const char *path, char *buf, size_t size);

/* Is path the directory listing this process's descriptors (/proc/self/fd,
 * /dev/fd, /proc/<own pid>/fd, /proc/thread-self/fd)? */
int ufd_path_is_fd_dir(const char *path);

/* Directory streams: start or stop filtering dir as a listing of this
 * process's descriptors (shim_dir.c).  ufd_listing_forget is a no-op for
 * other streams. */
void ufd_listing_track(DIR *dir);
void ufd_listing_forget(DIR *dir);

/* Fork handlers for the listings' lock; from the library constructor. */
void ufd_dir_init(void);

/* At start-up, after the table: where libufd.so is, whether children get
 * it (UFD_INHERIT), and the descriptors handed off by the program that
 * exec'd this one (UFD_HANDOFF).  shim_exec.c. */
void ufd_exec_init(void);

/* Close fd, virtual or real, as the application's close() does. */
int ufd_close(int fd);

/* Turn a real descriptor the shim just created into a new virtual one with
 * VFD_* flags, at random.  real_fd is closed whatever the outcome.  Returns
 * the virtual descriptor or -errno. */
int ufd_to_virtual(int real_fd, unsigned flags);

/* 0 if the process's libc calls do not reach ufd's wrappers (see
 * check_interposed in shim.c): a virtual descriptor would be unusable. */
extern int ufd_interposed;

/*
 * UFD_CLOEXEC's flag for one call: sets bit in *flags and returns 1 if
 * UFD_CLOEXEC is on and the caller did not ask for the bit already.
 */
static inline int ufd_add_cloexec(int *flags, int bit)
{
	if (__builtin_expect(!ufd_settings.cloexec, 1) || (*flags & bit))
		return 0;
	*flags |= bit;
	return 1;
}

void fcntl_raw_clear_cloexec(int fd);

/*
 * Move real descriptor fd, just created, into the virtual space at random,
 * with its kernel close-on-exec flag and ufd's close-on-fork mark as its
 * flags.  Returns the virtual descriptor; if that cannot be made (EMFILE),
 * fd itself, still open: the call succeeds with a real descriptor rather
 * than fail for ufd's sake.
 */
int ufd_virtualize(int fd, enum ufd_call call);

/*
 * A descriptor on 0, 1 or 2 loses the close-on-exec flag that UFD_CLOEXEC
 * added (`added`): standard streams are never affected.
 */
static inline void ufd_std_fixup(int fd, int added)
{
	if (__builtin_expect(added, 0) && fd >= 0 && fd <= 2)
		fcntl_raw_clear_cloexec(fd);
}

/*
 * fd, just made by the kernel, is at or past the application's soft
 * RLIMIT_NOFILE, which ufd holds lower than the kernel's (placement.h):
 * without ufd the call would have failed with EMFILE.  Closes fd; returns
 * -1 with errno EMFILE.
 */
int ufd_past_limit(int fd);

/*
 * The result of a call that created descriptor fd (`added` as above):
 * fd < 0 passes through, errno untouched; past the application's limit,
 * EMFILE (ufd_past_limit); a standard stream is left as the
 * call made it; under UFD_MODE=all anything else becomes virtual, unless
 * UFD_EXCLUDE names fd's number or the call.
 */
static inline int ufd_new_fd(int fd, int added, enum ufd_call call)
{
	if (__builtin_expect((unsigned)fd >= ufd_app_nofile, 0) && fd >= 0)
		return ufd_past_limit(fd);
	ufd_std_fixup(fd, added);
	if (__builtin_expect(ufd_settings.mode_all, 0) && fd > 2)
		return ufd_virtualize(fd, call);
	return fd;
}

/* Has the process taken POSIX record locks (fcntl F_SETLK, lockf)?  Then
 * closing a descriptor of a regular file may drop them. */
int ufd_posix_locks_taken(void);

/*
 * A pointer no program can have mapped: null or in the first page, or in
 * the kernel's half of the address space.  A wrapper that must read an
 * argument before the kernel does (a path, a pollfd array, a msghdr) passes
 * such a one on unread, for the kernel's EFAULT.  (Other unmapped
 * addresses still fault in ufd: telling them apart would cost a system
 * call per call.)
 */
static inline int ufd_unmapped(const void *p)
{
	return (uintptr_t)p < 4096 || (intptr_t)p < 0;
}

/* The edge: a result >= 0 is returned as is; -errno becomes -1 and errno. */
static inline int ufd_ret(int r)
{
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

#endif /* UFD_SHIM_H */
