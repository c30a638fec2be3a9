/* SPDX-License-Identifier: MIT */
/*
 * report_suppress.c - the sanitizer's suppressions, in ufd's format and in
 * Valgrind's (report_suppress.h).
 *
 * The file is read once into one mapping that is never freed: rules point
 * into its text.  Matching reads the rules only, so a report in a
 * sandboxed process makes no system call for it.
 */
#define _GNU_SOURCE 1
#include "report_suppress.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sections.h"
#include "sys.h"

/* A rules file larger than this is read up to it (and says so). */
#define TEXT_MAX (8u << 20)
#define RULES_MAX 4096
#define PATTERNS_MAX 16384

enum pattern_type { PAT_FUN, PAT_OBJ, PAT_SRC, PAT_ANY };

struct pattern {
	enum pattern_type type;
	const char *glob;
};

/* One rule: the kinds it applies to (a bit per report_kind); either ufd's
 * function glob (any frame), or Valgrind's patterns[first..first+count)
 * matched from frame 0. */
struct rule {
	unsigned kinds;
	const char *any_frame;
	int first, count;
};

static struct rule rules[RULES_MAX] UFD_LATE_BSS;
static int nrules;
static struct pattern patterns[PATTERNS_MAX] UFD_LATE_BSS;
static int npatterns;
static const char *libc_path; /* the object of Valgrind's frame 0 */

/* Looked up when the rules are loaded, not imported (stack.c says why). */
static int (*fnmatch_fn)(const char *, const char *, int);

#define ALL_KINDS ((1u << REPORT_NKINDS) - 1)

/* Valgrind's core error kinds, and ufd's kinds each stands for. */
static const struct {
	const char *name;
	unsigned kinds;
} valgrind_kinds[] = {
	{ "FdBadClose", 1u << REPORT_DOUBLE_CLOSE | 1u << REPORT_NOT_OWNED },
	{ "FdBadUse", 1u << REPORT_USE_AFTER_CLOSE },
	{ "FdNotClosed", 1u << REPORT_EXEC_LEAK | 1u << REPORT_EXIT_LEAK },
};

/* Valgrind's wildcards: * any run of characters, ? one; nothing else is
 * special (no brackets, unlike fnmatch). */
static int glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

/* ---- loading ---- */

/* The next line of *text, its blanks at both ends cut; NULL at the end. */
static char *next_line(char **text, int *lineno)
{
	char *line = *text, *end;

	if (!line || !*line)
		return NULL;
	end = strchr(line, '\n');
	if (end) {
		*end = 0;
		*text = end + 1;
	} else {
		*text = line + strlen(line);
	}
	(*lineno)++;
	while (*line == ' ' || *line == '\t')
		line++;
	end = line + strlen(line);
	while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = 0;
	return line;
}

/* The next line that is neither blank nor a # comment, or NULL. */
static char *next_rule_line(char **text, int *lineno)
{
	char *line;

	while ((line = next_line(text, lineno)) && (!*line || *line == '#'))
		;
	return line;
}

static void complain(const char *path, int lineno, const char *what, const char *line)
{
	fprintf(stderr, "ufd: UFD_SUPPRESS=\"%s\" line %d: %s%s%s%s; ignored\n",
		path, lineno, what, line ? " \"" : "", line ? line : "",
		line ? "\"" : "");
}

/* Does the comma-separated tool list name CoreError? */
static int names_core(const char *tools)
{
	size_t n = strlen("CoreError");

	for (const char *t = tools; t; t = strchr(t, ',') ? strchr(t, ',') + 1 : NULL)
		if (!strncmp(t, "CoreError", n) && (t[n] == ',' || t[n] == 0))
			return 1;
	return 0;
}

