/* SPDX-License-Identifier: MIT */
/*
 * shim.c - the generated part of the shim: from calls.def, the pointers to
 * the real functions, their resolution, and every wrapper that only has to
 * translate descriptor arguments.  The wrappers that do more are in
 * shim_special.c.
 *
 * The cost on the hot path is the budget: a call on a real descriptor does
 * one range test and one jump through the real function's pointer.  There
 * is no "initialised yet?" test: each pointer starts at a stub that resolves
 * the real function on first use, and the constructor resolves them all
 * eagerly before main().
 */
#include "shim.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/auxv.h>

#include "env.h"
#include "log.h"
#include "sys.h"
#include "vfd_table.h"

#define SET_REAL(name, fn) __atomic_store_n(&ufd_real_##name, fn, __ATOMIC_RELAXED)

/* The next definition of name after this library: libc's. */
UFD_EARLY static void *lookup_real(const char *name, void *missing)
{
	void *fn = dlsym(RTLD_NEXT, name);

	return fn ? fn : missing;
}

/*
 * Per row: missing_NAME (what NAME does if libc has no such function: fail
 * with ENOSYS, since only a program linked against ufd could call it),
 * resolve_NAME (the stub the pointer starts at) and the pointer itself.
 * A variadic stub reads the optional arguments the row says the function
 * can have (one, or syscall's six), whether or not the caller gave them,
 * as glibc's own wrappers read theirs; the real function reads only those
 * its call needs.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                            \
	static ret missing_##name params                                  \
	{                                                                 \
		errno = ENOSYS;                                           \
		return (ret)(err);                                        \
	}                                                                 \
	static ret resolve_##name params;                                 \
	ret (*ufd_real_##name) params = resolve_##name;                   \
	UFD_EARLY static ret resolve_##name params                        \
	{                                                                 \
		SET_REAL(name, lookup_real(#name, (void *)missing_##name)); \
		return UFD_REAL(name) args;                               \
	}
#define UFD_HANDV(name, ret, err, params, args, last, extra, nextra, why)              \
	static ret missing_##name(UFD_UNPAREN params, ...)                \
	{                                                                 \
		errno = ENOSYS;                                           \
		return (ret)(err);                                        \
	}                                                                 \
	static ret resolve_##name(UFD_UNPAREN params, ...);               \
	ret (*ufd_real_##name)(UFD_UNPAREN params, ...) = resolve_##name; \
	__attribute__((no_sanitize_address)) static ret resolve_##name(   \
		UFD_UNPAREN params, ...)                                  \
	{                                                                 \
		va_list ap;                                               \
		extra x[6] = { 0 };                                       \
		va_start(ap, last);                                       \
		for (int i = 0; i < (nextra); i++)                        \
			x[i] = va_arg(ap, extra);                         \
		va_end(ap);                                               \
		SET_REAL(name, lookup_real(#name, (void *)missing_##name)); \
		return UFD_REAL(name)(UFD_UNPAREN args, x[0], x[1], x[2], \
				      x[3], x[4], x[5]);                  \
	}
#include "calls.def"

#pragma GCC diagnostic pop

void ufd_resolve_all(void)
{
#define UFD_WRAP(name, ret, err, params, args, fds) \
	UFD_HAND(name, ret, err, params, args, "")
#define UFD_HAND(name, ret, err, params, args, why)                                \
	if (UFD_REAL(name) == resolve_##name)                                 \
		SET_REAL(name, lookup_real(#name, (void *)missing_##name));
#include "calls.def"
}

int ufd_default_cloexec;

void fcntl_raw_clear_cloexec(int fd)
{
	ufd_sys_fcntl(fd, F_SETFD, 0);
}

/*
 * The translating wrappers: each FD(x) in a row's fds becomes one line.
 * The prototype comes first for the entry points that glibc still exports
 * but no longer declares (__fxstat and the like).
 */
