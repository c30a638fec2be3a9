/* glibc 2.39's pidfd_spawn and pidfd_spawnp, declared as <spawn.h>
 * declares them: the descriptor comes back through a pointer. */
extern int pidfd_spawn (int *__restrict __pidfd,
			const char *__restrict __path,
			const posix_spawn_file_actions_t *__restrict __facts,
			const posix_spawnattr_t *__restrict __attrp,
			char *const __argv[__restrict_arr],
			char *const __envp[__restrict_arr]);

extern int pidfd_spawnp (int *__restrict __pidfd,
			 const char *__restrict __file,
			 const posix_spawn_file_actions_t *__restrict __facts,
			 const posix_spawnattr_t *__restrict __attrp,
			 char *const __argv[__restrict_arr],
			 char *const __envp[__restrict_arr]);

/* glibc 2.39's cgroup attribute of a spawn, declared as
 * <bits/spawn_ext.h> declares it: a descriptor in, one out. */
extern int posix_spawnattr_getcgroup_np (const posix_spawnattr_t *
					 __restrict __attr,
					 int *__restrict __cgroup)
     __THROW __nonnull ((1, 2));

extern int posix_spawnattr_setcgroup_np (posix_spawnattr_t *__attr,
					 int __cgroup)
     __THROW __nonnull ((1));
