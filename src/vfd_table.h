/* SPDX-License-Identifier: MIT */
/*
 * vfd_table.h - the process's virtual descriptor table.
 *
 * Maps each open virtual descriptor to the real kernel descriptor that backs
 * it and to its per-descriptor flags, on top of one fdmap.  It owns the
 * process-wide state: the lock that serialises changes, the random seed,
 * where backing descriptors are placed and how they are kept from the
 * application, close-on-fork marks of real descriptors, and what fork does
 * to the table.  The hand-off of descriptors across exec is handoff.h.
 *
 * Functions return >= 0 or -errno and never touch errno.
 */
#ifndef UFD_VFD_TABLE_H
#define UFD_VFD_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "fdmap.h"
#include "placement.h"
#include "revmap.h"
#include "ufd.h"
#include "vfd_shared.h"
#include "vfd_slot.h"

/* Is fd a number in the virtual space (open or not)? */
static inline int vfd_in_space(int fd)
{
	return (uint32_t)fd - FD_UNSEQ_BASE < FDMAP_SPACE;
}

/* The slot value of virtual descriptor vfd (in the space), 0 if not open. */
static inline uint32_t vfd_slot(int vfd)
{
	uint32_t v = fdmap_get(&vfd_map, (uint32_t)vfd - FD_UNSEQ_BASE);

	return v & VFD_BUSY ? v : 0;
}

/*
 * A number no descriptor can have: past the virtual space and past the
 * kernel's largest nr_open.  What a backing descriptor's number translates
 * to, so that the kernel answers as for any number the process does not
 * have (EBADF, or nothing for the directory of an absolute path).
 */
#define VFD_NO_FD 0x7fffffff

static inline int vfd_owner(int real_fd);

/*
 * The descriptor to hand the kernel for fd: the backing descriptor if fd is
 * an open virtual descriptor, VFD_NO_FD if fd is a backing descriptor (not
 * the application's), else fd unchanged.  A number in the virtual space
 * that is not open is passed on as it is, so that the kernel answers with
 * exactly the errno it gives for any unopened descriptor.  Below
 * vfd_guard_from (every real descriptor of a process without virtual
 * ones, and the application's own numbers otherwise) one comparison.
 * Lock-free and async-signal-safe.  Always inlined, with
 * vfd_translate_high: the wrappers' common case is this one comparison,
 * and in a unit as large as shim.c the compiler's growth limit otherwise
 * leaves either a call in some of them, as their size shifts.
 */
static inline int vfd_translate_high(int fd);

static inline __attribute__((always_inline)) int vfd_translate(int fd)
{
	if (__builtin_expect((unsigned)fd < __atomic_load_n(&vfd_guard_from,
							     __ATOMIC_RELAXED), 1))
		return fd;
	return vfd_translate_high(fd);
}

/* vfd_translate's answer for an fd its comparison did not pass: for a
 * loop over many descriptors that reads vfd_guard_from once.  Lock-free
 * and async-signal-safe. */
static inline __attribute__((always_inline)) int vfd_translate_high(int fd)
{
	uint32_t v;

	if (vfd_in_space(fd)) {
		v = fdmap_get(&vfd_map, (uint32_t)fd - FD_UNSEQ_BASE);
		return v & VFD_BUSY ? (int)(v >> VFD_REAL_SHIFT) : fd;
	}
	return fd >= 0 && vfd_owner(fd) >= 0 ? VFD_NO_FD : fd;
}

/*
 * vfd_translate of n descriptors in place: the int at fd, then every
 * stride bytes after it (an array of structures that hold one).  Reads
 * vfd_guard_from once, and the map's segment table once per run of
 * virtual numbers in one segment: an entry in the segment of the one
 * before it costs one subtraction and one comparison on top of reading
 * its slot.  Lock-free and async-signal-safe.
 */
static inline void vfd_translate_each(int *fd, size_t n, size_t stride)
{
	unsigned guard = __atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED);
	const uint32_t *slot = 0; /* the current segment's: numbers from */
	uint32_t first = 0, len = 0; /* first, len of them (none yet) */
	char *end = (char *)fd + n * stride;

