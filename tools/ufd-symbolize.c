/* SPDX-License-Identifier: MIT */
/*
 * ufd-symbolize - adds source lines, inlined frames and true names to the
 * sanitizer's reports (UFD_REPORT), outside the process that wrote them.
 *
 * A report is written with one write(2) and no other system call (a
 * program may be under a seccomp filter, in a signal handler or a vfork
 * child), so it names each frame by its module's path and the offset in
 * it, and the nearest symbol the loader knows.  This program reads those
 * reports (text, JSON or Valgrind's XML), looks each frame up in its
 * module's DWARF with elfutils' libdw (separate debug files found as gdb
 * and Valgrind find them: /usr/lib/debug/.build-id/xx/yyyy.debug and
 * .gnu_debuglink), and writes them with file:line, a frame for each
 * inlined call, and the symbol table's name where the loader only knew
 * the nearest exported symbol.  Anything it cannot look up is copied as
 * it is.  ufd-run runs it for the user.
 *
 *   ufd-symbolize [FILE]           FILE (or stdin) to stdout
 *   ufd-symbolize -i FILE          FILE rewritten in place
 *   ufd-symbolize -o OUT [FILE]    to OUT
 *   ufd-symbolize --follow FILE DONE
 *                                  FILE as it grows, to stdout, until a
 *                                  file DONE exists (then the rest)
 *   --as NAME                      with any of these: summary lines say
 *                                  the reports went to NAME (plain text,
 *                                  as "stderr"), not to FILE
 *
 * XML: each process's document goes on its own (the pieces of several
 * processes sharing a destination are told apart by their pid comment):
 * the first to the output, the others, with -o or -i, to OUT.PID.
 */
#define _GNU_SOURCE 1
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- looking a frame up ---- */

struct frame {
	char name[256];
	char file[1024]; /* "" when not known */
	int line;
	unsigned long name_off; /* from the symbol, when there is no line */
	int inlined;
};

#define MAX_INLINE 16

struct module {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

static struct module modules[256];
static int n_modules;

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The module at path, reported at its own addresses (bias 0 for a
 * library or PIE whose first segment is at 0), or NULL. */
static Dwfl_Module *module_at(const char *path)
{
	struct module *m;

	for (int i = 0; i < n_modules; i++)
		if (!strcmp(modules[i].path, path))
			return modules[i].mod;
	if (n_modules == (int)(sizeof(modules) / sizeof(modules[0])))
		return NULL;
	m = &modules[n_modules++];
	m->path = strdup(path);
	m->dwfl = dwfl_begin(&callbacks);
	if (m->dwfl) {
		m->mod = dwfl_report_elf(m->dwfl, path, path, -1, 0, false);
		dwfl_report_end(m->dwfl, NULL, NULL);
	}
	return m->mod;
}

static void copy(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

/* file (a line table's name) into dst, joined to the compilation's
 * directory dir when it is relative, as addr2line shows it. */
static void copy_path(char *dst, size_t cap, const char *dir, const char *file)
{
	if (file && file[0] != '/' && dir && dir[0])
		snprintf(dst, cap, "%s/%s", dir, file);
	else
		copy(dst, cap, file);
}

/*
 * The frames at return address `off` (an offset in the module at path,
 * as the report gives it: the file's virtual address), innermost first:
 * one per inlined call, then the function's.  Returns their number, 0 if
 * nothing is known.
 */
static int lookup(const char *path, unsigned long off, struct frame *out)
{
	Dwfl_Module *mod = module_at(path);
	GElf_Addr bias = 0, addr, sym_off = 0;
	Dwarf_Addr cu_bias = 0;
	GElf_Sym sym;
	const char *symname, *file = NULL;
	Dwarf_Die *cu, *scopes = NULL;
	Dwfl_Line *l;
	Dwarf_Attribute cd;
	const char *comp_dir = NULL;
	int line = 0, n = 0, nscopes;

	if (!mod || !off || !dwfl_module_getelf(mod, &bias))
		return 0;
	addr = off - 1 + bias; /* the call, not the return address */
	symname = dwfl_module_addrinfo(mod, addr, &sym_off, &sym, NULL, NULL, NULL);
	if ((l = dwfl_module_getsrc(mod, addr)))
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	cu = dwfl_module_addrdie(mod, addr, &cu_bias);
	if (cu)
		comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &cd));
	nscopes = cu ? dwarf_getscopes(cu, addr - cu_bias, &scopes) : 0;
	for (int i = 0; i < nscopes && n < MAX_INLINE - 1; i++) {
		Dwarf_Die *s = &scopes[i];
		int tag = dwarf_tag(s);
		Dwarf_Attribute at;
		Dwarf_Word v;
		Dwarf_Files *files;
		size_t nfiles;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		copy(out[n].name, sizeof(out[n].name), dwarf_diename(s));
		copy_path(out[n].file, sizeof(out[n].file), comp_dir, file);
		out[n].line = line;
		out[n].inlined = 1;
		n++;
		/* The caller's line: where this was inlined. */
		file = NULL;
		line = 0;
		if (dwarf_formudata(dwarf_attr(s, DW_AT_call_line, &at), &v) == 0)
			line = (int)v;
		if (dwarf_formudata(dwarf_attr(s, DW_AT_call_file, &at), &v) == 0 &&
		    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles)
			file = dwarf_filesrc(files, v, NULL, NULL);
	}
	free(scopes);
	if (!symname && !n)
		return 0;
	copy(out[n].name, sizeof(out[n].name), symname ? symname : "??");
	out[n].name[strcspn(out[n].name, "@")] = 0; /* no symbol version */
	copy_path(out[n].file, sizeof(out[n].file), comp_dir, file);
	out[n].line = line;
	out[n].name_off = (unsigned long)sym_off + 1;
	out[n].inlined = 0;
	return n + 1;
}

