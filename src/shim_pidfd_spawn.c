/* SPDX-License-Identifier: MIT */
/*
 * shim_pidfd_spawn.c - the spawn calls glibc 2.39 added:
 * pidfd_spawn and pidfd_spawnp, a posix_spawn that returns a pidfd of the
 * child instead of its pid, and posix_spawnattr_getcgroup_np, the getter
 * of the cgroup descriptor a spawn puts its child in.
 *
 * The spawn itself is posix_spawn's (ufd_spawn_as, shim_exec.c: the
 * hand-off in the child's environment, the sanitizer's look at the file
 * actions); what is new is the descriptor the call makes, which is
 * finished like any other made one (newfd.h: UFD_MODE=all makes it
 * virtual, the application's limit applies).  glibc's pidfd is always
 * close-on-exec (clone3's CLONE_PIDFD).
 *
 * posix_spawnattr_setcgroup_np is a generated row (its descriptor
 * translated as it is stored, as posix_spawn_file_actions_adddup2's);
 * the getter maps the stored backing descriptor back to its virtual one.
 *
 * On an older glibc (Debian 12's 2.36) the real functions are not there:
 * their rows resolve to a stub that returns ENOSYS (shim.c), and glibc
 * declares no prototype, which shim.h's declarations of the rows supply.
 */
#include "shim.h"

#include <spawn.h>

#include "vfd_table.h"

struct pidfd_spawn_args {
	int (*real)(int *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]);
	int *pidfd;
	const char *path;
	const posix_spawn_file_actions_t *actions;
	const posix_spawnattr_t *attr;
	char *const *argv;
};

/* The real call with env for the child's environment (ufd_spawn_as's
 * spawn_fn).  Returns its error number. */
static int pidfd_spawn_real(void *arg, char *const env[])
{
	const struct pidfd_spawn_args *a = arg;

	return a->real(a->pidfd, a->path, a->actions, a->attr, a->argv, env);
}

/*
 * The spawn, then its pidfd finished as a descriptor just made.  Returns
 * the spawn's error number, or finishing's (EMFILE past the application's
 * limit: the pidfd is then closed, the child runs on, as a pid_t-less
 * posix_spawn's would).  errno kept.
 */
static int pidfd_spawn_finish(enum ufd_call call, struct pidfd_spawn_args *a,
			      char *const envp[])
{
	int r, fd, errno_ = errno;

	r = ufd_spawn_as(call, a->actions, a->argv, envp, pidfd_spawn_real, a);
	if (r == 0) {
		fd = ufd_ret_new_fd_known(*a->pidfd, 0, call, 1);
		if (fd < 0)
			r = errno;
		else
			*a->pidfd = fd;
	}
	errno = errno_;
	return r;
}

UFD_PUBLIC int pidfd_spawn(int *pidfd, const char *path,
			   const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attr, char *const argv[],
			   char *const envp[])
{
	UFD_PATH_BEFORE(path);
	struct pidfd_spawn_args a = { UFD_REAL(pidfd_spawn), pidfd, path, actions,
				      attr, argv };

	return pidfd_spawn_finish(UFD_CALL_pidfd_spawn, &a, envp);
}

UFD_PUBLIC int pidfd_spawnp(int *pidfd, const char *file,
			    const posix_spawn_file_actions_t *actions,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	struct pidfd_spawn_args a = { UFD_REAL(pidfd_spawnp), pidfd, file, actions,
				      attr, argv };

	return pidfd_spawn_finish(UFD_CALL_pidfd_spawnp, &a, envp);
}

/* The cgroup descriptor the attribute holds: the virtual one a backing
 * descriptor stored by posix_spawnattr_setcgroup_np backs, else as
 * stored.  Returns an error number (0: done). */
UFD_PUBLIC int posix_spawnattr_getcgroup_np(const posix_spawnattr_t *attr, int *cgroup)
{
	int r = UFD_REAL(posix_spawnattr_getcgroup_np)(attr, cgroup), v;

	if (r == 0 && *cgroup >= 0 && (v = vfd_owner(*cgroup)) >= 0)
		*cgroup = v;
	return r;
}
