/* SPDX-License-Identifier: MIT */
/*
 * exec_names.c - the descriptors an exec names to the new program
 * (exec_names.h): its argument vector and environment read without
 * faulting and parsed for descriptor numbers.
 */
#define _GNU_SOURCE 1
#include "exec_names.h"

#include <limits.h>
#include <stdint.h>

#include "report.h"
#include "sys.h"
#include "text.h"
#include "vfd_shared.h"

/* An argument or variable is looked at in its first STR_MAX - 1 bytes;
 * most are read whole in one system call of HEAD bytes at most. */
#define STR_MAX 4096
#define HEAD 128

struct names {
	int *out;
	int n, max;
};

static void add(struct names *nm, unsigned long fd)
{
	if (nm->n < nm->max)
		nm->out[nm->n++] = (int)fd;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Bytes from p to the end of its 4 KiB page: a read that stops there
 * faults nowhere, also where ufd_sys_read_self copies directly (no
 * process_vm_readv: sys.h). */
static size_t to_page_end(const void *p)
{
	return 4096 - ((uintptr_t)p & 4095);
}

/*
 * String s into buf (STR_MAX bytes), NUL-terminated, read a page at a
 * time up to its NUL: its length, or -1 if not even its first byte can
 * be read.  A string longer than buf, or that runs into unreadable
 * memory, is cut before the digits at its end, which may be part of a
 * longer number.
 */
static long read_str(const char *s, char *buf)
{
	size_t len = 0;

	while (len < STR_MAX - 1) {
		size_t ask = to_page_end(s + len);
		const char *nul;
		long got;

		if (ask > STR_MAX - 1 - len)
			ask = STR_MAX - 1 - len;
		if (!len && ask > HEAD)
			ask = HEAD;
		got = ufd_sys_read_self(buf + len, s + len, ask);
		if (got <= 0)
			break;
		nul = ufd_find_nul(buf + len, (size_t)got);
		if (nul)
			return nul - buf;
		len += (size_t)got;
		if ((size_t)got < ask)
			break;
	}
	if (!len)
		return -1;
	while (len > 0 && is_digit(buf[len - 1]))
		len--;
	buf[len] = 0;
	return (long)len;
}

/* A descriptor number at s: the character after it, or NULL. */
static const char *number(const char *s, struct names *nm)
{
	unsigned long fd;

	s = ufd_parse_decimal(s, INT_MAX, &fd);
	if (s)
		add(nm, fd);
	return s;
}

/* s is a list of numbers and nothing else, "N" or "N,M,...": added. */
static void number_list(const char *s, struct names *nm)
{
	const char *p = s;
	unsigned long fd;

	/* Checked whole first: "--fd=3x" names nothing. */
	while ((p = ufd_parse_decimal(p, INT_MAX, &fd)) && *p == ',')
		p++;
	if (!p || *p)
		return;
	while ((s = number(s, nm)) && *s == ',')
		s++;
}

/* "/dev/fd/N" and "/proc/self/fd/N" anywhere in s. */
static void fd_paths(const char *s, struct names *nm)
{
	for (; *s; s++) {
		const char *n;

		if (*s == '/' && ((n = ufd_skip_prefix(s, "/dev/fd/")) ||
				  (n = ufd_skip_prefix(s, "/proc/self/fd/"))))
			number(n, nm);
	}
}

/* Does the option name s[0, len) end in "fd" or "fds"? */
static int fd_option(const char *s, size_t len)
{
	if (len > 3 && s[len - 1] == 's')
		len--;
	return len > 2 && s[len - 2] == 'f' && s[len - 1] == 'd';
}

/*
 * One argument: its paths, and if it is an option ending in "fd" or
 * "fds", its value.  Returns 1 if the value is the next argument.
 */
static int argument(const char *s, struct names *nm)
{
	size_t len = 0;

	fd_paths(s, nm);
	if (s[0] != '-')
		return 0;
	while (s[len] && s[len] != '=')
		len++;
	if (!fd_option(s, len))
		return 0;
	if (!s[len])
		return 1;
	number_list(s + len + 1, nm);
	return 0;
}

/* "R,W" after make's jobserver option anywhere in a MAKEFLAGS value. */
static void jobserver(const char *s, struct names *nm)
{
	for (; *s; s++) {
		const char *n;

		if (*s == '-' && ((n = ufd_skip_prefix(s, "--jobserver-auth=")) ||
				  (n = ufd_skip_prefix(s, "--jobserver-fds="))) &&
		    (n = number(n, nm)) && *n == ',')
			number(n + 1, nm);
	}
}

struct listen {
	unsigned long fds, pid;
	int has_fds, has_pid;
};

static void variable(const char *s, struct names *nm, struct listen *l)
{
	const char *v;

	if ((v = ufd_skip_prefix(s, "MAKEFLAGS=")) || (v = ufd_skip_prefix(s, "MFLAGS=")))
		jobserver(v, nm);
	else if ((v = ufd_skip_prefix(s, "UFD_INHERIT_OK=")))
		number_list(v, nm);
	else if ((v = ufd_skip_prefix(s, "LISTEN_FDS=")))
		l->has_fds = ufd_parse_decimal(v, INT_MAX, &l->fds) != NULL;
	else if ((v = ufd_skip_prefix(s, "LISTEN_PID=")))
		l->has_pid = ufd_parse_decimal(v, INT_MAX, &l->pid) != NULL;
}

/*
 * Call fn on each string of the NULL-terminated array a (argv or envp),
 * read without faulting; fn returns what it wants passed with the next.
 * Stops at the end, or where the array cannot be read.  The first HEAD
 * bytes of up to 64 strings are read in one system call (an exec's
 * environment in one or two, not two calls a variable); a string with no
 * NUL there is read on by read_str.
 */
static void each_string(char *const a[], int (*fn)(const char *, int, void *),
			void *ctx)
{
	char *batch[64], buf[STR_MAX], heads[64][HEAD];
	struct ufd_iovec mine[64], theirs[64];
	long pid = ufd_sys_getpid();
	int carry = 0;

	for (size_t i = 0; a;) {
		size_t ask = to_page_end(&a[i]), n, want = 0, end;
		long got;

		if (ask > sizeof(batch))
			ask = sizeof(batch);
		if (ask < sizeof(batch[0])) /* straddles: read whole */
			ask = sizeof(batch[0]);
		got = ufd_sys_read_self(batch, &a[i], ask);
		n = got > 0 ? (size_t)got / sizeof(batch[0]) : 0;

		if (!n)
			return;
		for (end = 0; end < n && batch[end]; end++) {
			size_t len = to_page_end(batch[end]);

			if (len > HEAD)
				len = HEAD;
			theirs[end] = (struct ufd_iovec){ batch[end], len };
			mine[end] = (struct ufd_iovec){ heads[end], len };
			want += len;
		}
		if (end && ufd_sys_read_self_pieces(pid, mine, theirs, end) != (long)want)
			want = 0; /* one unreadable: each by itself */
		for (size_t k = 0; k < end; k++) {
			const char *nul = want ? ufd_find_nul(heads[k], mine[k].len) : NULL;

			if (nul)
				carry = fn(heads[k], carry, ctx);
			else
				carry = read_str(batch[k], buf) < 0 ? 0 : fn(buf, carry, ctx);
		}
		if (end < n)
			return;
		i += n;
	}
}

static int on_argument(const char *s, int value_next, void *ctx)
{
	if (value_next)
		number_list(s, ctx);
	return argument(s, ctx);
}

struct env_ctx {
	struct names *nm;
	struct listen l;
};

static int on_variable(const char *s, int unused, void *ctx)
{
	struct env_ctx *e = ctx;

	(void)unused;
	variable(s, e->nm, &e->l);
	return 0;
}

int exec_names(char *const argv[], char *const envp[], int exec, int *out, int max)
{
	struct names nm = { out, 0, max };
	struct env_ctx e = { &nm, { 0, 0, 0, 0 } };

	each_string(argv, on_argument, &nm);
	each_string(envp, on_variable, &e);
	if (e.l.has_fds && e.l.has_pid &&
	    (!exec || e.l.pid == (unsigned long)ufd_sys_getpid()))
		for (unsigned long i = 0; i < e.l.fds && nm.n < max; i++)
			add(&nm, 3 + i); /* SD_LISTEN_FDS_START */
	return nm.n;
}

void report_exec_named(enum ufd_call call, char *const argv[], char *const envp[],
		       int exec, const int *named, int n_named, const int *closed,
		       int n_closed, int close_from)
{
	int all[EXEC_NAMES_MAX + 64], n = 0;

	/* A vfork child's exec: report.c (nothing of a child's is reported). */
	if (vfd_in_vfork_child())
		return;
	/* The caller's first (a spawn's file actions: at most 64). */
	for (; n < n_named && n < 64; n++)
		all[n] = named[n];
	/* Their strings are read only where a leak is possible: most execs
	 * pass on nothing of the program's own (a process_vm_readv or two
	 * less per exec). */
	if (report_exec_may_leak(closed, n_closed, close_from))
		n += exec_names(argv, envp, exec, all + n, EXEC_NAMES_MAX);
	report_exec(call, all, n, closed, n_closed, close_from);
}