/* ---- output ---- */

static FILE *out;

/* The XML documents: one per process (and per exec), in the order their
 * first piece came; lines outside any document go straight out. */
struct doc {
	long pid;
	char *text;
	size_t len, cap;
	int closed;
};
static struct doc *docs;
static int n_docs, cur_doc = -1, new_doc_pending;

static void put(const char *s, size_t n)
{
	if (cur_doc >= 0) {
		struct doc *d = &docs[cur_doc];

		if (d->len + n + 1 > d->cap) {
			d->cap = (d->len + n + 1) * 2;
			d->text = realloc(d->text, d->cap);
			if (!d->text) {
				perror("ufd-symbolize");
				exit(1);
			}
		}
		memcpy(d->text + d->len, s, n);
		d->len += n;
	} else {
		fwrite(s, 1, n, out);
	}
}

static void puts_(const char *s)
{
	put(s, strlen(s));
}

static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- text ---- */

/* The frame renumbering of the current stack, and the current report's
 * first frame per original function name (its SUMMARY line). */
static int delta;
static char summary_fn[256], summary_at[1400];

static void text_frame_out(int num, const char *pc, const struct frame *f,
			   const char *module, const char *modoff)
{
	putf("    #%d %s in %s", num, pc, f->name);
	if (f->file[0])
		putf(" %s:%d", f->file, f->line);
	else
		putf("+0x%lx", f->name_off);
	putf(" (%s+%s%s)\n", module, modoff, f->inlined ? ", inlined" : "");
}

/* "    #N 0xPC in NAME+0xOFF[ (nearest exported symbol)] (MODULE+0xOFF)":
 * 1 and the line rewritten, or 0. */
