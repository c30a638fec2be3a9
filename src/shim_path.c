/* SPDX-License-Identifier: MIT */
/*
 * shim_path.c - paths that name a descriptor.
 *
 * /dev/fd/N and /proc/self/fd/N are how a program names one of its
 * descriptors by path (bash's process substitution, `cat /dev/fd/3`), and
 * /proc/self/fdinfo/N describes it.  The kernel resolves them in the
 * process's real descriptor table, where a virtual N does not exist: a
 * path naming an open virtual N is rewritten to name N's backing
 * descriptor (the rest of the path after N, a file under a directory
 * descriptor, is kept), and one naming a backing descriptor to name
 * VFD_NO_FD, for the kernel's ENOENT, as for any number the application
 * does not have.
 *
 * The path is the caller's memory, and may not be readable (a test of
 * EFAULT passes an unmapped page): ufd looks at it only when the process
 * holds a virtual descriptor at all, and then only after the kernel has
 * read it (ufd_path_after) or with reads that cannot fault
 * (ufd_path_before).  See shim.h.
 */
#include "shim.h"

#include <string.h>

#include "sys.h"
#include "text.h"
#include "vfd_table.h"

/*
 * p, just after "/proc/", past "self/", "thread-self/" or "<own pid>/":
 * the directories of this process (and thread) in /proc; else NULL.
 */
static const char *skip_self(const char *p)
{
	const char *q;
	unsigned long pid;

	if ((q = ufd_skip_prefix(p, "self/")) || (q = ufd_skip_prefix(p, "thread-self/")))
		return q;
	q = ufd_parse_decimal(p, INT_MAX, &pid);
	return q && *q == '/' && pid == (unsigned long)getpid() ? q + 1 : NULL;
}

/* path after "/proc/" and skip_self's directories; else NULL. */
static const char *skip_proc_self(const char *path)
{
	const char *p = ufd_skip_prefix(path, "/proc/");

	return p ? skip_self(p) : NULL;
}

/*
 * If path names descriptor N (a virtual or a backing number) through
 * /dev/fd/, or fd/ or fdinfo/ under skip_proc_self's directories, return
 * where N starts and set *n and *rest (the part after N: empty, or a
 * slash and more); else NULL.
 */
static const char *descriptor_in_path(const char *path, int *n, const char **rest)
{
	const char *p, *q;
	unsigned long value;

	if (ufd_unmapped(path) || !ufd_path_may_name_fd(path))
		return NULL;
	if (path[1] == 'd') {
		p = path + sizeof("/dev/fd/") - 1;
	} else {
		if (!(p = skip_self(path + sizeof("/proc/") - 1)))
			return NULL;
		if (!(q = ufd_skip_prefix(p, "fd/")) && !(q = ufd_skip_prefix(p, "fdinfo/")))
			return NULL;
		p = q;
	}
	*rest = ufd_parse_decimal(p, INT_MAX, &value);
	if (!*rest || (**rest != '\0' && **rest != '/'))
		return NULL;
	*n = (int)value;
	if (!vfd_in_space(*n) && !vfd_is_backing(*n))
		return NULL;
	return p;
}

/* What a path that names a descriptor names, as far as ufd cares. */
enum names { NAMES_NOTHING, NAMES_VIRTUAL, NAMES_BACKING };


/* What path names: an open virtual descriptor, a backing descriptor, or
 * nothing of ufd's.  path must be readable up to its NUL. */
static enum names path_names(const char *path)
{
	const char *rest;
	int n;

	if (!descriptor_in_path(path, &n, &rest))
		return NAMES_NOTHING;
	if (vfd_in_space(n))
		return vfd_translate(n) != n ? NAMES_VIRTUAL : NAMES_NOTHING;
	return vfd_is_backing(n) ? NAMES_BACKING : NAMES_NOTHING;
}

/* The longest prefix that can tell whether a path names a descriptor:
 * "/proc/<pid>/fdinfo/<n>/" is at most 36 characters. */
#define PREFIX_MAX 64

/*
 * The string at s, NUL included, into buf (of size bytes), read with
 * ufd_sys_read_self so that an unmapped page is an error, not a fault.
 * Returns its length, or -1 if part of it cannot be read or it does not
 * fit; with `prefix`, a string cut at size - 1 bytes is fine too (and
 * NUL-terminated).
 */
