/* SPDX-License-Identifier: MIT */
/*
 * harness.c - the differential test's harness: the log of a run and its
 * records, fd_of (a script's descriptor, real or virtual), the helpers of
 * the scripts, and run_family, which runs a family's script once on real
 * descriptors and once on virtual ones, each in a fresh child and
 * directory, and compares the two logs record by record.
 */
#include "diff.h"

const char *const mode_name[] = { "REAL", "VIRTUAL" };

/* ufd's API, for every file of this test (ufd_test.h). */
int (*api_nonseqfd)(int, int);
int (*api_is_virtual)(int);
int (*api_backing_fd)(int);

/* ---- the log ---- */

static void log_put(struct run *r, const void *s, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		char *p;

		while (r->len + n + 1 > cap)
			cap *= 2;
		p = realloc(r->log, cap);
		if (!p)
			_exit(5);
		r->log = p;
		r->cap = cap;
	}
	memcpy(r->log + r->len, s, n);
	r->len += n;
	r->log[r->len] = '\0';
}

static void log_str(struct run *r, const char *s)
{
	log_put(r, s, strlen(s));
}

/* Bytes as text: printable ASCII as is, the rest as \xHH. */
static void log_escaped(struct run *r, const void *data, size_t n)
{
	const unsigned char *p = data;
	char esc[8];

	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
			log_put(r, &p[i], 1);
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
			log_str(r, esc);
		}
	}
}

const char *errname(int e)
{
	static char buf[32];
	const char *s = strerrorname_np(e);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void log_flush(struct run *r)
{
	while (r->sent < r->len) {
		ssize_t n = write(LOG_PIPE_FD, r->log + r->sent, r->len - r->sent);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(4);
		r->sent += (size_t)n;
	}
}

/* One record.  errno is left as it was. */
static void record(struct run *r, int line, const char *label,
		   const char *result, int err, const void *data, size_t n)
{
	int saved = errno;
	char num[16];

	snprintf(num, sizeof(num), "%d:", line);
	log_str(r, num);
	log_str(r, label);
	log_put(r, (char[]){ US }, 1);
	log_str(r, result);
	log_put(r, (char[]){ US }, 1);
	if (err)
		log_str(r, errname(err));
	log_put(r, (char[]){ US }, 1);
	if (data)
		log_escaped(r, data, n);
	log_put(r, "\n", 1);
	r->nrec++;
	log_flush(r);
	errno = saved;
}

static _Noreturn __attribute__((format(printf, 2, 3))) void
fatal(struct run *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	record(r, 0, "!FATAL", "", 0, msg, strlen(msg));
	_exit(3);
}

/* A record of data only: label, and fmt as its data. */
__attribute__((format(printf, 4, 5))) void
note(struct run *r, int line, const char *label, const char *fmt, ...)
{
	char data[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(data, sizeof(data), fmt, ap);
	va_end(ap);
	record(r, line, label, "=", 0, data, strlen(data));
}

/* The result of a call: a number, with errno if it is negative. */
long log_ret(struct run *r, int line, const char *label, long v)
{
	int e = errno;
	char res[32];

	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, v < 0 ? e : 0, NULL, 0);
	errno = e;
	return v;
}

/* The same, and errno whatever the result (isatty: 0 and ENOTTY). */
long log_errno(struct run *r, int line, const char *label, long v)
{
	int e = errno;
	char res[32];

	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, e, NULL, 0);
	errno = e;
	return v;
}

/* A new descriptor: "fd" if valid, since the numbers differ. */
int log_fd(struct run *r, int line, const char *label, int v)
{
	int e = errno;

	if (v >= 0)
		record(r, line, label, "fd", 0, NULL, 0);
	else
		log_ret(r, line, label, v);
	errno = e;
	return v;
}

/* A count of bytes, with the bytes read into buf as the data. */
long log_buf(struct run *r, int line, const char *label, long v,
	     const void *buf)
{
	int e = errno;
	char res[32];

	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, v < 0 ? e : 0, v > 0 ? buf : NULL,
	       v > 0 ? (size_t)v : 0);
	errno = e;
	return v;
}

/* The same for a vector: the first v bytes across iov. */
long log_iov(struct run *r, int line, const char *label, long v,
	     const struct iovec *iov, int cnt)
{
	int e = errno;
	char res[32], data[256];
	size_t n = 0;

	for (int i = 0; i < cnt && v > 0 && n < (size_t)v; i++) {
		size_t k = iov[i].iov_len;

		if (k > (size_t)v - n)
			k = (size_t)v - n;
		if (k > sizeof(data) - n)
			k = sizeof(data) - n;
		memcpy(data + n, iov[i].iov_base, k);
		n += k;
	}
	snprintf(res, sizeof(res), "%ld", v);
	record(r, line, label, res, v < 0 ? e : 0, n ? data : NULL, n);
	errno = e;
	return v;
}