/* A Valgrind block whose "{" was just read: its rule, or a message. */
static void load_block(const char *path, char **text, int *lineno, int *warned_src)
{
	char *name = next_rule_line(text, lineno), *kind, *colon, *line;
	int start = *lineno, first = npatterns, usable = 1;
	unsigned kinds = 0;

	kind = name ? next_rule_line(text, lineno) : NULL;
	if (!kind || !strcmp(name, "}") || !strcmp(kind, "}")) {
		complain(path, start, "a block without a name and a kind", NULL);
		return;
	}
	colon = strchr(kind, ':');
	if (colon) {
		*colon = 0;
		if (names_core(kind))
			for (size_t i = 0; i < sizeof(valgrind_kinds) / sizeof(valgrind_kinds[0]); i++)
				if (!strcmp(colon + 1, valgrind_kinds[i].name))
					kinds = valgrind_kinds[i].kinds;
	}
	if (!colon)
		complain(path, *lineno, "not tool:kind", kind);
	else if (names_core(kind) && !kinds)
		complain(path, *lineno, "unknown CoreError kind", colon + 1);
	while ((line = next_rule_line(text, lineno)) && strcmp(line, "}")) {
		enum pattern_type type;

		if (!kinds)
			continue; /* another tool's block, skipped whole */
		if (!strcmp(line, "...")) {
			type = PAT_ANY;
		} else if (!strncmp(line, "fun:", 4)) {
			type = PAT_FUN;
		} else if (!strncmp(line, "obj:", 4)) {
			type = PAT_OBJ;
		} else if (!strncmp(line, "src:", 4)) {
			type = PAT_SRC;
			usable = 0;
			if (!(*warned_src)++)
				complain(path, *lineno, "src: frames need source "
					 "lines, which ufd's reports get outside the "
					 "process: the block never matches", NULL);
		} else {
			complain(path, *lineno, "not fun:, obj:, src: or ...", line);
			usable = 0;
			continue;
		}
		if (npatterns == PATTERNS_MAX) {
			complain(path, *lineno, "too many frames in the file", NULL);
			usable = 0;
			continue;
		}
		patterns[npatterns].type = type;
		patterns[npatterns++].glob = type == PAT_ANY ? "" : line + 4;
	}
	if (!line)
		complain(path, start, "a block without its \"}\"", NULL);
	if (!kinds || !usable || !line || nrules == RULES_MAX) {
		npatterns = first;
		return;
	}
	rules[nrules].kinds = kinds;
	rules[nrules].any_frame = NULL;
	rules[nrules].first = first;
	rules[nrules++].count = npatterns - first;
}

/* ufd's "kind:function-glob" line: its rule, or a message. */
static void load_line(const char *path, int lineno, char *line)
{
	char *colon = strchr(line, ':');
	unsigned kinds = 0;

	if (!colon || nrules == RULES_MAX) {
		complain(path, lineno, "not kind:function-glob", line);
		return;
	}
	*colon = 0;
	if (!strcmp(line, "*"))
		kinds = ALL_KINDS;
	for (int k = 0; k < REPORT_NKINDS; k++)
		if (!strcmp(line, report_kind_name[k]))
			kinds = 1u << k;
	if (!kinds) {
		complain(path, lineno, "unknown kind", line);
		return;
	}
	rules[nrules].kinds = kinds;
	rules[nrules++].any_frame = colon + 1;
}

/* The file's text in a mapping of its own, NUL-terminated, or NULL. */
static char *read_rules(const char *path)
{
	int fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path,
			       O_RDONLY | O_CLOEXEC, 0, 0, 0);
	struct stat st;
	size_t size, len = 0;
	long r;
	char *text;

	if (fd < 0) {
		fprintf(stderr, "ufd: UFD_SUPPRESS=\"%s\": cannot open (%s); "
			"ignored\n", path, strerror(-fd));
		return NULL;
	}
	r = ufd_sys6(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
	size = r < 0 || st.st_size <= 0 ? 0 : (size_t)st.st_size;
	if (size > TEXT_MAX) {
		fprintf(stderr, "ufd: UFD_SUPPRESS=\"%s\": larger than %u "
			"bytes; the rest is ignored\n", path, TEXT_MAX);
		size = TEXT_MAX;
	}
	text = ufd_sys_mmap(NULL, size + 1, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ufd_sys_is_error((long)text)) {
		ufd_sys_close(fd);
		return NULL;
	}
	while (len < size &&
	       (r = ufd_sys6(SYS_read, fd, (long)(text + len), (long)(size - len),
			     0, 0, 0)) > 0)
		len += (size_t)r;
	ufd_sys_close(fd);
	text[len] = 0;
	return text;
}

/*
 * The rules every run has unless UFD_SUPPRESS_DEFAULT=0, as Valgrind's
 * default.supp: reports in widely used programs that are not the user's
 * to fix and cost nothing where they happen (random numbering provokes
 * one; the other is a harmless double close the system's shell makes in
 * every script).  Each with its reason.
 */
