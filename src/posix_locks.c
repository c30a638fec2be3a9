/* SPDX-License-Identifier: MIT */
/*
 * posix_locks.c - may this process hold POSIX record locks (posix_locks.h):
 * the per-process state, and what /proc/locks says of this process.
 */
#include "posix_locks.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "log.h"
#include "procfs.h"
#include "sys.h"
#include "text.h"

int posix_locks_state;

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

/* What a line of /proc/locks must show to be a lock of this process (on
 * the file id names, or on any file where id is empty). */
struct lock_query {
	unsigned long pid;
	char id[64]; /* "<maj>:<min>:<ino>" as /proc/locks writes it */
};

/* Is line of /proc/locks ("1: POSIX  ADVISORY  WRITE <pid> <maj>:<min>:<ino>
 * <start> <end>") a lock that the process holds (on the file)?  Waiters
 * ("1: -> POSIX ...") hold none; OFD locks and flock() show as OFDLCK and
 * FLOCK. */
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
	if (!q->id[0])
		return 1;
	n = next_word(&line, &w);
	return n == strlen(q->id) && !strncmp(w, q->id, n);
}

/* Are /proc's pids this process's (1), not (0: /proc of another pid
 * namespace, or none), or not yet known (-1)?  Set by posix_locks_settle. */
static int proc_ours = -1;

/* Does /proc/self name this pid?  One readlink. */
static int proc_is_ours(unsigned long pid)
{
	char buf[24];
	const char *end;
	unsigned long self;
	long n = ufd_sys6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self", (long)buf,
			  sizeof(buf) - 1, 0, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	end = ufd_parse_decimal(buf, ~0UL, &self);
	return end && !*end && self == pid;
}

int posix_locks_settle(int store)
{
	struct lock_query q = { .pid = (unsigned long)ufd_sys_getpid() };
	int state = posix_locks(), found, expected = POSIX_LOCKS_UNSETTLED;

	if (state != POSIX_LOCKS_UNSETTLED)
		return state;
	found = proc_is_ours(q.pid) ? ufd_proc_lines("/proc/locks", lock_line_matches, &q)
				    : -1;
	state = found < 0 ? POSIX_LOCKS_PROBE
		: found ? POSIX_LOCKS_TAKEN : POSIX_LOCKS_NONE;
	if (!store)
		return state;
	__atomic_store_n(&proc_ours, found >= 0, __ATOMIC_RELAXED);
	/* A lock noted meanwhile (TAKEN) stays. */
	if (!__atomic_compare_exchange_n(&posix_locks_state, &expected, state, 0,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return expected;
	UFD_LOG("record locks: /proc/locks says %s",
		state == POSIX_LOCKS_PROBE ? "nothing (cannot read it): asking "
					     "the kernel at each move"
		: state == POSIX_LOCKS_TAKEN ? "this process holds some"
					     : "none held");
	return state;
}

/* The kernel's answer first (one F_OFD_GETLK: no lock, or one of this
 * process's); else (another process's lock, an OFD lock, which may hide
 * one of this process's) /proc/locks, if its pids are ours.  Raw calls
 * only: this runs inside open(). */
int posix_locks_held_on(int fd)
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
	if (__atomic_load_n(&proc_ours, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&proc_ours, proc_is_ours(q.pid), __ATOMIC_RELAXED);
	if (!__atomic_load_n(&proc_ours, __ATOMIC_RELAXED))
		return 1;
	snprintf(q.id, sizeof(q.id), "%02x:%02x:%lu", major(st.st_dev),
		 minor(st.st_dev), (unsigned long)st.st_ino);
	found = ufd_proc_lines("/proc/locks", lock_line_matches, &q);
	return found != 0; /* cannot read it (< 0): keep the locks safe */
}

void posix_locks_inherit(int taken)
{
	int expected = POSIX_LOCKS_UNSETTLED;

	__atomic_compare_exchange_n(&posix_locks_state, &expected,
				    taken ? POSIX_LOCKS_TAKEN : POSIX_LOCKS_NONE, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
