/* SPDX-License-Identifier: MIT */
/*
 * Description: glibc 2.39's pidfd_spawn and pidfd_spawnp under ufd with
 * UFD_MODE=all: the pidfd they make is a new descriptor (virtual here)
 * that waitid(P_PIDFD) and pidfd_getpid accept, the child gets the
 * hand-off (a virtual descriptor without close-on-exec is open in it at
 * its number), and file actions naming a virtual descriptor work, as with
 * posix_spawn; pidfd_getpid (glibc 2.39) takes a virtual pidfd; glibc
 * 2.39's posix_spawnattr_[gs]etcgroup_np take and give back a virtual
 * descriptor, and a spawn into a cgroup through one runs as through the
 * real one.  The kernel's answer is the reference: the child's exit
 * status and its pid are the same through the pidfd as through the pid.  Skips (77) on a
 * glibc without pidfd_spawn (before 2.39, Debian 12's 2.36).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd_test.h"

typedef int spawn_fn(int *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

extern char **environ;
static int failed;

#define FAIL(...)                                   \
	do {                                        \
		printf("FAIL: " __VA_ARGS__);       \
		printf("\n");                       \
		failed++;                           \
	} while (0)

/* Spawn bash -c script (dash reads no descriptor number above 9)
 * through fn (named name) with actions; the pidfd it made must be
 * virtual; returns the child's exit status through it, or -1. */
static int run(spawn_fn *fn, const char *name, const char *sh,
	       const posix_spawn_file_actions_t *actions, const char *script)
{
	char *argv[] = { "bash", "-c", (char *)script, NULL };
	pid_t (*getpid_of)(int) = (pid_t (*)(int))dlsym(RTLD_DEFAULT, "pidfd_getpid");
	siginfo_t info;
	int pidfd = -1, r;

	r = fn(&pidfd, sh, actions, NULL, argv, environ);
	if (r) {
		FAIL("%s: %s", name, strerror(r));
		return -1;
	}
	if (!is_vfd(pidfd) || !api_is_virtual(pidfd))
		FAIL("%s: made %d, not a virtual descriptor under UFD_MODE=all", name, pidfd);
	if (getpid_of && getpid_of(pidfd) <= 0)
		FAIL("%s: pidfd_getpid(%d): %s", name, pidfd, strerror(errno));
	memset(&info, 0, sizeof(info));
	if (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED) != 0) {
		FAIL("%s: waitid(P_PIDFD, %d): %s", name, pidfd, strerror(errno));
		return -1;
	}
	if (getpid_of && getpid_of(pidfd) != -1)
		FAIL("%s: pidfd_getpid of a reaped child is not -1", name);
	close(pidfd);
	return info.si_code == CLD_EXITED ? info.si_status : -1;
}

#ifndef POSIX_SPAWN_SETCGROUP
#define POSIX_SPAWN_SETCGROUP 0x100
#endif

/*
 * glibc 2.39's cgroup attribute: posix_spawnattr_getcgroup_np gives back
 * the virtual descriptor setcgroup_np was given, and a spawn into this
 * process's own cgroup through a virtual descriptor of its directory
 * runs as through the real one (the kernel's answer: where moving there
 * is not allowed, both fail alike).
 */
