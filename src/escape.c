/* SPDX-License-Identifier: MIT */
/*
 * escape.c - names escaped for the reports (escape.h).
 */
#include "escape.h"

#include <stdint.h>
#include <string.h>

/*
 * The UTF-8 sequence at s (NUL-terminated): its length, with its code
 * point in *cp, or 0 if it is not valid UTF-8 (overlong, a surrogate,
 * past U+10FFFF, cut short).  Reads no byte past a NUL.
 */
static int utf8_at(const unsigned char *s, uint32_t *cp)
{
	int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	uint32_t c = s[0] & (0x7fU >> n);

	if (!n || s[0] > 0xf4)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fU);
	}
	if (c < (n == 2 ? 0x80U : n == 3 ? 0x800U : 0x10000U) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Code points that a terminal acts on, or that reorder the text around
 * them: C1 controls, the line and paragraph separators, bidirectional
 * embeddings, overrides and isolates. */
static int unsafe_cp(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

struct out {
	char *p;
	size_t cap, len;
};

static void put(struct out *o, const void *s, size_t n)
{
	if (n > o->cap - o->len) {
		o->cap = o->len; /* full: nothing more, not even a shorter piece */
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

/* "\" kind and v in digits hex digits. */
static void put_esc(struct out *o, char kind, uint32_t v, int digits)
{
	char e[8] = { '\\', kind };

	for (int i = 0; i < digits; i++)
		e[2 + i] = "0123456789abcdef"[(v >> (4 * (digits - 1 - i))) & 15];
	put(o, e, (size_t)(2 + digits));
}

/* The two escapers differ only for ASCII and for bytes that are not
 * UTF-8. */
static size_t escape(char *dst, size_t cap, const char *str, int json)
{
	const unsigned char *s = (const unsigned char *)str;
	struct out o = { dst, cap, 0 };

	while (*s && o.len < o.cap) {
		uint32_t cp;
		int n;

		if (*s < 0x80) {
			unsigned char c = *s++;
			char e = c == '\\' ? '\\' : json && c == '"' ? '"' :
				 c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : 0;

			if (e)
				put(&o, (const char[]){ '\\', e }, 2);
			else if (c < 0x20 || c == 0x7f)
				put_esc(&o, json ? 'u' : 'x', c, json ? 4 : 2);
			else
				put(&o, &c, 1);
		} else if (!(n = utf8_at(s, &cp))) {
			if (json)
				put(&o, "\\ufffd", 6);
			else
				put_esc(&o, 'x', *s, 2);
			s++;
		} else {
			if (unsafe_cp(cp))
				put_esc(&o, 'u', cp, 4);
			else
				put(&o, s, (size_t)n);
			s += n;
		}
	}
	return o.len;
}

size_t escape_text(char *dst, size_t cap, const char *s)
{
	return escape(dst, cap, s, 0);
}

size_t escape_json(char *dst, size_t cap, const char *s)
{
	return escape(dst, cap, s, 1);
}
