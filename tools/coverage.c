/* SPDX-License-Identifier: MIT */
/*
 * coverage - print the README's table of interposed calls from calls.def,
 * so that the table is the list the wrappers are made from.  The test
 * "readme-coverage" checks that README.md holds exactly this output.
 */
#include <stdio.h>
#include <string.h>

/* "FD(a) FD(b)" -> "a, b" */
static void print_fds(const char *fds)
{
	const char *sep = "";

	while ((fds = strstr(fds, "FD("))) {
		const char *end = strchr(fds, ')');

		printf("%s`%.*s`", sep, (int)(end - fds - 3), fds + 3);
		sep = ", ";
		fds = end;
	}
}

int main(void)
{
	puts("| call | translated arguments | what else the wrapper does |");
	puts("| --- | --- | --- |");
#define UFD_WRAP(name, ret, err, params, args, fds) \
	printf("| `%s` | ", #name);                 \
	print_fds(#fds);                            \
	puts(" | |");
#define UFD_HAND(name, ret, err, params, args, why) \
	puts("| `" #name "` | | " why " |");
#define UFD_HANDV(name, ret, err, params, args, last, extra, why) \
	UFD_HAND(name, ret, err, params, args, why)
#include "calls.def"
	return 0;
}
