/* SPDX-License-Identifier: MIT */
/*
 * exec.c - virtual descriptors across exec and spawn: O_CLOEXEC across an
 * exec of this program, a chain of programs through every member of the
 * exec family, failed execs and spawns leaving the table as it was,
 * posix_spawn file actions naming virtual descriptors, a hand-off
 * larger than an environment string, a long environment, and a kernel
 * without close_range (tcase exec).
 */
#include "process.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

/* ---- O_CLOEXEC on a virtual descriptor, across exec of self ---- */

/* Fork; the child opens /proc/self/exe as a virtual descriptor with
 * flags, and execs this program with mode and the number.  The exit status
 * of the new program. */
static int self_exec(int flags, const char *mode)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char num[16];
		int fd = open("/proc/self/exe", O_RDONLY | O_UNSEQFD | flags);

		if (!is_vfd(fd))
			_exit(100);
		snprintf(num, sizeof(num), "%d", fd);
		printf("%s: virtual descriptor %s\n", mode, num);
		fflush(stdout);
		execl(self_exe, "test_process", mode, num, (char *)NULL);
		_exit(101);
	}
	status = wait_bounded(pid, 20000);
	ck_assert_int_ne(status, -1);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(cloexec_virtual_closed_by_exec)
{
	ck_assert_int_eq(self_exec(O_CLOEXEC, "--closed"), 0);
	ck_assert_int_eq(self_exec(0, "--open"), 0);
}
END_TEST

/* The two modes of main() for the above: exit 0 when fd is as expected. */
int self_exec_mode(const char *mode, int fd)
{
	char buf[4];

	errno = 0;
	if (!strcmp(mode, "--closed"))
		return is_ebadf(fcntl(fd, F_GETFD)) ? 0 : 1;
	/* --open: the executable, still at its virtual number. */
	return api_is_virtual(fd) == 1 && fcntl(fd, F_GETFD) == 0 &&
			       pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "\177ELF", 4)
		       ? 0
		       : 1;
}

/* ---- a chain of three programs through the exec family ---- */

static const char *const exec_members[] = {
	"execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
	"fexecve", "execveat",
};