static long read_string(const char *s, char *buf, size_t size, int prefix)
{
	/* A prefix keeps the last byte for its NUL. */
	size_t done = 0, want = prefix ? size - 1 : size;

	if (ufd_unmapped(s))
		return -1;
	/* A page at a time, to stop at the one that holds the NUL: the
	 * pages after it may be unmapped, or cost a system call each. */
	while (done < want) {
		size_t piece = 4096 - (((uintptr_t)s + done) & 4095);
		long n;
		char *nul;

		if (piece > want - done)
			piece = want - done;
		n = ufd_sys_read_self(buf + done, s + done, piece);
		if (n <= 0)
			return -1;
		nul = memchr(buf + done, '\0', (size_t)n);
		if (nul)
			return nul - buf;
		done += (size_t)n;
		if ((size_t)n < piece)
			return -1;
	}
	if (!prefix)
		return -1;
	buf[done] = '\0';
	return (long)done;
}

size_t ufd_path_before(const char *path)
{
	char prefix[PREFIX_MAX + 1];

	if (__builtin_expect(!vfd_any(), 1) ||
	    read_string(path, prefix, sizeof(prefix), 1) < 0 ||
	    path_names(prefix) == NAMES_NOTHING)
		return 0;
	/* ufd_path reads all of it, again without faulting. */
	return PATH_MAX + 11;
}

/*
 * Is err (0 for success) an answer the kernel gives only once it has read
 * the whole path and walked it?  Then plain loads of the path cannot
 * fault.  (EFAULT, ENAMETOOLONG, EINVAL for flags, EBADF for a directory
 * descriptor may come before the path is read, and are not here.)  The
 * others are what a walk through /proc/self/fd/B to a backing
 * descriptor's file can end in: a socket cannot be opened (ENXIO), a
 * magic link with O_NOFOLLOW (ELOOP), the file's own permissions...
 */
static int path_was_walked(int err)
{
	switch (err) {
	case 0: case ENOENT: case ENXIO: case ENOTDIR: case EACCES: case ELOOP:
	case EISDIR: case ENODEV: case EPERM: case EROFS: case ETXTBSY:
	case EWOULDBLOCK: case EOVERFLOW:
		return 1;
	default:
		return 0;
	}
}

size_t ufd_path_after(const char *path, int err)
{
	enum names names;

	if (!vfd_any() || !path_was_walked(err) || ufd_unmapped(path) ||
	    !ufd_path_may_name_fd(path))
		return 0;
	/* A virtual N fails with ENOENT: the kernel has no such number.  A
	 * backing one reaches ufd's descriptor, with success or an error of
	 * its file's, where the application must get ENOENT. */
	names = path_names(path);
	if (names == NAMES_VIRTUAL ? err != ENOENT : names != NAMES_BACKING || err == ENOENT)
		return 0;
	return strlen(path) + 11;
}

const char *ufd_path(const char *path, char *buf, size_t size)
{
	const char *at, *rest;
	char digits[12];
	size_t ndigits, head;
	long len;
	int n, real;

	/* The path is copied first, without faulting; it is rewritten in
	 * buf, which has room for the backing number's 10 digits more (and
	 * N has at least one). */
	if (size <= 10 || (len = read_string(path, buf, size - 10, 0)) < 0 ||
	    !(at = descriptor_in_path(buf, &n, &rest)))
		return path;
	/* The backing descriptor, or VFD_NO_FD for a backing descriptor's
	 * own number (a number no process has: ENOENT, as for any number
	 * the application does not have). */
	real = vfd_translate(n);
	if (real == n) /* closed since: leave the path as it was */
		return path;
	ndigits = (size_t)(ufd_put_decimal(digits, (unsigned long)real) - digits);
	head = (size_t)(at - buf);
	memmove(buf + head + ndigits, rest, (size_t)(buf + len - rest) + 1);
	memcpy(buf + head, digits, ndigits);
	return buf;
}

/*
 * Is path the directory that lists this process's descriptors?
 * /proc/self/fd, /proc/thread-self/fd, /proc/<own pid>/fd or /dev/fd, with
 * or without trailing slashes.
 */
int ufd_path_is_fd_dir(const char *path)
{
	const char *p;

	if (!path)
		return 0;
	if (!(p = ufd_skip_prefix(path, "/dev/fd")) &&
	    (!(p = skip_proc_self(path)) || !(p = ufd_skip_prefix(p, "fd"))))
		return 0;
	while (*p == '/')
		p++;
	return *p == '\0';
}
