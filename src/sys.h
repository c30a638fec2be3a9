/* SPDX-License-Identifier: MIT */
/*
 * sys.h - raw system calls for ufd's own work.
 *
 * ufd interposes the libc descriptor functions, so its own descriptor work
 * (closing or moving a backing descriptor, mapping memory for the map) must
 * not go through them: a call to close() from inside the library would land
 * in ufd's own close().  glibc's syscall() is no way out either, since it is
 * interposed too.  These inline functions trap into the kernel directly.
 * They never touch errno (they return -errno), are async-signal-safe, and
 * are not cancellation points.
 */
#ifndef UFD_SYS_H
#define UFD_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#else
/* Before glibc 2.32: never known to be single-threaded. */
#define __libc_single_threaded 0
#endif

/* The fork handlers' code, and what a child's runs in a process without
 * virtual descriptors, kept together: each page of code a fork child runs
 * is a page fault in it (the kernel does not copy the page tables of
 * file mappings).  GNU ld's default script gathers .text.sorted.* from
 * every object into one place, where a plain .text.NAME stays with its
 * object's .text. */
#define UFD_FORK __attribute__((section(".text.sorted.ufd_fork")))

#if defined(__x86_64__)

static inline long ufd_sys6(long n, long a, long b, long c, long d, long e,
			    long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* ufd_sys6 for a call of at most three arguments: the other three
 * registers are left as they are (the kernel does not read them). */
static inline long ufd_sys3(long n, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

/* One argument: no registers set for the others (close, on every path
 * that closes a descriptor of ufd's). */
static inline long ufd_sys1(long n, long a)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a)
			 : "rcx", "r11", "memory");
	return ret;
}

#elif defined(__aarch64__)

static inline long ufd_sys6(long n, long a, long b, long c, long d, long e,
			    long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

static inline long ufd_sys3(long n, long a, long b, long c)
{
	return ufd_sys6(n, a, b, c, 0, 0, 0);
}

static inline long ufd_sys1(long n, long a)
{
	return ufd_sys6(n, a, 0, 0, 0, 0, 0);
}

#else
#error "ufd: raw system calls are written for x86_64 and aarch64 only"
#endif

static inline int ufd_sys_close(int fd)
{
	return (int)ufd_sys1(SYS_close, fd);
}

static inline int ufd_sys_fcntl(int fd, int cmd, long arg)
{
	return (int)ufd_sys3(SYS_fcntl, fd, cmd, arg);
}

/* Returns the mapping, or a value in [-4095, -1] holding -errno. */
static inline void *ufd_sys_mmap(void *addr, size_t len, int prot, int flags,
				 int fd, long off)
{
	return (void *)ufd_sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd,
				off);
}

static inline int ufd_sys_munmap(void *addr, size_t len)
{
	return (int)ufd_sys6(SYS_munmap, (long)addr, (long)len, 0, 0, 0, 0);
}

/* The working directory's path into buf (at most size bytes with its
 * NUL): its length with the NUL, or -errno (ERANGE: too long).  The
 * kernel's answer does not start with '/' where the directory is
 * unreachable from the root ("(unreachable)/..."). */
static inline long ufd_sys_getcwd(char *buf, size_t size)
{
	return ufd_sys3(SYS_getcwd, (long)buf, (long)size, 0);
}

static inline long ufd_sys_getrandom(void *buf, size_t len, unsigned flags)
{
	return ufd_sys6(SYS_getrandom, (long)buf, (long)len, flags, 0, 0, 0);
}

static inline int ufd_sys_fstat(int fd, struct stat *st)
{
	return (int)ufd_sys6(SYS_fstat, fd, (long)st, 0, 0, 0, 0);
}

/* Is fd a regular file, or cannot the kernel tell (then the caller keeps
 * whatever a close might drop, such as POSIX record locks, safe)? */
static inline int ufd_sys_maybe_regular(int fd)
{
	struct stat st;

	return ufd_sys_fstat(fd, &st) < 0 || S_ISREG(st.st_mode);
}

#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36 /* Linux 3.15; <fcntl.h> names it under _GNU_SOURCE */
#endif

/*
 * Does the kernel show a record lock on fd's file that fd's open file
 * description does not own: a POSIX lock of any process, this one's
 * included, or another description's OFD lock?  One F_OFD_GETLK for a
 * write lock over the whole file: an OFD request conflicts with every
 * POSIX lock, since those belong to a process and it to the description
 * (F_GETLK would not: a process never conflicts with its own locks).  So
 * the process learns of locks it took where ufd did not see them, where
 * /proc/locks cannot say (posix_locks.h's PROBE), and before a backing
 * descriptor moves out of the application's way (vfd_set_nofile).  0
 * where the kernel refuses (O_PATH, whose close drops no lock).
 */
static inline int ufd_sys_file_locked(int fd)
{
	struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	return ufd_sys3(SYS_fcntl, fd, F_OFD_GETLK, (long)&probe) == 0 &&
	       probe.l_type != F_UNLCK;
}

static inline int ufd_sys_is_error(long ret)
{
	return (unsigned long)ret > -4096UL;
}

