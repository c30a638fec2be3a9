/* SPDX-License-Identifier: MIT */
/*
 * c10: fdopen, then close of the descriptor, then fclose of the stream
 * (CWE-1341): the stream owns the descriptor after fdopen, and a caller
 * that also closes "its" descriptor makes fclose close the number a
 * second time -- by then, perhaps, another file's.
 *
 * expect: double-close in finish_report
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE void finish_report(FILE *f)
{
	fclose(f);
	NO_TAIL();
}

int main(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		die("open");
	f = fdopen(fd, "w");
	if (!f)
		die("fdopen");
	fputs("report\n", f);
	fflush(f);
	close(fd); /* the caller still thinks it owns fd */
	finish_report(f);
	return 0;
}