/* A pointer: valid, or NULL / MAP_FAILED and errno. */
void *log_ptr(struct run *r, int line, const char *label, void *p)
{
	int e = errno;

	if (p == MAP_FAILED)
		record(r, line, label, "MAP_FAILED", e, NULL, 0);
	else
		record(r, line, label, p ? "ptr" : "NULL", p ? 0 : e, NULL, 0);
	errno = e;
	return p;
}

/* A call that returns an error number (posix_fallocate and the like). */
int log_errnum(struct run *r, int line, const char *label, int v)
{
	record(r, line, label, v ? errname(v) : "0", 0, NULL, 0);
	return v;
}

int log_bool(struct run *r, int line, const char *label, int v)
{
	record(r, line, label, v ? "true" : "false", 0, NULL, 0);
	return v;
}

void log_void(struct run *r, int line, const char *label)
{
	record(r, line, label, "done", errno, NULL, 0);
}


/*
 * fd_of - the descriptor a script works with.  REAL: real_fd itself.
 * VIRTUAL: a virtual duplicate that replaces it (nonseqfd with
 * NONSEQFD_CLOSE, keeping close-on-exec), checked to be virtual so that
 * the test cannot pass without the shim.  A failed creation (< 0) passes
 * through: its record already shows the failure.
 */
int fd_of(struct run *r, int real_fd)
{
	int flags = NONSEQFD_CLOSE, v;

	if (r->mode == MODE_REAL || real_fd < 0)
		return real_fd;
	if (fcntl(real_fd, F_GETFD) == FD_CLOEXEC)
		flags |= NONSEQFD_CLOEXEC;
	v = api_nonseqfd(real_fd, flags);
	if (!is_vfd(v))
		fatal(r, "fd_of(%d): nonseqfd() returned %d (%s), "
			 "not a virtual descriptor", real_fd, v,
		      strerror(errno));
	return v;
}


void fd_of_pair(struct run *r, int p[2])
{
	p[0] = fd_of(r, p[0]);
	p[1] = fd_of(r, p[1]);
}

/* ---- helpers for the scripts ---- */

/* Passed where a call expects a buffer, to get EFAULT; a variable, so
 * that the compiler does not see a constant null. */
void *volatile null_ptr;

/* Out-of-range counts, in variables for the same reason. */
volatile int minus_one = -1;
volatile int too_many_iov = IOV_MAX + 1;

void must(struct run *r, int ok, const char *what)
{
	if (!ok)
		fatal(r, "set-up failed: %s: %s", what, strerror(errno));
}

/* Create name in the run's directory holding text (set-up, unlogged). */
void make_file(struct run *r, const char *name, const char *text)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t n = strlen(text);

	must(r, fd >= 0, name);
	must(r, write(fd, text, n) == (ssize_t)n, name);
	must(r, close(fd) == 0, name);
}

/* A descriptor number, through fd_of, that is closed again: in both runs
 * the next descriptor made may reuse it, so use it at once. */
int closed_fd(struct run *r)
{
	int fd = FD_OF(r, open("/dev/null", O_RDONLY));

	LOG(r, close(fd));
	return fd;
}

/* path below the run's directory, as an absolute path. */
const char *abs_path(struct run *r, char *buf, size_t size,
		     const char *path)
{
	if (snprintf(buf, size, "%s/%s", r->dir, path) >= (int)size)
		fatal(r, "path too long: %s/%s", r->dir, path);
	return buf;
}

int same_file(dev_t dev, ino_t ino, const struct stat *ref)
{
	return ref && dev == ref->st_dev && ino == ref->st_ino;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A list of names, sorted, as one record of data. */
void note_names(struct run *r, int line, const char *label,
		char **names, int n)
{
	char data[2048] = "";
	size_t len = 0;

	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++) {
		int k = snprintf(data + len, sizeof(data) - len, "%s%s",
				 i ? "," : "", names[i]);

		if (k < 0 || (size_t)k >= sizeof(data) - len)
			break;
		len += (size_t)k;
	}
	note(r, line, label, "%d: %s", n, data);
}

/* Read a directory with getdents64 to its end, log the sorted names and
 * types. */
