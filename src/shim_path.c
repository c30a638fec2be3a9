/* SPDX-License-Identifier: MIT */
/*
 * shim_path.c - paths that name a descriptor.
 *
 * /dev/fd/N and /proc/self/fd/N are how a program names one of its
 * descriptors by path (bash's process substitution, `cat /dev/fd/3`), and
 * /proc/self/fdinfo/N describes it.  The kernel resolves them in the process's real descriptor table, where a
 * virtual N does not exist; so before a path call reaches the kernel, a
 * path naming an open virtual N is rewritten to name N's backing
 * descriptor.  The rest of the path after N (a file under a directory
 * descriptor) is kept.
 */
#include "shim.h"

#include <string.h>

#include "text.h"
#include "vfd_table.h"

/*
 * path after "/proc/self/", "/proc/thread-self/" or "/proc/<own pid>/":
 * the directories of this process (and thread) in /proc; else NULL.
 * Inlined: every open() of a real file passes here.
 */
__attribute__((always_inline)) static inline const char *
skip_proc_self(const char *path)
{
	const char *p = ufd_skip_prefix(path, "/proc/"), *q;
	unsigned long pid;

	if (!p)
		return NULL;
	if ((q = ufd_skip_prefix(p, "self/")) || (q = ufd_skip_prefix(p, "thread-self/")))
		return q;
	q = ufd_parse_decimal(p, INT_MAX, &pid);
	return q && *q == '/' && pid == (unsigned long)getpid() ? q + 1 : NULL;
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

	if (ufd_unmapped(path) || path[0] != '/' || (path[1] != 'd' && path[1] != 'p'))
		return NULL;
	if (!(p = ufd_skip_prefix(path, "/dev/fd/"))) {
		if (!(p = skip_proc_self(path)))
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

size_t ufd_path_size(const char *path)
{
	const char *rest;
	int n;

	/* A backing descriptor's number is rewritten too: to VFD_NO_FD, a
	 * number no process has (ENOENT). */
	if (!descriptor_in_path(path, &n, &rest) ||
	    (vfd_in_space(n) ? !vfd_slot(n) : !vfd_is_backing(n)))
		return 1;
	/* The backing number has at most 10 digits. */
	return strlen(path) + 11;
}

const char *ufd_path(const char *path, char *buf, size_t size)
{
	const char *at, *rest;
	int n, real, len;

	/* size 1: nothing to rewrite when ufd_path_size looked; a descriptor
	 * opened since is left alone, as if the call had come first. */
	if (size <= 1 || !(at = descriptor_in_path(path, &n, &rest)))
		return path;
	real = vfd_translate(n);
	if (real == n) /* closed since ufd_path_size: leave it */
		return path;
	len = snprintf(buf, size, "%.*s%d%s", (int)(at - path), path, real, rest);
	return len > 0 && (size_t)len < size ? buf : path;
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
