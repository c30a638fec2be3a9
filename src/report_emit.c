/* SPDX-License-Identifier: MIT */
/*
 * report_emit.c - writing the sanitizer's reports (report_internal.h):
 * one at a time under a lock, symbolized in the process (module and
 * offset, the nearest symbol), in text, JSON or Valgrind's XML, each with
 * one write (report_out.h); and the double closes held back until a
 * close-all loop is told apart.  Source lines and true names are added
 * later, outside the process, by ufd-symbolize (tools/ufd-symbolize.c).
 */
#define _GNU_SOURCE 1
#include "report_internal.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "escape.h"
#include "fdname.h"
#include "report_out.h"
#include "report_suppress.h"
#include "report_summary.h"
#include "settings.h"
#include "stack.h"
#include "sections.h"
#include "sys.h"
#include "text.h"
#include "vfd_table.h"

static int reported; /* a report was written: UFD_REPORT_EXITCODE */

/* Reports are written one at a time: owner is the writing thread's id. */
static uint32_t owner;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static int lock_reports(void)
{
	uint32_t me = gettid_raw(), free_ = 0;

	if (__atomic_load_n(&owner, __ATOMIC_RELAXED) == me)
		return -1; /* a handler inside this thread's report: dropped */
	while (!__atomic_compare_exchange_n(&owner, &free_, me, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		free_ = 0;
		cpu_relax(); /* no system call: see my_tid */
	}
	return 0;
}

static void unlock_reports(void)
{
	__atomic_store_n(&owner, 0, __ATOMIC_RELEASE);
}

#define OUT_MAX 65536
static char out[OUT_MAX] UFD_LATE_BSS; /* the report being written; the lock held */
static size_t out_len;

static void o_mem(const char *s, size_t n)
{
	if (n > OUT_MAX - 1 - out_len)
		n = OUT_MAX - 1 - out_len;
	memcpy(out + out_len, s, n);
	out_len += n;
}

static void o_str(const char *s)
{
	o_mem(s, strlen(s));
}

static void o_num(unsigned long n)
{
	char d[24];

	o_mem(d, (size_t)(ufd_put_decimal(d, n) - d));
}

static void o_hex(uintptr_t n)
{
	char d[2 + 2 * sizeof(n)], *p = d + sizeof(d);

	do
		*--p = "0123456789abcdef"[n & 15];
	while (n >>= 4);
	*--p = 'x';
	*--p = '0';
	o_mem(p, (size_t)(d + sizeof(d) - p));
}

/* s as report text, escaped (escape.h). */
static void o_text(const char *s)
{
	out_len += escape_text(out + out_len, OUT_MAX - 1 - out_len, s);
}

/* s as a JSON string, quotes included (escape.h). */
static void o_json(const char *s)
{
	o_str("\"");
	out_len += escape_json(out + out_len, OUT_MAX - 1 - out_len, s);
	o_str("\"");
}

/* ---- stacks, symbolized ---- */

struct sym_stack {
	int n;
	uintptr_t pc[STACK_FRAMES];
	struct stack_symbol sym[STACK_FRAMES];
};

/* Three stacks at most per report (the call's, the close's, the
 * making's); the lock held. */
static struct sym_stack stacks[3] UFD_LATE_BSS;

static void symbolize(uint32_t id, struct sym_stack *s)
{
	s->n = stack_frames(id, s->pc, STACK_FRAMES);
	for (int i = 0; i < s->n; i++)
		stack_symbolize(s->pc[i], &s->sym[i]);
}

static void o_text_stack(const struct sym_stack *s)
{
	if (!s->n)
		o_str("    (no stack)\n");
	for (int i = 0; i < s->n; i++) {
		const struct stack_symbol *y = &s->sym[i];

		o_str("    #");
		o_num((unsigned long)i);
		o_str(" ");
		o_hex(s->pc[i]);
		if (y->name[0]) {
			o_str(" in ");
			o_text(y->name);
			o_str("+");
			o_hex(y->name_off);
			if (!y->exact)
				o_str(" (nearest exported symbol)");
		}
		if (y->module[0]) {
			o_str(" (");
			o_text(y->module);
			o_str("+");
			o_hex(y->module_off);
			o_str(")");
		}
		o_str("\n");
	}
}

static void o_json_stack(const struct sym_stack *s)
{
	o_str("[");
	for (int i = 0; i < s->n; i++) {
		const struct stack_symbol *y = &s->sym[i];

		o_str(i ? ",{\"pc\":\"" : "{\"pc\":\"");
		o_hex(s->pc[i]);
		o_str("\",\"function\":");
		o_json(y->name);
		o_str(",\"function_offset\":");
		o_num(y->name_off);
		o_str(",\"module\":");
		o_json(y->module);
		o_str(",\"module_offset\":\"");
		o_hex(y->module_off);
		o_str(y->name[0] && !y->exact ? "\",\"nearest_exported\":true}" : "\"}");
	}
	o_str("]");
}

/* One line of a text report that ufd-symbolize, which adds source lines
 * and true names, replaces: how to get them. */
#ifdef UFD_HAVE_SYMBOLIZER
#define SOURCE_LINES_HINT \
	"  (no source lines yet: ufd-run adds them, or pipe this through ufd-symbolize)\n"
#else
#define SOURCE_LINES_HINT \
	"  (no source lines: ufd-symbolize needs elfutils' libdw; install libdw-dev " \
	"and rebuild ufd)\n"
#endif

static const char *const kind_words[REPORT_NKINDS] = {
	"double close of descriptor ",
	"use after close of descriptor ",
	"close of a descriptor that is not the program's: ",
	"descriptor past FD_SETSIZE (1024), in no fd_set: ",
	"leak across exec: not close-on-exec and never meant to be inherited: descriptor ",
	"leak at exit: still open: descriptor ",
};

/* What fd refers to, as its record says (fdname.h: named when it was
 * made, kept when it is closed), "" if not known.  For one of ufd's
 * backing descriptors, what the virtual descriptor it backs refers to.
 * No system call. */
static const char *refers_to(const struct report *r)
{
	int of = r->fd >= 0 && !vfd_in_space(r->fd) ? vfd_owner(r->fd) : -1;

	return fdname_text(of >= 0 ? report_name_of(of) : r->rec.name);
}

static const char *call_name(enum ufd_call call)
{
	return call < UFD_NCALLS ? ufd_call_name(call)
	       : call == REPORT_CALL_NONSEQFD ? "nonseqfd"
	       : call == REPORT_CALL_FD_SET   ? "FD_SET"
					      : "?";
}

/* One part of a report: in text "  TITLE by CALL in thread TID:" and the
 * stack's lines; in JSON ,"KEY":{"call":"CALL","thread":TID,"stack":[...]}.
 * Done in epoch ep before this one: the thread was an ancestor's, named
 * (" of process PID, before a fork"; "process":PID). */
static void o_part(const char *key, const char *title, enum ufd_call call,
		   uint32_t tid, uint8_t ep, const struct sym_stack *s)
{
	int json = ufd_settings.report_json;

	o_str(json ? ",\"" : "  ");
	o_str(json ? key : title);
	o_str(json ? "\":{\"call\":\"" : " by ");
	o_str(call_name(call));
	o_str(json ? "\",\"thread\":" : " in thread ");
	o_num(tid);
	if (ep != epoch) {
		o_str(json ? ",\"process\":" : " of process ");
		o_num(epoch_pid[ep]);
		o_str(json ? "" : ", before a fork");
	}
	if (json) {
		o_str(",\"stack\":");
		o_json_stack(s);
		o_str("}");
	} else {
		o_str(":\n");
		o_text_stack(s);
	}
}

/* The call's, the close's and the making's parts of report r. */
static void o_parts(const struct report *r, const struct sym_stack *call,
		    const struct sym_stack *closed, const struct sym_stack *made)
{
	if (r->kind != REPORT_EXIT_LEAK)
		o_part("call", r->kind == REPORT_EXEC_LEAK ? "crossing" : "call",
		       r->call, r->tid, epoch, call);
	if (r->with_closed)
		o_part("closed",
		       r->kind == REPORT_DOUBLE_CLOSE ? "first closed" : "closed",
		       r->rec.closed_call, r->rec.closed_tid, r->rec.closed_epoch,
		       closed);
	if (r->rec.made_tid) /* made while recording */
		o_part("made", "made", r->rec.made_call, r->rec.made_tid,
		       r->rec.made_epoch, made);
}

/* ---- Valgrind's XML (UFD_REPORT_FORMAT=xml) ---- */

/*
 * One document per process, as Valgrind writes it (protocol version 6,
 * 3.27.1's): its head with the first report, an <error> per report, its
 * end at exit.  Each piece is one write, and each carries a comment
 * "<!-- ufd pid N -->" after its first line, so that ufd-symbolize can
 * give each process of a shared destination its own document.  A frame
 * carries a comment with its offset in its object, which ufd-symbolize
 * reads to add dir, file and line.  xml_* are the lock's, but for the
 * process's parent (report_emit_init, the fork child).
 */
static int xml_head_done, xml_finished;
static uint32_t xml_errors;	/* <unique> of the next one */
static uint32_t xml_counts[1024] UFD_LATE_BSS; /* reports merged into each <unique> */
static uint32_t xml_ppid;
static char xml_exe[256];

/* s escaped for XML character data (report text first, so no control
 * character nor invalid UTF-8 is left). */
static void o_xml(const char *s)
{
	char t[1024];
	size_t n = escape_text(t, sizeof(t) - 1, s);

	for (size_t i = 0; i < n; i++)
		switch (t[i]) {
		case '&': o_str("&amp;"); break;
		case '<': o_str("&lt;"); break;
		case '>': o_str("&gt;"); break;
		case '"': o_str("&quot;"); break;
		case '\'': o_str("&apos;"); break;
		default: o_mem(&t[i], 1);
		}
}

static void o_xml_pid(void)
{
	o_str("<!-- ufd pid ");
	o_num(my_pid);
	o_str(" -->\n");
}

static void o_xml_head(void)
{
	o_str("<?xml version=\"1.0\"?>\n");
	o_xml_pid();
	o_str("\n<valgrindoutput>\n\n<protocolversion>6</protocolversion>\n"
	      "<protocoltool>none</protocoltool>\n\n<preamble>\n"
	      "  <line>ufd, the descriptor sanitizer (UFD_REPORT); Valgrind's format</line>\n"
	      "  <line>Command: ");
	o_xml(xml_exe);
	o_str("</line>\n</preamble>\n\n<pid>");
	o_num(my_pid);
	o_str("</pid>\n<ppid>");
	o_num(xml_ppid);
	o_str("</ppid>\n<tool>none</tool>\n\n<args>\n  <vargv>\n    <exe>libufd.so</exe>\n"
	      "  </vargv>\n  <argv>\n    <exe>");
	o_xml(xml_exe);
	o_str("</exe>\n  </argv>\n</args>\n\n<status>\n  <state>RUNNING</state>\n"
	      "  <time>00:00:00:00.000 </time>\n</status>\n\n");
}

static void o_xml_stack(const char *auxwhat, uint8_t ep, const struct sym_stack *s)
{
	if (auxwhat) {
		o_str("  <auxwhat>");
		o_str(auxwhat); /* Valgrind's words: tools may match them */
		if (ep != epoch) {
			o_str(" in process ");
			o_num(epoch_pid[ep]);
			o_str(", before a fork");
		}
		o_str("</auxwhat>\n");
	}
	o_str("  <stack>\n");
	for (int i = 0; i < s->n; i++) {
		const struct stack_symbol *y = &s->sym[i];

		o_str("    <frame>\n      <ip>");
		o_hex(s->pc[i]);
		o_str("</ip>\n");
		if (y->module[0]) {
			o_str("      <obj>");
			o_xml(y->module);
			o_str("</obj>\n      <!-- ufd offset ");
			o_hex(y->module_off);
			o_str(" -->\n");
		}
		if (y->name[0]) {
			o_str("      <fn>");
			o_xml(y->name);
			o_str(y->exact ? "" : " (nearest exported symbol)");
			o_str("</fn>\n");
		}
		o_str("    </frame>\n");
	}
	o_str("  </stack>\n");
}

/* Report r as an <error>: Valgrind's kinds FdBadClose, FdBadUse and
 * FdNotClosed, ufd's kind in <what> for those Valgrind has not. */
static void o_xml_report(const struct report *r, const char *target,
			 const struct sym_stack *call, const struct sym_stack *closed,
			 const struct sym_stack *made)
{
	static const char *const kinds[REPORT_NKINDS] = {
		"FdBadClose", "FdBadUse", "FdBadClose", "FdBadUse",
		"FdNotClosed", "FdNotClosed",
	};
	int first = 1;

	if (!xml_head_done)
		o_xml_head();
	else
		o_xml_pid();
	xml_head_done = 1;
	if (xml_errors < sizeof(xml_counts) / sizeof(xml_counts[0]))
		xml_counts[xml_errors] = 1 + r->more;
	o_str("<error>\n  <unique>");
	o_hex(xml_errors++);
	o_str("</unique>\n  <tid>");
	o_num(r->tid);
	o_str("</tid>\n  <kind>");
	o_str(kinds[r->kind]);
	o_str("</kind>\n  <fd>");
	o_num((unsigned long)r->fd);
	o_str("</fd>\n");
	if (target[0]) {
		o_str("  <path>");
		o_xml(target);
		o_str("</path>\n");
	}
	o_str("  <what>");
	if (r->kind == REPORT_DOUBLE_CLOSE || r->kind == REPORT_EXIT_LEAK) {
		o_str(r->kind == REPORT_EXIT_LEAK ? "Open file descriptor " : "File descriptor ");
		o_num((unsigned long)r->fd);
		if (target[0]) {
			o_str(": ");
			o_xml(target);
		}
		o_str(r->kind == REPORT_EXIT_LEAK ? "" : " is already closed");
	} else if (r->kind == REPORT_USE_AFTER_CLOSE) {
		o_str("File descriptor ");
		o_num((unsigned long)r->fd);
		o_str(" was closed already");
	} else {
		o_str("ufd: ");
		o_str(report_kind_name[r->kind]);
		o_str(": ");
		o_str(kind_words[r->kind]);
		if (r->what) {
			o_xml(r->what);
			o_str(" ");
		}
		o_num((unsigned long)r->fd);
	}
	if (r->more) {
		o_str(", and ");
		o_num(r->more);
		o_str(" more like it");
	}
	o_str("</what>\n");
	if (r->kind != REPORT_EXIT_LEAK) {
		o_xml_stack(NULL, epoch, call);
		first = 0;
	}
	if (r->with_closed)
		o_xml_stack("Previously closed", r->rec.closed_epoch, closed);
	if (r->rec.made_tid)
		o_xml_stack(first ? NULL : "Originally opened", r->rec.made_epoch, made);
	o_str("</error>\n\n");
}

void report_emit_init(void)
{
	long n;

	if (!ufd_settings.report_xml)
		return;
	xml_ppid = (uint32_t)ufd_sys6(SYS_getppid, 0, 0, 0, 0, 0, 0);
	n = ufd_sys6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)xml_exe,
		     sizeof(xml_exe) - 1, 0, 0);
	xml_exe[n > 0 ? n : 0] = 0;
}

