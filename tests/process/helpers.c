/* SPDX-License-Identifier: MIT */
/*
 * helpers.c - what the process tests share: running the helper program
 * (run, exec_helper) and a fork child (in_fork_child), bounded waits,
 * temporary files, the kernel's own count of descriptors, and new_case,
 * which makes a Check test case of a list of tests.
 */
#include "process.h"

/* ufd's API, for every file of this test (ufd_test.h). */
int (*api_nonseqfd)(int, int);
int (*api_is_virtual)(int);
int (*api_backing_fd)(int);

/* From the environment (main.c). */
const char *helper_path, *many_path, *preload;
char *self_exe;

/* A file holding text, opened read-write and close-on-exec, unlinked. */
int temp_file(const char *text)
{
	char path[] = "/tmp/ufd-proc-XXXXXX";
	int fd = mkostemp(path, O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Does pread(fd, 0) give exactly text? */
int reads(int fd, const char *text)
{
	char buf[128] = { 0 };
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n == (ssize_t)strlen(text) && !strcmp(buf, text);
}

/* errno after a call that must fail with EBADF. */
int is_ebadf(int r)
{
	return r == -1 && errno == EBADF;
}

/* The number of real descriptors the kernel has open, backing
 * descriptors included (ufd_test.h). */
int kernel_fd_count(void)
{
	return kernel_fd_list(NULL, 0);
}


/* Is real descriptor fd open for the kernel?  fstat reaches the kernel for
 * any real number; fcntl on a backing descriptor is refused by ufd. */
int kernel_open(int fd)
{
	struct stat st;

	/* Raw: through ufd, a backing descriptor is a number not open. */
	return ufd_sys_fstat(fd, &st) == 0;
}

/*
 * Wait for child pid at most ms milliseconds; kill it if it is still
 * running then.  Returns its wait status, or -1 if it had to be killed
 * (a deadlock, for the tests here).
 */
int wait_bounded(pid_t pid, int ms)
{
	int status;

	for (int waited = 0; waited < ms; waited++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		ck_assert_msg(r == 0 || errno == EINTR, "waitpid: %s", strerror(errno));
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

int exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- running the helper ---- */

/* Copy of environ with extra "NAME=value" entries set (replacing any
 * entry of the same name) and names in `drop` removed. */
char **env_with(char *const *extra, const char *const *drop)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	for (size_t i = 0; extra && extra[i]; i++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	ck_assert_ptr_nonnull(env);
	for (size_t i = 0; environ[i]; i++) {
		int skip = 0;
		size_t len = strcspn(environ[i], "=");

		for (size_t j = 0; extra && extra[j]; j++)
			skip |= !strncmp(environ[i], extra[j], len) && extra[j][len] == '=';
		for (size_t j = 0; drop && drop[j]; j++)
			skip |= strlen(drop[j]) == len && !strncmp(environ[i], drop[j], len);
		if (!skip)
			env[k++] = environ[i];
	}
	for (size_t i = 0; extra && extra[i]; i++)
		env[k++] = extra[i];
	env[k] = NULL;
	return env;
}

/*
 * Run path with argv and env (environ if NULL) through fork and execve,
 * stdout into out (NUL-terminated, at most size - 1 bytes); in_fd, if not
 * -1, becomes its stdin.  Returns the wait status, -1 if it had to be
 * killed after 20 s.  The child's execve is the shim's, so this process's
 * inheritable virtual descriptors go along.
 */
int run(const char *path, char *const argv[], char *const env[],
	       int in_fd, char *out, size_t size)
{
	int p[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (dup2(p[1], 1) < 0 || (in_fd >= 0 && dup2(in_fd, 0) < 0))
			_exit(126);
		execve(path, argv, env ? env : environ);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < size && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	status = wait_bounded(pid, 20000);
	return status;
}

/* Fork; the child runs check(arg) and exits with its result, which must
 * be 0. */
void in_fork_child(int (*check)(const int *), const int *arg)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(check(arg));
	status = wait_bounded(pid, 10000);
	ck_assert_msg(exited_ok(status), "fork child failed: status %#x (exit %d)",
		      status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Read fd to its end, or size - 1 bytes, into out as a string. */
void read_all(int fd, char *out, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && (n = read(fd, out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
}

/* Run the helper with argv by fork (or vfork) and execve, its stdout into
 * out; the exit status. */
int exec_helper(int by_vfork, char *const argv[], char *out, size_t size)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	fflush(NULL);
	pid = by_vfork ? vfork() : fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execve(helper_path, argv, environ);
		_exit(127);
	}
	ck_assert_int_ge(pid, 0);
	close(p[1]);
	read_all(p[0], out, size);
	close(p[0]);
	return wait_bounded(pid, 20000);
}

/* A test case of tests, with a timeout of timeout seconds. */
TCase *new_case(const char *name, const TTest *const *tests, int timeout)
{
	TCase *tc = tcase_create(name);

	for (int i = 0; tests[i]; i++)
		tcase_add_test(tc, tests[i]);
	tcase_set_timeout(tc, timeout);
	return tc;
}