static const char default_rules[] =
	/* dash (input.c, setinputfile) moves the descriptor of the script
	 * it reads to 10 or above, with close-on-exec, only when open gave
	 * it one below 10; one already at 10 or above (open's answer when
	 * 0 to 9 are all taken, or a random number) keeps no close-on-exec,
	 * and crosses every exec of the script's commands. */
	"{\n"
	"   dash-script-descriptor\n"
	"   CoreError:FdNotClosed\n"
	"   fun:open*\n"
	"   obj:*/dash\n"
	"}\n"
	/* bash 5.2 (execute_cmd.c) closes each end of a pipeline's pipe
	 * twice in the shell itself, the second close at once and failing
	 * with EBADF (strace bash -c 'echo | cat'): two reports for every
	 * pipeline and command substitution of every script, in a process
	 * of one thread where no descriptor is made between the closes.
	 * Debian's bash is stripped: its pipeline code is named by the
	 * nearest exported symbol, execute_shell_function, which a script's
	 * own double close (`exec 3<&-` twice, through do_redirections) is
	 * not, and stays reported. */
	"{\n"
	"   bash-pipeline-close\n"
	"   CoreError:FdBadClose\n"
	"   fun:close\n"
	"   fun:execute_shell_function\n"
	"   obj:*/bash\n"
	"}\n";

/* Read the rules of text, a writable copy named name in messages. */
static void load_text(const char *name, char *text)
{
	char *line;
	int lineno = 0, warned_src = 0;

	while (text && (line = next_rule_line(&text, &lineno))) {
		if (!strcmp(line, "{"))
			load_block(name, &text, &lineno, &warned_src);
		else
			load_line(name, lineno, line);
	}
}

/* The defaults parsed into the tables (writing two of their pages). */
static void load_defaults(void)
{
	static char defaults_text[sizeof(default_rules)];

	memcpy(defaults_text, default_rules, sizeof(default_rules));
	load_text("(ufd's defaults)", defaults_text);
}

/* Only the defaults, not parsed yet: at the first report (under the
 * reports' lock), not in every process. */
static int defaults_later;

void report_suppress_load(const char *path, int defaults)
{
	fnmatch_fn = (int (*)(const char *, const char *, int))dlsym(RTLD_DEFAULT,
								     "fnmatch");
	if (defaults && !path)
		defaults_later = 1;
	else if (defaults)
		load_defaults(); /* (first, in the rules' order) */
	if (path)
		load_text(path, read_rules(path));
}

/* ---- matching ---- */

/* A frame as suppressions see it: Valgrind names an unknown function
 * "???". */
struct frame {
	const char *fun, *obj;
	const char *file; /* the program's file when obj is a link to it */
};

static int frame_matches(const struct pattern *p, const struct frame *f)
{
	switch (p->type) {
	case PAT_FUN:
		return glob_match(p->glob, f->fun);
	case PAT_OBJ:
		return glob_match(p->glob, f->obj) || (f->file && glob_match(p->glob, f->file));
	default:
		return 0;
	}
}

/* Do patterns p[0..np) match frames f[0..nf) from the first?  "..." takes
 * any number of frames, tried shortest first; the stack may go on past
 * the last pattern, as in Valgrind. */
static int match_from(const struct pattern *p, int np, const struct frame *f, int nf)
{
	for (; np > 0; p++, np--) {
		if (p->type == PAT_ANY) {
			for (int skip = 0; skip <= nf; skip++)
				if (match_from(p + 1, np - 1, f + skip, nf - skip))
					return 1;
			return 0;
		}
		if (nf == 0 || !frame_matches(p, f))
			return 0;
		f++;
		nf--;
	}
	return 1;
}

int report_suppressed(enum report_kind kind, const char *call,
		      const struct stack_symbol *sym, int n)
{
	struct frame frames[STACK_FRAMES + 1];
	int nf = 0;

	if (defaults_later) {
		defaults_later = 0;
		load_defaults();
	}
	if (!nrules)
		return 0;
	/* libc's path, found at the first report, not at start-up: dladdr
	 * reads libc's whole symbol table (90,000 instructions in every
	 * process), and makes no system call. */
	if (!libc_path) {
		Dl_info info;

		libc_path = fnmatch_fn && dladdr((void *)fnmatch_fn, &info) &&
					    info.dli_fname ? info.dli_fname : "";
	}
	frames[nf].fun = call;
	frames[nf].file = NULL;
	frames[nf++].obj = libc_path;
	for (int i = 0; i < n && nf <= STACK_FRAMES; i++, nf++) {
		frames[nf].fun = sym[i].name[0] ? sym[i].name : "???";
		frames[nf].obj = sym[i].module[0] ? sym[i].module : "???";
		frames[nf].file = stack_program_file(sym[i].module);
	}
	for (int r = 0; r < nrules; r++) {
		if (!(rules[r].kinds & 1u << kind))
			continue;
		if (!rules[r].any_frame) {
			if (match_from(&patterns[rules[r].first], rules[r].count,
				       frames, nf))
				return 1;
			continue;
		}
		for (int i = 0; i < n; i++)
			if (sym[i].name[0] && fnmatch_fn &&
			    fnmatch_fn(rules[r].any_frame, sym[i].name, 0) == 0)
				return 1;
	}
	return 0;
}