static int text_frame(const char *line)
{
	char pc[32], name[256] = "", module[1024], modoff[32];
	struct frame f[MAX_INLINE];
	const char *p = line + 5, *mod, *plus, *end;
	int num, n, len;

	if (sscanf(p, "%d %31s%n", &num, pc, &len) != 2 || strncmp(pc, "0x", 2))
		return 0;
	if (num == 0)
		delta = 0;
	end = line + strlen(line);
	if (end == line || end[-1] != ')' )
		return 0;
	mod = NULL;
	for (const char *q = end - 1; q > line + 2; q--)
		if (q[0] == '/' && q[-1] == '(' && q[-2] == ' ') {
			mod = q;
			break;
		}
	if (!mod)
		return 0;
	plus = NULL;
	for (const char *q = end - 1; q > mod; q--)
		if (!strncmp(q, "+0x", 3)) {
			plus = q;
			break;
		}
	if (!plus || (size_t)(plus - mod) >= sizeof(module) ||
	    (size_t)(end - 1 - (plus + 1)) >= sizeof(modoff) || memchr(mod, '\\', (size_t)(plus - mod)))
		return 0;
	memcpy(module, mod, (size_t)(plus - mod));
	module[plus - mod] = 0;
	memcpy(modoff, plus + 1, (size_t)(end - 1 - (plus + 1)));
	modoff[end - 1 - (plus + 1)] = 0;
	if (!strncmp(p + len, " in ", 4)) {
		const char *a = p + len + 4, *b = strstr(a, "+0x");

		if (b && (size_t)(b - a) < sizeof(name)) {
			memcpy(name, a, (size_t)(b - a));
			name[b - a] = 0;
		}
	}
	n = lookup(module, strtoul(modoff, NULL, 16), f);
	if (!n)
		return 0;
	for (int i = 0; i < n; i++)
		text_frame_out(num + delta + i, pc, &f[i], module, modoff);
	if (!summary_fn[0] && name[0]) {
		/* The report's first named frame: what its SUMMARY names. */
		copy(summary_fn, sizeof(summary_fn), name);
		if (f[0].file[0])
			snprintf(summary_at, sizeof(summary_at), "%s %s:%d", f[0].name,
				 f[0].file, f[0].line);
		else
			copy(summary_at, sizeof(summary_at), f[0].name);
	}
	delta += n - 1;
	return 1;
}

static void text_line(const char *line)
{
	const char *in;

	if (strstr(line, "==ERROR: ufd: ")) {
		summary_fn[0] = summary_at[0] = 0;
		delta = 0;
	}
	if (!strncmp(line, "  (no source lines", 18))
		return; /* the hint this program answers */
	if (!strncmp(line, "    #", 5) && text_frame(line))
		return;
	if (!strncmp(line, "    #", 5) && delta) { /* renumbered after inlined ones */
		char *end;
		long num = strtol(line + 5, &end, 10);

		if (end != line + 5) {
			putf("    #%ld%s\n", num + delta, end);
			return;
		}
	}
	if (!strncmp(line, "SUMMARY: ufd: ", 14) && summary_at[0] &&
	    (in = strstr(line, " in ")) && !strcmp(in + 4, summary_fn)) {
		put(line, (size_t)(in + 4 - line));
		putf("%s\n", summary_at);
		return;
	}
	putf("%s\n", line);
}

/* ---- JSON ---- */

/* The JSON string at *p (at its opening quote) into dst, unescaped only
 * when it holds no escape (else 0: left as it is); *p past it. */
static int json_string(const char **p, char *dst, size_t cap)
{
	const char *s = *p + 1, *e = s;
	int plain = 1;

	while (*e && *e != '"') {
		if (*e == '\\') {
			plain = 0;
			if (e[1])
				e++;
		}
		e++;
	}
	*p = *e ? e + 1 : e;
	if (!plain || (size_t)(e - s) >= cap)
		return 0;
	memcpy(dst, s, (size_t)(e - s));
	dst[e - s] = 0;
	return 1;
}

static void json_put_string(const char *s)
{
	puts_("\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			putf("\\u%04x", (unsigned char)*s);
		else
			put(s, 1);
	}
	puts_("\"");
}

