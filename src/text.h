/* SPDX-License-Identifier: MIT */
/*
 * text.h - decimal numbers and prefixes, as ufd reads and writes them in
 * settings, paths, /proc files and the exec hand-off: without libc's
 * locale or errno, async-signal-safe, never reading past a NUL.
 */
#ifndef UFD_TEXT_H
#define UFD_TEXT_H

#include <stddef.h>
#include <string.h>

/*
 * A decimal number at s as the kernel writes and /proc reads them: digits
 * only, no sign, no leading zero, at most max.  Stores it in *out and
 * returns the character after it; NULL (*out untouched) if there is none,
 * or it is larger than max.
 */
static inline const char *ufd_parse_decimal(const char *s, unsigned long max,
					    unsigned long *out)
{
	unsigned long v = 0;

	if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned long d = (unsigned long)(*s - '0');

		/* checked before it can wrap around */
		if (d > max || v > (max - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	*out = v;
	return s;
}

/* n in decimal at p (at most 20 characters, no NUL); returns the end.
 * For code that may not call stdio: the hand-off, the log. */
static inline char *ufd_put_decimal(char *p, unsigned long n)
{
	char tmp[20];
	int len = 0;

	do
		tmp[len++] = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	while (len)
		*p++ = tmp[--len];
	return p;
}

/* s advanced past prefix if it starts with it, else NULL.  A byte at a
 * time: the prefixes are short and most paths differ within a few bytes
 * (strncmp's call cost more than the loop).  Reads no byte of s past
 * the first that differs, its NUL included. */
static inline const char *ufd_skip_prefix(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (*s != *prefix)
			return NULL;
	return s;
}

/* The first NUL among s's n bytes, or NULL.  For the exec path, which a
 * forked child runs: memchr there would be bound lazily, through the
 * loader's look-up and libc's IFUNC resolver, in every child anew (a
 * parent that never called it resolved nothing for them). */
static inline const char *ufd_find_nul(const char *s, size_t n)
{
	for (; n; s++, n--)
		if (!*s)
			return s;
	return NULL;
}

/*
 * Could path name a descriptor: does it start with "/dev/fd/" or "/proc/"
 * (shim_path.c)?  The first test of every path an open or a stat looks at
 * while the process holds a virtual descriptor, so unrolled, a byte at a
 * time; no byte read past the first that differs, its NUL included (most
 * paths differ in the first two).
 */
static inline int ufd_path_may_name_fd(const char *p)
{
	if (p[0] != '/')
		return 0;
	if (p[1] == 'd')
		return p[2] == 'e' && p[3] == 'v' && p[4] == '/' && p[5] == 'f' &&
		       p[6] == 'd' && p[7] == '/';
	return p[1] == 'p' && p[2] == 'r' && p[3] == 'o' && p[4] == 'c' && p[5] == '/';
}

#endif /* UFD_TEXT_H */