/* The environment of the chains: the helper's directory first in PATH. */
static char **chain_env(void)
{
	static char path[PATH_MAX * 2];
	const char *slash = strrchr(helper_path, '/');

	snprintf(path, sizeof(path), "PATH=%.*s:%s", (int)(slash - helper_path),
		 helper_path, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	return env_with((char *[]){ path, NULL }, NULL);
}

/* A posix_spawn that returned R (0) for a child that failed: under
 * qemu-user, which runs vfork as fork, glibc cannot hear of the child's
 * failure.  Waits for PID (if not -1); returns 1 there (saying so), else 0. */
static int spawn_failure_unheard(int r, pid_t pid)
{
	if (r != 0 || !skip_under_emulator("posix_spawn's error from its child",
					   "qemu-user runs vfork as fork: glibc's "
					   "posix_spawn cannot hear of it"))
		return 0;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return 1;
}

/* Why a hop cannot be taken under qemu-user, or NULL. */
static const char *hop_emulated(const char *hop)
{
	if (!strcmp(hop, "execveat"))
		return "qemu-user 7.2 does not implement execveat";
	if (!strcmp(hop, "fexecve"))
		return "qemu-user, started by binfmt_misc, opens the program "
		       "by the path fexecve gave, /proc/self/fd/N, which "
		       "close-on-exec has closed (binfmt_misc's O flag would "
		       "leave a descriptor of qemu's open in every program)";
	if (!strcmp(hop, "system") || !strcmp(hop, "popen"))
		return "/bin/sh is the host's, x86-64 here: the aarch64 "
		       "libufd.so cannot be loaded into it";
	return NULL;
}

/* Run chain1 with hop1 and hop2; fail unless it says "chain ok". */
void run_chain(const char *hop1, const char *hop2)
{
	char out[4096];
	char **env;
	char *const argv[] = { "ufd_helper", "chain1", (char *)hop1, (char *)hop2, NULL };
	int status;

	for (int i = 0; i < 2; i++) {
		const char *hop = i ? hop2 : hop1, *why = hop_emulated(hop);

		if (why && skip_under_emulator(hop, why))
			return;
	}
	env = chain_env();
	status = run(helper_path, argv, env, -1, out, sizeof(out));

	ck_assert_msg(exited_ok(status) && !strcmp(out, "chain ok\n"),
		      "chain %s -> %s: status %#x, output:\n%s", hop1, hop2, status, out);
	free(env);
}

/*
 * Program 1 makes A (inheritable), B (close-on-exec), C (close-on-fork)
 * and a real close-on-fork R, and reaches program 2 through hop1, which
 * checks A (same number, same file, F_GETFD 0), B (closed), C and R (open,
 * FD_CLOFORK) and that UFD_HANDOFF is gone from its environment, then
 * reaches program 3 through hop2, which checks again.  Every exec member
 * is hop1 once and hop2 once (execle with an environment without
 * LD_PRELOAD: the shim must put itself back).
 */
START_TEST(exec_chain_through_exec_family)
{
	size_t n = sizeof(exec_members) / sizeof(exec_members[0]);

	for (size_t i = 0; i < n; i++)
		run_chain(exec_members[i], exec_members[(i + 1) % n]);
}
END_TEST

/* ---- failed exec ---- */

struct exec_state {
	int v[4];	/* virtual: plain, close-on-exec, close-on-fork, hidden */
	int flags[4];	/* their F_GETFD */
	int backing[4];
	int marked;	/* a real close-on-fork descriptor */
};

static void make_exec_state(struct exec_state *s, int src)
{
	static const int nflags[4] = { 0, NONSEQFD_CLOEXEC, NONSEQFD_CLOFORK,
				       NONSEQFD_HIDE };

	for (int i = 0; i < 4; i++) {
		s->v[i] = api_nonseqfd(src, nflags[i]);
		ck_assert(is_vfd(s->v[i]));
		s->flags[i] = fcntl(s->v[i], F_GETFD);
		s->backing[i] = api_backing_fd(s->v[i]);
	}
	s->marked = fcntl(src, F_DUPFD_CLOFORK, 30);
	ck_assert_int_ge(s->marked, 30);
}

/* After an exec or spawn: every descriptor as it was, every backing
 * descriptor close-on-exec for the kernel, the table unlocked. */
static void check_exec_state(const struct exec_state *s, const char *call)
{
	int v;

	for (int i = 0; i < 4; i++) {
		ck_assert_msg(fcntl(s->v[i], F_GETFD) == s->flags[i],
			      "%s: flags of %d", call, s->v[i]);
		ck_assert_int_eq(api_backing_fd(s->v[i]), s->backing[i]);
		ck_assert_msg(kernel_cloexec(s->backing[i]) == 1,
			      "%s: backing %d of %d lost FD_CLOEXEC", call,
			      s->backing[i], s->v[i]);
		ck_assert(reads(s->v[i], "state"));
	}
	ck_assert_int_eq(fcntl(s->marked, F_GETFD), FD_CLOFORK);
	/* A table left locked would answer EBUSY here (the lock is this
	 * thread's). */
	v = dup2(s->marked, FD_UNSEQ_ALLOC);
	ck_assert_msg(is_vfd(v), "%s: dup2(FD_UNSEQ_ALLOC) = %d (%s)", call, v,
		      strerror(errno));
	ck_assert_int_eq(close(v), 0);
}

#define ck_assert_exec_fails(call, err)                                     \
	do {                                                                \
		errno = 0;                                                  \
		ck_assert_int_eq((call), -1);                               \
		ck_assert_msg(errno == (err), "%s: errno %s", #call,        \
			      strerror(errno));                             \
		check_exec_state(&s, #call);                                \
	} while (0)

START_TEST(failed_exec_restores_the_table)
{
	struct exec_state s;
	int src = temp_file("state"), noexec, dir, r;
	char noexec_path[] = "/tmp/ufd-noexec-XXXXXX", *dirname_end;
	char *const argv[] = { "x", NULL };
	char dirpath[PATH_MAX];
	pid_t pid;

	make_exec_state(&s, src);
	noexec = mkostemp(noexec_path, O_CLOEXEC);
	ck_assert_int_ge(noexec, 0);
	ck_assert_int_eq(write(noexec, "#!/bin/sh\n", 10), 10);
	ck_assert_int_eq(fchmod(noexec, 0644), 0);
	/* A virtual descriptor of the file, for fexecve. */
	noexec = api_nonseqfd(noexec, NONSEQFD_CLOEXEC | NONSEQFD_CLOSE);
	strcpy(dirpath, noexec_path);
	dirname_end = strrchr(dirpath, '/');
	*dirname_end = '\0';
	dir = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_UNSEQFD);
	ck_assert(is_vfd(dir));

	check_exec_state(&s, "start");
	ck_assert_exec_fails(execve("/nonexistent/ufd-x", argv, environ), ENOENT);
	ck_assert_exec_fails(execve(noexec_path, argv, environ), EACCES);
	ck_assert_exec_fails(execv("/nonexistent/ufd-x", argv), ENOENT);
	ck_assert_exec_fails(execvp("ufd-no-such-program", argv), ENOENT);
	ck_assert_exec_fails(execvpe("ufd-no-such-program", argv, environ), ENOENT);
	ck_assert_exec_fails(execl(noexec_path, "x", (char *)NULL), EACCES);
	ck_assert_exec_fails(execlp("ufd-no-such-program", "x", (char *)NULL), ENOENT);
	ck_assert_exec_fails(execle("/nonexistent/ufd-x", "x", (char *)NULL, environ),
			     ENOENT);
	ck_assert_exec_fails(fexecve(noexec, argv, environ), EACCES);
	if (!skip_under_emulator("execveat", "qemu-user 7.2 does not implement it")) {
		ck_assert_exec_fails(execveat(dir, "ufd-no-such-file", argv, environ, 0),
				     ENOENT);
		ck_assert_exec_fails(execveat(dir, strrchr(noexec_path, '/') + 1, argv,
					      environ, 0),
				     EACCES);
	}
	r = posix_spawn(&pid, "/nonexistent/ufd-x", NULL, NULL, argv, environ);
	ck_assert(r == ENOENT || spawn_failure_unheard(r, pid));
	check_exec_state(&s, "posix_spawn");
	r = posix_spawnp(&pid, "ufd-no-such-program", NULL, NULL, argv, environ);
	ck_assert(r == ENOENT || spawn_failure_unheard(r, pid));
	check_exec_state(&s, "posix_spawnp");
	/* system's shell runs, its command does not: exit status 127. */
	r = system("exec /nonexistent/ufd-x 2>/dev/null");
	ck_assert(WIFEXITED(r) && WEXITSTATUS(r) == 127);
	check_exec_state(&s, "system");

	unlink(noexec_path);
	close(noexec);
	close(dir);
	for (int i = 0; i < 4; i++)
		close(s.v[i]);
	close(s.marked);
	close(src);
}
END_TEST

/* A successful spawn leaves the backing descriptors close-on-exec again
 * and the table unlocked too.  (The spawned programs print "ufd: ignoring
 * UFD_HANDOFF": the known bug kb_spawn_handoff.) */
START_TEST(spawn_restores_the_table)
{
	struct exec_state s;
	int src = temp_file("state"), status;
	char *const argv[] = { "ufd_helper", "print", "", NULL };
	pid_t pid;

	make_exec_state(&s, src);
	ck_assert_int_eq(posix_spawn(&pid, helper_path, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(wait_bounded(pid, 20000) == -1, 0);
	check_exec_state(&s, "posix_spawn");
	status = system("exit 3");
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	check_exec_state(&s, "system");
	for (int i = 0; i < 4; i++)
		close(s.v[i]);
	close(s.marked);
	close(src);
}
END_TEST

/* ---- posix_spawn file actions naming virtual descriptors ---- */

/* Spawn the helper with actions (and stdout into out, unless the actions
 * redirect it); the exit status. */
static int spawn_helper(posix_spawn_file_actions_t *fa, char *const argv[],
			char *out, size_t size)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	if (out)
		ck_assert_int_eq(posix_spawn_file_actions_adddup2(fa, p[1], 1), 0);
	ck_assert_int_eq(posix_spawn(&pid, helper_path, fa, NULL, argv, environ), 0);
	close(p[1]);
	if (out)
		read_all(p[0], out, size);
	close(p[0]);
	return wait_bounded(pid, 20000);
}

START_TEST(spawn_file_actions_with_virtual_descriptors)
{
	posix_spawn_file_actions_t fa;
	int fd = temp_file(""), v = api_nonseqfd(fd, NONSEQFD_CLOEXEC), b, dv;
	char out[512], spec1[64], spec2[64], path[64];
	char tmpdir[] = "/tmp/ufd-spawn-dir-XXXXXX";

	/* adddup2(vfd, 1): the child's stdout is the virtual descriptor's
	 * file. */
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, v, 1), 0);
	ck_assert(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "print",
							       "into-vfd", NULL },
					 NULL, 0)));
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(reads(v, "into-vfd"));

	/* addclose(vfd): its backing descriptor is closed in the child
	 * before the program starts, so the program has neither. */
	close(v);
	v = api_nonseqfd(fd, 0);
	b = api_backing_fd(v);
	snprintf(spec1, sizeof(spec1), "n:%d", v);
	snprintf(spec2, sizeof(spec2), "n:%d", b);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addclose(&fa, v), 0);
	ck_assert_msg(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "check",
								   spec1, spec2, NULL },
					     out, sizeof(out))),
		      "addclose: %s", out);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(reads(v, "into-vfd")); /* the parent's is untouched */
	close(v);

	/* adddup2(another file, b) onto the backing number b of a virtual
	 * descriptor the child would inherit: for the application b was a
	 * free number, so the child has the other file there, and the
	 * virtual descriptor, whose file is no longer in the child, is not
	 * taken over onto it. */
	v = api_nonseqfd(fd, 0);
	b = api_backing_fd(v);
	dv = open("/dev/null", O_RDONLY | O_CLOEXEC);
	snprintf(spec1, sizeof(spec1), "n:%d", v);
	snprintf(spec2, sizeof(spec2), "r:%d:0", b);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, dv, b), 0);
	ck_assert_msg(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "check",
								   spec1, spec2, NULL },
					     out, sizeof(out))),
		      "adddup2 onto a backing number: %s", out);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(reads(v, "into-vfd"));
	close(dv);
	close(v);

	/* addopen of /dev/fd/<vfd>: the child's stdin is the file. */
	v = api_nonseqfd(fd, NONSEQFD_CLOEXEC);
	snprintf(path, sizeof(path), "/dev/fd/%d", v);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addopen(&fa, 0, path, O_RDONLY, 0), 0);
	ck_assert(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "cat", NULL },
					 out, sizeof(out))));
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_str_eq(out, "into-vfd");
	close(v);

	/* addfchdir_np(virtual directory descriptor). */
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	dv = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_UNSEQFD);
	ck_assert(is_vfd(dv));
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addfchdir_np(&fa, dv), 0);
	ck_assert(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "pwd", NULL },
					 out, sizeof(out))));
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(strlen(out) > 0);
	out[strlen(out) - 1] = '\0';
	ck_assert_str_eq(out, tmpdir);
	close(dv);
	rmdir(tmpdir);
	close(fd);
}
END_TEST