/* The summary line (report_summary.h), text or JSON, if this process
 * reported. */
static void emit_summary(void)
{
	if (lock_reports() < 0)
		return;
	out_len = report_summary_format(out, OUT_MAX, my_pid, ufd_settings.report_json,
					report_out_name());
	if (out_len)
		report_out_write(out, out_len);
	unlock_reports();
}

void report_emit_exit(int after_leaks)
{
	if (!ufd_settings.report_xml) {
		if (after_leaks)
			emit_summary();
		return;
	}
	if (!xml_head_done || lock_reports() < 0)
		return;
	out_len = 0;
	if (!xml_finished) {
		o_xml_pid();
		o_str("<status>\n  <state>FINISHED</state>\n"
		      "  <time>00:00:00:00.000 </time>\n</status>\n\n");
		xml_finished = 1;
	}
	if (after_leaks) {
		if (!out_len)
			o_xml_pid();
		o_str("<errorcounts>\n");
		for (uint32_t i = xml_errors; i-- > 0;) {
			if (i >= sizeof(xml_counts) / sizeof(xml_counts[0]))
				continue;
			o_str("  <pair>\n    <count>");
			o_num(xml_counts[i]);
			o_str("</count>\n    <unique>");
			o_hex(i);
			o_str("</unique>\n  </pair>\n");
		}
		o_str("</errorcounts>\n\n</valgrindoutput>\n\n");
	}
	report_out_write(out, out_len);
	unlock_reports();
}

