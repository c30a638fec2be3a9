/* SPDX-License-Identifier: MIT */
/*
 * stream_limit.c - the streams libc opens with its own calls (opendir,
 * fopen, tmpfile, popen; and those it opens inside scandir, scandirat and
 * glob, and their 64-bit names) at the application's RLIMIT_NOFILE, for
 * stream_limit.sh, which runs this without ufd and under ufd in each mode
 * and compares the output.  Under ufd, nonseqfd() first (when the library
 * is there): its backing descriptor makes ufd raise the kernel's soft
 * limit above the application's, so that libc's own calls would get
 * numbers past it.  Then the program fills its numbers with open() and
 * tries each stream: with none free each must fail with EMFILE as
 * without ufd, with one free each but popen (two: a pipe) must work.
 * Prints one line a step; exits 77 where the hard limit is too low.
 * Usage: stream_limit DIR [count]  ("count": print how many open() made)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOFT 32

static const char *dir_path;
static char file[4096], sub[4096]; /* sub: a directory of two files */

static int glob_errno;

/* glob's errfunc: the error of the directory it could not open. */
static int glob_error(const char *path, int err)
{
	(void)path;
	glob_errno = err;
	return 0;
}

/* The calls that read a directory with a stream of libc's own, which
 * ufd does not see (scandir, scandirat, glob): their result, errno or
 * glob's error and the errno its errfunc was given. */
static void try_dir_readers(const char *when)
{
	struct dirent **list;
	struct dirent64 **list64;
	glob_t g;
	glob64_t g64;
	char pattern[4096 + 2];
	int n, r;

	errno = 0;
	n = scandir(sub, &list, NULL, alphasort);
	printf("%s: scandir: %d %s\n", when, n, n < 0 ? strerrorname_np(errno) : "");
	while (n > 0)
		free(list[--n]);
	if (n == 0)
		free(list);
	errno = 0;
	n = scandirat(AT_FDCWD, sub, &list, NULL, alphasort);
	printf("%s: scandirat: %d %s\n", when, n, n < 0 ? strerrorname_np(errno) : "");
	while (n > 0)
		free(list[--n]);
	if (n == 0)
		free(list);
	snprintf(pattern, sizeof(pattern), "%s/*", sub);
	glob_errno = 0;
	r = glob(pattern, 0, glob_error, &g);
	printf("%s: glob: %d, %zu found, errfunc %s, flags %#x\n", when, r,
	       r == 0 ? g.gl_pathc : 0, glob_errno ? strerrorname_np(glob_errno) : "-",
	       r == 0 ? g.gl_flags : 0);
	if (r == 0)
		globfree(&g);
	r = glob(pattern, GLOB_ERR, NULL, &g);
	printf("%s: glob GLOB_ERR: %d\n", when, r);
	if (r == 0)
		globfree(&g);
	/* The 64-bit names, which ufd has as second names. */
	errno = 0;
	n = scandir64(sub, &list64, NULL, alphasort64);
	printf("%s: scandir64: %d %s\n", when, n, n < 0 ? strerrorname_np(errno) : "");
	while (n > 0)
		free(list64[--n]);
	if (n == 0)
		free(list64);
	r = glob64(pattern, GLOB_ERR, NULL, &g64);
	printf("%s: glob64 GLOB_ERR: %d\n", when, r);
	if (r == 0)
		globfree64(&g64);
}

/* Each stream call once: "name: ok" (and the stream closed), or its errno. */
static void try_streams(const char *when, int popen_too)
{
	DIR *d;
	FILE *f;
	char line[16];

	errno = 0;
	d = opendir(dir_path);
	printf("%s: opendir: %s\n", when, d ? "ok" : strerrorname_np(errno));
	if (d)
		printf("%s: closedir: %d\n", when, closedir(d));
	errno = 0;
	f = fopen(file, "r");
	printf("%s: fopen: %s\n", when, f ? "ok" : strerrorname_np(errno));
	if (f)
		printf("%s: fclose: %d\n", when, fclose(f));
	errno = 0;
	f = tmpfile();
	printf("%s: tmpfile: %s\n", when, f ? "ok" : strerrorname_np(errno));
	if (f)
		printf("%s: fclose: %d\n", when, fclose(f));
	try_dir_readers(when);
	if (!popen_too)
		return;
	errno = 0;
	f = popen("echo popen ran", "r");
	printf("%s: popen: %s\n", when, f ? "ok" : strerrorname_np(errno));
	if (f) {
		printf("%s: read: %s", when, fgets(line, sizeof(line), f) ? line : "nothing\n");
		printf("%s: pclose: %d\n", when, pclose(f));
	}
}

int main(int argc, char **argv)
{
	int (*nonseqfd)(int, unsigned) = (int (*)(int, unsigned))dlsym(RTLD_DEFAULT, "nonseqfd");
	struct rlimit rl;
	int fds[4 * SOFT], n = 0, fd;

	if (argc < 2)
		return 2;
	dir_path = argv[1];
	snprintf(file, sizeof(file), "%s/file", dir_path);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || close(fd) < 0)
		return 2;
	snprintf(sub, sizeof(sub), "%s/d", dir_path);
	if (mkdir(sub, 0700) < 0 && errno != EEXIST)
		return 2;
	for (int i = 0; i < 2; i++) {
		char name[4096 + 8];

		snprintf(name, sizeof(name), "%s/%d", sub, i);
		fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || close(fd) < 0)
			return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max < 4 * SOFT) {
		printf("skipped: the hard RLIMIT_NOFILE is under %d\n", 4 * SOFT);
		return 77;
	}
	rl.rlim_cur = SOFT;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 2;
	/* Not under UFD_MODE=all, where every descriptor is virtual and
	 * counts against the limit as a real one does without ufd: a
	 * descriptor the bare run does not have. */
	if (nonseqfd && !(getenv("UFD_MODE") && !strcmp(getenv("UFD_MODE"), "all")) &&
	    nonseqfd(0, 0) < 0)
		return 2;
	while (n < 4 * SOFT && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		fds[n++] = fd;
	printf("open at the limit: %s\n", n < 4 * SOFT ? strerrorname_np(errno) : "ok");
	if (argc > 2 && !strcmp(argv[2], "count"))
		printf("opened: %d\n", n);
	if (n < 3)
		return 2;
	try_streams("none free", 1);
	close(fds[--n]);
	try_streams("one free", 0);
	errno = 0;
	printf("one free: popen: %s\n", popen("echo popen ran", "r") ? "ok" : strerrorname_np(errno));
	close(fds[--n]);
	try_streams("two free", 1);
	errno = 0;
	fd = dup(0);
	printf("two free: dup: %s\n", fd >= 0 ? "ok" : strerrorname_np(errno));
	return 0;
}