/*
 * addclosefrom_np(from): every virtual descriptor is at or above from (the
 * bound must be below the application's limit, EBADF from there up), so
 * the child has none of them, nor their backing descriptors, nor the real
 * ones at or above from; those below from stay.  A backing descriptor
 * below the application's limit (soft = hard: ufd(7), "Where backing
 * descriptors live") and below the bound is not handed off either.
 * addtcsetpgrp_np(vfd) reaches the kernel with the backing descriptor.
 */
START_TEST(spawn_closefrom_and_tcsetpgrp_with_virtual_descriptors)
{
	posix_spawn_file_actions_t fa;
	int fd = temp_file("closefrom"), v, b, r, keep, status;
	char spec1[64], spec2[64], spec3[64], spec4[64];
	struct rlimit rl;
	pid_t pid;

	/* The usual placement: backing descriptors above the limit. */
	v = api_nonseqfd(fd, 0);
	ck_assert(is_vfd(v));
	b = api_backing_fd(v);
	r = dup(fd); /* real, inheritable, at or above 3 */
	keep = open("/dev/null", O_RDONLY); /* real, inheritable, kept */
	ck_assert_int_ge(r, 3);
	ck_assert_int_ge(keep, 0);
	if (r < keep) { int t = r; r = keep; keep = t; }
	snprintf(spec1, sizeof(spec1), "n:%d", v);
	snprintf(spec2, sizeof(spec2), "n:%d", b);
	snprintf(spec3, sizeof(spec3), "n:%d", r);
	snprintf(spec4, sizeof(spec4), "r:%d:0", keep);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	/* Past the application's limit (where ufd's room is): EBADF, as
	 * glibc answers past getdtablesize(); a virtual number too. */
	ck_assert_int_eq(posix_spawn_file_actions_addclosefrom_np(&fa, (int)rl.rlim_cur), EBADF);
	ck_assert_int_eq(posix_spawn_file_actions_addclosefrom_np(&fa, v), EBADF);
	ck_assert_int_eq(posix_spawn_file_actions_addclosefrom_np(&fa, keep + 1), 0);
	ck_assert_msg(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "check",
								   spec1, spec2, spec3, spec4, NULL },
					     NULL, 0)),
		      "addclosefrom_np(%d)", keep + 1);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert(is_vfd(v)); /* the parent's are untouched */
	ck_assert_int_eq(fcntl(r, F_GETFD), 0);
	close(v);

	/* soft = hard: backing descriptors below the application's limit;
	 * closefrom above one of them still leaves the child without it. */
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_max > 4096)
		rl.rlim_cur = rl.rlim_max = 4096;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	v = api_nonseqfd(fd, 0);
	ck_assert(is_vfd(v));
	b = api_backing_fd(v);
	ck_assert_int_lt(b, (int)rl.rlim_cur - 1);
	snprintf(spec1, sizeof(spec1), "n:%d", v);
	snprintf(spec2, sizeof(spec2), "n:%d", b);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addclosefrom_np(&fa, b + 1), 0);
	ck_assert_msg(exited_ok(spawn_helper(&fa, (char *const[]){ "ufd_helper", "check",
								   spec1, spec2, spec4, NULL },
					     NULL, 0)),
		      "addclosefrom_np(%d) above backing %d", b + 1, b);
	posix_spawn_file_actions_destroy(&fa);
	close(v);

	/* addtcsetpgrp_np(vfd): /dev/null is no terminal, so the child's
	 * tcsetpgrp fails with ENOTTY, not EBADF: the kernel had the file. */
	v = open("/dev/null", O_RDONLY | O_CLOEXEC | O_UNSEQFD);
	ck_assert(is_vfd(v));
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addtcsetpgrp_np(&fa, v), 0);
	status = posix_spawn(&pid, helper_path, &fa, NULL,
			     (char *const[]){ "ufd_helper", "print", "x", NULL }, environ);
	if (status == 0)
		wait_bounded(pid, 20000);
	ck_assert(status == ENOTTY || (status == 0 && spawn_failure_unheard(0, -1)));
	posix_spawn_file_actions_destroy(&fa);
	close(v);

	close(r);
	close(keep);
	close(fd);
}
END_TEST