/* One frame object {"pc":..,"function":..,"function_offset":..,
 * "module":..,"module_offset":..[,"nearest_exported":true]} at p (its
 * '{'): rewritten as one object per frame, p past it; or 0. */
static int json_frame(const char **pp)
{
	const char *p = *pp + 1;
	char key[32], pc[32] = "", module[1024] = "", modoff[32] = "", name[256];
	struct frame f[MAX_INLINE];
	int n;

	while (*p == '"') {
		char val[1024] = "";

		if (!json_string(&p, key, sizeof(key)) || *p++ != ':')
			return 0;
		if (*p == '"') {
			if (!json_string(&p, val, sizeof(val)))
				return 0;
		} else {
			while (*p && *p != ',' && *p != '}')
				p++;
		}
		if (!strcmp(key, "pc"))
			copy(pc, sizeof(pc), val);
		else if (!strcmp(key, "module"))
			copy(module, sizeof(module), val);
		else if (!strcmp(key, "module_offset"))
			copy(modoff, sizeof(modoff), val);
		else if (!strcmp(key, "function"))
			copy(name, sizeof(name), val);
		if (*p == ',')
			p++;
	}
	if (*p != '}' || module[0] != '/' || !modoff[0])
		return 0;
	n = lookup(module, strtoul(modoff, NULL, 16), f);
	if (!n)
		return 0;
	for (int i = 0; i < n; i++) {
		putf("%s{\"pc\":\"%s\",\"function\":", i ? "," : "", pc);
		json_put_string(f[i].name);
		putf(",\"function_offset\":%lu,\"module\":", f[i].file[0] ? 0 : f[i].name_off);
		json_put_string(module);
		putf(",\"module_offset\":\"%s\"", modoff);
		if (f[i].file[0]) {
			puts_(",\"file\":");
			json_put_string(f[i].file);
			putf(",\"line\":%d", f[i].line);
		}
		puts_(f[i].inlined ? ",\"inlined\":true}" : "}");
	}
	*pp = p + 1;
	return 1;
}

static void json_line(const char *line)
{
	const char *p = line, *q;

	while ((q = strstr(p, "{\"pc\":\""))) {
		put(p, (size_t)(q - p));
		p = q;
		if (!json_frame(&p)) {
			put(p, 1);
			p++;
		}
	}
	putf("%s\n", p);
}

/* ---- XML ---- */

static char frame_buf[8192];
static size_t frame_len;
static int in_frame;

