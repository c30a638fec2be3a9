/* SPDX-License-Identifier: MIT */
/*
 * procs.c - the stress test's forking and exec'ing threads: fork (the
 * child checks its table), fork and execve of the helper, posix_spawn
 * and system(); each checks what the helper says it inherited.
 */
#include "stress.h"

/* ---- forking and exec'ing threads ---- */

/* In a fork child: the stable descriptors as expected, every listed
 * virtual descriptor whole, and the table usable.  The exit status. */
static int fork_child_checks(void)
{
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int v;

	for (int i = 0; i < NSTABLE; i++) {
		if (!stable_expected(i, 0)) {
			if (fcntl(stables[i].vfd, F_GETFD) != -1 || errno != EBADF)
				return 10 + i;
			continue;
		}
		if (fstat(stables[i].vfd, &st) != 0 || file_of(&st) != i)
			return 20 + i;
		if (fcntl(stables[i].vfd, F_GETFD) != stables[i].fdflags)
			return 30 + i;
	}
	dir = opendir("/proc/self/fd");
	if (!dir)
		return 40;
	while ((d = readdir(dir))) {
		long n = strtol(d->d_name, NULL, 10);
		int f;

		if (!is_vfd((int)n))
			continue;
		if (fstat((int)n, &st) != 0)
			return 41;
		f = file_of(&st);
		if (f < 0 || (f < NSTABLE && stables[f].vfd != n))
			return 42;
	}
	closedir(dir);
	v = api_nonseqfd(files[FILE_I].fd, 0);
	if (!is_vfd(v) || close(v) != 0)
		return 43;
	return 0;
}

static void wait_child(struct worker *w, pid_t pid, int *status)
{
	__atomic_store_n(&w->child, pid, __ATOMIC_RELAXED);
	set_phase(w, "waitpid");
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			failf("%s: waitpid: %s", w->name, strerror(errno));
			*status = -1;
			break;
		}
	}
	__atomic_store_n(&w->child, 0, __ATOMIC_RELAXED);
}

void *fork_thread(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < FORKS && !failed(); i++) {
		int status;
		pid_t pid;

		set_phase(w, "fork");
		pid = fork();
		if (pid == 0) {
			alarm(30); /* a child that hangs dies */
			_exit(fork_child_checks());
		}
		if (pid < 0) {
			failf("fork: %s", strerror(errno));
			break;
		}
		wait_child(w, pid, &status);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failf("fork child %d: status %#x (exit %d: see fork_child_checks)",
			      i, status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		progress(w);
	}
	set_phase(w, "done");
	return NULL;
}

