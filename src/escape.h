/* SPDX-License-Identifier: MIT */
/*
 * escape.h - names made safe to print in the sanitizer's reports: a path,
 * a symbol or a module name may hold any byte, and printed raw a newline
 * would forge a report line, an escape sequence drive the reader's
 * terminal, and a byte that is not UTF-8 make a JSON line invalid.
 * Async-signal-safe, no allocation, no system call.
 */
#ifndef UFD_ESCAPE_H
#define UFD_ESCAPE_H

#include <stddef.h>

/*
 * The NUL-terminated s as report text, into dst (cap bytes, no NUL
 * added): printable ASCII and valid UTF-8 as they are; C's escapes for
 * the backslash, \n, \t, \r; \xNN for any other control byte and for
 * each byte that is not valid UTF-8; \uNNNN for C1 controls, the line
 * and paragraph separators and the bidirectional controls.  Returns the
 * bytes written; an escape that does not fit is left out whole.
 */
size_t escape_text(char *dst, size_t cap, const char *s);

/*
 * The NUL-terminated s as the inside of a JSON string (RFC 8259: no
 * quotes added): '"' and '\\' escaped, control characters and the code
 * points escape_text escapes as \u00XX or \uNNNN, each byte that is not
 * valid UTF-8 as \ufffd.  Returns the bytes written, as escape_text.
 */
size_t escape_json(char *dst, size_t cap, const char *s);

#endif /* UFD_ESCAPE_H */