void log_getdents(struct run *r, int line, int fd)
{
	union {
		struct dirent64 d;
		char buf[4096];
	} u;
	char names[64][80], *list[64];
	int n = 0;
	ssize_t got;

	while ((got = log_ret(r, line, "getdents64(fd, &u, sizeof(u))",
			      (errno = 0, getdents64(fd, &u, sizeof(u))))) > 0) {
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(u.buf + off);

			if (n < 64) {
				snprintf(names[n], sizeof(names[n]), "%.60s/%d",
					 d->d_name, d->d_type);
				list[n] = names[n];
				n++;
			}
			off += d->d_reclen;
		}
	}
	if (got == 0)
		note_names(r, line, "getdents64 names", list, n);
}

/* Is the cwd the run's directory/sub? */
int cwd_is(struct run *r, const char *sub)
{
	char cwd[PATH_MAX], want[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)))
		return 0;
	if (snprintf(want, sizeof(want), "%s%s%s", r->dir, *sub ? "/" : "",
		     sub) >= (int)sizeof(want))
		return 0;
	return strcmp(cwd, want) == 0;
}

/* ==== the framework ==== */

/* A script's process: the log at LOG_PIPE_FD, a fresh umask, a time limit,
 * the run's directory as the cwd. */
static _Noreturn void child_main(script_fn *script, enum mode mode,
				 const char *dir, int wfd)
{
	struct run r = { .mode = mode };

	if (dup2(wfd, LOG_PIPE_FD) != LOG_PIPE_FD)
		_exit(2);
	close(wfd);
	/* Check's handler, inherited, would kill the whole test. */
	signal(SIGALRM, SIG_DFL);
	alarm(SCRIPT_TIMEOUT);
	umask(022);
	signal(SIGPIPE, SIG_IGN);
	snprintf(r.dir, sizeof(r.dir), "%s", dir);
	if (chdir(dir) != 0)
		fatal(&r, "chdir %s: %s", dir, strerror(errno));
	script(&r);
	record(&r, 0, "!END", "", 0, NULL, 0);
	_exit(0);
}

struct rec {
	char *label, *result, *err, *data;
};

struct outcome {
	char *log;
	size_t len;
	int status;
	struct rec *recs;
	int n;
	int ended;	/* the script ran to its end */
};

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void run_mode(script_fn *script, enum mode mode, struct outcome *o)
{
	char tmpl[] = "/tmp/ufd-diff-XXXXXX", dir[PATH_MAX];
	size_t cap = 0;
	int p[2];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, dir));
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		child_main(script, mode, dir, p[1]);
	}
	close(p[1]);
	for (;;) {
		ssize_t n;

		if (o->len + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			o->log = realloc(o->log, cap);
			ck_assert_ptr_nonnull(o->log);
		}
		n = read(p[0], o->log + o->len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		o->len += (size_t)n;
	}
	close(p[0]);
	if (!o->log) {
		o->log = malloc(1);
		ck_assert_ptr_nonnull(o->log);
	}
	o->log[o->len] = '\0';
	while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR)
		;
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Split a log into its records, in place. */
static void parse(struct outcome *o)
{
	char *line = o->log, *nl;
	int cap = 0;

	while ((nl = strchr(line, '\n'))) {
		struct rec rc;

		*nl = '\0';
		rc.label = line;
		rc.result = strchr(rc.label, US);
		rc.err = rc.result ? strchr(rc.result + 1, US) : NULL;
		rc.data = rc.err ? strchr(rc.err + 1, US) : NULL;
		if (rc.data) {
			*rc.result++ = '\0';
			*rc.err++ = '\0';
			*rc.data++ = '\0';
			if (!strcmp(rc.label, "0:!END")) {
				o->ended = 1;
			} else {
				if (o->n == cap) {
					cap = cap ? cap * 2 : 256;
					o->recs = realloc(o->recs,
							  sizeof(*o->recs) *
								  (size_t)cap);
					ck_assert_ptr_nonnull(o->recs);
				}
				o->recs[o->n++] = rc;
			}
		}
		line = nl + 1;
	}
}

static int rec_equal(const struct rec *a, const struct rec *b)
{
	return !strcmp(a->label, b->label) && !strcmp(a->result, b->result) &&
	       !strcmp(a->err, b->err) && !strcmp(a->data, b->data);
}

/* "result errno [data]" of a record, for messages. */
static void rec_text(char *buf, size_t size, const struct rec *rc)
{
	snprintf(buf, size, "%s%s%s%s%s%s", rc->result, *rc->err ? " " : "",
		 rc->err, *rc->data ? " [" : "", rc->data,
		 *rc->data ? "]" : "");
}

