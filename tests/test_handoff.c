/* SPDX-License-Identifier: MIT */
/*
 * Description: the exec hand-off (UFD_HANDOFF) as an attacker or a broken
 * program could write it.  This test is neither linked against ufd nor
 * preloaded: it forks, and the child execs ufd_helper under
 * LD_PRELOAD=libufd.so with a hand-off of its making in the environment,
 * naming the child's own pid (exec keeps it) and descriptors the child
 * opened without ufd.  The exec is the kernel's plain execve, so nothing
 * rewrites the environment on the way.
 *
 *   corpus         every case of handoff_corpus.txt (see its header): no
 *                  crash, exactly one diagnostic for a malformed hand-off
 *                  and none for a well-formed one, nothing taken over from
 *                  a malformed one, everything open taken over from a
 *                  well-formed one, UFD_HANDOFF gone from the environment
 *   --secure       (a separate run) a setgid copy of the helper, which the
 *                  kernel starts in secure-execution mode (AT_SECURE),
 *                  ignores UFD_HANDOFF and every other UFD_* setting
 *                  (UFD_LOG creates and opens no file, UFD_MODE,
 *                  UFD_CLOEXEC, UFD_EXCLUDE, UFD_SEED, UFD_INHERIT have no
 *                  effect, at most one line on stderr); exit 77 where that
 *                  cannot be set up
 *   kb_truncated   (a known bug, run alone as an expected failure) a
 *                  hand-off without its final comma is read past its end,
 *                  into the next environment string
 *
 * Environment: UFD_TEST_HELPER (ufd_helper), UFD_TEST_SECURE_HELPER (the
 * helper linked against ufd with an absolute run path, which secure mode
 * still follows), UFD_TEST_PRELOAD, UFD_TEST_CORPUS.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_check.h"

extern char **environ;

static const char *helper_path, *secure_helper_path, *preload, *corpus_path;

/* The descriptors the launcher hands over: open, inheritable. */
#define FD1 10
#define FD2 11
#define CLOSED 12

#define DIAG "ufd: ignoring UFD_HANDOFF"

/* Like ck_assert, also outside a Check test (the --secure run): a broken
 * precondition of the launcher itself ends the process with a failure. */
#define require(cond)                                                      \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__,     \
				__LINE__, #cond);                          \
			exit(EXIT_FAILURE);                                \
		}                                                          \
	} while (0)

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		require(b->s != NULL);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void putf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct buf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(b, tmp, (size_t)n);
}

/*
 * "<dev>/<ino>" of the file that the descriptor named at s ("fd", "fd2",
 * "closed" or a number, up to the closing brace) holds in the helper, as
 * a hand-off entry carries it; "0/0" for one that is not open.  FD1 and
 * FD2 are /dev/null (see launch); a number is looked at here, in the
 * launcher's child, which has the helper's descriptors already.
 */
/* The pid of a process that has exited: reaped, or (a zombie) not. */
static pid_t dead_pid(int reaped)
{
	siginfo_t info;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	require(pid > 0);
	if (reaped)
		require(waitpid(pid, NULL, 0) == pid);
	else
		require(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == 0);
	return pid;
}

static void put_identity(struct buf *out, const char *s)
{
	struct stat st;
	int ok;

	if (!strncmp(s, "fd}", 3) || !strncmp(s, "fd2}", 4))
		ok = stat("/dev/null", &st) == 0;
	else if (!strncmp(s, "closed}", 7))
		ok = 0;
	else
		ok = fstat(atoi(s), &st) == 0;
	if (ok)
		putf(out, "%lu/%lu", (unsigned long)st.st_dev, (unsigned long)st.st_ino);
	else
		putf(out, "0/0");
}

/* Expand a corpus value (its placeholders and escapes, see
 * handoff_corpus.txt) for a helper of pid `pid`, into out. */
