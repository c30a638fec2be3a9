/* SPDX-License-Identifier: MIT */
/*
 * handoff.c - the exec hand-off (handoff.h): the wire format that tells
 * ufd in a new program which inherited descriptor backs which virtual
 * one, its memfd transport for long lists, and the parser, which takes
 * the value as untrusted input.  Part of the table layer: it reads and
 * fills the maps under the table lock (vfd_internal.h).
 *
 * The hand-off is one environment entry:
 *
 *   UFD_HANDOFF=2;<pid><locks>;<entry>,<entry>,...     for an exec
 *   UFD_HANDOFF=2;s<pid><locks>;<entry>,<entry>,...    for a spawn
 *
 * where <pid> is the process's, which the new program checks against its
 * own pid (exec keeps it) or, after s, its parent's (posix_spawn, system,
 * popen); a grandchild that finds a stale entry in its environment has
 * neither.  <locks> says whether the new program may hold POSIX record
 * locks (posix_locks.h; they survive exec): "l" yes, "n" no (a spawn's
 * child is a new process, which holds none), nothing if not known.  An
 * exec of a process that may hold locks hands off for that alone, with no
 * entry.  Each entry is either
 * <vfd>=<backing>/<flags>/<dev>/<ino> (a virtual descriptor, the inherited
 * real descriptor behind it and the device and inode of its file) or
 * <fd>/<flags> (a real descriptor's close-on-fork mark), all in decimal.
 * The new program takes a backing descriptor over only if it still holds
 * that file: a posix_spawn file action may have closed the number, or
 * dup'd another file onto it, on the way.
 *
 * The kernel takes no environment string longer than 128 KiB
 * (MAX_ARG_STRLEN), some 2,000 entries.  A longer list goes in a memfd the
 * new program inherits, and the entry names that instead:
 *
 *   UFD_HANDOFF=2;<pid>;@<fd>/<dev>/<ino>,
 *
 * The new program maps it, closes it and reads the list from the mapping.
 */
#include "handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/memfd.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "placement.h"
#include "posix_locks.h"
#include "procfs.h"
#include "sys.h"
#include "text.h"
#include "vfd_internal.h"
#include "vfd_shared.h"
#include "vfd_table.h"

#define HANDOFF_NAME "UFD_HANDOFF="

/* The exec being prepared, from handoff_prepare to handoff_done (the
 * table lock is held all that time). */
static struct {
	int spawn;	/* for a spawn: a fork child that execs */
	int keeps_none; /* UFD_INHERIT=0: no virtual descriptor survives */
	int file;	/* the memfd holding a list too long for the
			 * environment, or -1 */
	int any;	/* the table held a virtual descriptor or a mark */
} exec_state = { .file = -1 };

/* Does virtual descriptor slot value v survive the exec being prepared
 * (spawn: a fork and an exec)? */
static int survives(uint32_t v, int spawn)
{
	return (v & VFD_BUSY) && !(v & VFD_CLOEXEC) &&
	       !(spawn && (v & VFD_CLOFORK)) && !exec_state.keeps_none;
}

/* A mark's bit: the real descriptor was not close-on-exec for the kernel
 * before a spawn made it so (see set_inheritable). */
#define MARK_WAS_INHERITABLE 0x10U

/* Is real descriptor fd the backing descriptor of an open virtual one
 * (not one a signal handler closed, whose number may be anyone's)? */
static int backs_open_vfd(int64_t fd)
{
	int owner = vfd_owner((int)fd);

	/* An open one translates to its backing descriptor, a closed one
	 * to itself. */
	return owner >= 0 && vfd_translate_high(owner) == fd;
}

/*
 * Make the backing descriptor of every open virtual descriptor
 * close-on-exec for the kernel, with one close_range(CLOSE_RANGE_CLOEXEC)
 * per run of consecutive such numbers (no other descriptor is touched),
 * or F_SETFD each where close_range cannot (before Linux 5.11).  Backing
 * descriptors are made next to each other, mostly: a few calls for
 * thousands.  Table lock held.
 */