#define FD(arg) arg = vfd_translate(arg);
#define PATH(arg)                           \
	char arg##_buf[ufd_path_size(arg)]; \
	arg = ufd_path(arg, arg##_buf, sizeof(arg##_buf));
#define UFD_WRAP(name, ret, err, params, args, fds)       \
	UFD_PUBLIC ret name params;                       \
	UFD_PUBLIC ret name params                        \
	{                                                 \
		__attribute__((unused)) int added_ = 0;   \
		fds return UFD_REAL(name) args;           \
	}
#define UFD_NEW(name, ret, err, params, args, fds)                   \
	UFD_PUBLIC ret name params;                                  \
	UFD_PUBLIC ret name params                                   \
	{                                                            \
		int added_ = 0;                                      \
		fds return ufd_new_fd(UFD_REAL(name) args, added_,   \
				      UFD_CALL_##name);              \
	}
#define CLOEXEC(arg, flag)                                           \
	if (__builtin_expect(ufd_default_cloexec, 0) && !(arg & flag)) { \
		arg |= flag;                                         \
		added_ = 1;                                          \
	}
#include "calls.def"

int ufd_setting(const char *name, const char *const *values, int n)
{
	const char *s = ufd_env(name);

	if (!s || !*s)
		return 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(s, values[i]))
			return i;
	/* One write, so that the line stays whole among other processes'. */
	char allowed[128] = "";

	for (int i = 0; i < n; i++)
		snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed),
			 "%s%s", i ? ", " : "", values[i]);
	fprintf(stderr, "ufd: %s=\"%s\" is not one of %s; using %s\n", name, s,
		allowed, values[0]);
	return 0;
}

const char *const ufd_call_name[UFD_NCALLS] = {
#define UFD_WRAP(name, ret, err, params, args, fds) #name,
#define UFD_HAND(name, ret, err, params, args, why) #name,
#include "calls.def"
};

/* ---- UFD_EXCLUDE ----
 *
 * A comma-separated list of what UFD_MODE=all leaves real: call names
 * ("socket", "accept4"; "open" also covers open64, __open_2 and
 * __open64_2, see call_family) and descriptor numbers or ranges ("3-9":
 * a descriptor the kernel numbered 3 to 9 stays where it is).
 */
#define EXCLUDED_RANGES_MAX 16

static unsigned char call_excluded[UFD_NCALLS];
static struct {
	int first, last;
} excluded_ranges[EXCLUDED_RANGES_MAX];
static int excluded_range_count;

/* The name a user would give a call: "__open64_2", "open64" and "open"
 * are all "open"; "__recv_chk" is "recv"; "pipe2" is "pipe", "accept4"
 * "accept" (a numbered successor).  Written to family. */
static void call_family(const char *name, char *family, size_t size)
{
	size_t n;

	while (*name == '_')
		name++;
	snprintf(family, size, "%s", name);
	n = strlen(family);
	if (n > 4 && !strcmp(family + n - 4, "_chk"))
		family[n -= 4] = '\0';
	if (n > 2 && !strcmp(family + n - 2, "_2"))
		family[n -= 2] = '\0';
	if (n > 2 && !strcmp(family + n - 2, "64"))
		family[n -= 2] = '\0';
	if (n > 1 && family[n - 1] >= '1' && family[n - 1] <= '9' &&
	    family[n - 2] >= 'a' && family[n - 2] <= 'z')
		family[n - 1] = '\0';
}

/* Mark every call that item names; returns how many. */
static int exclude_calls(const char *item)
{
	char family[64];
	int found = 0;

	for (int i = 0; i < UFD_NCALLS; i++) {
		call_family(ufd_call_name[i], family, sizeof(family));
		if (!strcmp(item, ufd_call_name[i]) || !strcmp(item, family)) {
			call_excluded[i] = 1;
			found++;
		}
	}
	return found;
}

/* A decimal number up to INT_MAX at *s; advances *s.  -1 if none. */
static long parse_fd_number(const char **s)
{
	long n = 0;

	if (**s < '0' || **s > '9')
		return -1;
	for (; **s >= '0' && **s <= '9'; (*s)++) {
		n = n * 10 + (**s - '0');
		if (n > 0x7fffffff)
			return -1;
	}
	return n;
}

/* "N" or "N-M" as the whole of item. */
static int exclude_range(const char *item)
{
	const char *p = item;
	long first = parse_fd_number(&p), last = first;

	if (first >= 0 && *p == '-') {
		p++;
		last = parse_fd_number(&p);
	}
	if (first < 0 || last < first || *p)
		return -1;
	if (excluded_range_count == EXCLUDED_RANGES_MAX)
		return -2;
	excluded_ranges[excluded_range_count].first = (int)first;
	excluded_ranges[excluded_range_count++].last = (int)last;
	return 0;
}