static void expand(const char *s, size_t n, pid_t pid, struct buf *out)
{
	const char *end = s + n;

	while (s < end) {
		if (*s == '\\' && s + 1 < end && s[1] == 'x' && s + 3 < end) {
			char hex[3] = { s[2], s[3], 0 };
			char c = (char)strtol(hex, NULL, 16);

			put(out, &c, 1);
			s += 4;
		} else if (*s == '\\' && s + 1 < end) {
			put(out, s + 1, 1);
			s += 2;
		} else if (*s == '{') {
			const char *close = s + 1;
			int depth = 1;

			while (close < end && depth) {
				depth += *close == '{';
				depth -= *close == '}';
				if (depth)
					close++;
			}
			require(close < end); /* balanced braces */
			if (!strncmp(s, "{rep:", 5)) {
				char *text;
				long times = strtol(s + 5, &text, 10);

				require(*text == ':');
				for (long i = 0; i < times; i++)
					expand(text + 1, (size_t)(close - text - 1), pid, out);
			} else if (!strncmp(s, "{id:", 4)) {
				put_identity(out, s + 4);
			} else if (!strncmp(s, "{pid}", 5)) {
				putf(out, "%d", (int)pid);
			} else if (!strncmp(s, "{ppid}", 6)) {
				putf(out, "%d", (int)getppid());
			} else if (!strncmp(s, "{deadpid}", 9)) {
				putf(out, "%d", (int)dead_pid(1));
			} else if (!strncmp(s, "{zombiepid}", 11)) {
				putf(out, "%d", (int)dead_pid(0));
			} else if (!strncmp(s, "{fd}", 4)) {
				putf(out, "%d", FD1);
			} else if (!strncmp(s, "{fd2}", 5)) {
				putf(out, "%d", FD2);
			} else if (!strncmp(s, "{closed}", 8)) {
				putf(out, "%d", CLOSED);
			} else if (!strncmp(s, "{v}", 3)) {
				putf(out, "%u", FD_UNSEQ_BASE + 5);
			} else if (!strncmp(s, "{v1}", 4)) {
				putf(out, "%u", FD_UNSEQ_BASE + 6);
			} else {
				fprintf(stderr, "unknown placeholder %.*s\n",
					(int)(close - s + 1), s);
				exit(EXIT_FAILURE);
			}
			s = close + 1;
		} else {
			put(out, s, 1);
			s++;
		}
	}
}

/* Is fd open here (so in the helper after exec: none is close-on-exec)? */
static int is_open(long fd)
{
	return fd >= 0 && fd < INT_MAX && fcntl((int)fd, F_GETFD) >= 0;
}

/*
 * The helper's check arguments for a hand-off value.  For a well-formed
 * one, each entry: its virtual descriptor taken over if its backing is
 * open, else absent; a mark on an open descriptor set.  For a malformed
 * one: every number in the virtual space absent, and the launcher's
 * descriptors plain and unmarked.
 */