static void backing_all_cloexec(void)
{
	int64_t first = revmap_next(&vfd_backing_map, 0), last, next;

	while (first >= 0) {
		if (!backs_open_vfd(first)) {
			first = revmap_next(&vfd_backing_map, (uint32_t)first + 1);
			continue;
		}
		last = first;
		while ((next = revmap_next(&vfd_backing_map,
					       (uint32_t)last + 1)) == last + 1 &&
		       backs_open_vfd(next))
			last = next;
		if (ufd_sys6(SYS_close_range, first, last, CLOSE_RANGE_CLOEXEC,
			     0, 0, 0) < 0)
			for (int64_t fd = first; fd <= last; fd++)
				ufd_sys_fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		first = next;
	}
}

/*
 * Before an exec (inheritable 1): the backing descriptor of every virtual
 * descriptor that survives it loses the kernel's close-on-exec flag; for a
 * spawn, whose child is a fork child too, every real descriptor marked
 * close-on-fork gets it, so that the child does not keep it.  After
 * (inheritable 0): all back as they were, and every backing descriptor
 * close-on-exec.  Table lock held.
 */
static void set_inheritable(int inheritable, int spawn)
{
	int64_t idx;

	/* After: all of them, not just those that survive by their flags
	 * now, which change without the lock and so may not be the ones
	 * the backing descriptors were made inheritable by. */
	if (!inheritable)
		backing_all_cloexec();
	else
		VFD_FOR_EACH_SLOT(&vfd_map, idx, 0) {
			uint32_t v = fdmap_get(&vfd_map, (uint32_t)idx);

			if (survives(v, spawn))
				ufd_sys_fcntl(vfd_backing_of(v), F_SETFD, 0);
		}
	if (!spawn)
		return;
	VFD_FOR_EACH_SLOT(&vfd_mark_map, idx, 0) {
		uint32_t m = fdmap_get(&vfd_mark_map, (uint32_t)idx);
		int fd = (int)idx, kernel;

		/* The lock-free change to a mark is unmark(), which clears
		 * it: a compare-and-swap that fails means the descriptor was
		 * closed, replaced or unmarked meanwhile, and is left alone. */
		if (!(m & VFD_BUSY))
			continue;
		if (inheritable) {
			kernel = ufd_sys_fcntl(fd, F_GETFD, 0);
			if (kernel == 0 &&
			    fdmap_cas(&vfd_mark_map, (uint32_t)idx, m,
				      m | MARK_WAS_INHERITABLE))
				ufd_sys_fcntl(fd, F_SETFD, FD_CLOEXEC);
		} else if ((m & MARK_WAS_INHERITABLE) &&
			   fdmap_cas(&vfd_mark_map, (uint32_t)idx, m,
				     m & ~MARK_WAS_INHERITABLE)) {
			ufd_sys_fcntl(fd, F_SETFD, 0);
		}
	}
}

/* Lists longer than this go in a memfd: well under MAX_ARG_STRLEN, and
 * leaving the rest of ARG_MAX to the program's own arguments. */
#define HANDOFF_INLINE_MAX (16 * 1024)

/*
 * Move the list at entries (len bytes with its NUL) into a memfd, placed
 * high like a backing descriptor and inheritable, and write
 * "@<fd>/<dev>/<ino>," at entries instead.  Table lock held.
 */
static int handoff_to_file(char *entries, size_t len)
{
	int tmp = (int)ufd_sys6(SYS_memfd_create, (long)"ufd-handoff", MFD_CLOEXEC,
				0, 0, 0, 0), fd;
	struct stat st;
	size_t done = 0;

	if (tmp < 0)
		return tmp;
	while (done < len) {
		long n = ufd_sys6(SYS_write, tmp, (long)(entries + done),
				  (long)(len - done), 0, 0, 0);

		if (n == -EINTR)
			continue;
		if (n <= 0) {
			ufd_sys_close(tmp);
			return n < 0 ? (int)n : -EIO;
		}
		done += (size_t)n;
	}
	/* Out of the application's low numbers, as backing descriptors. */
	fd = placement_new_backing(tmp);
	ufd_sys_close(tmp);
	if (fd < 0)
		return fd;
	if (ufd_sys_fstat(fd, &st) < 0 || ufd_sys_fcntl(fd, F_SETFD, 0) < 0) {
		ufd_sys_close(fd);
		return -EIO;
	}
	exec_state.file = fd;
	*entries++ = '@';
	entries = ufd_put_decimal(entries, (unsigned long)fd);
	*entries++ = '/';
	entries = ufd_put_decimal(entries, (unsigned long)st.st_dev);
	*entries++ = '/';
	entries = ufd_put_decimal(entries, (unsigned long)st.st_ino);
	*entries++ = ',';
	*entries = '\0';
	return 0;
}

