/* SPDX-License-Identifier: MIT */
/*
 * procfs.h - reading a /proc file with raw system calls: for code that runs
 * inside an interposed call (open, pidfd_getfd, the exec hand-off), where
 * libc's stdio would re-enter the shim.  Async-signal-safe; the buffers
 * are small, since this may run on a signal handler's alternate stack.
 */
#ifndef UFD_PROCFS_H
#define UFD_PROCFS_H

#include <stddef.h>

/*
 * The first size - 1 bytes of the file at path into buf, NUL-terminated.
 * Returns their number, or -errno (the file cannot be opened or read).
 */
long ufd_proc_read(const char *path, char *buf, size_t size);

/*
 * Call line(text, ctx) on each line of the file at path, without its
 * newline, until it returns non-zero; lines longer than 1 KiB are cut.
 * Returns what line returned, 0 at the end of the file, or -errno if the
 * file cannot be opened.
 */
int ufd_proc_lines(const char *path, int (*line)(const char *text, void *ctx),
		   void *ctx);

/*
 * What real descriptor fd refers to: the first size - 1 bytes of the link
 * /proc/self/fd/<fd> (a path, "socket:[...]", "pipe:[...]",
 * "anon_inode:[...]") into buf, NUL-terminated.  Returns their number, or
 * -errno (fd is not open, or there is no /proc).
 */
long ufd_proc_fd_link(int fd, char *buf, size_t size);

/*
 * Call each(n, ctx) on every descriptor number n open in this process, as
 * /proc/self/fd lists them, except the listing's own.  Returns 0, or -errno
 * if the directory cannot be opened or read.
 */
int ufd_proc_fds(void (*each)(int n, void *ctx), void *ctx);

#endif /* UFD_PROCFS_H */
