/* SPDX-License-Identifier: MIT */
/*
 * shim_open_probe.c - an open never reaches the file of a backing
 * descriptor (see shim_open_probe.h).
 */
#include "shim.h"

#include "shim_open_probe.h"

int ufd_open_probe_failed(const char *path, int flags, int err)
{
	/* The errors O_NOFOLLOW gives a last component that is a link;
	 * the kernel has then read and walked the path. */
	if (err != ELOOP && !(err == ENOTDIR && (flags & O_DIRECTORY)))
		return 0;
	return ufd_path_names_backing(path) ? -ENOENT : 1;
}