static void check_args(const char *value, int ok, char **argv, int max)
{
	static char specs[64][48];
	int n = 0;

	if (ok) {
		const char *p = strchr(value, ';');

		p = strchr(p + 1, ';') + 1;
		while (*p && n < max - 1) {
			char *end;
			long a = strtol(p, &end, 10), b, f;

			if (*end == '=') {
				unsigned long dev, ino;
				struct stat st;

				b = strtol(end + 1, &end, 10);
				f = strtol(end + 1, &end, 10);
				dev = strtoul(end + 1, &end, 10);
				ino = strtoul(end + 1, &end, 10);
				/* Taken over only if still on the file named. */
				if (is_open(b) && fstat((int)b, &st) == 0 &&
				    st.st_dev == dev && st.st_ino == ino)
					snprintf(specs[n], sizeof(specs[n]), "v:%ld:%ld:%d",
						 a, b, f & 2 ? FD_CLOFORK : 0);
				else
					snprintf(specs[n], sizeof(specs[n]), "n:%ld", a);
			} else {
				f = strtol(end + 1, &end, 10);
				if (is_open(a))
					snprintf(specs[n], sizeof(specs[n]), "r:%ld:%d", a,
						 f & 2 ? FD_CLOFORK : 0);
				else
					snprintf(specs[n], sizeof(specs[n]), "n:%ld", a);
			}
			argv[n] = specs[n];
			n++;
			p = end + 1;
		}
	} else {
		for (const char *p = value; *p && n < max - 3;) {
			char *end;
			unsigned long long a;

			if (*p < '0' || *p > '9') {
				p++;
				continue;
			}
			a = strtoull(p, &end, 10);
			if (a >= FD_UNSEQ_BASE && a < FD_UNSEQ_LIMIT) {
				int dup = 0;

				snprintf(specs[n], sizeof(specs[n]), "n:%llu", a);
				for (int i = 0; i < n; i++)
					dup |= !strcmp(specs[i], specs[n]);
				if (!dup) {
					argv[n] = specs[n];
					n++;
				}
			}
			p = end;
		}
		snprintf(specs[n], sizeof(specs[n]), "r:%d:0", FD1);
		argv[n] = specs[n];
		n++;
		snprintf(specs[n], sizeof(specs[n]), "r:%d:0", FD2);
		argv[n] = specs[n];
		n++;
	}
	argv[n] = NULL;
}

/* Count occurrences of needle in s. */
static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* Read fd to its end into b. */
static void slurp(int fd, struct buf *b)
{
	char tmp[4096];
	ssize_t n;

	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		put(b, tmp, (size_t)n);
	if (!b->s)
		put(b, "", 0);
}

struct result {
	int status;
	struct buf out, err;
};

/*
 * Fork; the child opens FD1 and FD2 (inheritable), makes sure CLOSED is
 * not open, expands value for its own pid, and execs the helper at path
 * ("check" and the specs) with env_first (NULL-terminated; "%s" in one of
 * them replaced by the hand-off value), then LD_PRELOAD if preload_too,
 * then the sanitizers' options.
 */
