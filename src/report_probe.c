/* SPDX-License-Identifier: MIT */
/*
 * report_probe.c - the sanitizer's table of probes, the calls that are no
 * use of a descriptor (report_probe.h).
 */
#define _GNU_SOURCE 1
#include "report_probe.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Probes: the calls that only ask about a number (is it open, its flags,
 * its file's type or attributes) and never read, write, send, receive,
 * map, poll or change its file.  An EBADF from one is how a program asks
 * whether a number is open (bash's move_to_high_fd, GCC's check of make's
 * jobserver descriptors, git's "is stdout closed?"), no use after close.
 * fcntl is one only with a command of probe_cmds; fstatat and statx only
 * on the descriptor itself (AT_EMPTY_PATH and an empty path), not on a
 * path under it.  A poll is one when it sweeps consecutive numbers
 * (report_probe_poll_sweep).
 */
enum { PROBE_ALWAYS, PROBE_GET_CMD, PROBE_EMPTY_PATH };
static const struct {
	uint16_t call;
	uint8_t form; /* PROBE_* */
} probes[] = {
	{ UFD_CALL_fcntl, PROBE_GET_CMD },	  { UFD_CALL_fcntl64, PROBE_GET_CMD },
	{ UFD_CALL_fstat, PROBE_ALWAYS },	  { UFD_CALL_fstat64, PROBE_ALWAYS },
	{ UFD_CALL___fxstat, PROBE_ALWAYS },	  { UFD_CALL___fxstat64, PROBE_ALWAYS },
	{ UFD_CALL_fstatat, PROBE_EMPTY_PATH },	  { UFD_CALL_fstatat64, PROBE_EMPTY_PATH },
	{ UFD_CALL_statx, PROBE_EMPTY_PATH },	  { UFD_CALL_fstatfs, PROBE_ALWAYS },
	{ UFD_CALL_fstatfs64, PROBE_ALWAYS },	  { UFD_CALL_fstatvfs, PROBE_ALWAYS },
	{ UFD_CALL_fstatvfs64, PROBE_ALWAYS },	  { UFD_CALL_fpathconf, PROBE_ALWAYS },
	{ UFD_CALL_isatty, PROBE_ALWAYS },	  { UFD_CALL_tcgetattr, PROBE_ALWAYS },
	{ UFD_CALL_ttyname, PROBE_ALWAYS },	  { UFD_CALL_ttyname_r, PROBE_ALWAYS },
	{ UFD_CALL___ttyname_r_chk, PROBE_ALWAYS },
};
static const int probe_cmds[] = {
	F_GETFD, F_GETFL, F_GETOWN, F_GETOWN_EX, F_GETSIG, F_GETLEASE,
	F_GETPIPE_SZ, F_GET_SEALS,
};

int report_probe(enum ufd_call call, long arg, const char *path)
{
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (probes[i].call != call)
			continue;
		if (probes[i].form == PROBE_EMPTY_PATH)
			return (arg & AT_EMPTY_PATH) && path && !path[0];
		for (size_t c = 0; probes[i].form == PROBE_GET_CMD &&
				   c < sizeof(probe_cmds) / sizeof(probe_cmds[0]); c++)
			if (arg == probe_cmds[c])
				return 1;
		return probes[i].form == PROBE_ALWAYS;
	}
	return 0;
}

int report_probe_poll_sweep(const struct pollfd *fds, nfds_t n)
{
	/* The number after the last sweep's: its next call, however short
	 * (the last of 64 a call may hold one number).  One for the process:
	 * a race between threads costs a report, no more. */
	static int next = -1;

	if (n == 0)
		return 0;
	for (nfds_t i = 1; i < n; i++)
		if (fds[i].fd != fds[0].fd + (long)i)
			return 0;
	/* Three, as a close-all loop is three consecutive closes (report.c). */
	if (n < 3 && fds[0].fd != __atomic_load_n(&next, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&next, fds[0].fd + (int)n, __ATOMIC_RELAXED);
	return 1;
}