#pragma GCC unroll 4
	for (char *p = (char *)fd; p != end; p += stride) {
		int *f = (int *)(void *)p;
		uint32_t off = (uint32_t)*f - first, v;

		if (__builtin_expect(off >= len, 0)) {
			if ((unsigned)*f < guard)
				continue;
			if (!vfd_in_space(*f)) { /* a backing descriptor? */
				*f = vfd_translate_high(*f);
				continue;
			}
			off = (uint32_t)*f - FD_UNSEQ_BASE;
			slot = fdmap_seg_slots(&vfd_map, off);
			if (!slot) { /* nothing open there: kept */
				len = 0;
				continue;
			}
			first = FD_UNSEQ_BASE + (off & ~(FDMAP_SEG_SLOTS - 1));
			len = FDMAP_SEG_SLOTS;
			off &= FDMAP_SEG_SLOTS - 1;
		}
		v = __atomic_load_n(&slot[off], __ATOMIC_ACQUIRE);
		if (v & VFD_BUSY)
			*f = (int)(v >> VFD_REAL_SHIFT);
	}
}

/*
 * Does the process hold a virtual descriptor (and so backing ones)?  Until
 * it does, no number in a path, a pollfd array or a message can be ufd's,
 * and the shim has no reason to look inside the caller's memory.  One
 * relaxed load; lock-free and async-signal-safe.
 */
static inline int vfd_any(void)
{
	return __atomic_load_n(&vfd_map.live, __ATOMIC_RELAXED) != 0;
}

/*
 * The lowest backing descriptor at or above from, or -1.  Takes the table
 * lock (-1 from a signal handler that interrupted a change to the table).
 */
int vfd_next_backing(int from);

/* Is real descriptor fd (>= 0) at or past vfd_guard_from? */
static inline int vfd_guarded(int fd)
{
	return (unsigned)fd >= __atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED);
}

/*
 * The virtual descriptor that real descriptor real_fd (>= 0) backs, or -1
 * if it backs none.  Lock-free.  stdio and dirent streams made on a virtual
 * descriptor hold its backing descriptor; this maps it back.
 */
static inline int vfd_owner(int real_fd)
{
	uint32_t v = (uint32_t)real_fd < FD_UNSEQ_BASE
			     ? revmap_get(&vfd_backing_map, (uint32_t)real_fd)
			     : 0;

	return v ? (int)(FD_UNSEQ_BASE + v - 1) : -1;
}

/*
 * Is fd a backing descriptor?  ufd's, so not open as far as the
 * application is concerned: close, dup, fcntl and ioctl on it say EBADF.
 * One comparison when it is not guarded (the common case).
 */
static inline int vfd_is_backing(int fd)
{
	return vfd_guarded(fd) && vfd_owner(fd) >= 0;
}

/* Where vfd_create puts the new virtual descriptor. */
enum vfd_where {
	VFD_AT_RANDOM, /* uniformly random among the free ones */
	VFD_AT_EXACT,  /* exactly at, replacing what it held (dup2) */
	VFD_AT_LOWEST, /* the lowest free one >= at (F_DUPFD) */
};

/*
 * Set up the table's maps, on first use: every function below that changes
 * the table calls this first; lookups need no set-up (an empty map answers
 * "not open").  The generator is seeded from UFD_SEED here, or from the
 * kernel's getrandom at its first draw.  Takes the table lock the first
 * time; async-signal-safe after the constructor (from a handler that
 * interrupted its thread inside the lock it sets nothing up, and the
 * caller's own vfd_lock fails with -EBUSY).
 */
void vfd_init(void);

/*
 * From the library constructor: the fork handlers.  Touches none of the
 * table's memory (the maps wait for vfd_init).
 */
void vfd_start(void);

/*
 * The fork handlers vfd_start registers, for a fork that runs none (glibc's
 * _Fork: shim_vfork.c): before it, in the forking thread, vfd_fork_prepare
 * (with threads: waits for the makers under way and takes the table lock,
 * unless this thread holds it); after it, vfd_fork_parent in the parent or
 * vfd_fork_child in the child (the lock afresh, the close-on-fork
 * descriptors closed).  Async-signal-safe, as fork is.
 */
void vfd_fork_prepare(void);
void vfd_fork_parent(void);
void vfd_fork_child(void);