static void launch(const char *path, const char *value, size_t value_len, int ok,
		   const char *const *env_first, int preload_too,
		   const char *const *extra_args, struct result *r)
{
	int out[2], err[2];
	pid_t pid;

	memset(r, 0, sizeof(*r));
	require(pipe2(out, O_CLOEXEC) == 0);
	require(pipe2(err, O_CLOEXEC) == 0);
	fflush(NULL);
	pid = fork();
	require(pid >= 0);
	if (pid == 0) {
		struct buf v = { 0 }, e[8];
		char *argv[80], *envp[16], pre[PATH_MAX * 2], asan[512], ubsan[512];
		int fd = open("/dev/null", O_RDONLY), n = 0, k = 0;

		if (dup2(fd, FD1) != FD1 || dup2(fd, FD2) != FD2 || dup2(out[1], 1) != 1 ||
		    dup2(err[1], 2) != 2)
			_exit(120);
		close(fd);
		close(CLOSED);
		expand(value, value_len, getpid(), &v);
		if (!v.s)
			put(&v, "", 0);
		argv[n++] = "ufd_helper";
		argv[n++] = "check";
		for (int i = 0; extra_args && extra_args[i]; i++)
			argv[n++] = (char *)extra_args[i];
		check_args(v.s, ok, argv + n, 70 - n);
		for (int i = 0; env_first[i]; i++) {
			memset(&e[i], 0, sizeof(e[i]));
			put(&e[i], env_first[i], strcspn(env_first[i], "%"));
			if (strstr(env_first[i], "%s")) {
				put(&e[i], v.s, v.len);
				put(&e[i], strstr(env_first[i], "%s") + 2,
				    strlen(strstr(env_first[i], "%s") + 2));
			}
			envp[k++] = e[i].s;
		}
		if (preload_too) {
			snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", preload);
			envp[k++] = pre;
		}
		/* The helper's own leaks are checked; a setgid one cannot be
		 * (LeakSanitizer cannot attach to it). */
		snprintf(asan, sizeof(asan), "ASAN_OPTIONS=%s%s",
			 getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
			 preload_too ? "" : ":detect_leaks=0");
		envp[k++] = asan;
		if (getenv("UBSAN_OPTIONS")) {
			snprintf(ubsan, sizeof(ubsan), "UBSAN_OPTIONS=%s",
				 getenv("UBSAN_OPTIONS"));
			envp[k++] = ubsan;
		}
		envp[k] = NULL;
		execve(path, argv, envp);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	slurp(out[0], &r->out);
	slurp(err[0], &r->err);
	close(out[0]);
	close(err[0]);
	require(waitpid(pid, &r->status, 0) == pid);
}

static void free_result(struct result *r)
{
	free(r->out.s);
	free(r->err.s);
}

/* ---- the corpus ---- */

START_TEST(hostile_handoff_corpus)
{
	static const char *const env[] = { "UFD_HANDOFF=%s", "PATH=/usr/bin:/bin", NULL };
	FILE *fp = fopen(corpus_path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, bad = 0, ok = 0;

	ck_assert_msg(fp != NULL, "%s: %s", corpus_path, strerror(errno));
	while ((len = getline(&line, &cap, fp)) >= 0) {
		struct result r;
		char *tab;
		int good, diags;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		tab = strchr(line, '\t');
		ck_assert_msg(tab != NULL, "corpus line %d: no tab", lineno);
		*tab = '\0';
		ck_assert_msg(!strcmp(line, "ok") || !strcmp(line, "bad"),
			      "corpus line %d: '%s'", lineno, line);
		good = !strcmp(line, "ok");
		ok += good;
		bad += !good;
		launch(helper_path, tab + 1, (size_t)(line + len - tab - 1), good, env,
		       1, NULL, &r);
		diags = count(r.err.s, DIAG);
		ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 &&
				      diags == (good ? 0 : 1),
			      "corpus line %d (%s '%s'): %s, %d diagnostics\n"
			      "stdout:\n%s\nstderr:\n%s",
			      lineno, line, tab + 1,
			      WIFEXITED(r.status) ? "exited" : "killed by a signal",
			      diags, r.out.s, r.err.s);
		free_result(&r);
	}
	free(line);
	fclose(fp);
	/* The corpus was read: a lost file or format is no pass. */
	ck_assert_int_ge(bad, 30);
	ck_assert_int_ge(ok, 5);
}
END_TEST

/* ---- known bug: a hand-off is read past its end ---- */

/*
 * parse_num accepts the end of the string wherever it accepts a
 * separator (strchr(ends, '\0') finds the terminator), and the parser
 * then steps past the terminator into the next environment string.  The
 * truncated "2;<pid>;<v>=<fd>/0/<id>", with "<v1>=<fd2>/0/<id>," as the following
 * environment string, takes over both; it must be refused as a whole.
 */
START_TEST(kb_truncated_handoff_overread)
{
	static const char *const env[] = { "UFD_HANDOFF=%s", "{v1}={fd2}/0/{id:fd2},", NULL };
	struct result r;
	struct buf next = { 0 };
	const char *value = "2;{pid};{v}={fd}/0/{id:fd}";
	char *expanded_env[] = { NULL, NULL, NULL };

	/* The second environment string, expanded like a value. */
	expand(env[1], strlen(env[1]), 0, &next);
	expanded_env[0] = (char *)env[0];
	expanded_env[1] = next.s;
	/* Neither number may be taken over. */
	launch(helper_path, value, strlen(value), 0,
	       (const char *const *)expanded_env, 1,
	       (const char *const[]){ "n:268435462", NULL }, &r);
	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 &&
			      count(r.err.s, DIAG) == 1,
		      "truncated hand-off: stdout:\n%s\nstderr:\n%s", r.out.s, r.err.s);
	free_result(&r);
	free(next.s);
}
END_TEST

/* ---- AT_SECURE ---- */

