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
