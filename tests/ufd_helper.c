/* SPDX-License-Identifier: MIT */
/*
 * Description: a helper program for the process tests (tests/process/,
 * test_handoff.c).  It is NOT linked against ufd: the tests run it under
 * LD_PRELOAD=libufd.so, and the ufd API is reached through dlsym(), so
 * that it can also tell when ufd did not load at all.  One mode per run,
 * chosen by argv[1]:
 *
 *   check SPEC...     check the descriptors of this process as SPEC says
 *                     (see check_spec) and that UFD_HANDOFF is not in the
 *                     environment; exit 0 if all hold, 1 with a message
 *                     on stdout if not, 77 if a precondition is missing
 *   chain1 HOP1 HOP2  make virtual descriptors A (inheritable), B
 *                     (close-on-exec), C (close-on-fork) and a real
 *                     close-on-fork descriptor R, then reach "chain2"
 *                     through the exec or spawn call HOP1
 *   chain2 A B C R HOP1 HOP2
 *                     check them, then reach "chain3" through HOP2
 *   chain3 A B C R HOP1 HOP2
 *                     check them again and print "chain ok"
 *   open5             open /dev/null five times and print the numbers
 *   reseed ROUNDS     fork ROUNDS times; parent and child each take
 *                     dup2(fd, FD_UNSEQ_ALLOC), which must differ; prints
 *                     the parent's numbers
 *   print TEXT        write TEXT to stdout
 *   cat               copy stdin to stdout
 *   pwd               print the working directory
 *   isvirt N...       print ufd_is_virtual(N) for each N
 *   cloexec-child N   exit 0 if fcntl(N, F_GETFD) fails with EBADF
 *   listv             print "VFD DEV INO" for each virtual descriptor in
 *                     the /proc/self/fd listing (the stress test checks
 *                     what an exec'd program inherited), then "end"
 *
 * The exec and spawn calls of HOP: execve execv execvp execvpe execl
 * execlp execle fexecve execveat posix_spawn posix_spawnp system popen.
 * The *p calls and system/popen find the helper through PATH, which the
 * test points at the build directory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_test.h"

extern char **environ;



static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("helper[%d] %s: ", (int)getpid(), "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
}

static void die(const char *what)
{
	printf("helper[%d] FAIL: %s: %s\n", (int)getpid(), what, strerror(errno));
	exit(1);
}

static int need_ufd(void)
{
	if (!api_nonseqfd) {
		fail("libufd.so is not loaded");
		return 0;
	}
	return 1;
}


/* Does the environment hold a UFD_HANDOFF entry? */
static int env_has_handoff(void)
{
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "UFD_HANDOFF=", 12) || !strcmp(*e, "UFD_HANDOFF"))
			return 1;
	return 0;
}

/*
 * One check:
 *   v:VFD:BACKING:FDFLAGS  VFD is an open virtual descriptor whose F_GETFD
 *                          is FDFLAGS; its backing descriptor is BACKING
 *                          (unless -1) and close-on-exec for the kernel
 *   n:N                    N is not an open descriptor of any kind
 *   r:FD:FDFLAGS           FD is an open real descriptor, F_GETFD FDFLAGS
 *   d:VFD:TEXT             pread(VFD, 0) gives TEXT
 *   k:FD                   FD is open for the kernel (raw fcntl)
 *   secure                 this process runs in secure mode (AT_SECURE)
 *   ufd                    libufd.so is loaded
 *   noufd-ok               the rest holds without ufd loaded (secure mode)
 *   plain-open             open() gives a real descriptor without
 *                          close-on-exec (UFD_MODE and UFD_CLOEXEC not in
 *                          force)
 *   alloc                  print "alloc N", N from dup2(0, FD_UNSEQ_ALLOC)
 *   inherit                (last) make an inheritable virtual descriptor
 *                          and exec this program to check that its backing
 *                          descriptor was passed on (UFD_INHERIT not 0)
 */
/* Spec "nomemfd": no descriptor left open on the memfd that a long
 * hand-off comes in. */