static void check_cgroup(spawn_fn *spawnp)
{
	int (*set)(posix_spawnattr_t *, int) =
		(int (*)(posix_spawnattr_t *, int))dlsym(RTLD_DEFAULT,
							 "posix_spawnattr_setcgroup_np");
	int (*get)(const posix_spawnattr_t *, int *) =
		(int (*)(const posix_spawnattr_t *, int *))dlsym(
			RTLD_DEFAULT, "posix_spawnattr_getcgroup_np");
	char *argv[] = { "true", NULL }, line[512], path[600];
	int dir, v, got = -1, st[2];
	posix_spawnattr_t attr;
	siginfo_t info;
	FILE *f;

	if (!set || !get || !dlsym(dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD),
				   "posix_spawnattr_setcgroup_np")) {
		printf("cgroup attribute: not in this glibc (2.39 added it)\n");
		return;
	}
	/* This process's cgroup (v2: "0::/path"), its directory. */
	if (!(f = fopen("/proc/self/cgroup", "r")) || !fgets(line, sizeof(line), f) ||
	    strncmp(line, "0::", 3)) {
		printf("cgroup attribute: no cgroup v2 here; checked set and get only\n");
		line[0] = 0;
	}
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = 0;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s", line[0] ? line + 3 : "");
	dir = open(line[0] ? path : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || (v = api_nonseqfd(dir, NONSEQFD_CLOEXEC)) < 0 || !is_vfd(v)) {
		FAIL("cgroup attribute: no virtual descriptor of %s", path);
		return;
	}
	posix_spawnattr_init(&attr);
	if (set(&attr, v) || get(&attr, &got) || got != v)
		FAIL("posix_spawnattr_getcgroup_np gives %d, not the virtual %d it was set to",
		     got, v);
	if (!line[0]) {
		posix_spawnattr_destroy(&attr);
		return;
	}
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETCGROUP);
	/* The kernel's answer through the real descriptor, then ufd's. */
	for (int i = 0; i < 2; i++) {
		int pidfd = -1;

		set(&attr, i ? v : api_backing_fd(v));
		st[i] = spawnp(&pidfd, "true", NULL, &attr, argv, environ);
		if (st[i] == 0 && waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED) == 0)
			st[i] = info.si_status ? 1000 + info.si_status : 0;
		if (pidfd >= 0)
			close(pidfd);
	}
	if (st[0] != st[1])
		FAIL("a spawn into cgroup %s: %d through the real descriptor, %d through "
		     "the virtual one", line + 3, st[0], st[1]);
	else
		printf("cgroup attribute: a spawn into %s: %s both ways\n", line + 3,
		       st[0] ? strerror(st[0] % 1000) : "ok");
	posix_spawnattr_destroy(&attr);
	close(v);
}

int main(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	spawn_fn *spawn = (spawn_fn *)dlsym(RTLD_DEFAULT, "pidfd_spawn");
	spawn_fn *spawnp = (spawn_fn *)dlsym(RTLD_DEFAULT, "pidfd_spawnp");
	posix_spawn_file_actions_t fa;
	char script[128], buf[16];
	int p[2], v, st;

	load_api(1);
	if (!libc || !dlsym(libc, "pidfd_spawn")) {
		printf("skipped: this glibc has no pidfd_spawn (glibc 2.39 added it)\n");
		return 77;
	}
	/* Exit statuses as the kernel gives them without a pidfd. */
	if (!(v = api_nonseqfd(open("/dev/null", O_WRONLY), 0)) || !is_vfd(v)) {
		printf("FAIL: no virtual descriptor from nonseqfd\n");
		return 1;
	}

	/* pidfd_getpid (glibc 2.39) on a virtual pidfd: this process. */
	pid_t (*getpid_of)(int) = (pid_t (*)(int))dlsym(RTLD_DEFAULT, "pidfd_getpid");
	int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (!getpid_of || !is_vfd(self) || getpid_of(self) != getpid())
		FAIL("pidfd_getpid(virtual pidfd %d of this process) is not getpid(): %s",
		     self, strerror(errno));
	close(self);

	/* The hand-off: v (not close-on-exec) is open in the child. */
	snprintf(script, sizeof(script), "exec 2>/dev/null; echo x >&%d && exit 7", v);
	if ((st = run(spawn, "pidfd_spawn", "/bin/bash", NULL, script)) != 7)
		FAIL("pidfd_spawn: the child could not write to virtual %d (status %d, 7 expected)",
		     v, st);
	if ((st = run(spawnp, "pidfd_spawnp", "bash", NULL, script)) != 7)
		FAIL("pidfd_spawnp: the child could not write to virtual %d (status %d, 7 expected)",
		     v, st);

	/* A file action naming a virtual descriptor: the pipe's write end
	 * as the child's standard output. */
	if (pipe(p) || !is_vfd(p[1]))
		FAIL("pipe: not virtual under UFD_MODE=all");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	if ((st = run(spawnp, "pidfd_spawnp", "bash", &fa, "echo hello")) != 0)
		FAIL("pidfd_spawnp with a dup2 action: status %d", st);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	memset(buf, 0, sizeof(buf));
	if (read(p[0], buf, sizeof(buf) - 1) != 6 || strcmp(buf, "hello\n"))
		FAIL("the child's output through the virtual pipe: \"%s\"", buf);
	check_cgroup(spawnp);
	if (!failed)
		printf("PASS: pidfd_spawn and pidfd_spawnp under UFD_MODE=all\n");
	return failed ? 1 : 0;
}
