/* SPDX-License-Identifier: MIT */
/*
 * shim_path.c - paths that name a descriptor.
 *
 * /dev/fd/N and /proc/self/fd/N are how a program names one of its
 * descriptors by path (and /proc/self/fdinfo/N describes it) (bash's process substitution, `cat /dev/fd/3`).  The
 * kernel resolves them in the process's real descriptor table, where a
 * virtual N does not exist; so before a path call reaches the kernel, a
 * path naming an open virtual N is rewritten to name N's backing
 * descriptor.  The rest of the path after N (a file under a directory
 * descriptor) is kept.
 */
#include "shim.h"

#include <string.h>

#include "vfd_table.h"

/* path, advanced past prefix if it starts with it, else NULL. */
static const char *skip(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(path, prefix, n) == 0 ? path + n : NULL;
}

/*
 * A decimal number as the kernel's /proc accepts it (no sign, no leading
 * zero), in [0, 2^31); returns the character after it, or NULL.
 */
static const char *number(const char *s, long *value)
{
	long v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return NULL;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p++ - '0');
		if (v > 0x7fffffff)
			return NULL;
	}
	*value = v;
	return p;
}

/*
 * If path names descriptor N through one of the prefixes, return where N
 * starts and set *n and *rest (the part after N); else NULL.
 */
static const char *descriptor_in_path(const char *path, long *n,
				      const char **rest)
{
	const char *p, *after_pid;
	long pid;

	if (ufd_unmapped(path) || path[0] != '/' || (path[1] != 'd' && path[1] != 'p'))
		return NULL;
	if (!(p = skip(path, "/dev/fd/"))) {
		if (!(p = skip(path, "/proc/")))
			return NULL;
		if (skip(p, "self/")) {
			p += strlen("self/");
		} else if (skip(p, "thread-self/")) {
			p += strlen("thread-self/");
		} else if ((after_pid = number(p, &pid)) && pid == getpid() &&
			   *after_pid == '/') {
			p = after_pid + 1;
		} else {
			return NULL;
		}
		if (skip(p, "fd/"))
			p += strlen("fd/");
		else if (skip(p, "fdinfo/"))
			p += strlen("fdinfo/");
		else
			return NULL;
	}
	*rest = number(p, n);
	if (!*rest || (**rest != '\0' && **rest != '/') ||
	    (!vfd_in_space((int)*n) && !vfd_is_backing((int)*n)))
		return NULL;
	return p;
}

size_t ufd_path_size(const char *path)
{
	const char *rest;
	long n;

	/* A backing descriptor's number is rewritten too: to VFD_NO_FD, a
	 * number no process has (ENOENT). */
	if (!descriptor_in_path(path, &n, &rest) ||
	    (vfd_in_space((int)n) ? !vfd_slot((int)n) : !vfd_is_backing((int)n)))
		return 1;
	/* The backing number has at most 10 digits. */
	return strlen(path) + 11;
}

const char *ufd_path(const char *path, char *buf, size_t size)
{
	const char *at, *rest;
	long n;
	int real, len;

	/* size 1: nothing to rewrite when ufd_path_size looked; a descriptor
	 * opened since is left alone, as if the call had come first. */
	if (size <= 1 || !(at = descriptor_in_path(path, &n, &rest)))
		return path;
	real = vfd_translate((int)n);
	if (real == (int)n) /* closed since ufd_path_size: leave it */
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
	const char *p, *after_pid;
	long pid;

	if (!path)
		return 0;
	if ((p = skip(path, "/dev/fd"))) {
		/* as is */
	} else if ((p = skip(path, "/proc/"))) {
		if (skip(p, "self/fd"))
			p += strlen("self/fd");
		else if (skip(p, "thread-self/fd"))
			p += strlen("thread-self/fd");
		else if ((after_pid = number(p, &pid)) && pid == getpid() &&
			 skip(after_pid, "/fd"))
			p = after_pid + strlen("/fd");
		else
			return 0;
	} else {
		return 0;
	}
	while (*p == '/')
		p++;
	return *p == '\0';
}
