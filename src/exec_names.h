/* SPDX-License-Identifier: MIT */
/*
 * exec_names.h - the descriptors an exec hands to the new program by
 * name: the numbers its argument vector and environment give the new
 * program (/dev/fd/N, --fd=N, make's jobserver, systemd's LISTEN_FDS,
 * UFD_INHERIT_OK), which the sanitizer does not report as leaks across
 * the exec.  Only under UFD_REPORT.
 *
 * The forms, in the argument vector: "/dev/fd/N" and "/proc/self/fd/N"
 * anywhere in an argument (bash's process substitution, `sh -c`
 * strings); an option whose name ends in "fd" or "fds" with its value,
 * "--fd=N", "--pass-fds=N,M", or as the next argument, "--fd N",
 * "--status-fd N".  In the environment: MAKEFLAGS or MFLAGS with
 * "--jobserver-auth=R,W" or "--jobserver-fds=R,W"; LISTEN_FDS=n with
 * LISTEN_PID (3 .. 3 + n - 1, sd_listen_fds(3)); UFD_INHERIT_OK=N,M,...
 * (ufd(7)).
 */
#ifndef UFD_EXEC_NAMES_H
#define UFD_EXEC_NAMES_H

#include "calls.h"

/* The numbers exec_names keeps at most (those past it are not looked
 * for: a descriptor named only there is reported). */
#define EXEC_NAMES_MAX 1024

/*
 * The numbers argv and envp (each may be NULL) name, into out (room for
 * max); returns how many (a number may be there twice).  Both arrays and
 * their strings are read without faulting (ufd_sys_read_self): what
 * cannot be read names nothing; an argument is looked at in its first
 * 4 KiB.  exec: the new program keeps the caller's pid (an exec, not a
 * spawn), so LISTEN_PID must be the caller's; for a spawn, whose pid is
 * not known yet, any LISTEN_PID will do.  No lock; async-signal-safe.
 */
int exec_names(char *const argv[], char *const envp[], int exec, int *out, int max);

/*
 * report_exec (report.h) for an exec or spawn by call of argv and envp:
 * the numbers exec_names finds there are passed on on purpose, as those
 * in named[] (a spawn's dup2 sources) are.  Not async-signal-safe
 * (reports).
 */
void report_exec_named(enum ufd_call call, char *const argv[], char *const envp[],
		       int exec, const int *named, int n_named, const int *closed,
		       int n_closed, int close_from);

#endif /* UFD_EXEC_NAMES_H */
