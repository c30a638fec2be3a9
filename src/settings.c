/* SPDX-License-Identifier: MIT */
/*
 * settings.c - the one place that reads the environment (settings.h).
 *
 * Every UFD_* variable is read with secure_getenv, which answers NULL in a
 * secure-execution program (glibc decides it from AT_SECURE before any
 * constructor runs, so the answer is right however early this runs): there
 * UFD_LOG would make the program create or append to a file of the
 * caller's choosing with the program's privileges, and the other settings
 * change what it does.
 */
#include "settings.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "sys.h"
#include "text.h"

/* The defaults, which load_once leaves alone when no UFD_* variable is
 * set: each must be what load_once sets for an unset variable. */
UFD_DATA_ALIGNED struct ufd_settings ufd_settings = { .inherit = 1, .report_exitcode = -1,
				      .suppress_default = 1 };

/* glibc's, declared only under _GNU_SOURCE. */
char *secure_getenv(const char *name);

extern char **environ;

/* Whether the environment holds any UFD_* variable: most processes have
 * none, and then no setting need be looked for (each look-up would scan
 * the whole environment again, at every start-up). */
static int any_setting UFD_STARTUP_RW; /* read at every start-up */

/* The value of setting `name`, or NULL: secure_getenv, once there is any
 * UFD_* variable at all. */
UFD_STARTUP static const char *setting(const char *name)
{
	return any_setting ? secure_getenv(name) : NULL;
}

/*
 * The environment setting `name`, one of the `n` values in `values` (the
 * first is the default): its index.  Anything else is reported on stderr
 * and the default used.
 */
UFD_STARTUP static int choice(const char *name, const char *const *values, int n)
{
	const char *s = setting(name);

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

/*
 * A whole decimal number in [lo, hi] from setting `name`, or `dflt` if it
 * is unset; anything else is reported on stderr and `dflt` used.
 */
UFD_STARTUP static int number(const char *name, int lo, int hi, int dflt)
{
	const char *s = setting(name), *end;
	unsigned long v;

	if (!s || !*s)
		return dflt;
	end = ufd_parse_decimal(s, (unsigned long)hi, &v);
	if (end && !*end && v >= (unsigned long)lo)
		return (int)v;
	fprintf(stderr, "ufd: %s=\"%s\" is not a number from %d to %d; "
		"ignoring it\n", name, setting(name), lo, hi);
	return dflt;
}

/* UFD_RANDOM_MAX: random mode's numbers are below it (at least 4, so that
 * [3, N) is not empty; at most 2^20, a bitmap's worth per process). */
UFD_STARTUP static void read_random_max(void)
{
	ufd_settings.random_max = number("UFD_RANDOM_MAX", 4, 1 << 20, 0);
}

/* UFD_REPORT_EXITCODE: an exit status, 0 to 255. */
UFD_STARTUP static void read_report_exitcode(void)
{
	ufd_settings.report_exitcode = number("UFD_REPORT_EXITCODE", 0, 255, -1);
}

/* UFD_SEED, if set: a number in C syntax (decimal, 0x hex).  Anything else
 * is reported and left to the kernel's random seed. */
UFD_STARTUP static void read_seed(void)
{
	const char *s = setting("UFD_SEED");
	char *end;
	unsigned long long v;

	if (!s)
		return;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s == '\0' || *end != '\0' || errno || *s == '-') {
		fprintf(stderr,
			"ufd: UFD_SEED=\"%s\" is not an unsigned number; "
			"using a random seed\n",
			s);
		return;
	}
	ufd_settings.seed_fixed = 1;
	ufd_settings.seed = v;
}

/* ---- UFD_EXCLUDE ----
 *
 * A comma-separated list of what UFD_MODE=all leaves real (and
 * UFD_MODE=random where the kernel put it): call names
 * ("socket", "accept4"; "open" also covers open64, __open_2 and
 * __open64_2, see call_family) and descriptor numbers or ranges ("3-9":
 * a descriptor the kernel numbered 3 to 9 stays where it is).
 */
#define EXCLUDED_RANGES_MAX 16

static unsigned char call_excluded[UFD_NCALLS];
static struct {
	unsigned long first, last;
} excluded_ranges[EXCLUDED_RANGES_MAX];
static int excluded_range_count;

/* The name a user would give a call: "__open64_2", "open64" and "open"
 * are all "open"; "__recv_chk" is "recv"; "pipe2" is "pipe", "accept4"
 * "accept" (a numbered successor).  Written to family. */
