/* SPDX-License-Identifier: MIT */
/*
 * report_summary.c - the sanitizer's summary at exit (report_summary.h):
 * a count per kind, kept lock-free, and the line that says them.
 */
#include "report_summary.h"

#include <string.h>

#include "escape.h"
#include "text.h"

static unsigned long written[REPORT_NKINDS], suppressed_count;

void report_summary_count(enum report_kind kind, int suppressed)
{
	if (suppressed)
		__atomic_fetch_add(&suppressed_count, 1, __ATOMIC_RELAXED);
	else if ((unsigned)kind < REPORT_NKINDS)
		__atomic_fetch_add(&written[kind], 1, __ATOMIC_RELAXED);
}

void report_summary_fork_child(void)
{
	/* Stored only where not 0 already: a store copies the page, in a
	 * child that most often execs next. */
	for (int k = 0; k < REPORT_NKINDS; k++)
		if (__atomic_load_n(&written[k], __ATOMIC_RELAXED))
			__atomic_store_n(&written[k], 0, __ATOMIC_RELAXED);
	if (__atomic_load_n(&suppressed_count, __ATOMIC_RELAXED))
		__atomic_store_n(&suppressed_count, 0, __ATOMIC_RELAXED);
}

/* A bounded writer: what does not fit is cut. */
struct line {
	char *p, *end;
};

static void put(struct line *l, const char *s)
{
	size_t n = strlen(s);

	if (n > (size_t)(l->end - l->p))
		n = (size_t)(l->end - l->p);
	memcpy(l->p, s, n);
	l->p += n;
}

static void put_num(struct line *l, unsigned long n)
{
	char digits[24];

	*ufd_put_decimal(digits, n) = 0;
	put(l, digits);
}

/*
 * Text:  ==PID==ERROR SUMMARY: ufd: 3 reports (double-close 1,
 *        exit-leak 2), 1 suppressed; written to PATH
 * JSON:  {"ufd":"summary","pid":PID,"reports":3,"kinds":{"double-close":
 *        1,"exit-leak":2},"suppressed":1,"destination":"PATH"}
 */
size_t report_summary_format(char *buf, size_t cap, unsigned long pid,
			     int json, const char *destination)
{
	struct line l = { buf, buf + cap };
	unsigned long count[REPORT_NKINDS], total = 0;
	int first = 1;

	for (int k = 0; k < REPORT_NKINDS; k++)
		total += count[k] = __atomic_load_n(&written[k], __ATOMIC_RELAXED);
	if (!total)
		return 0;
	put(&l, json ? "{\"ufd\":\"summary\",\"pid\":" : "==");
	put_num(&l, pid);
	put(&l, json ? ",\"reports\":" : "==ERROR SUMMARY: ufd: ");
	put_num(&l, total);
	put(&l, json ? ",\"kinds\":{" : total == 1 ? " report (" : " reports (");
	for (int k = 0; k < REPORT_NKINDS; k++) {
		if (!count[k])
			continue;
		put(&l, first ? "" : json ? "," : ", ");
		put(&l, json ? "\"" : "");
		put(&l, report_kind_name[k]);
		put(&l, json ? "\":" : " ");
		put_num(&l, count[k]);
		first = 0;
	}
	put(&l, json ? "},\"suppressed\":" : "), ");
	put_num(&l, __atomic_load_n(&suppressed_count, __ATOMIC_RELAXED));
	put(&l, json ? ",\"destination\":\"" : " suppressed; written to ");
	l.p += (json ? escape_json : escape_text)(l.p, (size_t)(l.end - l.p),
						  destination);
	put(&l, json ? "\"}\n" : "\n");
	return (size_t)(l.p - buf);
}
