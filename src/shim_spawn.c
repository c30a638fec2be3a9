/* SPDX-License-Identifier: MIT */
/*
 * shim_spawn.c - posix_spawn, system and popen: a new program in a new
 * child, with the environment of an exec (shim_exec.h), which glibc's
 * internal calls would not give it.
 */
#include "shim.h"

#include <pthread.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

#include "exec_names.h"
#include "shim_exec.h"
#include "sys.h"
#include "vfd_table.h"

extern char **environ;

/* ---- posix_spawn ---- */

/*
 * glibc's struct __spawn_action (its spawn_int.h): the entries of the
 * array a posix_spawn_file_actions_t holds.  Mirrored only to see whether
 * the actions close from a number up (closefrom), and trusted only once
 * a probe has found glibc's own laid out so (spawn_layout_ok).
 */
struct glibc_spawn_action {
	int tag;
	union {
		struct { int fd; } one; /* close, fchdir, closefrom, tcsetpgrp */
		struct { int fd, newfd; } dup2;
		struct { int fd; char *path; int oflag; mode_t mode; } open;
		struct { char *path; } chdir;
	} action;
};
#define GLIBC_SPAWN_DO_CLOSE 0
#define GLIBC_SPAWN_DO_DUP2 1
#define GLIBC_SPAWN_DO_CLOSEFROM 5

/* 1 if glibc's actions are laid out as the mirror says, 0 if not (or
 * glibc has no closefrom action), -1 not yet probed. */
static int spawn_layout = -1;

static int spawn_layout_ok(void)
{
	int ok = __atomic_load_n(&spawn_layout, __ATOMIC_RELAXED);
	posix_spawn_file_actions_t fa;
	const struct glibc_spawn_action *a;

	if (ok >= 0)
		return ok;
	ok = 0;
	if (posix_spawn_file_actions_init(&fa) == 0) {
		if (UFD_REAL(posix_spawn_file_actions_addclose)(&fa, 2) == 0 &&
		    UFD_REAL(posix_spawn_file_actions_addclosefrom_np)(&fa, 1) == 0 &&
		    (a = (const struct glibc_spawn_action *)fa.__actions) &&
		    fa.__used == 2 && a[0].tag == GLIBC_SPAWN_DO_CLOSE &&
		    a[0].action.one.fd == 2 && a[1].tag == GLIBC_SPAWN_DO_CLOSEFROM &&
		    a[1].action.one.fd == 1)
			ok = 1;
		posix_spawn_file_actions_destroy(&fa);
	}
	__atomic_store_n(&spawn_layout, ok, __ATOMIC_RELAXED);
	return ok;
}

/*
 * Do the file actions close from a number up (addclosefrom_np)?  Its
 * bound is below the application's limit (the wrapper's EBADF), so below
 * every virtual number: the child would have none of them, and the spawn
 * hands none off.  Their backing descriptors stay close-on-exec, which
 * closes the ones below the bound too (ufd(7), "Where backing descriptors
 * live"); the others, and ufd's hand-off memfd, are closed by the action
 * itself as the kernel's close_range reaches them.  0 when the layout is
 * not glibc's known one: the spawn is then as if the action were a plain
 * close_range.
 */
static int spawn_closes_from(const posix_spawn_file_actions_t *actions)
{
	const struct glibc_spawn_action *a;

	if (!actions || !vfd_any() || !spawn_layout_ok())
		return 0;
	a = (const struct glibc_spawn_action *)actions->__actions;
	for (int i = 0; a && i < actions->__used; i++)
		if (a[i].tag == GLIBC_SPAWN_DO_CLOSEFROM)
			return 1;
	return 0;
}

/* posix_spawn returns an error number, not -1 and errno. */
#define WITH_SPAWN_ENV(envp_expr, actions, call)                       \
	do {                                                           \
		struct exec_env x_;                                    \
		char **env_;                                           \
		int r_ = exec_env_make(&x_, (envp_expr), 1,            \
				       ufd_settings.inherit &&         \
				       !spawn_closes_from(actions), &env_); \
		if (r_ < 0)                                            \
			return -r_;                                    \
		r_ = (call);                                           \
		exec_env_done(&x_);                                    \
		return r_;                                             \
	} while (0)