/* The text of <tag>...</tag> in s, XML-unescaped, into dst, or 0. */
static int xml_elem(const char *s, const char *tag, char *dst, size_t cap)
{
	char open[32], close[32];
	const char *a, *b;
	size_t n = 0;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	if (!(a = strstr(s, open)) || !(b = strstr(a, close)))
		return 0;
	for (a += strlen(open); a < b && n + 1 < cap; a++) {
		static const struct { const char *e; char c; } ents[] = {
			{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
			{ "&quot;", '"' }, { "&apos;", '\'' },
		};
		char c = *a;

		for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
			if (!strncmp(a, ents[i].e, strlen(ents[i].e))) {
				c = ents[i].c;
				a += strlen(ents[i].e) - 1;
				break;
			}
		dst[n++] = c;
	}
	dst[n] = 0;
	return 1;
}

static void xml_put(const char *tag, const char *s)
{
	putf("      <%s>", tag);
	for (; *s; s++)
		switch (*s) {
		case '&': puts_("&amp;"); break;
		case '<': puts_("&lt;"); break;
		case '>': puts_("&gt;"); break;
		default: put(s, 1);
		}
	putf("</%s>\n", tag);
}

/* The <frame> gathered in frame_buf, written with dir, file and line
 * (one <frame> per inlined call, as Valgrind writes them). */
static void xml_frame(void)
{
	char ip[32], obj[1024], off[32] = "";
	const char *c = strstr(frame_buf, "<!-- ufd offset ");
	struct frame f[MAX_INLINE];
	int n = 0;

	if (c)
		sscanf(c + 16, "%31s", off);
	if (c && xml_elem(frame_buf, "ip", ip, sizeof(ip)) &&
	    xml_elem(frame_buf, "obj", obj, sizeof(obj)))
		n = lookup(obj, strtoul(off, NULL, 16), f);
	if (!n) {
		put(frame_buf, frame_len);
		return;
	}
	for (int i = 0; i < n; i++) {
		char *slash = strrchr(f[i].file, '/');

		puts_("    <frame>\n");
		xml_put("ip", ip);
		xml_put("obj", obj);
		xml_put("fn", f[i].name);
		if (f[i].file[0]) {
			if (slash) {
				*slash = 0;
				xml_put("dir", f[i].file[0] ? f[i].file : "/");
				xml_put("file", slash + 1);
			} else {
				xml_put("file", f[i].file);
			}
			putf("      <line>%d</line>\n", f[i].line);
		}
		puts_("    </frame>\n");
	}
}

/* 1 if line is XML that this program handles (a document's piece). */
static int xml_line(const char *line)
{
	long pid;

	if (!strncmp(line, "<?xml ", 6)) {
		new_doc_pending = 1;
		cur_doc = -1;
		return 1; /* written again as the document's first line */
	}
	if (sscanf(line, "<!-- ufd pid %ld -->", &pid) == 1) {
		int found = -1;

		for (int i = n_docs; i-- > 0;)
			if (docs[i].pid == pid) {
				found = i;
				break;
			}
		if (new_doc_pending || found < 0) {
			docs = realloc(docs, (size_t)(n_docs + 1) * sizeof(*docs));
			if (!docs) {
				perror("ufd-symbolize");
				exit(1);
			}
			memset(&docs[n_docs], 0, sizeof(*docs));
			docs[n_docs].pid = pid;
			found = n_docs++;
			cur_doc = found;
			puts_("<?xml version=\"1.0\"?>\n");
		}
		cur_doc = found;
		new_doc_pending = 0;
		return 1;
	}
	if (cur_doc < 0)
		return 0;
	if (!strcmp(line, "    <frame>")) {
		in_frame = 1;
		frame_len = 0;
	}
	if (in_frame) {
		size_t n = strlen(line);

		if (frame_len + n + 2 < sizeof(frame_buf)) {
			memcpy(frame_buf + frame_len, line, n);
			frame_buf[frame_len + n] = '\n';
			frame_len += n + 1;
			frame_buf[frame_len] = 0;
		}
		if (!strcmp(line, "    </frame>")) {
			in_frame = 0;
			xml_frame();
		}
		return 1;
	}
	if (!strcmp(line, "</valgrindoutput>"))
		docs[cur_doc].closed = 1;
	putf("%s\n", line);
	return 1;
}

/* ---- input ---- */

/* --as NAME: where the reports are read, for their summaries. */
static const char *as_name;

/* A summary line (report_summary.h) names where its process wrote the
 * reports: with --as, the reader's name for them instead (ufd-run's
 * stderr, not the file it passes them through).  1 if it was one. */
static int summary_line(const char *line)
{
	const char *at;

	if (!as_name)
		return 0;
	if (line[0] != '{' && strstr(line, "==ERROR SUMMARY: ufd: ") &&
	    (at = strstr(line, "; written to "))) {
		put(line, (size_t)(at - line));
		putf("; written to %s\n", as_name);
		return 1;
	}
	if (!strncmp(line, "{\"ufd\":\"summary\",", strlen("{\"ufd\":\"summary\",")) &&
	    (at = strstr(line, ",\"destination\":\""))) {
		put(line, (size_t)(at - line));
		putf(",\"destination\":\"%s\"}\n", as_name);
		return 1;
	}
	return 0;
}

static void one_line(const char *line)
{
	if (xml_line(line) || summary_line(line))
		return;
	if (line[0] == '{')
		json_line(line);
	else
		text_line(line);
}

/* Each whole line of fd, until its end (follow: until the file at
 * follow exists, then its end). */
static void read_all(int fd, const char *follow)
{
	static char buf[1 << 16];
	size_t have = 0;

	for (;;) {
		int last = follow && !access(follow, F_OK);
		ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *s, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!follow || last)
				break;
			fflush(out);
			nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
			continue;
		}
		have += (size_t)r;
		buf[have] = 0;
		s = buf;
		while ((nl = memchr(s, '\n', have - (size_t)(s - buf)))) {
			*nl = 0;
			one_line(s);
			s = nl + 1;
		}
		have -= (size_t)(s - buf);
		memmove(buf, s, have);
		if (have == sizeof(buf) - 1) { /* a line longer than buf: as is */
			buf[have] = 0;
			one_line(buf);
			have = 0;
		}
	}
	if (have) {
		buf[have] = 0;
		one_line(buf);
	}
}