/* Read fd to its end into out (NUL-terminated). */
static void read_all(int fd, char *out, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && ((n = read(fd, out + len, size - 1 - len)) > 0 ||
				  (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	out[len] = '\0';
}

/*
 * Check the helper's listing (mode listv): a stable descriptor where one
 * is expected, on its file; nothing else but churned or handler's
 * descriptors on FILE_I; "end" last.
 */
static void check_listing(const char *who, int round, const char *out)
{
	int seen[NSTABLE] = { 0 }, ended = 0;
	const char *p = out;

	while (*p) {
		unsigned long dev, ino;
		int vfd, f, len = 0;

		if (!strncmp(p, "end\n", 4)) {
			ended = 1;
			p += 4;
			continue;
		}
		if (sscanf(p, "%d %lu %lu\n%n", &vfd, &dev, &ino, &len) != 3 || !len) {
			failf("%s %d: unexpected output: %.200s", who, round, p);
			return;
		}
		p += len;
		f = file_by_id(dev, ino);
		for (int i = 0; i < NSTABLE; i++) {
			if (stables[i].vfd != vfd)
				continue;
			seen[i] = 1;
			if (!stable_expected(i, 1))
				failf("%s %d: inherited stable descriptor %d (%d), flags %d",
				      who, round, i, vfd, stables[i].fdflags);
			if (f != i)
				failf("%s %d: stable %d (%d) refers to file %d", who, round,
				      i, vfd, f);
			goto next;
		}
		if (f != FILE_I)
			failf("%s %d: inherited %d, on file %d%s", who, round, vfd, f,
			      f == FILE_X ? " (only ever close-on-exec)" : "");
	next:;
	}
	for (int i = 0; i < NSTABLE; i++)
		if (stable_expected(i, 1) && !seen[i])
			failf("%s %d: stable descriptor %d (%d) not inherited", who, round, i,
			      stables[i].vfd);
	if (!ended)
		failf("%s %d: output cut short: %.200s", who, round, out);
}

static char *const listv_argv[] = { "ufd_helper", "listv", NULL };

/*
 * The helper (listv) that pid runs writes its listing to rd: read it all,
 * reap pid, and check that it exited 0 and inherited what it should.
 * what and i name the run in a failure.
 */
static void finish_helper(struct worker *w, pid_t pid, int rd, const char *what,
			  int i)
{
	char out[OUT_MAX];
	int status;

	__atomic_store_n(&w->child, pid, __ATOMIC_RELAXED);
	set_phase(w, "reading the helper");
	read_all(rd, out, sizeof(out));
	close(rd);
	wait_child(w, pid, &status);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		failf("%s %d: helper status %#x: %s", what, i, status, out);
	check_listing(what, i, out);
	progress(w);
}

void *exec_thread(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < EXECS && !failed(); i++) {
		int p[2];
		pid_t pid;

		set_phase(w, "pipe2");
		if (pipe2(p, O_CLOEXEC) != 0) {
			failf("pipe2: %s", strerror(errno));
			break;
		}
		set_phase(w, "fork for execve");
		pid = fork();
		if (pid == 0) {
			alarm(30); /* kept across execve: a hung helper dies */
			if (dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
				_exit(126);
			execve(helper, listv_argv, environ);
			_exit(127);
		}
		close(p[1]);
		if (pid < 0) {
			failf("fork: %s", strerror(errno));
			close(p[0]);
			break;
		}
		finish_helper(w, pid, p[0], "execve", i);
	}
	set_phase(w, "done");
	return NULL;
}

void *spawn_thread(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < SPAWNS && !failed(); i++) {
		posix_spawn_file_actions_t fa;
		int p[2], r;
		pid_t pid;

		set_phase(w, "pipe2");
		if (pipe2(p, O_CLOEXEC) != 0) {
			failf("pipe2: %s", strerror(errno));
			break;
		}
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
		posix_spawn_file_actions_adddup2(&fa, p[1], 2);
		set_phase(w, "posix_spawn");
		r = posix_spawn(&pid, helper, &fa, NULL, listv_argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		close(p[1]);
		if (r != 0) {
			failf("posix_spawn: %s", strerror(r));
			close(p[0]);
			break;
		}
		finish_helper(w, pid, p[0], "posix_spawn", i);
	}
	set_phase(w, "done");
	return NULL;
}

void *system_thread(void *arg)
{
	struct worker *w = arg;
	char path[128], cmd[PATH_MAX + 256], out[OUT_MAX];

	snprintf(path, sizeof(path), "%s/%s.out", tmpdir, w->name);
	snprintf(cmd, sizeof(cmd), "exec '%s' listv >'%s' 2>&1", helper, path);
	for (int i = 0; i < SYSTEMS && !failed(); i++) {
		int status, fd;

		set_phase(w, "system");
		status = system(cmd);
		set_phase(w, "reading the helper");
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			failf("%s %d: no output (status %#x)", w->name, i, status);
			break;
		}
		read_all(fd, out, sizeof(out));
		close(fd);
		unlink(path);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failf("%s %d: status %#x: %s", w->name, i, status, out);
		check_listing(w->name, i, out);
		progress(w);
	}
	set_phase(w, "done");
	return NULL;
}