/*
 * vfork.  A vfork child runs in its parent's memory, ufd's table included,
 * until it execs or exits, while the parent's thread waits.  A real vfork
 * is made only while nothing of ufd's is in play: no virtual descriptor,
 * no close-on-fork mark, the kernel's RLIMIT_NOFILE the application's, no
 * log, and a single thread, so that the table cannot change under the
 * child but by the child itself.  Whatever the child does through ufd must
 * then leave no trace in that memory once it is gone: what would (a
 * virtual descriptor, a close-on-fork mark) is refused with -EBUSY
 * (vfd_create, vfd_real_set_flags, vfd_real_dup with a mark), and the
 * layers above make the child's descriptors as the kernel does whatever
 * UFD_MODE, record and report nothing of it (random_fd_ready, report.c),
 * install SA_SIGINFO handlers and exec without the table.  Everything else the child may call leaves the memory as it found
 * it: locks taken and let go within a call, a first set-up of the maps.
 *
 * vfd_vfork_allowed: may a vfork share the memory now?  No side effect:
 * a look before the caller pays for blocking signals (a vfork that will
 * be a fork blocks none).  Async-signal-safe, lock-free.
 *
 * vfd_vfork_begin, in the parent just before the vfork, the application's
 * signals blocked: the same question asked again, now that no handler can
 * change the answer, and 1 if the child may share the memory (vfd_vfork_end must
 * follow in the parent once the vfork returns there, whether it made a
 * child or failed; it lets go of the lock a child killed inside a call
 * left held), or 0: the caller forks instead.  A signal handler may vfork
 * inside another vfork's begin and end.  Async-signal-safe, lock-free, no
 * system call.
 *
 * vfd_vfork_child and vfd_in_vfork_child, the flag a vfork child raises:
 * vfd_shared.h.
 */
int vfd_vfork_allowed(void);
int vfd_vfork_begin(void);
void vfd_vfork_end(void);

/*
 * Create a virtual descriptor duplicating real descriptor real_fd, placed
 * as where and at say (at is a virtual descriptor number, ignored for
 * VFD_AT_RANDOM), with VFD_* flags.  real_fd is left as it was.
 * Returns the new virtual descriptor, or:
 *   -EBADF   real_fd is not open;
 *   -EMFILE  RLIMIT_NOFILE or the virtual space is exhausted;
 *   -ENOMEM  the map could not grow;
 *   -EBUSY   called from a signal handler that interrupted a change to the
 *            table in the same thread (the change cannot be waited for).
 * For VFD_AT_EXACT, an open descriptor at `at` is replaced atomically and
 * in place: the kernel's dup3 puts real_fd's file behind its backing
 * descriptor (a concurrent lookup sees the old or the new file, never
 * neither, and no descriptor number is made or freed).
 *
 * With VFD_ADOPT in flags (VFD_AT_RANDOM only), real_fd itself becomes the
 * backing descriptor, close-on-exec and without a close-on-fork mark,
 * where it is: for a descriptor that must not be duplicated and closed
 * (see newfd.c).  On failure it is left open and as it was.
 */
#define VFD_ADOPT 0x100U

/* vfd_create's two halves, as it picks them: at random without
 * VFD_ADOPT (the common case: in a single-threaded process, one straight
 * path), and every other case.  Same contract. */
int vfd_create_placed(int real_fd, uint32_t flags, enum vfd_where where, int at);
int vfd_create_random(int real_fd, uint32_t flags);

static inline int vfd_create(int real_fd, uint32_t flags, enum vfd_where where, int at)
{
	/* Folded where the caller's arguments are constants: the common
	 * case reaches its function without testing them. */
	if (where == VFD_AT_RANDOM && !(flags & VFD_ADOPT))
		return vfd_create_random(real_fd, flags);
	return vfd_create_placed(real_fd, flags, where, at);
}

/*
 * Close virtual descriptor vfd.  Returns 0, -EBADF if it is not open, or
 * the error the kernel gave closing its backing descriptor (the descriptor
 * is gone either way, as with close(2)).  Async-signal-safe, also in a
 * handler that interrupted a change to the table in the same thread.
 */
int vfd_close(int vfd);

/* vfd_close of a vfd the caller knows is in the virtual space
 * (vfd_in_space), without testing it again. */
int vfd_close_in_space(int vfd);

/*
 * Drop virtual descriptor vfd from the table without closing its backing
 * descriptor, and return that backing descriptor (or -EBADF).  For fclose()
 * and closedir() on a stream made with fdopen()/fdopendir() on vfd: glibc
 * closes the backing descriptor itself.
 */
int vfd_forget(int vfd);