/* Must an exec (not a spawn) hand off for the record locks alone: may the
 * process hold some, which the new program keeps? */
static int locks_to_carry(int spawn)
{
	return !spawn && posix_locks() == POSIX_LOCKS_TAKEN;
}

/* The hand-off text for an exec or spawn: into a new mapping, h->entry.
 * Returns 0 (h->entry NULL if nothing survives) or -errno.  Table lock
 * held. */
static int write_entry(struct handoff *h, int spawn)
{
	char *p, *entries;
	int err;
	int64_t i;
	unsigned handed = 0, marks = 0;

	/* "<vfd>=<backing>/<flags>/<dev>/<ino>," is at most
	 * 10+1+9+1+1+1+20+1+20+1 characters. */
	h->len = 64 + 72 * (size_t)vfd_map.live + 16 * (size_t)vfd_mark_map.live;
	p = ufd_sys_mmap(NULL, h->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ufd_sys_is_error((long)p))
		return -ENOMEM;
	h->entry = p;
	memcpy(p, HANDOFF_NAME "2;", strlen(HANDOFF_NAME "2;"));
	p += strlen(HANDOFF_NAME "2;");
	if (spawn)
		*p++ = 's';
	p = ufd_put_decimal(p, (unsigned long)ufd_sys_getpid());
	if (spawn || posix_locks() == POSIX_LOCKS_NONE)
		*p++ = 'n';
	else if (posix_locks() == POSIX_LOCKS_TAKEN)
		*p++ = 'l';
	*p++ = ';';
	entries = p;
	VFD_FOR_EACH_SLOT(&vfd_map, i, 0) {
		uint32_t v = fdmap_get(&vfd_map, (uint32_t)i);
		struct stat st;

		if (!survives(v, spawn) || ufd_sys_fstat(vfd_backing_of(v), &st) < 0)
			continue;
		p = ufd_put_decimal(p, FD_UNSEQ_BASE + (unsigned long)i);
		*p++ = '=';
		p = ufd_put_decimal(p, (unsigned long)vfd_backing_of(v));
		*p++ = '/';
		p = ufd_put_decimal(p, v & VFD_FLAGS);
		*p++ = '/';
		p = ufd_put_decimal(p, (unsigned long)st.st_dev);
		*p++ = '/';
		p = ufd_put_decimal(p, (unsigned long)st.st_ino);
		*p++ = ',';
		handed++;
	}
	/* Marked real descriptors keep their mark across an exec; a spawn
	 * child does not have them at all. */
	if (!spawn)
		VFD_FOR_EACH_SLOT(&vfd_mark_map, i, 0) {
		uint32_t v = fdmap_get(&vfd_mark_map, (uint32_t)i);

		if (!(v & VFD_BUSY))
			continue;
		p = ufd_put_decimal(p, (unsigned long)i);
		*p++ = '/';
		p = ufd_put_decimal(p, v & VFD_FLAGS);
		*p++ = ',';
		marks++;
	}
	*p = '\0';
	UFD_LOG("%s: handing off %u virtual descriptors and %u close-on-fork "
		"marks", spawn ? "spawn" : "exec", handed, marks);
	if (!handed && !marks && !locks_to_carry(spawn)) {
		ufd_sys_munmap(h->entry, h->len);
		h->entry = NULL;
		return 0;
	}
	if ((size_t)(p - entries) > HANDOFF_INLINE_MAX &&
	    (err = handoff_to_file(entries, (size_t)(p - entries) + 1)) < 0) {
		ufd_sys_munmap(h->entry, h->len);
		h->entry = NULL;
		return err;
	}
	return 0;
}