UFD_STARTUP static void call_family(const char *name, char *family, size_t size)
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
UFD_STARTUP static int exclude_calls(const char *item)
{
	char family[64];
	int found = 0;

	/* A second name (__open) means its first (open): the descriptors
	 * made through it are the first's. */
	for (int i = UFD_NREALS; i < UFD_NCALLS; i++)
		if (!strcmp(item, ufd_call_name(i)) && ufd_call_first(i) >= 0)
			item = ufd_call_name(ufd_call_first(i));
	for (int i = 0; i < UFD_NCALLS; i++) {
		call_family(ufd_call_name(i), family, sizeof(family));
		if (!strcmp(item, ufd_call_name(i)) || !strcmp(item, family)) {
			call_excluded[i] = 1;
			found++;
		}
	}
	return found;
}

/* "N" or "N-M" as the whole of item. */
UFD_STARTUP static int exclude_range(const char *item)
{
	unsigned long first, last;
	const char *p = ufd_parse_decimal(item, 0x7fffffff, &first);

	last = first;
	if (p && *p == '-')
		p = ufd_parse_decimal(p + 1, 0x7fffffff, &last);
	if (!p || last < first || *p)
		return -1;
	if (excluded_range_count == EXCLUDED_RANGES_MAX)
		return -2;
	excluded_ranges[excluded_range_count].first = first;
	excluded_ranges[excluded_range_count++].last = last;
	return 0;
}

UFD_STARTUP static void read_exclude(void)
{
	const char *s = setting("UFD_EXCLUDE"), *p, *why = NULL;
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
		return;
	}
	ufd_settings.exclude = 1;
	if (!ufd_settings.mode_all && !ufd_settings.mode_random) {
		fprintf(stderr, "ufd: UFD_EXCLUDE is set but has no effect "
			"without UFD_MODE=all or random\n");
	}
}

int ufd_settings_exclude(int fd, enum ufd_call call)
{
	if (call_excluded[call])
		return 1;
	for (int i = 0; i < excluded_range_count; i++)
		if ((unsigned long)fd >= excluded_ranges[i].first &&
		    (unsigned long)fd <= excluded_ranges[i].last)
			return 1;
	return 0;
}

/*
 * In a secure-execution program: secure_getenv ignores every UFD_*
 * setting; say so once, on one line, if any is set (UFD_HANDOFF is ufd's
 * own hand-off, not a setting: the constructor drops it silently), and
 * remove them all, so that the program's children, which may run with its
 * privileges but without AT_SECURE, do not get them either.  No file is
 * opened for a setting.
 */
UFD_STARTUP static void secure_settings(void)
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

/* The one walk of the environment at start-up: is there any UFD_*
 * variable (any_setting), and the fields of ufd_settings that are not
 * settings.  The first entry of a name counts, as for getenv. */
UFD_STARTUP static void read_environment(void)
{
	static const char ufd[] UFD_STARTUP_DATA = "UFD_";
	static const char handoff[] UFD_STARTUP_DATA = "UFD_HANDOFF=";
	static const char preload[] UFD_STARTUP_DATA = "LD_PRELOAD=";
	static const char dynamic_weak[] UFD_STARTUP_DATA = "LD_DYNAMIC_WEAK=";

	for (char **e = environ; e && *e; e++) {
		const char *value;

		if (**e == 'U' && ufd_skip_prefix(*e, ufd)) {
			any_setting = 1;
			if (ufd_skip_prefix(*e, handoff))
				ufd_settings.handoff_set = 1;
		} else if (**e == 'L') {
			value = ufd_skip_prefix(*e, preload);
			if (value && !ufd_settings.preload)
				ufd_settings.preload = value;
			if (ufd_skip_prefix(*e, dynamic_weak))
				ufd_settings.dynamic_weak = 1;
		}
	}
}

/*
 * value, copied into a mapping of its own, else (no memory) value itself;
 * NULL for NULL or "".  A setting whose text is read after start-up (the
 * log's destination, named in each log line) must not point into the
 * environment: programs that set their process title (PostgreSQL, nginx)
 * write over its strings.
 * A mapping, not a static buffer: a process that does not set it touches
 * no page for it, and start-up's other variables stay on as few pages.
 */