/*
 * close_range(2) over both spaces: the virtual descriptors in
 * [first, last] are closed (or marked close-on-exec with
 * CLOSE_RANGE_CLOEXEC), and the real ones by the kernel, except the
 * backing descriptors, which the application never sees, and hidden
 * virtual descriptors (VFD_HIDDEN): a library's, which only a close of
 * their own number closes, as a close-all loop over a listing misses
 * them.  The real ones are closed with the backing descriptors being made
 * or closed outside the table lock waited for.  Returns 0 or -errno, with
 * the kernel's checks (EINVAL for unknown flags or first > last), or
 * -EBUSY from a signal handler that interrupted a change to the table or
 * the making or closing of a virtual descriptor.
 */
int vfd_close_range(unsigned first, unsigned last, unsigned flags);

/*
 * The first open virtual descriptor after `after` that is not hidden
 * (VFD_HIDDEN), or -1: for listings of /proc/self/fd.
 */
int vfd_next_listed(int after);

/* The first open hidden virtual descriptor (VFD_HIDDEN) after `after`,
 * or -1: for the sanitizer's report of a close_range over it. */
int vfd_next_hidden(int after);

/* The VFD_* flags of open virtual descriptor vfd, or -EBADF. */
int vfd_get_flags(int vfd);

/* Set the flags in mask to the values in flags.  Returns 0 or -EBADF.
 * Lock-free and async-signal-safe. */
int vfd_set_flags(int vfd, uint32_t mask, uint32_t flags);

/*
 * Real descriptors, for the application's calls (only needed when
 * vfd_guarded(fd), except the flags):
 *
 * vfd_real_closing: the application closes real descriptor fd.  -EBADF if
 * fd is a backing descriptor (not the application's to close: the kernel's
 * answer for a descriptor it does not have); else its close-on-fork mark is
 * dropped and 0 returned.
 *
 * vfd_real_close: the application's close(fd): vfd_real_closing's check,
 * then the kernel's close (close_fn's, 0 or -errno, if not NULL: a
 * preload's after ufd, which saw fd made), while no backing descriptor is
 * being made or closed outside the table lock (vfd_internal.h, "backing
 * descriptors made and closed outside the lock"), which it waits for,
 * taking no lock.
 *
 * vfd_real_dup: the application's dup3(oldfd, fd, kflags) (dup2 is kflags
 * 0), oldfd != fd, oldfd virtual or real: made here, with the table
 * locked and the backing descriptors being made or closed outside it
 * waited for, so that no backing descriptor is made, recorded or closed
 * at fd between the check and the kernel's call.  A backing descriptor at
 * fd is first moved elsewhere, so the virtual descriptor it backs stays
 * intact, and the kernel's dup3 then replaces fd atomically.  On success
 * fd's mark is `mark` (VFD_CLOFORK or 0).  Returns fd, the kernel's
 * -errno (nothing changed for the application), -EMFILE if the backing
 * descriptor could not move, or -EBUSY from a signal handler that
 * interrupted a change to the table, or the making or closing of a
 * virtual descriptor.  The kernel's dup3 runs with the lock held (as
 * close_range's closes do), so a replaced file whose close blocks (a
 * flush over NFS) holds up other threads' changes to the table until it
 * is done.
 *
 * vfd_real_set_flags / vfd_real_get_flags: the close-on-fork mark
 * (VFD_CLOFORK) of real descriptor fd, which ufd keeps since the kernel
 * has no such flag.
 */
int vfd_real_closing(int fd);
int vfd_real_close(int fd, int (*close_fn)(int));
int vfd_real_dup(int oldfd, int fd, int kflags, uint32_t mark);
int vfd_real_set_flags(int fd, uint32_t flags);
uint32_t vfd_real_get_flags(int fd);

/*
 * The application sets its RLIMIT_NOFILE (setrlimit, prlimit on itself),
 * with its own pointers: placement_set_nofile, then every backing
 * descriptor now in the application's way moves above its new limit (or
 * up into the top region below it), where there is a free number higher
 * than its own.  With keep_regular, regular files stay where they are:
 * moving one closes a descriptor of the file, which drops the process's
 * POSIX record locks on it; without, files the kernel shows locked
 * (ufd_sys_file_locked: locks ufd did not see taken).  Returns 0 or -errno (the kernel's; EBUSY
 * from a signal handler that interrupted a change to the table, or the
 * making or closing of a virtual descriptor).
 */
int vfd_set_nofile(const struct rlimit *new_rl, struct rlimit *old_rl,
		   int keep_regular);

#endif /* UFD_VFD_TABLE_H */
