/* SPDX-License-Identifier: MIT */
/*
 * shim_stream.h - what the wrappers of stdio streams (shim_stream.c) and
 * of directory streams (shim_dir.c) share: the virtual descriptor behind
 * a stream's descriptor, and what libc's close of it, which ufd does not
 * see, must undo.  Inline, as they were in the one file.
 */
#ifndef UFD_SHIM_STREAM_H
#define UFD_SHIM_STREAM_H

#include "shim.h"
#include "report.h"
#include "vfd_table.h"

/* The virtual descriptor real_fd backs, or real_fd. */
static inline int owner_or_self(int real_fd)
{
	int vfd = real_fd >= 0 ? vfd_owner(real_fd) : -1;

	return vfd >= 0 ? vfd : real_fd;
}

/* A stream's descriptor real_fd is about to be closed by glibc (call):
 * drop the virtual descriptor it backs, or its close-on-fork mark; for
 * the sanitizer, record the close. */
static inline void forget_owner(int real_fd, enum ufd_call call)
{
	int vfd = real_fd >= 0 ? vfd_owner(real_fd) : -1;

	if (__builtin_expect(ufd_settings.report != NULL, 0) && real_fd >= 0)
		report_closing(vfd >= 0 ? vfd : real_fd, call);
	if (vfd >= 0)
		vfd_forget(vfd);
	else if (real_fd >= 0 && vfd_guarded(real_fd))
		vfd_real_closing(real_fd);
}

/* libc closed a stream's descriptor fd (its own close, unseen): for
 * UFD_MODE=random's quarantine.  Returns r. */
static inline int stream_closed(int r, int fd)
{
	if (__builtin_expect(ufd_settings.mode_random, 0) && fd >= 0)
		random_fd_closed(fd);
	return r;
}

#endif
