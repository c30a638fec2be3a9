/* SPDX-License-Identifier: MIT */
/*
 * ufd.h - private, non-sequential file descriptors for Linux, in user space.
 *
 * libufd.so gives a process a second descriptor space, [FD_UNSEQ_BASE,
 * FD_UNSEQ_LIMIT), beside the kernel's.  Descriptors there ("virtual
 * descriptors") are chosen at random rather than by the lowest-number rule,
 * so a library can own one without disturbing the numbers its application
 * sees, and no program can come to rely on which number it gets.
 *
 * Every virtual descriptor is backed by one real kernel descriptor that the
 * library keeps out of the application's way.  The interposed libc calls
 * (read, write, close, fcntl, dup2, ...) accept a virtual descriptor wherever
 * they accept a real one and translate it before the kernel sees it.
 *
 * Use it either way:
 *   - link with it (pkg-config --cflags --libs ufd) and call nonseqfd(),
 *     or ask dup2()/fcntl() for the virtual space as described below;
 *   - or run an unmodified program with LD_PRELOAD=libufd.so.
 *
 * The ABI follows the 2007 proposals for a kernel non-sequential descriptor
 * space (Davide Libenzi's dup2(fd, FD_UNSEQ_ALLOC), Ulrich Drepper's
 * nonseqfd()), so code written for them works here unchanged.
 */
#ifndef UFD_H
#define UFD_H

#ifdef __cplusplus
extern "C" {
#endif

/* The first virtual descriptor.  Virtual descriptors are ints in
 * [FD_UNSEQ_BASE, FD_UNSEQ_LIMIT); no real descriptor ever gets that high
 * (the kernel's nr_open is at most 2^20 by default). */
#define FD_UNSEQ_BASE   (1U << 28)

/* One past the last virtual descriptor: the space holds 3 * 2^28 numbers. */
#define FD_UNSEQ_LIMIT  (1U << 30)

/*
 * dup2(fd, FD_UNSEQ_ALLOC) duplicates fd into a new virtual descriptor
 * chosen uniformly at random among the free ones, and returns it.
 *
 * The other ways into the virtual space through the standard calls:
 *   dup2(fd, N), FD_UNSEQ_BASE <= N < FD_UNSEQ_LIMIT: exactly N, replacing
 *       what N held, as dup2() does for real descriptors;
 *   fcntl(fd, F_DUPFD, N) and F_DUPFD_CLOEXEC with N >= FD_UNSEQ_BASE: the
 *       lowest free virtual descriptor >= N (EINVAL if N >= FD_UNSEQ_LIMIT).
 */
#define FD_UNSEQ_ALLOC  (1U << 30)

/* Flags for nonseqfd(). */
#define NONSEQFD_CLOEXEC  0x1 /* close the new descriptor on exec */
#define NONSEQFD_CLOFORK  0x2 /* close the new descriptor in a fork child */
#define NONSEQFD_CLOSE    0x4 /* close fd once it is duplicated */
#define NONSEQFD_HIDE     0x8 /* leave it out of /proc/self/fd listings,
				* close_range and closefrom */

/*
 * O_UNSEQFD, or'ed into open()/openat() flags, makes the new descriptor
 * virtual.  SOCK_UNSEQ does the same in the type argument of socket() and
 * socketpair() and in the flags of accept4().  No kernel flag uses this
 * bit; the shim strips it before the kernel sees the call.
 */
#define O_UNSEQFD   0x40000000
#define SOCK_UNSEQ  0x40000000

/*
 * Close-on-fork, POSIX 2024's flag: a descriptor so marked is closed in the
 * child of fork() and _Fork() (and only there), as close-on-exec closes one
 * at exec.
 * Neither Linux nor glibc has it yet; ufd gives it to every descriptor,
 * real or virtual:
 *   O_CLOFORK        in open()/openat() flags, and dup3() flags;
 *   SOCK_CLOFORK     in socket()/socketpair() type and accept4() flags;
 *   FD_CLOFORK       with F_GETFD / F_SETFD, beside FD_CLOEXEC;
 *   F_DUPFD_CLOFORK  an fcntl() command: F_DUPFD, the new one close-on-fork.
 * The values are ufd's (bit 29 of the open/socket flags, used by no kernel
 * flag; the shim strips it) unless the system headers define them.
 */
#ifndef O_CLOFORK
#define O_CLOFORK 0x20000000
#endif
#ifndef SOCK_CLOFORK
#define SOCK_CLOFORK 0x20000000
#endif
#ifndef FD_CLOFORK
#define FD_CLOFORK 2
#endif
#ifndef F_DUPFD_CLOFORK
#define F_DUPFD_CLOFORK 1104 /* F_LINUX_SPECIFIC_BASE + 80: unused */
#endif

/*
 * nonseqfd - duplicate a descriptor into the virtual space.
 *
 * Returns a new virtual descriptor, chosen at random, that refers to the
 * same open file as fd (real or virtual), with the NONSEQFD_* flags given.
 * With NONSEQFD_CLOSE, fd is closed once the duplicate exists; if the call
 * fails, fd is left open.
 *
 * Returns -1 and sets errno on failure:
 *   EBADF   fd is not an open descriptor;
 *   EINVAL  flags holds an unknown bit;
 *   EMFILE  RLIMIT_NOFILE or the virtual space is exhausted;
 *   ENOMEM  the descriptor map could not grow;
 *   EBUSY   called from a signal handler that interrupted ufd changing its
 *           table in the same thread;
 *   ENOSYS  the process's descriptor calls do not reach ufd: libufd.so was
 *           loaded after libc, as when only a library links it and the
 *           program does not (a message on stderr says so, once).  Link
 *           the program with -Wl,--no-as-needed -lufd, or preload it.
 *
 * With UFD_CLOEXEC=1 in the environment, the new descriptor is
 * close-on-exec whatever the flags say.
 */
int nonseqfd(int fd, int flags);

/*
 * ufd_is_virtual - is fd an open virtual descriptor?
 *
 * Returns 1 if it is, 0 if fd is an open real descriptor, and -1 with errno
 * EBADF if fd is neither.
 */
int ufd_is_virtual(int fd);

/*
 * ufd_backing_fd - the real kernel descriptor behind a virtual one.
 *
 * Returns the real descriptor that backs fd, fd itself if fd is an open real
 * descriptor, or -1 with errno EBADF.  The backing descriptor belongs to
 * ufd: use it for diagnostics (strace output, /proc/self/fdinfo), never
 * close it or hand it on.
 */
int ufd_backing_fd(int fd);

#ifdef __cplusplus
}
#endif

#endif /* UFD_H */