static void no_handoff_memfd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d) {
		fail("opendir /proc/self/fd: %s", strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		char path[300], target[256] = "";

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		if (readlink(path, target, sizeof(target) - 1) > 0 &&
		    strstr(target, "memfd:ufd-handoff"))
			fail("descriptor %s is still the hand-off's memfd", e->d_name);
	}
	closedir(d);
}

static void check_spec(const char *spec)
{
	long a = 0, b = 0, c = 0;
	char *end;
	int r;

	if (!strcmp(spec, "secure")) {
		if (getauxval(AT_SECURE) != 1) {
			printf("helper: not in secure-execution mode\n");
			exit(77);
		}
		return;
	}
	if (!strcmp(spec, "ufd")) {
		need_ufd();
		return;
	}
	if (!strcmp(spec, "plain-open")) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0 || fd >= (int)FD_UNSEQ_BASE || fcntl(fd, F_GETFD) != 0)
			fail("open() = %d, F_GETFD %d: not a plain real descriptor",
			     fd, fcntl(fd, F_GETFD));
		close(fd);
		return;
	}
	if (!strcmp(spec, "alloc")) {
		int v = dup2(0, FD_UNSEQ_ALLOC);

		printf("alloc %d\n", v);
		close(v);
		return;
	}
	if (!strcmp(spec, "inherit")) {
		char k[32];
		int fd = open("/dev/null", O_RDONLY), v;

		if (!need_ufd())
			return;
		v = dup2(fd, FD_UNSEQ_ALLOC);
		close(fd);
		snprintf(k, sizeof(k), "k:%d", api_backing_fd(v));
		fflush(stdout);
		if (failures)
			exit(1);
		execl("/proc/self/exe", "ufd_helper", "check", "secure", "ufd", k,
		      (char *)NULL);
		fail("execl /proc/self/exe: %s", strerror(errno));
		return;
	}
	if (!strcmp(spec, "nomemfd")) {
		no_handoff_memfd();
		return;
	}
	if (strlen(spec) < 3 || spec[1] != ':') {
		fail("bad spec '%s'", spec);
		return;
	}
	a = strtol(spec + 2, &end, 10);
	if (*end == ':')
		b = strtol(end + 1, &end, 10);
	if (*end == ':' && spec[0] != 'd')
		c = strtol(end + 1, &end, 10);
	switch (spec[0]) {
	case 'v':
		if (!need_ufd())
			return;
		if (api_is_virtual((int)a) != 1) {
			fail("%ld is not an open virtual descriptor", a);
			return;
		}
		r = fcntl((int)a, F_GETFD);
		if (r != c)
			fail("fcntl(%ld, F_GETFD) = %d, expected %ld", a, r, c);
		r = api_backing_fd((int)a);
		if (b != -1 && r != b)
			fail("backing of %ld is %d, expected %ld", a, r, b);
		if (kernel_cloexec(r) != 1)
			fail("backing %d of %ld is not close-on-exec for the kernel", r, a);
		break;
	case 'n':
		errno = 0;
		if (api_is_virtual) {
			r = api_is_virtual((int)a);
			if (r != -1 || errno != EBADF)
				fail("ufd_is_virtual(%ld) = %d (%s), expected -1 EBADF",
				     a, r, strerror(errno));
		}
		errno = 0;
		r = fcntl((int)a, F_GETFD);
		if (r != -1 || errno != EBADF)
			fail("fcntl(%ld, F_GETFD) = %d (%s), expected -1 EBADF", a,
			     r, strerror(errno));
		break;
	case 'r':
		if (api_is_virtual && api_is_virtual((int)a) != 0)
			fail("%ld is not an open real descriptor", a);
		r = fcntl((int)a, F_GETFD);
		if (r != b)
			fail("fcntl(%ld, F_GETFD) = %d (%s), expected %ld", a, r,
			     r < 0 ? strerror(errno) : "", b);
		break;
	case 'd': {
		const char *text = strchr(spec + 2, ':');
		char buf[256] = { 0 };
		ssize_t n;

		text = text ? text + 1 : "";
		n = pread((int)a, buf, sizeof(buf) - 1, 0);
		if (n < 0 || strcmp(buf, text))
			fail("pread(%ld) = %zd '%s', expected '%s'", a, n, buf, text);
		break;
	}
	case 'k':
		/* fstat reaches the kernel for any real number (fcntl on a
		 * backing descriptor is refused by ufd). */
		if (fstat((int)a, &(struct stat){ 0 }) < 0)
			fail("%ld is not open for the kernel", a);
		break;
	default:
		fail("bad spec '%s'", spec);
	}
}

