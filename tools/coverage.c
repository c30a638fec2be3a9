/* SPDX-License-Identifier: MIT */
/*
 * coverage - print the README's table of interposed calls from calls.def,
 * so that the table is the list the wrappers are made from.  The test
 * "readme-coverage" checks that README.md holds exactly this output.
 */
#include <stdio.h>
#include <string.h>

/*
 * The fds column of a row, as text: "FD(a) PATH(p) CLOEXEC(flags, X)" ->
 * "`a`, path `p`, `X` under UFD_CLOEXEC"; PATH_MUT(p) -> "path `p` (looked
 * at first)".
 */
static void print_fds(const char *fds)
{
	const char *sep = "", *open, *close;

	while ((open = strchr(fds, '('))) {
		const char *kind = fds;
		int kind_len;

		while (*kind == ' ')
			kind++;
		kind_len = (int)(open - kind);
		close = strchr(open, ')');
		if (!close)
			break;
		if (!strncmp(kind, "FD", (size_t)kind_len) && kind_len == 2) {
			printf("%s`%.*s`", sep, (int)(close - open - 1), open + 1);
		} else if (!strncmp(kind, "PATH", (size_t)kind_len) && kind_len == 4) {
			printf("%spath `%.*s`", sep, (int)(close - open - 1), open + 1);
		} else if (!strncmp(kind, "PATH_MUT", (size_t)kind_len) && kind_len == 8) {
			printf("%spath `%.*s` (looked at first)", sep,
			       (int)(close - open - 1), open + 1);
		} else if (!strncmp(kind, "CLOEXEC", (size_t)kind_len) && kind_len == 7) {
			const char *comma = strchr(open, ',');

			while (*++comma == ' ')
				;
			printf("%s`%.*s` under `UFD_CLOEXEC`", sep,
			       (int)(close - comma), comma);
		}
		sep = ", ";
		fds = close + 1;
	}
}

int main(void)
{
	puts("| call | rewritten arguments | what else the wrapper does |");
	puts("| --- | --- | --- |");
#define UFD_WRAP(name, ret, err, params, args, fds) \
	printf("| `%s` | ", #name);                 \
	print_fds(#fds);                            \
	puts(" | |");
#define UFD_NEW(name, ret, err, params, args, fds) \
	printf("| `%s` | ", #name);                \
	print_fds(#fds);                           \
	puts(" | makes a descriptor |");
#define UFD_HAND(name, ret, err, params, args, why) \
	puts("| `" #name "` | | " why " |");
#include "calls.def"
	return 0;
}