static void emit(const struct report *r)
{
	struct sym_stack *call = &stacks[0], *closed = &stacks[1], *made = &stacks[2];
	int leak = r->kind == REPORT_EXEC_LEAK || r->kind == REPORT_EXIT_LEAK;
	/* Reports of these kinds are of a number the kernel said EBADF for
	 * (or would: a close of a closed one). */
	int closed_now = r->kind == REPORT_DOUBLE_CLOSE || r->kind == REPORT_USE_AFTER_CLOSE;
	const char *target;
	const struct stack_symbol *top;

	if (lock_reports() < 0)
		return;
	symbolize(r->stack, call);
	symbolize(r->with_closed ? r->rec.closed_stack : 0, closed);
	symbolize(r->rec.made_tid ? r->rec.made_stack : 0, made);
	if (report_suppressed(r->kind,
			      call_name(leak ? r->rec.made_call : r->call),
			      (leak ? made : call)->sym, (leak ? made : call)->n)) {
		report_summary_count(r->kind, 1);
		unlock_reports();
		return;
	}
	report_summary_count(r->kind, 0);
	__atomic_store_n(&reported, 1, __ATOMIC_RELAXED);
	target = refers_to(r);
	/* The SUMMARY's place: the top frame, by its function when that is
	 * known for sure, else by its module and offset (a stripped program's
	 * frame is no libc function's, whatever the nearest named one is). */
	top = (leak ? made : call)->n ? &(leak ? made : call)->sym[0] : NULL;
	out_len = 0;
	if (ufd_settings.report_xml) {
		o_xml_report(r, target, call, closed, made);
	} else if (ufd_settings.report_json) {
		o_str("{\"ufd\":\"report\",\"kind\":\"");
		o_str(report_kind_name[r->kind]);
		o_str("\",\"pid\":");
		o_num(my_pid);
		o_str(",\"fd\":");
		o_num((unsigned long)r->fd);
		o_str(closed_now ? ",\"open\":false" : ",\"open\":true");
		o_str(",\"refers_to\":");
		o_json(target);
		if (r->what) {
			o_str(",\"what\":");
			o_json(r->what);
		}
		if (r->more) {
			o_str(",\"more\":");
			o_num(r->more);
		}
		o_parts(r, call, closed, made);
		o_str("}\n");
	} else {
		o_str("==");
		o_num(my_pid);
		o_str("==ERROR: ufd: ");
		o_str(report_kind_name[r->kind]);
		o_str(": ");
		o_str(kind_words[r->kind]);
		if (r->what) {
			o_str(r->what);
			o_str(" ");
		}
		o_num((unsigned long)r->fd);
		/* "(NAME)", "(not open)", "(not open, was NAME)". */
		if (closed_now || target[0]) {
			o_str(closed_now ? " (not open" : " (");
			o_str(closed_now && target[0] ? ", was " : "");
			o_text(target);
			o_str(")");
		}
		if (r->more) {
			o_str(", and ");
			o_num(r->more);
			o_str(" more like it");
		}
		o_str("\n");
		o_parts(r, call, closed, made);
		o_str(SOURCE_LINES_HINT);
		o_str("SUMMARY: ufd: ");
		o_str(report_kind_name[r->kind]);
		o_str(" of descriptor ");
		o_num((unsigned long)r->fd);
		o_str(" in ");
		if (top && top->name[0] && top->exact) {
			o_text(top->name);
		} else if (top && top->module[0]) {
			o_str("(");
			o_text(top->module);
			o_str("+");
			o_hex(top->module_off);
			o_str(")");
		} else {
			o_str("??");
		}
		o_str("\n\n");
	}
	report_out_write(out, out_len);
	unlock_reports();
}