static int mode_check(int argc, char **argv)
{
	int fd, v;

	/* Secure mode first: without it the rest means nothing. */
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "secure"))
			check_spec(argv[i]);
	/* ufd removes it; without ufd (a secure-mode program, where ld.so
	 * ignores LD_PRELOAD) nothing does. */
	if (api_nonseqfd && env_has_handoff())
		fail("UFD_HANDOFF is still in the environment");
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "secure"))
			check_spec(argv[i]);
	/* The table works: a new virtual descriptor can be made and closed. */
	if (api_nonseqfd) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		v = dup2(fd, FD_UNSEQ_ALLOC);
		if (v < (int)FD_UNSEQ_BASE || close(v) != 0)
			fail("dup2(fd, FD_UNSEQ_ALLOC) = %d (%s)", v, strerror(errno));
		close(fd);
	}
	return failures ? 1 : 0;
}

/* ---- the exec chain ---- */

static char self_path[PATH_MAX];
static char self_dir[PATH_MAX];
static const char *self_name;

static void find_self(void)
{
	char *slash;

	if (!realpath("/proc/self/exe", self_path))
		die("realpath /proc/self/exe");
	strcpy(self_dir, self_path);
	slash = strrchr(self_dir, '/');
	*slash = '\0';
	self_name = slash + 1;
}

static int is_spawn_hop(const char *hop)
{
	return !strcmp(hop, "posix_spawn") || !strcmp(hop, "posix_spawnp") ||
	       !strcmp(hop, "system") || !strcmp(hop, "popen");
}

/* Did the process come in with ufd loaded and no UFD_HANDOFF left? */
static void check_arrival(const char *hop)
{
	const char *preload = getenv("LD_PRELOAD");

	need_ufd();
	if (env_has_handoff())
		fail("UFD_HANDOFF is still in the environment (after %s)", hop);
	/* execle ran us with an environment without LD_PRELOAD: the shim
	 * must have put itself back for the program after us. */
	if (!strcmp(hop, "execle") && (!preload || !strstr(preload, "libufd.so")))
		fail("after execle, LD_PRELOAD is '%s'", preload ? preload : "(unset)");
}

/*
 * A, B, C and R as chain1 made them, after `hop` (and `spawned`: a spawn
 * -- posix_spawn, system, popen -- somewhere on the way here).  A
 * close-on-fork descriptor (C, R) survives exec with its flag.  A spawn
 * makes its child as fork does, so, as POSIX 2024 has it, close-on-fork
 * descriptors do not reach the spawned program.
 */
static void check_chain(int a, int b, int c, int r, const char *hop, int spawned)
{
	char spec[96];

	check_arrival(hop);
	snprintf(spec, sizeof(spec), "v:%d:-1:0", a);
	check_spec(spec);
	snprintf(spec, sizeof(spec), "d:%d:AAAA", a);
	check_spec(spec);
	snprintf(spec, sizeof(spec), "n:%d", b);
	check_spec(spec);
	if (spawned) {
		snprintf(spec, sizeof(spec), "n:%d", c);
		check_spec(spec);
		if (fcntl(r, F_GETFD) >= 0)
			fail("close-on-fork %d survived a spawn (after %s)", r, hop);
		return;
	}
	snprintf(spec, sizeof(spec), "v:%d:-1:%d", c, FD_CLOFORK);
	check_spec(spec);
	snprintf(spec, sizeof(spec), "d:%d:CCCC", c);
	check_spec(spec);
	snprintf(spec, sizeof(spec), "r:%d:%d", r, FD_CLOFORK);
	check_spec(spec);
	snprintf(spec, sizeof(spec), "d:%d:RRRR", r);
	check_spec(spec);
}