/* The XML documents: closed if their process ended without closing them
 * (_exit, a crash, exec), the first to out, the others to base.PID. */
static int write_docs(const char *base)
{
	int rc = 0;

	for (int i = 0; i < n_docs; i++) {
		struct doc *d = &docs[i];
		FILE *f = out;
		char name[4200];

		cur_doc = i;
		if (!d->closed)
			puts_("</valgrindoutput>\n");
		if (i && base) {
			snprintf(name, sizeof(name), "%.4000s.%ld", base, d->pid);
			for (int k = 2; !access(name, F_OK) && k < 100; k++)
				snprintf(name, sizeof(name), "%.4000s.%ld.%d", base, d->pid, k);
			if (!(f = fopen(name, "w"))) {
				perror(name);
				rc = 1;
				continue;
			}
		}
		fwrite(d->text, 1, d->len, f);
		if (f != out && fclose(f)) {
			perror(name);
			rc = 1;
		}
	}
	return rc;
}

static void usage(void)
{
	fputs("usage: ufd-symbolize [-o OUT] [FILE]\n"
	      "       ufd-symbolize -i FILE\n"
	      "       ufd-symbolize --follow FILE DONE   (until file DONE exists)\n"
	      "       --as NAME: summaries say the reports went to NAME\n"
	      "Adds source lines, inlined frames and true names to ufd's reports\n"
	      "(UFD_REPORT, text, JSON or XML); see ufd(7).\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *in_path = NULL, *out_path = NULL;
	char tmp[4200];
	const char *follow = NULL;
	int in_place = 0, fd = 0, rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out_path = argv[++i];
		else if (!strcmp(argv[i], "-i"))
			in_place = 1;
		else if (!strcmp(argv[i], "--as") && i + 1 < argc)
			as_name = argv[++i];
		else if (!strcmp(argv[i], "--follow") && i + 2 < argc) {
			in_path = argv[++i];
			follow = argv[++i];
		}
		else if (argv[i][0] == '-' && argv[i][1])
			usage();
		else if (!in_path)
			in_path = argv[i];
		else
			usage();
	}
	if ((in_place || follow) && (!in_path || out_path))
		usage();
	if (in_path && (fd = open(in_path, O_RDONLY | O_CLOEXEC)) < 0) {
		perror(in_path);
		return 1;
	}
	if (in_place) {
		snprintf(tmp, sizeof(tmp), "%s.ufd-symbolize.%d", in_path, (int)getpid());
		out_path = tmp;
	}
	out = out_path ? fopen(out_path, "w") : stdout;
	if (!out) {
		perror(out_path);
		return 1;
	}
	read_all(fd, follow);
	rc = write_docs(in_place ? in_path : out_path);
	if (fclose(out) || rc) {
		if (in_place)
			unlink(tmp);
		return 1;
	}
	if (in_place && rename(tmp, in_path)) {
		perror(in_path);
		unlink(tmp);
		return 1;
	}
	return 0;
}