static void describe_end(char *buf, size_t size, const struct outcome *o)
{
	const char *sig;

	if (WIFSIGNALED(o->status)) {
		sig = sigabbrev_np(WTERMSIG(o->status));
		snprintf(buf, size, "killed by SIG%s%s", sig ? sig : "?",
			 WTERMSIG(o->status) == SIGALRM ? " (timeout)" : "");
		return;
	}
	snprintf(buf, size, "exited with %d%s", WEXITSTATUS(o->status),
		 o->ended ? "" : " before the end of the script");
}

/* Both logs side by side, differing records marked (UFD_DIFF_DUMP=1). */
static void dump(const struct outcome *o)
{
	char a[1024], b[1024];
	int n = o[0].n > o[1].n ? o[0].n : o[1].n;

	for (int i = 0; i < n; i++) {
		const struct rec *x = i < o[0].n ? &o[0].recs[i] : NULL;
		const struct rec *y = i < o[1].n ? &o[1].recs[i] : NULL;

		a[0] = b[0] = '\0';
		if (x)
			rec_text(a, sizeof(a), x);
		if (y)
			rec_text(b, sizeof(b), y);
		fprintf(stderr, "%c %4d %-44s %-30s | %s\n",
			x && y && rec_equal(x, y) ? ' ' : '*', i + 1,
			x ? x->label : y->label, a, b);
	}
}

void run_family(const char *name, script_fn *script)
{
	static char msg[4096];
	struct outcome o[2];
	char a[1024], b[1024];
	int n, first = -1;

	ck_assert_msg(api_nonseqfd != NULL,
		      "libufd.so is not loaded: nonseqfd() not found by "
		      "dlsym(); run this test under LD_PRELOAD=libufd.so");
	for (int m = 0; m < 2; m++) {
		run_mode(script, (enum mode)m, &o[m]);
		parse(&o[m]);
	}
	msg[0] = '\0';

	/* A run that could not go on. */
	for (int m = 0; m < 2 && !msg[0]; m++)
		for (int i = 0; i < o[m].n; i++)
			if (strstr(o[m].recs[i].label, "!FATAL")) {
				snprintf(msg, sizeof(msg), "%s, %s run: %s", name,
					 mode_name[m], o[m].recs[i].data);
				break;
			}

	/* The first record that differs. */
	n = o[0].n < o[1].n ? o[0].n : o[1].n;
	for (int i = 0; i < n && first < 0; i++)
		if (!rec_equal(&o[0].recs[i], &o[1].recs[i]))
			first = i;
	if (!msg[0] && first >= 0) {
		const struct rec *x = &o[0].recs[first], *y = &o[1].recs[first];

		rec_text(a, sizeof(a), x);
		rec_text(b, sizeof(b), y);
		if (strcmp(x->label, y->label))
			snprintf(msg, sizeof(msg),
				 "%s, record %d: REAL did `%s` -> %s, but "
				 "VIRTUAL did `%s` -> %s", name, first + 1,
				 x->label, a, y->label, b);
		else
			snprintf(msg, sizeof(msg),
				 "%s, record %d of %d: `%s`: REAL -> %s, "
				 "VIRTUAL -> %s", name, first + 1, o[0].n,
				 x->label, a, b);
	}

	/* A run that ended early, or logs of different lengths. */
	for (int m = 0; m < 2 && !msg[0]; m++) {
		if (o[m].ended && WIFEXITED(o[m].status) &&
		    WEXITSTATUS(o[m].status) == 0)
			continue;
		describe_end(a, sizeof(a), &o[m]);
		snprintf(msg, sizeof(msg), "%s, %s run %s after record %d `%s`",
			 name, mode_name[m], a, o[m].n,
			 o[m].n ? o[m].recs[o[m].n - 1].label : "");
	}
	if (!msg[0] && o[0].n != o[1].n) {
		const struct outcome *l = o[0].n > o[1].n ? &o[0] : &o[1];

		rec_text(a, sizeof(a), &l->recs[n]);
		snprintf(msg, sizeof(msg),
			 "%s: REAL made %d records, VIRTUAL %d; the first extra "
			 "one: `%s` -> %s", name, o[0].n, o[1].n,
			 l->recs[n].label, a);
	}
	if (!msg[0] && o[0].n == 0)
		snprintf(msg, sizeof(msg), "%s: the script logged nothing", name);

	fprintf(stderr, "diff %-12s REAL %d records, VIRTUAL %d records, %s\n",
		name, o[0].n, o[1].n, msg[0] ? "DIFFERENT" : "identical");
	if (getenv("UFD_DIFF_DUMP"))
		dump(o);
	for (int m = 0; m < 2; m++) {
		free(o[m].recs);
		free(o[m].log);
	}
	if (msg[0])
		ck_abort_msg("%s", msg);
}