int handoff_prepare(struct handoff *h, int spawn, int keep)
{
	int err;

	memset(h, 0, sizeof(*h));
	/* A child sharing its parent's memory (ufd's vfork child, a raw
	 * clone with CLONE_VM: vfd_shared.h) hands nothing off (a vfork child
	 * cannot have a virtual descriptor or a mark, vfd_table.h; the
	 * table is the parent's), and must not hold the table through its
	 * exec: the lock would stay held in its parent's memory.
	 * From a handler that interrupted a change to the table, hand off
	 * nothing: the exec goes ahead as if every virtual descriptor were
	 * close-on-exec. */
	if (vfd_shared_child() || vfd_lock() < 0)
		return 0;
	exec_state.spawn = spawn;
	exec_state.keeps_none = !keep;
	/* An empty table (most processes): no text, nothing to make
	 * inheritable; the lock still keeps a first virtual descriptor, and
	 * the raised limit it brings, from being made under the exec. */
	exec_state.any = vfd_map.live || vfd_mark_map.live;
	vfd_shared_flags_from_kernel(); /* a shared table: the kernel's flags */
	if ((exec_state.any || locks_to_carry(spawn)) &&
	    (err = write_entry(h, spawn)) < 0) {
		vfd_unlock();
		return err;
	}
	h->held = 1;
	if (exec_state.any)
		set_inheritable(1, spawn);
	/* The new program starts with the application's limit: backing
	 * descriptors handed off are above it, where they stay. */
	placement_exec(1);
	return 0;
}

void handoff_done(struct handoff *h)
{
	if (!h->held)
		return;
	placement_exec(0);
	if (exec_state.any)
		set_inheritable(0, exec_state.spawn);
	vfd_shared_flags_to_kernel(); /* a shared table: the flags back */
	if (exec_state.file >= 0) {
		ufd_sys_close(exec_state.file);
		exec_state.file = -1;
	}
	if (h->entry)
		ufd_sys_munmap(h->entry, h->len);
	h->entry = NULL;
	h->held = 0;
	vfd_unlock();
}

/* A decimal number at s (ufd_parse_decimal: at most max) that one of the
 * characters in `ends` follows: stores it in *out and returns where that
 * character is, or NULL. */
static const char *parse_num(const char *s, const char *ends, unsigned long max,
			     unsigned long *out)
{
	unsigned long v;
	const char *p = ufd_parse_decimal(s, max, &v);

	if (!p || !*p || !strchr(ends, *p)) /* strchr would match the NUL too */
		return NULL;
	*out = v;
	return p;
}

/* One hand-off entry, parsed. */
struct handoff_entry {
	unsigned long vfd; /* 0 for a real descriptor's mark */
	unsigned long fd;  /* the backing descriptor, or the marked one */
	unsigned long flags;
	unsigned long dev, ino; /* the backing descriptor's file */
};

/*
 * Parse the entry at *s into e and advance *s past it (and its comma).
 * Returns NULL, or a reason the hand-off is unusable.
 */
static const char *parse_entry(const char **s, struct handoff_entry *e)
{
	unsigned long a, b;
	const char *p = parse_num(*s, "=/", ~0UL, &a);

	if (!p)
		return "a malformed number";
	e->vfd = 0;
	if (*p == '=') {
		if (a < FD_UNSEQ_BASE || a >= FD_UNSEQ_LIMIT)
			return "a virtual descriptor out of the virtual space";
		p = parse_num(p + 1, "/", VFD_REAL_MAX, &b);
		if (!p)
			return "a malformed backing descriptor";
		e->vfd = a;
		e->fd = b;
	} else {
		if (a > VFD_REAL_MAX)
			return "a real descriptor out of range";
		e->fd = a;
	}
	p = parse_num(p + 1, e->vfd ? "/" : ",", VFD_FLAGS, &e->flags);
	if (!p)
		return "malformed flags";
	if (e->vfd) {
		p = parse_num(p + 1, "/", ~0UL, &e->dev);
		if (p)
			p = parse_num(p + 1, ",", ~0UL, &e->ino);
		if (!p)
			return "a malformed file identity";
	}
	if (e->flags & VFD_CLOEXEC)
		return "a close-on-exec descriptor";
	if (!e->vfd && e->flags != VFD_CLOFORK)
		return "a mark other than close-on-fork";
	/* ufd never backs a virtual descriptor with 0, 1 or 2. */
	if (e->vfd && e->fd < 3)
		return "a standard stream as a backing descriptor";
	*s = p + 1;
	return NULL;
}

/*
 * Is entry e's descriptor open here, and (a backing one) on the file the
 * entry names?  If not, it was closed or replaced on the way (a
 * posix_spawn file action, say): nothing to take over.  One system call.
 */
static int entry_is_there(const struct handoff_entry *e)
{
	struct stat st;

	if (!e->vfd)
		return ufd_sys_fcntl((int)e->fd, F_GETFD, 0) >= 0;
	return ufd_sys_fstat((int)e->fd, &st) == 0 &&
	       (unsigned long)st.st_dev == e->dev &&
	       (unsigned long)st.st_ino == e->ino;
}

