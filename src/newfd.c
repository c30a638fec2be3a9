/* SPDX-License-Identifier: MIT */
/*
 * newfd.c - what happens to a descriptor a call has just made (newfd.h).
 */
#include "newfd.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log.h"
#include "procfs.h"
#include "text.h"
#include "vfd_table.h"

/* ---- POSIX record locks ----
 *
 * Making a new descriptor virtual duplicates it into the backing area and
 * closes the kernel's first number for it; and any close drops the
 * process's POSIX record locks (fcntl F_SETLK) on the file, even those it
 * took through another descriptor.  So a descriptor whose file the kernel
 * shows locked by this process (ufd_sys_file_locked, then /proc/locks if
 * that is not clear) is adopted as the backing descriptor where it is,
 * not duplicated and closed.  Once the process is known to take locks
 * (the fcntl and lockf wrappers, or such a find), every regular file is
 * checked.
 */
int newfd_posix_locks;

void newfd_note_posix_lock(void)
{
	if (!__atomic_load_n(&newfd_posix_locks, __ATOMIC_RELAXED)) {
		__atomic_store_n(&newfd_posix_locks, 1, __ATOMIC_RELAXED);
		/* newfd_virtual_or_close's inline path no longer moves
		 * a descriptor unchecked. */
		placement_guard_moves();
	}
}

/* The next space-separated word at *s, advanced past; its length. */
static size_t next_word(const char **s, const char **word)
{
	size_t n;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	*word = *s;
	for (n = 0; (*s)[n] && (*s)[n] != ' ' && (*s)[n] != '\t'; n++)
		;
	*s += n;
	return n;
}

/* What a line of /proc/locks must show to be a lock of this process on
 * the file. */
struct lock_query {
	unsigned long pid;
	char id[64]; /* "<maj>:<min>:<ino>" as /proc/locks writes it */
};

/* Is line of /proc/locks ("1: POSIX  ADVISORY  WRITE <pid> <maj>:<min>:<ino>
 * <start> <end>") a lock that the process holds on the file?  Waiters
 * ("1: -> POSIX ...") hold none. */
static int lock_line_matches(const char *line, void *ctx)
{
	const struct lock_query *q = ctx;
	const char *w, *end;
	unsigned long pid;
	size_t n;

	next_word(&line, &w); /* "1:" */
	if (next_word(&line, &w) != 5 || strncmp(w, "POSIX", 5))
		return 0;
	next_word(&line, &w); /* ADVISORY or MANDATORY */
	next_word(&line, &w); /* READ or WRITE */
	n = next_word(&line, &w);
	end = ufd_parse_decimal(w, ~0UL, &pid);
	if (!end || end != w + n || pid != q->pid)
		return 0;
	n = next_word(&line, &w);
	return n == strlen(q->id) && !strncmp(w, q->id, n);
}

/* Does this process hold a POSIX record lock on fd's file?  The kernel's
 * answer to ufd_sys_file_locked's question first: no lock, or one of this
 * process; else (another process's lock, an OFD lock, which may hide one
 * of this process's) /proc/locks.  Raw calls only: this runs inside
 * open(). */
static int holds_posix_lock(int fd)
{
	struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct lock_query q;
	struct stat st;
	int found;

	q.pid = (unsigned long)ufd_sys_getpid();
	if (ufd_sys_fcntl(fd, F_OFD_GETLK, (long)&probe) == 0 &&
	    (probe.l_type == F_UNLCK || (unsigned long)probe.l_pid == q.pid))
		return probe.l_type != F_UNLCK;
	if (ufd_sys_fstat(fd, &st) < 0)
		return 1; /* cannot tell: keep the locks safe */
	if (!S_ISREG(st.st_mode))
		return 0;
	snprintf(q.id, sizeof(q.id), "%02x:%02x:%lu", major(st.st_dev),
		 minor(st.st_dev), (unsigned long)st.st_ino);
	found = ufd_proc_lines("/proc/locks", lock_line_matches, &q);
	return found != 0; /* cannot read it (< 0): keep the locks safe */
}

int newfd_lock_found(int fd)
{
	if (!holds_posix_lock(fd))
		return 0;
	newfd_note_posix_lock();
	UFD_LOG("%d: the process holds record locks on its file, taken where "
		"ufd did not see: now known to take locks", fd);
	return 1;
}

/* ---- making a new descriptor virtual ---- */

/*
 * Must real_fd, just made, be adopted as its backing descriptor where it
 * is, because closing it would drop the process's record locks?  For a
 * process known to take locks, or a file the kernel shows locked
 * (ufd_sys_file_locked).  Out of line: virtual_or_open's common case needs
 * no frame for the file's stat.
 */