/* ---- the hand-off of more descriptors than the environment holds ---- */

/* More virtual descriptors than one environment string can list (the
 * kernel takes 128 KiB): the hand-off goes through a memfd, and the exec'd
 * program has them all, the first and the last checked by number and
 * data, and no memfd left open. */
#define MANY_HANDED 5000

START_TEST(exec_hands_off_more_than_an_env_string_holds)
{
	int fd = temp_file("many"), v[MANY_HANDED];
	char first[64], last[64], data[64], out[512] = "";
	int status, i;

	if (!raise_nofile(2 * MANY_HANDED + 256)) {
		fprintf(stderr, "exec_hands_off_more_than_an_env_string_holds: "
				"skipped: hard RLIMIT_NOFILE below %d\n",
			2 * MANY_HANDED + 256);
		close(fd);
		return;
	}
	for (i = 0; i < MANY_HANDED; i++) {
		v[i] = api_nonseqfd(fd, 0);
		ck_assert(is_vfd(v[i]));
	}
	snprintf(first, sizeof(first), "v:%d:-1:0", v[0]);
	snprintf(last, sizeof(last), "v:%d:-1:0", v[MANY_HANDED - 1]);
	snprintf(data, sizeof(data), "d:%d:many", v[MANY_HANDED / 2]);
	status = exec_helper(0, (char *const[]){ "ufd_helper", "check", first, last,
						 data, "nomemfd", NULL },
			     out, sizeof(out));
	ck_assert_msg(exited_ok(status), "helper: %s", out);
	for (i = 0; i < MANY_HANDED; i++)
		ck_assert_int_eq(close(v[i]), 0);
	close(fd);
}
END_TEST