/* The environment for execle: only PATH and the sanitizers' options, no
 * LD_PRELOAD.  An ASan runtime then comes after libufd.so (which the shim
 * adds back alone), which ASan only accepts when told not to check. */
static char **bare_env(void)
{
	static char path[PATH_MAX + 8], asan[1024], ubsan[512];
	static char *env[4];
	const char *s;
	int n = 0;

	snprintf(path, sizeof(path), "PATH=%s", getenv("PATH") ? getenv("PATH") : "");
	env[n++] = path;
	s = getenv("ASAN_OPTIONS");
	snprintf(asan, sizeof(asan), "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
		 s ? s : "", s && *s ? ":" : "");
	env[n++] = asan;
	s = getenv("UBSAN_OPTIONS");
	if (s) {
		snprintf(ubsan, sizeof(ubsan), "UBSAN_OPTIONS=%s", s);
		env[n++] = ubsan;
	}
	env[n] = NULL;
	return env;
}

/* The exit status of child pid as this process's own. */
static int status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fail("child killed by signal %d", WTERMSIG(status));
	return 1;
}

static int wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return status_of(status);
}

/* Reach the helper with args (argv[0] set here) through hop.  Returns only
 * for the spawn calls (with the child's exit status) or on failure. */
static int hop_to(const char *hop, char **args)
{
	char cmd[1024];
	pid_t pid;
	int r, fd;

	args[0] = (char *)self_name;
	if (!strcmp(hop, "execve")) {
		execve(self_path, args, environ);
	} else if (!strcmp(hop, "execv")) {
		execv(self_path, args);
	} else if (!strcmp(hop, "execvp")) {
		execvp(self_name, args);
	} else if (!strcmp(hop, "execvpe")) {
		execvpe(self_name, args, environ);
	} else if (!strcmp(hop, "execl")) {
		execl(self_path, args[0], args[1], args[2], args[3], args[4],
		      args[5], args[6], args[7], (char *)NULL);
	} else if (!strcmp(hop, "execlp")) {
		execlp(self_name, args[0], args[1], args[2], args[3], args[4],
		       args[5], args[6], args[7], (char *)NULL);
	} else if (!strcmp(hop, "execle")) {
		execle(self_path, args[0], args[1], args[2], args[3], args[4],
		       args[5], args[6], args[7], (char *)NULL, bare_env());
	} else if (!strcmp(hop, "fexecve")) {
		/* Through a virtual descriptor of the program file. */
		fd = open(self_path, O_RDONLY | O_CLOEXEC | O_UNSEQFD);
		if (fd < (int)FD_UNSEQ_BASE)
			die("open O_UNSEQFD");
		fexecve(fd, args, environ);
	} else if (!strcmp(hop, "execveat")) {
		/* Relative to a virtual descriptor of the directory. */
		fd = open(self_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_UNSEQFD);
		if (fd < (int)FD_UNSEQ_BASE)
			die("open O_UNSEQFD");
		execveat(fd, self_name, args, environ, 0);
	} else if (!strcmp(hop, "posix_spawn")) {
		r = posix_spawn(&pid, self_path, NULL, NULL, args, environ);
		if (r) {
			errno = r;
			die("posix_spawn");
		}
		return wait_for(pid);
	} else if (!strcmp(hop, "posix_spawnp")) {
		r = posix_spawnp(&pid, self_name, NULL, NULL, args, environ);
		if (r) {
			errno = r;
			die("posix_spawnp");
		}
		return wait_for(pid);
	} else if (!strcmp(hop, "system") || !strcmp(hop, "popen")) {
		int n = snprintf(cmd, sizeof(cmd), "%s", self_name);

		for (int i = 1; args[i]; i++)
			n += snprintf(cmd + n, sizeof(cmd) - (size_t)n, " %s", args[i]);
		/* The shell is an unmodified program under ufd: its leaks are
		 * not ours to report. */
		if (getenv("ASAN_OPTIONS")) {
			char opts[1024];

			snprintf(opts, sizeof(opts), "%s:detect_leaks=0",
				 getenv("ASAN_OPTIONS"));
			setenv("ASAN_OPTIONS", opts, 1);
		}
		fflush(stdout);
		if (!strcmp(hop, "system")) {
			r = system(cmd);
			if (r < 0)
				die("system");
			return status_of(r);
		} else {
			FILE *fp = popen(cmd, "r");
			char buf[512];
			size_t got;

			if (!fp)
				die("popen");
			while ((got = fread(buf, 1, sizeof(buf), fp)) > 0)
				fwrite(buf, 1, got, stdout);
			r = pclose(fp);
			if (r < 0)
				die("pclose");
			return status_of(r);
		}
	} else {
		fail("unknown hop '%s'", hop);
		return 1;
	}
	die(hop);
	return 1;
}