static __attribute__((noinline, cold)) int must_adopt(int real_fd)
{
	/*
	 * Never 0, 1 or 2: no backing descriptor is a standard stream (the
	 * exec hand-off refuses one).  Under UFD_MODE=all, where the
	 * application sees no real number anyway, every regular file is
	 * adopted once locks are in use: checking /proc/locks and closing
	 * after would leave a window for another thread's new lock on the
	 * file to be dropped.  Before (no lock that ufd saw taken), this
	 * file's locks decide.
	 */
	if (real_fd <= 2)
		return 0;
	if (!newfd_posix_locks_taken()) {
		if (!newfd_lock_found(real_fd))
			return 0;
	} else if (!(ufd_settings.mode_all ? ufd_sys_maybe_regular(real_fd)
					   : holds_posix_lock(real_fd))) {
		return 0;
	}
	UFD_LOG("%d: the process holds record locks on its file: "
		"adopted, not closed", real_fd);
	return 1;
}

/*
 * Move real_fd, which the application's call just made, into the virtual
 * space: a duplicate in the backing area, then real_fd closed; or real_fd
 * adopted where it is, if closing it would drop the process's record
 * locks (never, for a fresh object: newfd_fresh_object).  Returns the
 * virtual descriptor, or -errno with real_fd still open.
 */
static inline int virtual_or_open(int real_fd, unsigned flags, int fresh)
{
	int vfd;

	if (!fresh &&
	    __builtin_expect(newfd_posix_locks_taken() || ufd_sys_file_locked(real_fd), 0) &&
	    must_adopt(real_fd))
		return vfd_create(real_fd, flags | VFD_ADOPT, VFD_AT_RANDOM, 0);
	vfd = vfd_create(real_fd, flags, VFD_AT_RANDOM, 0);
	if (vfd >= 0) {
		/* Unmarked before the number is free: after, another thread
		 * may get it, with a mark of its own.  Below the guard there
		 * is no mark (as close() knows). */
		if (vfd_guarded(real_fd))
			vfd_real_closing(real_fd);
		ufd_sys_close(real_fd);
	}
	return vfd;
}

int newfd_move_locked(int fd, unsigned flags)
{
	int vfd = virtual_or_open(fd, flags, 0);

	if (vfd < 0)
		ufd_sys_close(fd);
	return vfd;
}

int newfd_virtual_or_close_any(int fd, unsigned flags, enum ufd_call call)
{
	int vfd = newfd_move_locked(fd, flags);

	if (vfd >= 0 && __builtin_expect(ufd_settings.report != NULL, 0))
		return newfd_recorded(vfd, call);
	return vfd;
}

int newfd_virtual_or_real(int fd, enum ufd_call call, int cloexec)
{
	int vfd;
	unsigned vflags = 0;

	if (__builtin_expect(ufd_settings.exclude, 0) && ufd_settings_exclude(fd, call)) {
		UFD_LOG("%s made %d: stays real (UFD_EXCLUDE)", ufd_call_name(call), fd);
		vfd = fd;
		goto made;
	}
	if (cloexec < 0) {
		int kernel_flags = ufd_sys_fcntl(fd, F_GETFD, 0);

		cloexec = kernel_flags > 0 && (kernel_flags & FD_CLOEXEC);
	}
	if (cloexec)
		vflags |= VFD_CLOEXEC;
	/* A close-on-fork mark (O_CLOFORK): none below the guard. */
	if (vfd_guarded(fd))
		vflags |= vfd_real_get_flags(fd) & VFD_CLOFORK;
	vfd = virtual_or_open(fd, vflags, newfd_fresh_object(call));
	/* EMFILE, ENOMEM: it stays real, as the kernel made it. */
	if (vfd < 0)
		vfd = fd;
made:
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		return newfd_recorded(vfd, call);
	return vfd;
}

__attribute__((noinline, cold)) int newfd_recorded(int fd, enum ufd_call call)
{
	report_created(fd, call, 0);
	return fd;
}

/* ---- the application's limit, pairs, ufd's own flags ---- */

int newfd_past_limit(int fd)
{
	vfd_real_closing(fd); /* drops a close-on-fork mark set meanwhile */
	ufd_sys_close(fd);
	UFD_LOG("%d: past the application's RLIMIT_NOFILE: EMFILE", fd);
	return -EMFILE;
}

int newfd_finish_pair(int fds[2], int added, enum ufd_call call)
{
	unsigned limit = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

	if ((unsigned)fds[0] >= limit || (unsigned)fds[1] >= limit) {
		vfd_real_closing(fds[0]);
		ufd_sys_close(fds[0]);
		return newfd_past_limit(fds[1]);
	}
	fds[0] = newfd_finish(fds[0], added, call);
	fds[1] = newfd_finish(fds[1], added, call);
	return 0;
}

int newfd_finish_flagged_from(int fd, int virt, unsigned vflags, int added,
			      enum ufd_call call, int from)
{
	int r;

	if (virt)
		return newfd_virtual_or_close(fd, vflags, call);
	if (vflags & VFD_CLOFORK) {
		r = vfd_real_set_flags(fd, VFD_CLOFORK);
		if (r < 0) {
			ufd_sys_close(fd);
			return r;
		}
	}
	if ((unsigned)fd >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED))
		return newfd_past_limit(fd);
	return newfd_finish_from(fd, added, call, from, -1);
}