/*
 * An environment of 150 entries (ufd reads an exec's environment 64
 * entries at a time) with a stale hand-off at entry 100 and, when
 * preloaded, LD_PRELOAD last: the stale hand-off must be dropped (the
 * new program would take the first UFD_HANDOFF, another process's, and
 * ignore it) and the virtual descriptor inherited.
 */
START_TEST(exec_with_a_long_environment)
{
	static char vars[150][48], preload_var[4096];
	char *env[152], spec[64], out[512] = "", **saved = environ;
	int fd = temp_file("long"), v = api_nonseqfd(fd, 0), n = 0, status;

	ck_assert(is_vfd(v));
	for (int i = 0; i < 150; i++) {
		if (i == 100)
			snprintf(vars[i], sizeof(vars[i]), "UFD_HANDOFF=2;1;%u=5/0/0/0,",
				 FD_UNSEQ_BASE + 5);
		else
			snprintf(vars[i], sizeof(vars[i]), "LONG_ENV_%d=%d", i, i);
		env[n++] = vars[i];
	}
	if (getenv("LD_PRELOAD")) {
		snprintf(preload_var, sizeof(preload_var), "LD_PRELOAD=%s",
			 getenv("LD_PRELOAD"));
		env[n - 1] = preload_var;
	}
	env[n] = NULL;
	snprintf(spec, sizeof(spec), "v:%d:-1:0", v);
	environ = env;
	status = exec_helper(0, (char *const[]){ "ufd_helper", "check", spec, NULL },
			     out, sizeof(out));
	environ = saved;
	ck_assert_msg(exited_ok(status), "helper: %s", out);
	ck_assert_int_eq(close(v), 0);
	close(fd);
}
END_TEST