/*
 * A double close held back.  A close that fails on a number the program
 * closed is a double close, unless it is one of a loop that closes every
 * number of a range (a daemon's or a fork child's close-all loop), which
 * meets the program's closed numbers too: a close in a run of LOOP_RUN or
 * more closes of consecutive ascending numbers by one thread.  The closes
 * before it tell (report_closing's run); for the first ones of a loop,
 * only the next closes of the same thread can: the report is held until
 * they come (the run reaches LOOP_RUN: dropped) or another close or
 * recorded call of its thread does (written), or an exec or the exit
 * (written); a fork child drops its parent's.  Two double closes of
 * neighbours in a run are one report.  held_state guards held, held_next
 * and held_need: a thread (or a signal handler) that does not move it from
 * HELD_NONE or HELD_READY to HELD_BUSY does not touch them.
 */
enum { HELD_NONE, HELD_BUSY, HELD_READY };
static int held_state;
static struct report held;
static int held_next;	   /* the number that continues its run */
static uint32_t held_need; /* closes more that make the run a loop */

/* Hold r, whose run is need closes short of a loop, if nothing is held
 * (else write it: two threads' loops at once are not told apart). */
static void hold(const struct report *r, uint32_t need)
{
	int none = HELD_NONE;

	if (!__atomic_compare_exchange_n(&held_state, &none, HELD_BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		emit(r);
		return;
	}
	held = *r;
	held_next = r->fd + 1;
	held_need = need;
	__atomic_store_n(&held_state, HELD_READY, __ATOMIC_RELEASE);
}

/* The held report, if this thread's (or any thread's, with any): written;
 * if next_fd (the number this thread now closes, else -1) continues its
 * run, still held, or dropped when the run is a loop, and 1 returned.
 * Saves errno. */
int release_held(int any, int next_fd)
{
	int ready = HELD_READY, saved;
	struct report r;

	if (__atomic_load_n(&held_state, __ATOMIC_ACQUIRE) != HELD_READY ||
	    (!any && held.tid != gettid_raw()) ||
	    !__atomic_compare_exchange_n(&held_state, &ready, HELD_BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	if (!any && next_fd >= 0 && next_fd == held_next) {
		held_next++;
		__atomic_store_n(&held_state, --held_need ? HELD_READY : HELD_NONE,
				 __ATOMIC_RELEASE);
		return 1;
	}
	r = held;
	__atomic_store_n(&held_state, HELD_NONE, __ATOMIC_RELEASE);
	saved = errno;
	emit(&r);
	errno = saved;
	return 0;
}

UFD_FORK void report_emit_fork_child(void)
{
	/* Each stored only where it changes: a store copies the page, in a
	 * child that most often execs next. */
	if (owner && owner != gettid_raw())
		owner = 0;
	if (held_state != HELD_NONE)
		held_state = HELD_NONE; /* the held report is the parent's to write */
	/* A new process: its own XML document, whose parent is the forker. */
	if (epoch && xml_ppid != epoch_pid[epoch - 1])
		xml_ppid = epoch_pid[epoch - 1];
	if (xml_head_done || xml_finished || xml_errors)
		xml_head_done = xml_finished = xml_errors = 0;
	report_summary_fork_child();
}

int report_emit_reported(void)
{
	return __atomic_load_n(&reported, __ATOMIC_RELAXED);
}

/* Write r after this thread's held report; with need, hold r instead
 * (hold).  Saves errno. */
void report_send(const struct report *r, uint32_t need)
{
	int saved = errno;

	release_held(0, -1);
	if (need)
		hold(r, need);
	else
		emit(r);
	errno = saved;
}