/*
 * A setgid copy of a helper: the kernel runs it in secure-execution mode
 * (AT_SECURE) when its group differs from the caller's, also for root.
 * There, ld.so ignores an LD_PRELOAD with a slash, so ufd loads only
 * where the program is linked against it (the secure helper, through an
 * absolute run path, which secure mode still follows).  Two runs, each
 * with a well-formed hand-off naming the helper's pid:
 *   - the linked helper: ufd is there and must ignore the hand-off (the
 *     virtual number is not open, the named descriptor stays a plain real
 *     one) and still remove UFD_HANDOFF from the environment;
 *   - the unlinked helper with LD_PRELOAD: ufd does not load; the program
 *     must start and have no virtual descriptor, its descriptors as the
 *     kernel passed them.
 * Returns 0, 1, or 77 when the setgid copy cannot be made or the kernel
 * does not start it in secure mode (not root, a nosuid file system).
 */
static int copy_setgid(const char *from, const char *dir, char *to, size_t size)
{
	char buf[65536];
	int in, out;
	ssize_t n;
	gid_t other = getegid() == 65534 ? 65533 : 65534;

	snprintf(to, size, "%s/%s", dir, strrchr(from, '/') + 1);
	in = open(from, O_RDONLY | O_CLOEXEC);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	if (fchown(out, (uid_t)-1, other) != 0 || fchmod(out, 02755) != 0) {
		close(out);
		return -1;
	}
	close(out);
	return 0;
}

/* Lines of s that start with "ufd:". */
static int ufd_lines(const char *s)
{
	int n = 0;

	for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, "ufd:", 4);
	return n;
}

/*
 * The settings in a secure-mode program: every one is ignored.  UFD_LOG
 * names a file that must not appear and one that must stay as it was;
 * the helper checks that open() gives a plain real descriptor (UFD_MODE,
 * UFD_CLOEXEC), prints two numbers drawn under UFD_SEED=1 (which must
 * differ between two runs), and finally hands a virtual descriptor's
 * backing on to its exec'd self (UFD_INHERIT=0 would close it).  Returns
 * the number of failures.
 */
static int secure_settings(const char *linked, const char *dir)
{
	char log_new[PATH_MAX], log_old[PATH_MAX], e_new[PATH_MAX + 16],
		allocs[2][64] = { "", "" };
	const char *env[] = { e_new, "UFD_MODE=all", "UFD_CLOEXEC=1",
			      "UFD_EXCLUDE=not-a-call", "UFD_SEED=1", "UFD_INHERIT=0",
			      "PATH=/usr/bin:/bin", NULL };
	struct stat st;
	int failed = 0, fd;

	snprintf(log_new, sizeof(log_new), "%s/created.log", dir);
	snprintf(log_old, sizeof(log_old), "%s/existing.log", dir);
	fd = open(log_old, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	require(fd >= 0 && write(fd, "x\n", 2) == 2 && close(fd) == 0);
	for (int run = 0; run < 2; run++) {
		struct result r;
		const char *a;

		snprintf(e_new, sizeof(e_new), "UFD_LOG=%s", run ? log_old : log_new);
		launch(linked, "", 0, 0, env, 0,
		       (const char *const[]){ "secure", "ufd", "plain-open", "alloc",
					      "alloc", "inherit", NULL },
		       &r);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
			printf("FAIL: settings in secure mode (run %d):\n%s\n%s", run,
			       r.out.s, r.err.s);
			failed++;
		}
		if (ufd_lines(r.err.s) > 1) {
			printf("FAIL: more than one line from ufd on stderr:\n%s", r.err.s);
			failed++;
		}
		a = strstr(r.out.s, "alloc ");
		snprintf(allocs[run], sizeof(allocs[run]), "%.40s", a ? a : "none");
		free_result(&r);
	}
	if (lstat(log_new, &st) == 0) {
		printf("FAIL: UFD_LOG created %s in a secure-mode program\n", log_new);
		failed++;
	}
	if (stat(log_old, &st) != 0 || st.st_size != 2) {
		printf("FAIL: UFD_LOG wrote to %s in a secure-mode program\n", log_old);
		failed++;
	}
	if (!strcmp(allocs[0], allocs[1])) {
		printf("FAIL: UFD_SEED=1 drew the same numbers twice (%s)\n", allocs[0]);
		failed++;
	}
	unlink(log_new);
	unlink(log_old);
	if (!failed)
		printf("PASS: a secure-mode program ignores UFD_LOG, UFD_MODE, "
		       "UFD_CLOEXEC, UFD_EXCLUDE, UFD_SEED, UFD_INHERIT\n");
	return failed;
}