/* posix_spawn's body, also system's: called directly, not through the
 * exported symbol, which another interposer (a sanitizer's, which reads
 * envp itself) may have taken, as glibc's system calls its own. */
static int spawn(pid_t *pid, const char *path,
		 const posix_spawn_file_actions_t *actions,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	UFD_PATH_BEFORE(path);

	WITH_SPAWN_ENV(envp, actions, UFD_REAL(posix_spawn)(pid, path, actions, attr,
						   argv, env_));
}

/*
 * The sanitizer, at a spawn by call: the descriptors that leak into the
 * child.  Those the file actions name as dup2 sources are passed on on
 * purpose; those they close, or close from a number up, do not cross.
 * Without glibc's known layout of the actions, none is looked at.
 */
static void spawn_report(const posix_spawn_file_actions_t *actions,
			 enum ufd_call call, char *const argv[], char *const envp[])
{
	int named[64], closed[64], n_named = 0, n_closed = 0, from = -1;
	const struct glibc_spawn_action *a;

	if (actions && spawn_layout_ok() &&
	    (a = (const struct glibc_spawn_action *)actions->__actions)) {
		for (int i = 0; i < actions->__used; i++) {
			if (a[i].tag == GLIBC_SPAWN_DO_DUP2 && n_named < 64)
				named[n_named++] = a[i].action.dup2.fd;
			else if (a[i].tag == GLIBC_SPAWN_DO_CLOSE && n_closed < 64)
				closed[n_closed++] = a[i].action.one.fd;
			else if (a[i].tag == GLIBC_SPAWN_DO_CLOSEFROM &&
				 (from < 0 || a[i].action.one.fd < from))
				from = a[i].action.one.fd;
		}
	}
	report_exec_named(call, argv, envp, 0, named, n_named, closed, n_closed, from);
}

UFD_PUBLIC int posix_spawn(pid_t *pid, const char *path,
			   const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attr, char *const argv[],
			   char *const envp[])
{
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		spawn_report(actions, UFD_CALL_posix_spawn, argv, envp);
	return spawn(pid, path, actions, attr, argv, envp);
}

UFD_PUBLIC int posix_spawnp(pid_t *pid, const char *file,
			    const posix_spawn_file_actions_t *actions,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		spawn_report(actions, UFD_CALL_posix_spawnp, argv, envp);
	WITH_SPAWN_ENV(envp, actions, UFD_REAL(posix_spawnp)(pid, file, actions, attr,
						    argv, env_));
}

/* posix_spawnp's body for another spawn of its shape (shim_pidfd_spawn.c's
 * pidfd_spawn and pidfd_spawnp): the sanitizer's look at the file actions
 * when reports are on, then spawn(env) with the hand-off's environment.
 * Returns spawn's error number (0: spawned).  Not async-signal-safe. */
int ufd_spawn_as(enum ufd_call call, const posix_spawn_file_actions_t *actions,
		 char *const argv[], char *const envp[],
		 int (*spawn_fn)(void *arg, char *const env[]), void *arg)
{
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		spawn_report(actions, call, argv, envp);
	WITH_SPAWN_ENV(envp, actions, spawn_fn(arg, env_));
}

/*
 * glibc checks the bound against the kernel's limit, which ufd holds above
 * the application's (placement.h): the application's is the one, as
 * getdtablesize() says.  Virtual numbers are past it too.
 */
UFD_PUBLIC int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions,
							int from)
{
	if (from >= 0 && (unsigned)from >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED))
		return EBADF;
	return UFD_REAL(posix_spawn_file_actions_addclosefrom_np)(actions, from);
}

/* ---- popen, system ---- */

/*
 * popen spawns /bin/sh with environ: run it with the new environment as
 * environ (a pointer swap; a thread reading environ meanwhile sees one
 * complete array or the other).  glibc's popen returns once the child has
 * exec'd, so the table is locked only that long.
 */