/*
 * Undo the first n entries of the hand-off at list, those taken over: the
 * maps say which (an entry skipped as not there took nothing, and a
 * backing descriptor's reverse entry names the slot that took it), so no
 * system call is made again.
 */
static void handoff_undo(const char *list, int n)
{
	struct handoff_entry e;

	while (n-- > 0 && !parse_entry(&list, &e)) {
		uint32_t idx = (uint32_t)(e.vfd - FD_UNSEQ_BASE);

		if (!e.vfd) {
			fdmap_release(&vfd_mark_map, (uint32_t)e.fd);
		} else if (vfd_owner((int)e.fd) == (int)(FD_UNSEQ_BASE + idx)) {
			fdmap_release(&vfd_map, idx);
			vfd_disown_backing((int)e.fd, idx);
		}
	}
}

/* Take over the entries; returns how many virtual descriptors, or the
 * reason for giving up (all undone).  Table lock held. */
static const char *handoff_install(const char *list, int *taken)
{
	const char *s = list, *why;
	struct handoff_entry e;
	int64_t lowest_backing, lowest_mark;
	int n = 0;

	*taken = 0;
	while (*s) {
		int there;

		why = parse_entry(&s, &e);
		there = !why && entry_is_there(&e);
		if (!why && !there) {
			/* skipped */
		} else if (!why && e.vfd) {
			if (vfd_owner((int)e.fd) >= 0)
				why = "a backing descriptor named twice";
			else if (fdmap_get(&vfd_mark_map, (uint32_t)e.fd) & VFD_BUSY)
				why = "a descriptor both backing and marked";
			else if (fdmap_alloc_exact(&vfd_map,
						   (uint32_t)(e.vfd - FD_UNSEQ_BASE),
						   vfd_slot_value((int)e.fd,
							      (uint32_t)e.flags)) < 0)
				why = "a virtual descriptor named twice";
			else if (vfd_own_backing((int)e.fd,
					     (uint32_t)(e.vfd - FD_UNSEQ_BASE)) < 0) {
				fdmap_release(&vfd_map, (uint32_t)(e.vfd - FD_UNSEQ_BASE));
				why = "no memory";
			}
		} else if (!why) {
			/* A backing descriptor is ufd's, never the program's
			 * to mark (vfd_real_set_flags refuses it too). */
			if (vfd_owner((int)e.fd) >= 0)
				why = "a descriptor both backing and marked";
			else if (fdmap_alloc_exact(&vfd_mark_map, (uint32_t)e.fd,
						   VFD_BUSY | (uint32_t)e.flags) < 0)
				why = "a real descriptor named twice";
		}
		if (why) {
			handoff_undo(list, n);
			return why;
		}
		n++;
		*taken += e.vfd && there;
	}
	/* Everything checked: the backing descriptors are ufd's again, and
	 * close-on-exec for the kernel; calls on them and on the marked ones
	 * take the checks (the guard goes down to the lowest of each). */
	backing_all_cloexec();
	lowest_backing = revmap_next(&vfd_backing_map, 0);
	lowest_mark = fdmap_next_busy(&vfd_mark_map, 0);
	if (lowest_backing >= 0)
		placement_guard((int)lowest_backing);
	if (lowest_mark >= 0)
		placement_guard((int)lowest_mark);
	return NULL;
}

/*
 * Is a hand-off naming pid this process's?  An exec's names the process
 * itself (exec keeps the pid).  A spawn's names the parent, which may have
 * exited since (posix_spawn, then _exit): then this process has been
 * reparented to init or a subreaper, and a parent that no longer exists is
 * taken for this one's.  A grandchild that finds a stale spawn hand-off in
 * its environment has a parent of its own, alive, and another pid; one
 * whose named process is gone too is protected by the entries' file
 * identities, which must match what it inherited.
 */