/*
 * Where the kernel has no close_range (before Linux 5.11; here a seccomp
 * filter answers ENOSYS), backing descriptors go back to close-on-exec
 * one by one: after a spawn in the parent, after an exec in the new
 * program (the helper's "v:" check).  In a fork child, which the filter
 * stays with.  Returns 0, or the step that failed.
 */
static int spawn_and_exec_without_close_range(const int *unused)
{
	struct sock_filter insns[] = {
		/* x86-64 and others alike: only the number is looked at. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };
	int fd = temp_file("nocr"), v[3], status;
	char spec[3][64];
	pid_t pid;

	(void)unused;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return 10;
	if (syscall(SYS_close_range, 1000, 1000, 0) != -1 || errno != ENOSYS)
		return 11;
	for (int i = 0; i < 3; i++) {
		v[i] = api_nonseqfd(fd, 0);
		if (!is_vfd(v[i]))
			return 12;
		snprintf(spec[i], sizeof(spec[i]), "v:%d:-1:0", v[i]);
	}
	if (posix_spawn(&pid, "/bin/true", NULL, NULL,
			(char *[]){ "true", NULL }, environ) != 0 ||
	    !exited_ok(wait_bounded(pid, 20000)))
		return 13;
	for (int i = 0; i < 3; i++)
		if (kernel_cloexec(api_backing_fd(v[i])) != 1)
			return 14;
	pid = fork();
	if (pid == 0) {
		execve(helper_path, (char *[]){ "ufd_helper", "check", spec[0],
						spec[1], spec[2], NULL }, environ);
		_exit(127);
	}
	status = wait_bounded(pid, 20000);
	return exited_ok(status) ? 0 : 15;
}

START_TEST(backing_cloexec_without_close_range)
{
	if (skip_under_emulator("backing_cloexec_without_close_range",
				"qemu-user has no seccomp"))
		return;
	in_fork_child(spawn_and_exec_without_close_range, NULL);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *exec_case(void)
{
	return new_case("exec",
			TESTS(cloexec_virtual_closed_by_exec,
			      exec_chain_through_exec_family,
			      failed_exec_restores_the_table,
			      spawn_restores_the_table,
			      spawn_file_actions_with_virtual_descriptors,
			      spawn_closefrom_and_tcsetpgrp_with_virtual_descriptors,
			      exec_hands_off_more_than_an_env_string_holds,
			      exec_with_a_long_environment,
			      backing_cloexec_without_close_range), 120);
}