/* A file holding text, opened close-on-exec, unlinked. */
static int text_file(const char *text)
{
	char path[] = "/tmp/ufd-helper-XXXXXX";
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0)
		die("mkostemp");
	unlink(path);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("write");
	return fd;
}

static int mode_chain1(int argc, char **argv)
{
	char na[16], nb[16], nc[16], nr[16];
	char *args[9] = { NULL, "chain2", na, nb, nc, nr, NULL, NULL, NULL };
	int fa, fc, fr, a, b, c, r;

	if (argc != 4 || !need_ufd())
		return 1;
	fa = text_file("AAAA");
	fc = text_file("CCCC");
	fr = text_file("RRRR");
	a = api_nonseqfd(fa, 0);
	b = api_nonseqfd(fa, NONSEQFD_CLOEXEC);
	c = api_nonseqfd(fc, NONSEQFD_CLOFORK | NONSEQFD_CLOSE);
	/* A real descriptor, inheritable and close-on-fork, at a number no
	 * program start opens by itself. */
	r = fcntl(fr, F_DUPFD_CLOFORK, 200);
	if (a < 0 || b < 0 || c < 0 || r < 0)
		die("making the descriptors");
	close(fa);
	close(fr);
	snprintf(na, sizeof(na), "%d", a);
	snprintf(nb, sizeof(nb), "%d", b);
	snprintf(nc, sizeof(nc), "%d", c);
	snprintf(nr, sizeof(nr), "%d", r);
	args[6] = argv[2];
	args[7] = argv[3];
	return hop_to(argv[2], args);
}

static int mode_chain(int argc, char **argv, int last)
{
	int a, b, c, r;

	if (argc != 8) {
		fail("chain: %d arguments", argc);
		return 1;
	}
	a = atoi(argv[2]);
	b = atoi(argv[3]);
	c = atoi(argv[4]);
	r = atoi(argv[5]);
	check_chain(a, b, c, r, argv[last ? 7 : 6],
		    is_spawn_hop(argv[6]) || (last && is_spawn_hop(argv[7])));
	if (failures)
		return 1;
	if (last) {
		printf("chain ok\n");
		return 0;
	}
	argv[1] = "chain3";
	return hop_to(argv[7], argv);
}

/* ---- the other modes ---- */

static int mode_open5(void)
{
	int (*many)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "ufd_test_many_count");

	for (int i = 0; i < 5; i++)
		printf("%s%d", i ? " " : "", open("/dev/null", O_RDONLY));
	if (many)
		printf(" many=%d", many());
	printf("\n");
	return 0;
}