/* Has process pid exited: no such process, or a zombie not yet reaped? */
static int process_gone(long pid)
{
	char path[48], stat[256], *state;
	long n;

	if (ufd_sys6(SYS_kill, pid, 0, 0, 0, 0, 0) == -ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	n = ufd_proc_read(path, stat, sizeof(stat));
	/* Not there: exited since, or /proc is not mounted; ask again. */
	if (n < 0)
		return ufd_sys6(SYS_kill, pid, 0, 0, 0, 0, 0) == -ESRCH;
	if (n == 0)
		return 0;
	/* "<pid> (<comm>) <state> ...": the comm may hold ") ". */
	state = strrchr(stat, ')');
	return state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

static int handoff_is_mine(unsigned long pid, int spawn)
{
	pid_t parent;

	if (!spawn)
		return pid == (unsigned long)getpid();
	parent = getppid();
	if (pid == (unsigned long)parent)
		return 1;
	return process_gone((long)pid);
}

/*
 * The list of a hand-off made through a memfd: "<fd>/<dev>/<ino>," at ref
 * names it.  Mapped into *map (of *size bytes) and closed: the list is
 * the mapping.  NULL, or the reason it cannot be used.
 */
static const char *handoff_from_file(const char *ref, char **map, size_t *size)
{
	unsigned long fd, dev, ino;
	const char *p = parse_num(ref, "/", VFD_REAL_MAX, &fd);
	struct stat st;

	if (p)
		p = parse_num(p + 1, "/", ~0UL, &dev);
	if (p)
		p = parse_num(p + 1, ",", ~0UL, &ino);
	if (!p || p[1] != '\0')
		return "a malformed hand-off file";
	if (ufd_sys_fstat((int)fd, &st) < 0 || (unsigned long)st.st_dev != dev ||
	    (unsigned long)st.st_ino != ino || !S_ISREG(st.st_mode))
		return "a hand-off file not there, or replaced on the way";
	/* It is ours from here on: closed whatever else is wrong. */
	if (st.st_size < 1 || st.st_size > (64 << 20)) {
		ufd_sys_close((int)fd);
		return "a hand-off file of a bad size";
	}
	*size = (size_t)st.st_size;
	*map = ufd_sys_mmap(NULL, *size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
	ufd_sys_close((int)fd);
	if (ufd_sys_is_error((long)*map)) {
		*map = NULL;
		return "no memory for the hand-off file";
	}
	if ((*map)[*size - 1] != '\0' || memchr(*map, '\0', *size - 1)) {
		ufd_sys_munmap(*map, *size);
		*map = NULL;
		return "a hand-off file that is not one string";
	}
	return NULL;
}

int handoff_inherit(const char *value)
{
	unsigned long version, pid;
	const char *p, *why = NULL, *list;
	int taken = 0, spawn = 0, locks = -1;
	char *map = NULL;
	size_t map_size = 0;

	p = parse_num(value, ";", 2, &version);
	if (p && p[1] == 's') {
		spawn = 1;
		p++;
	}
	if (!p || version != 2)
		why = "an unknown format";
	else if (!(p = parse_num(p + 1, ";ln", 0x7fffffff, &pid)) ||
		 (*p != ';' && *++p != ';'))
		why = "a malformed process id";
	else if (!handoff_is_mine(pid, spawn))
		why = "another process's hand-off";
	else if (p[1] == '@' && (why = handoff_from_file(p + 2, &map, &map_size)))
		;
	else {
		if (p[-1] == 'l' || p[-1] == 'n')
			locks = p[-1] == 'l';
		list = map ? map : p + 1;
		/* Only the record locks' state: the table is not needed. */
		if (*list) {
			vfd_init();
			if (vfd_lock() < 0) {
				why = "the table being busy";
			} else {
				why = handoff_install(list, &taken);
				vfd_unlock();
			}
		}
	}
	if (map)
		ufd_sys_munmap(map, map_size);
	if (why) {
		char msg[200];
		int n = snprintf(msg, sizeof(msg),
				 "ufd: ignoring UFD_HANDOFF (%s); inherited "
				 "descriptors stay as the kernel passed them\n",
				 why);

		/* snprintf says how long the whole would have been. */
		if (n >= (int)sizeof(msg))
			n = sizeof(msg) - 1;
		ufd_sys6(SYS_write, 2, (long)msg, n, 0, 0, 0);
		UFD_LOG("hand-off ignored: %s", why);
		return -EINVAL;
	}
	/* Locks held before the exec are still held (posix_locks.h). */
	if (locks >= 0) {
		posix_locks_inherit(locks);
		if (locks)
			placement_guard_moves();
		else if (posix_locks() == POSIX_LOCKS_NONE)
			placement_moves_free();
	}
	UFD_LOG("hand-off: took %d descriptors%s", taken,
		locks < 0 ? "" : locks ? ", record locks may be held"
				       : ", no record lock held");
	return taken;
}