/*
 * While the kernel's limit is raised above the application's
 * (placement.h), glibc's pipe could get numbers in ufd's room where,
 * without ufd, the kernel would fail it (EMFILE) before any child ran:
 * asked first with a pipe of ufd's own, which gets the numbers glibc's
 * will.  Returns 0, or -EMFILE when either is past the application's
 * limit.  A process's other threads may take numbers meanwhile: the
 * stream's descriptor is checked again after (popen).
 */
static int popen_room(void)
{
	unsigned limit = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);
	int p[2], r = 0;

	if (__builtin_expect(limit == UINT_MAX, 1) ||
	    ufd_sys3(SYS_pipe2, (long)p, O_CLOEXEC, 0) < 0)
		return 0; /* glibc's fails as it will */
	if ((unsigned)p[0] >= limit || (unsigned)p[1] >= limit)
		r = -EMFILE;
	ufd_sys_close(p[0]);
	ufd_sys_close(p[1]);
	return r;
}

UFD_PUBLIC FILE *popen(const char *command, const char *mode)
{
	struct exec_env x;
	char **env, **saved = environ;
	FILE *fp;
	int r = popen_room();

	if (r == 0)
		r = exec_env_make(&x, environ, 1, ufd_settings.inherit, &env);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	environ = env;
	fp = UFD_REAL(popen)(command, mode);
	environ = saved;
	exec_env_done(&x);
	/* Past the limit after all (another thread): the child is waited
	 * for, as ufd_stream_made cannot (glibc's pclose must close it). */
	if (fp && (unsigned)fp->_fileno >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED)) {
		UFD_REAL(pclose)(fp);
		errno = EMFILE;
		return NULL;
	}
	return ufd_stream_made(fp, UFD_CALL_popen);
}

/*
 * system(3) as POSIX describes it: /bin/sh -c command, with SIGCHLD
 * blocked and SIGINT and SIGQUIT ignored in the caller while it waits, and
 * the child starting with the caller's signal mask and those two at their
 * default (unless the caller ignores them).  The exit status, or that of a
 * shell that exited 127 if the shell could not run.
 *
 * Threads calling it at once share the ignoring, as in glibc: the first in
 * saves the caller's dispositions and ignores the two, the last out puts
 * them back.  Each saving and restoring on its own, a second call that
 * began while a first ignored them saved "ignored", restored it after the
 * first had restored the caller's, and left the process ignoring SIGINT
 * and SIGQUIT for good (found by the stress test).
 */
static pthread_mutex_t system_lock = PTHREAD_MUTEX_INITIALIZER;
static int system_callers;                      /* system_lock held */
static struct sigaction system_intr, system_quit; /* the caller's */

UFD_PUBLIC int system(const char *command)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, intr, quit;
	sigset_t chld, omask, dflt;
	posix_spawnattr_t attr;
	char *argv[] = { "sh", "-c", (char *)command, NULL };
	int status = 0, r;
	pid_t pid;

	if (!command) /* is a shell there? */
		return system("exit 0") == 0;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);
	pthread_mutex_lock(&system_lock);
	if (system_callers++ == 0) {
		sigaction(SIGINT, &ignore, &system_intr);
		sigaction(SIGQUIT, &ignore, &system_quit);
	}
	intr = system_intr;
	quit = system_quit;
	pthread_mutex_unlock(&system_lock);

	sigemptyset(&dflt);
	if (intr.sa_handler != SIG_IGN)
		sigaddset(&dflt, SIGINT);
	if (quit.sa_handler != SIG_IGN)
		sigaddset(&dflt, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	posix_spawnattr_setsigmask(&attr, &omask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	r = spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);

	if (r == 0) {
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
	} else {
		status = W_EXITCODE(127, 0);
	}
	r = errno;
	pthread_mutex_lock(&system_lock);
	if (--system_callers == 0) {
		sigaction(SIGINT, &system_intr, NULL);
		sigaction(SIGQUIT, &system_quit, NULL);
	}
	pthread_mutex_unlock(&system_lock);
	sigprocmask(SIG_SETMASK, &omask, NULL);
	errno = r;
	return status;
}