static int secure_run(void)
{
	static const char *const env[] = { "UFD_HANDOFF=%s", "PATH=/usr/bin:/bin", NULL };
	static const char *const args[] = { "secure", NULL };
	const char *value = "2;{pid};{v}={fd}/0/{id:fd},";
	char dir[] = "/tmp/ufd-secure-XXXXXX", linked[PATH_MAX], plain[PATH_MAX];
	struct result r;
	int failed = 0, skipped = 0;

	if (geteuid() != 0) {
		printf("SKIP: making a setgid copy needs root\n");
		return 77;
	}
	if (!mkdtemp(dir) || chmod(dir, 0755) != 0 ||
	    copy_setgid(secure_helper_path, dir, linked, sizeof(linked)) != 0 ||
	    copy_setgid(helper_path, dir, plain, sizeof(plain)) != 0) {
		printf("SKIP: cannot make setgid copies in %s: %s\n", dir, strerror(errno));
		return 77;
	}

	/* 1: ufd loaded, in secure mode: the hand-off is ignored. */
	launch(linked, value, strlen(value), 0, env, 0,
	       (const char *const[]){ "secure", "ufd", NULL }, &r);
	if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 77) {
		printf("SKIP: the setgid copy did not run in secure mode (%s)\n%s",
		       dir, r.out.s);
		skipped = 1;
	} else if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		printf("FAIL: linked helper in secure mode:\n%s\n%s", r.out.s, r.err.s);
		failed = 1;
	} else {
		printf("PASS: ufd in a secure-mode program ignores UFD_HANDOFF\n");
	}
	free_result(&r);

	/* 2: LD_PRELOAD ignored by ld.so: no ufd, nothing virtual. */
	if (!skipped) {
		launch(plain, value, strlen(value), 0, env, 1, args, &r);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
			printf("FAIL: preloaded helper in secure mode:\n%s\n%s", r.out.s,
			       r.err.s);
			failed = 1;
		} else {
			printf("PASS: a secure-mode program under LD_PRELOAD starts "
			       "without virtual descriptors\n");
		}
		free_result(&r);
		failed |= secure_settings(linked, dir) != 0;
	}
	unlink(linked);
	unlink(plain);
	rmdir(dir);
	return failed ? 1 : skipped ? 77 : 0;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
	Suite *s;
	TCase *tc;

	helper_path = getenv("UFD_TEST_HELPER");
	secure_helper_path = getenv("UFD_TEST_SECURE_HELPER");
	preload = getenv("UFD_TEST_PRELOAD");
	corpus_path = getenv("UFD_TEST_CORPUS");
	if (!helper_path || !secure_helper_path || !preload || !corpus_path) {
		fprintf(stderr, "UFD_TEST_HELPER, UFD_TEST_SECURE_HELPER, "
				"UFD_TEST_PRELOAD and UFD_TEST_CORPUS must be set "
				"(tests/meson.build)\n");
		return EXIT_FAILURE;
	}
	if (argc == 2 && !strcmp(argv[1], "--secure"))
		return secure_run();

	s = suite_create("handoff");
	tc = tcase_create("corpus");
	tcase_add_test(tc, hostile_handoff_corpus);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	/* A regression test: the parser once read past a truncated value. */
	tc = tcase_create("kb_truncated");
	tcase_add_test(tc, kb_truncated_handoff_overread);
	suite_add_tcase(s, tc);

	return ufd_test_run_suite(s);
}