/*
 * Copy up to len bytes of this process's own memory at src to dst without
 * ever faulting: through the kernel (process_vm_readv on the process
 * itself, which the kernel always allows), so that an unmapped or
 * PROT_NONE address is an error, not a SIGSEGV in ufd.  For memory the
 * application passes and ufd must read before the kernel does, where the
 * kernel would answer EFAULT: the exec environment (shim_exec.c).
 *
 * Reads in pieces that never cross a 4 KiB boundary (every page size is a
 * multiple of it), so it stops exactly at the first unreadable page.
 * Returns the number of bytes copied (fewer than len if it stopped), or
 * -EFAULT if not even the first byte can be read.  Where the kernel has no
 * process_vm_readv (ENOSYS, before Linux 3.2) or a seccomp filter refuses
 * it (EPERM), it copies directly, as a plain read would: a bad address
 * then faults here.
 */
struct ufd_iovec {
	const void *base;
	size_t len;
};

/* getpid(), with no argument register set.  Not to be cached: see
 * ufd_sys_self_vm. */
static inline long ufd_sys_getpid(void)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_getpid) : "rcx", "r11", "memory");
	return ret;
#else
	return ufd_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0);
#endif
}

/*
 * The loop of both: call is SYS_process_vm_readv (copy from `remote` to
 * `local`) or SYS_process_vm_writev (from `local` to `remote`).
 */
static inline long ufd_sys_self_vm(long call, long pid, void *local,
				   const void *remote, size_t len)
{
	size_t done = 0;

	while (done < len) {
		unsigned long at = (unsigned long)remote + done;
		size_t piece = 4096 - (at & 4095);
		struct ufd_iovec mine, theirs;
		long r;

		if (piece > len - done)
			piece = len - done;
		mine.base = (char *)local + done;
		mine.len = piece;
		theirs.base = (const void *)at;
		theirs.len = piece;
		r = ufd_sys6(call, pid, (long)&mine, 1, (long)&theirs, 1, 0);
		if (r == -ENOSYS || r == -EPERM) {
			if (call == SYS_process_vm_readv)
				__builtin_memcpy((char *)local + done, (const void *)at,
						 len - done);
			else
				__builtin_memcpy((void *)at, (char *)local + done,
						 len - done);
			return (long)len;
		}
		if (r != (long)piece)
			break;
		done += piece;
	}
	return done ? (long)done : -EFAULT;
}

/* The pid is asked each time, not cached: a child that runs no fork
 * handler (_Fork, clone) could read its parent's memory at the same
 * address, and a vfork child filling the cache would fill its parent's.
 * One cheap system call beside at least one costlier. */
static inline long ufd_sys_read_self(void *dst, const void *src, size_t len)
{
	return ufd_sys_self_vm(SYS_process_vm_readv, ufd_sys_getpid(), dst, src, len);
}

/* The same for a caller that reads several times within one call of its
 * own, pid its getpid() asked once at the call's start (shim_exec.c's
 * reads of an exec's environment). */
static inline long ufd_sys_read_self_pid(long pid, void *dst, const void *src,
					 size_t len)
{
	return ufd_sys_self_vm(SYS_process_vm_readv, pid, dst, src, len);
}

/*
 * Many pieces of this process's own memory in one process_vm_readv:
 * remote[i] into local[i], for n pieces (n at most 1024; each within one
 * 4 KiB page, so that a piece is read whole or not at all); pid is the
 * caller's getpid(), as for ufd_sys_read_self_pid.  Returns the
 * bytes copied, fewer than the pieces hold where one could not be read,
 * or -errno (ENOSYS, EPERM: the caller reads piece by piece, with
 * ufd_sys_read_self).
 */
static inline long ufd_sys_read_self_pieces(long pid, const struct ufd_iovec *local,
					    const struct ufd_iovec *remote,
					    unsigned long n)
{
	return ufd_sys6(SYS_process_vm_readv, pid, (long)local, (long)n,
			(long)remote, (long)n, 0);
}

/*
 * len bytes (0 < len <= 4096: two pages at most) of this process's own
 * memory at src into dst in one process_vm_readv, its remote side split at the
 * 4 KiB boundary, if it crosses one, so that it stops exactly at an
 * unreadable page.  Returns the bytes copied, the readable prefix (fewer
 * than len where it stopped), -EFAULT if not even the first byte can be
 * read, or -ENOSYS or -EPERM as ufd_sys_read_self_pieces (the caller then
 * reads with ufd_sys_read_self, which copies directly).
 */
static inline long ufd_sys_read_self_span(void *dst, const void *src, size_t len)
{
	unsigned long at = (unsigned long)src;
	size_t first = 4096 - (at & 4095);
	struct ufd_iovec mine = { dst, len }, theirs[2];

	if (first > len)
		first = len;
	/* The kernel skips an empty piece; a piece is read whole or not
	 * at all. */
	theirs[0] = (struct ufd_iovec){ src, first };
	theirs[1] = (struct ufd_iovec){ (const char *)src + first, len - first };
	return ufd_sys6(SYS_process_vm_readv, ufd_sys_getpid(), (long)&mine, 1,
			(long)theirs, 2, 0);
}

/* The same the other way: len bytes from src to this process's own memory
 * at dst, where the kernel would write (process_vm_writev). */
static inline long ufd_sys_write_self(void *dst, const void *src, size_t len)
{
	return ufd_sys_self_vm(SYS_process_vm_writev, ufd_sys_getpid(), (void *)src,
			       dst, len);
}

#endif /* UFD_SYS_H */