static int mode_reseed(int rounds)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), p[2];

	if (!need_ufd() || fd < 0 || pipe(p) < 0)
		return 1;
	for (int i = 0; i < rounds; i++) {
		pid_t pid = fork();
		int mine[2], theirs[2];

		if (pid < 0)
			die("fork");
		/* Two draws each: one pair may agree by chance (about one in
		 * the 4096 or more candidates), an unreseeded child agrees on
		 * both every time. */
		if (pid == 0) {
			int two[2] = { dup2(fd, FD_UNSEQ_ALLOC), dup2(fd, FD_UNSEQ_ALLOC) };

			_exit(write(p[1], two, sizeof(two)) == sizeof(two) ? 0 : 1);
		}
		mine[0] = dup2(fd, FD_UNSEQ_ALLOC);
		mine[1] = dup2(fd, FD_UNSEQ_ALLOC);
		if (read(p[0], theirs, sizeof(theirs)) != sizeof(theirs))
			die("read");
		if (wait_for(pid))
			fail("child %d", i);
		if (mine[0] < (int)FD_UNSEQ_BASE || theirs[0] < (int)FD_UNSEQ_BASE ||
		    mine[1] < (int)FD_UNSEQ_BASE || theirs[1] < (int)FD_UNSEQ_BASE)
			fail("round %d: %d %d and %d %d", i, mine[0], mine[1], theirs[0],
			     theirs[1]);
		if (mine[0] == theirs[0] && mine[1] == theirs[1])
			fail("round %d: parent and child both got %d then %d", i,
			     mine[0], mine[1]);
		close(mine[0]);
		close(mine[1]);
		printf("%d\n", mine[0]);
	}
	return failures ? 1 : 0;
}

/* Mode listv: the virtual descriptors this program has, each with the
 * file it refers to, as the shim's listing of /proc/self/fd shows them. */
static int mode_listv(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	struct stat st;

	if (!d)
		die("opendir /proc/self/fd");
	while ((e = readdir(d))) {
		long n = strtol(e->d_name, NULL, 10);

		if (!is_vfd((int)n))
			continue;
		if (fstat((int)n, &st) != 0)
			fail("fstat(%ld) of a listed virtual descriptor: %s", n,
			     strerror(errno));
		else
			printf("%ld %lu %lu\n", n, (unsigned long)st.st_dev,
			       (unsigned long)st.st_ino);
	}
	closedir(d);
	printf("end\n");
	return failures ? 1 : 0;
}

static int mode_cat(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (write(1, buf, (size_t)n) != n)
			return 1;
	return n < 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char cwd[PATH_MAX];

	load_api(0);
	find_self();
	if (!strcmp(mode, "check"))
		return mode_check(argc, argv);
	if (!strcmp(mode, "chain1"))
		return mode_chain1(argc, argv);
	if (!strcmp(mode, "chain2"))
		return mode_chain(argc, argv, 0);
	if (!strcmp(mode, "chain3"))
		return mode_chain(argc, argv, 1);
	if (!strcmp(mode, "open5"))
		return mode_open5();
	if (!strcmp(mode, "reseed") && argc == 3)
		return mode_reseed(atoi(argv[2]));
	if (!strcmp(mode, "print") && argc == 3)
		return printf("%s", argv[2]) < 0;
	if (!strcmp(mode, "cat"))
		return mode_cat();
	if (!strcmp(mode, "listv"))
		return mode_listv();
	if (!strcmp(mode, "pwd"))
		return getcwd(cwd, sizeof(cwd)) ? printf("%s\n", cwd) < 0 : 1;
	if (!strcmp(mode, "isvirt")) {
		for (int i = 2; i < argc; i++)
			printf("%s%d", i > 2 ? " " : "",
			       api_is_virtual ? api_is_virtual(atoi(argv[i])) : -2);
		printf("\n");
		return 0;
	}
	if (!strcmp(mode, "cloexec-child") && argc == 3) {
		errno = 0;
		return fcntl(atoi(argv[2]), F_GETFD) == -1 && errno == EBADF ? 0 : 1;
	}
	fprintf(stderr, "usage: ufd_helper MODE ARGS... (see the source)\n");
	return 2;
}
