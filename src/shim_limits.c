/* SPDX-License-Identifier: MIT */
/*
 * shim_limits.c - the application's view of RLIMIT_NOFILE.
 *
 * Once ufd has a backing descriptor, it holds the kernel's soft limit
 * above the application's, for room to keep backing descriptors out of
 * the application's numbers (placement.h).  These wrappers show the
 * application the limit it set: getrlimit, prlimit on itself,
 * sysconf(_SC_OPEN_MAX) and getdtablesize report it, and setrlimit and
 * prlimit set it (with ufd's room added above).  Other resources and other
 * processes go to libc unchanged.  /proc/self/limits shows the kernel's
 * limit (ufd(7), "Differences from the kernel").  ufd_app_room asks
 * whether a descriptor libc opens for itself would be within the
 * application's limit.
 */
#include "shim.h"

#include <sys/resource.h>

#include "report_out.h"
#include "sys.h"
#include "vfd_table.h"

/* These run before the sanitizer runtimes are initialised (ASan's and
 * TSan's start-up call getrlimit, setrlimit and sysconf): UFD_EARLY, and
 * raw system calls rather than libc's functions, which glibc's own
 * getrlimit and setrlimit are anyway (prlimit64). */

/* ufd_ret, uninstrumented. */
UFD_EARLY static int early_ret(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

/* p, hidden from the compiler, so that glibc's nonnull declarations do
 * not let it drop a null test. */
UFD_EARLY static const void *opaque(const void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

/* The soft limit to show in place of the kernel's, or UINT_MAX for the
 * kernel's own. */
UFD_EARLY static unsigned shown_soft(void)
{
	return __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);
}

/* Is pid this process, as prlimit reads it? */
UFD_EARLY static int is_self(pid_t pid)
{
	return pid == 0 || pid == (pid_t)ufd_sys_getpid();
}

/*
 * prlimit64(pid, resource, new_rl, old_rl) for the application: for its
 * own RLIMIT_NOFILE, set through vfd_set_nofile and reported with the
 * application's soft limit; anything else, the kernel's.  The pointers
 * are the application's (struct rlimit and rlimit64 are the kernel's
 * struct rlimit64 on the 64-bit systems ufd supports).  Returns 0 or
 * -errno.
 */
UFD_EARLY static int nofile_prlimit(pid_t pid, int resource, const void *new_rl,
				    void *old_rl)
{
	/* Null pointers are the kernel's to answer: the callers' nonnull
	 * declarations must not let the tests below go. */
	struct rlimit *old = (struct rlimit *)opaque(old_rl);
	unsigned shown = shown_soft();
	long r;

	if (resource != RLIMIT_NOFILE || !is_self(pid)) {
		r = ufd_sys6(SYS_prlimit64, pid, resource, (long)new_rl, (long)old_rl,
			     0, 0);
		/* a finite file size limit holds reports to a file back */
		if (r == 0 && resource == RLIMIT_FSIZE && new_rl && is_self(pid))
			report_out_fsize_set(((const struct rlimit *)new_rl)->rlim_cur);
		return (int)r;
	}
	if (new_rl)
		return vfd_set_nofile(new_rl, old, newfd_posix_locks_taken());
	r = ufd_sys6(SYS_prlimit64, 0, resource, 0, (long)old_rl, 0, 0);
	/* The kernel wrote *old (a null one it leaves alone). */
	if (r == 0 && old && shown != UINT_MAX)
		old->rlim_cur = shown;
	return (int)r;
}

UFD_EARLY UFD_PUBLIC int getrlimit(__rlimit_resource_t resource, struct rlimit *rl)
{
	return early_ret(nofile_prlimit(0, resource, NULL, rl));
}

UFD_EARLY UFD_PUBLIC int getrlimit64(__rlimit_resource_t resource, struct rlimit64 *rl)
{
	return early_ret(nofile_prlimit(0, resource, NULL, rl));
}

/* A null rl is prlimit64's "no new limit", and succeeds, as glibc's
 * setrlimit (prlimit64 too) does with it. */
UFD_EARLY UFD_PUBLIC int setrlimit(__rlimit_resource_t resource, const struct rlimit *rl)
{
	return early_ret(nofile_prlimit(0, resource, opaque(rl), NULL));
}

UFD_EARLY UFD_PUBLIC int setrlimit64(__rlimit_resource_t resource,
				     const struct rlimit64 *rl)
{
	return early_ret(nofile_prlimit(0, resource, opaque(rl), NULL));
}

UFD_EARLY UFD_PUBLIC int prlimit(pid_t pid, __rlimit_resource_t resource,
				 const struct rlimit *new_rl, struct rlimit *old_rl)
{
	return early_ret(nofile_prlimit(pid, resource, new_rl, old_rl));
}

UFD_EARLY UFD_PUBLIC int prlimit64(pid_t pid, __rlimit_resource_t resource,
				   const struct rlimit64 *new_rl,
				   struct rlimit64 *old_rl)
{
	return early_ret(nofile_prlimit(pid, resource, new_rl, old_rl));
}

/* glibc's sysconf(_SC_OPEN_MAX) and getdtablesize read the limit with an
 * internal getrlimit, unseen. */
UFD_EARLY UFD_PUBLIC long sysconf(int name)
{
	if (name == _SC_OPEN_MAX && shown_soft() != UINT_MAX)
		return (long)shown_soft();
	return UFD_REAL(sysconf)(name);
}

UFD_EARLY UFD_PUBLIC int getdtablesize(void)
{
	if (shown_soft() != UINT_MAX)
		return (int)shown_soft();
	return UFD_REAL(getdtablesize)();
}

int ufd_app_room(void)
{
	unsigned limit = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);
	int fd;

	if (__builtin_expect(limit == UINT_MAX, 1))
		return 0;
	fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)"/", O_PATH | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	ufd_sys_close(fd);
	return (unsigned)fd >= limit ? -EMFILE : 0;
}
