/* SPDX-License-Identifier: MIT */
/*
 * shim_open_probe.h - an open never reaches the file of a backing
 * descriptor, which the application cannot name.
 *
 * open("/proc/self/fd/B") or open("/dev/fd/B"), B a backing descriptor,
 * must fail with ENOENT, as for any number the application does not have.
 * Opening it first and closing the result after (the path looked at once
 * the kernel has read it, shim_path.c) is not enough: any close of a
 * descriptor of a file drops the process's POSIX record locks on it
 * (fuzz seed 795 in mode all), and an open has effects of its own (a FIFO
 * waits for its peer).  ufd cannot read the path before the kernel does
 * without a system call (it may be unreadable: EFAULT, not a fault in
 * ufd).  So, while the process holds virtual descriptors, the kernel
 * looks first: the open is made with O_NOFOLLOW added, and a path whose
 * last component is a symbolic link (every /proc/self/fd/N and /dev/fd/N
 * is one) fails with ELOOP (ENOTDIR with O_DIRECTORY) without opening
 * anything.  Then the path has been read, and is looked at: one naming a
 * backing descriptor fails with ENOENT; any other is opened again as the
 * caller asked.  No system call more for an open of a file by a path that
 * does not end in a symbolic link; one more for one that does.
 *
 * Not for O_CREAT or O_TRUNC (their path is looked at before, with
 * ufd_path_before), O_PATH (its close drops no lock; O_NOFOLLOW would
 * open the link itself) nor an open that asked for O_NOFOLLOW (the kernel
 * already refuses the link).  A path that goes through a backing
 * descriptor to a file under it (/proc/self/fd/B/name, B a directory, or
 * a trailing slash) is still opened and then closed (ufd(7)).
 */
#ifndef UFD_SHIM_OPEN_PROBE_H
#define UFD_SHIM_OPEN_PROBE_H

#include <errno.h>
#include <fcntl.h>

#include "vfd_table.h"

/* The flag an open with these flags (the caller's) is made with first:
 * O_NOFOLLOW, or 0.  One load while the process holds no virtual
 * descriptor.  Lock-free, async-signal-safe. */
static inline int ufd_open_probe(int flags)
{
	if (__builtin_expect(!vfd_any(), 1) ||
	    (flags & (O_CREAT | O_TRUNC | O_PATH | O_NOFOLLOW)))
		return 0;
	return O_NOFOLLOW;
}

/*
 * After the first call, made with ufd_open_probe's O_NOFOLLOW, failed with
 * err (flags: the caller's): -ENOENT if path names a backing descriptor
 * (nothing was opened), 1 if the call must be made again as the caller
 * asked (the path ends in another symbolic link), 0 if err stands.
 * Async-signal-safe; never touches errno.
 */
int ufd_open_probe_failed(const char *path, int flags, int err);

/*
 * The real call of open-family wrapper `name` with args (which read the
 * variable flags for the kernel's flags, and path), made as
 * ufd_open_probe says: the result, -1 with errno set as libc does.
 */
#define UFD_OPEN_PROBED(name, flags, path, ...)                               \
	({                                                                     \
		int probe_ = ufd_open_probe(flags), res_, how_;                \
		flags ^= probe_;                                               \
		res_ = UFD_REAL(name)(__VA_ARGS__);                            \
		flags ^= probe_;                                               \
		if (__builtin_expect(probe_ && res_ < 0, 0)) {                 \
			how_ = ufd_open_probe_failed(path, flags, errno);      \
			if (how_ < 0)                                          \
				errno = -how_;                                 \
			else if (how_)                                         \
				res_ = UFD_REAL(name)(__VA_ARGS__);            \
		}                                                              \
		res_;                                                          \
	})

#endif /* UFD_SHIM_OPEN_PROBE_H */