static void read_exclude(void)
{
	const char *s = ufd_env("UFD_EXCLUDE"), *p, *why = NULL;
	char item[64];

	if (!s || !*s)
		return;
	for (p = s; *p && !why;) {
		size_t n = strcspn(p, ",");

		if (n == 0 || n >= sizeof(item)) {
			why = n ? "an item too long" : "an empty item";
			snprintf(item, sizeof(item), "%.*s", (int)(n < 40 ? n : 40), p);
			break;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		if (item[0] >= '0' && item[0] <= '9') {
			int r = exclude_range(item);

			if (r == -1)
				why = "not a descriptor number or range N-M";
			else if (r == -2)
				why = "more than 16 ranges";
		} else if (!exclude_calls(item)) {
			why = "not a call ufd intercepts (see the README's table)";
		}
		p += n + (p[n] == ',');
	}
	if (why) {
		fprintf(stderr, "ufd: UFD_EXCLUDE=\"%s\": \"%s\" is %s; "
			"ignoring UFD_EXCLUDE\n", s, item, why);
		memset(call_excluded, 0, sizeof(call_excluded));
		excluded_range_count = 0;
	} else if (!ufd_mode_all) {
		fprintf(stderr, "ufd: UFD_EXCLUDE is set but has no effect "
			"without UFD_MODE=all\n");
	}
}

int ufd_excluded(int fd, enum ufd_call call)
{
	if (call_excluded[call])
		return 1;
	for (int i = 0; i < excluded_range_count; i++)
		if (fd >= excluded_ranges[i].first && fd <= excluded_ranges[i].last)
			return 1;
	return 0;
}

extern char **environ;

/*
 * In a secure-execution program (see env.h): ufd_env ignores every UFD_*
 * setting; say so once, on one line, if any is set (UFD_HANDOFF is ufd's
 * own hand-off, not a setting: shim_exec.c drops it silently, as
 * before), and remove them all, so that the program's children, which
 * may run with its privileges but without AT_SECURE, do not get them
 * either.  No file is opened for a setting.
 */
static void secure_settings(void)
{
	char msg[256] = "ufd: secure-execution program: ignoring";
	size_t len = strlen(msg);
	int found = 0;

	if (!getauxval(AT_SECURE))
		return;
	for (char **e = environ; e && *e;) {
		size_t n = strcspn(*e, "=");
		char name[64];

		if (strncmp(*e, "UFD_", 4) || (*e)[n] != '=' || n >= sizeof(name) ||
		    !strncmp(*e, "UFD_HANDOFF=", 12)) {
			e++;
			continue;
		}
		memcpy(name, *e, n);
		name[n] = '\0';
		if (len + n + 8 < sizeof(msg))
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s %s",
						found ? "," : "", name);
		found = 1;
		unsetenv(name); /* moves the rest down: *e is the next one */
	}
	if (!found)
		return;
	len += (size_t)snprintf(msg + len, sizeof(msg) - len,
				"%s (removed from the environment)\n",
				len + 8 < sizeof(msg) ? "" : " ...");
	ufd_sys6(SYS_write, 2, (long)msg, (long)(len < sizeof(msg) ? len : sizeof(msg) - 1),
		 0, 0, 0);
}

static void read_settings(void)
{
	static const char *const zero_one[] = { "0", "1" };
	static const char *const modes[] = { "transparent", "all" };

	secure_settings();
	ufd_log_init();
	ufd_default_cloexec = ufd_setting("UFD_CLOEXEC", zero_one, 2);
	ufd_mode_all = ufd_setting("UFD_MODE", modes, 2);
	read_exclude();
}

int ufd_interposed = 1;

/*
 * Whether the process's calls reach ufd's wrappers.  They do not when
 * libufd.so comes after libc in the lookup order: a library linked with it
 * in a program that is not (a library's dependencies are searched after
 * the program's, libc among them).  Then there is no libc after ufd for
 * RTLD_NEXT to find, and the real functions resolved to their stand-ins.
 * (A sanitizer's interceptors before ufd do not matter: they call on.)
 */
static void check_interposed(void)
{
	ufd_interposed = UFD_REAL(close) != missing_close;
}

__attribute__((constructor)) static void ufd_shim_init(void)
{
	read_settings();
	ufd_resolve_all();
	check_interposed();
	vfd_init();
	ufd_dir_init();
	ufd_exec_init();
}
