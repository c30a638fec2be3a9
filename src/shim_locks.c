/* SPDX-License-Identifier: MIT */
/*
 * shim_locks.c - glibc's own takers of POSIX record locks: the wrappers
 * of the functions that lock a file with glibc's internal fcntl, which
 * ufd's fcntl never sees (read in glibc 2.36: shadow/lckpwdf.c,
 * login/utmp_file.c's try_file_lock under every utmp and wtmp function,
 * and getlogin's fallback to utmp).  Each notes that the process takes
 * POSIX record locks (newfd_note_posix_lock, posix_locks.h: TAKEN) before
 * calling libc, so that no new descriptor of a file it may lock is moved
 * (a close drops the process's locks on the file).  The utmp functions
 * release theirs before they return, but another thread's open may run
 * meanwhile; TAKEN for good is the simple answer that stays sound.
 * (lockf and fcntl are shim_fcntl.c's; glibc's flock is the system call,
 * whose locks, like OFD locks, a close of another descriptor keeps.)
 */
#include "shim.h"

/* A wrapper that notes the lock, then calls libc. */
#define NOTING(name, ret, params, args)                \
	UFD_PUBLIC ret name params                     \
	{                                              \
		newfd_note_posix_lock();               \
		return UFD_REAL(name) args;            \
	}
#define NOTING_VOID(name, params, args)                \
	UFD_PUBLIC void name params                    \
	{                                              \
		newfd_note_posix_lock();               \
		UFD_REAL(name) args;                   \
	}

NOTING(lckpwdf, int, (void), ())
NOTING(getutent, struct utmp *, (void), ())
NOTING(getutent_r, int, (struct utmp *buffer, struct utmp **result), (buffer, result))
NOTING(getutid, struct utmp *, (const struct utmp *id), (id))
NOTING(getutid_r, int, (const struct utmp *id, struct utmp *buffer, struct utmp **result),
       (id, buffer, result))
NOTING(getutline, struct utmp *, (const struct utmp *line), (line))
NOTING(getutline_r, int, (const struct utmp *line, struct utmp *buffer, struct utmp **result),
       (line, buffer, result))
NOTING(pututline, struct utmp *, (const struct utmp *ut), (ut))
NOTING(getutxent, struct utmpx *, (void), ())
NOTING(getutxid, struct utmpx *, (const struct utmpx *id), (id))
NOTING(getutxline, struct utmpx *, (const struct utmpx *line), (line))
NOTING(pututxline, struct utmpx *, (const struct utmpx *ut), (ut))
NOTING_VOID(updwtmp, (const char *file, const struct utmp *ut), (file, ut))
NOTING_VOID(updwtmpx, (const char *file, const struct utmpx *ut), (file, ut))
NOTING_VOID(login, (const struct utmp *ut), (ut))
NOTING(logout, int, (const char *line), (line))
NOTING_VOID(logwtmp, (const char *line, const char *name, const char *host),
	    (line, name, host))
NOTING(getlogin, char *, (void), ())
NOTING(getlogin_r, int, (char *name, size_t len), (name, len))