UFD_STARTUP static const char *kept(const char *value)
{
	size_t len;
	char *copy;

	if (!value || !*value)
		return NULL;
	len = strlen(value);
	copy = ufd_sys_mmap(NULL, len + 1, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ufd_sys_is_error((long)copy))
		return value;
	memcpy(copy, value, len + 1);
	return copy;
}

UFD_STARTUP static void load_once(void)
{
	static const char *const zero_one[] = { "0", "1" };
	static const char *const one_zero[] = { "1", "0" };
	static const char *const modes[] = { "transparent", "all", "random" };
	static const char *const formats[] = { "text", "json", "xml" };
	const char *suppress;
	int mode, format;

	read_environment();
	/* Without any UFD_* variable every field keeps its default, the
	 * initializer's; and there is nothing for secure_settings to drop. */
	if (!any_setting)
		return;
	secure_settings();
	ufd_settings.log = kept(setting("UFD_LOG"));
	ufd_settings.cloexec = choice("UFD_CLOEXEC", zero_one, 2);
	mode = choice("UFD_MODE", modes, 3);
	ufd_settings.mode_all = mode == 1;
	ufd_settings.mode_random = mode == 2;
	read_random_max();
	/* Its text is read at start-up only: report_out.c keeps the
	 * destination's name, a copy only when it is a file. */
	ufd_settings.report = setting("UFD_REPORT");
	if (ufd_settings.report && !*ufd_settings.report)
		ufd_settings.report = NULL;
	format = choice("UFD_REPORT_FORMAT", formats, 3);
	ufd_settings.report_json = format == 1;
	ufd_settings.report_xml = format == 2;
	ufd_settings.report_leaks = choice("UFD_REPORT_LEAKS", zero_one, 2);
	read_report_exitcode();
	suppress = setting("UFD_SUPPRESS");
	ufd_settings.suppress = suppress && *suppress ? suppress : NULL;
	read_exclude();
	read_seed();
	ufd_settings.inherit = choice("UFD_INHERIT", one_zero, 2) == 0;
	ufd_settings.suppress_default = choice("UFD_SUPPRESS_DEFAULT", one_zero, 2) == 0;
	ufd_settings.check_resolve = choice("UFD_CHECK_RESOLVE", zero_one, 2);
	ufd_settings.handoff = setting("UFD_HANDOFF");
	ufd_settings.newfd_work = ufd_settings.cloexec || mode != 0 ||
				  ufd_settings.report;
}

/*
 * pthread_atfork, as glibc's libc_nonshared.a has it (a call of
 * __register_atfork with this object's __dso_handle, so that the handlers
 * go when the object is unloaded), defined here so that the static linker
 * takes this one: the archive's lands at the end of ufd's code, a page
 * that start-up (vfd_start and the shim's fork handlers) would read for
 * it alone, a page fault in every process.  Hidden, as the archive's is.
 */
extern void *__dso_handle;
int __register_atfork(void (*prepare)(void), void (*parent)(void),
		      void (*child)(void), void *dso_handle);

UFD_STARTUP int pthread_atfork(void (*prepare)(void), void (*parent)(void),
			       void (*child)(void))
{
	return __register_atfork(prepare, parent, child, __dso_handle);
}

/*
 * Once, as pthread_once would, without its cost in every process: glibc's
 * pthread_once ends with a futex system call to wake waiters, and its
 * word would sit in .bss, a page start-up touches for nothing else.  The
 * state is in .data (initialised, so not zero: ufd_settings' page), and
 * a caller that finds another thread loading (only possible if another
 * library's constructor starts threads that make descriptors before ufd's
 * own constructor has run) yields until it is done.  As with
 * pthread_once, a call from load_once itself would never return (it
 * makes none).
 */
enum { SETTINGS_LOADING = 1, SETTINGS_LOADED, SETTINGS_UNREAD };
static int settings_state = SETTINGS_UNREAD;

UFD_STARTUP void ufd_settings_load(void)
{
	int unread = SETTINGS_UNREAD;

	if (__atomic_load_n(&settings_state, __ATOMIC_ACQUIRE) == SETTINGS_LOADED)
		return;
	if (__atomic_compare_exchange_n(&settings_state, &unread,
					SETTINGS_LOADING, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE)) {
		load_once();
		__atomic_store_n(&settings_state, SETTINGS_LOADED,
				 __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&settings_state, __ATOMIC_ACQUIRE) != SETTINGS_LOADED)
		ufd_sys6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}
