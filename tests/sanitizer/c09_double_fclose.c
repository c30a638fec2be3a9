/* SPDX-License-Identifier: MIT */
/*
 * c09: a double fclose (CWE-1341): an error path closes the stream and
 * the common clean-up closes it again.  The second fclose is undefined
 * behaviour in C: glibc reads the freed FILE and closes its descriptor
 * number a second time, which may by then be another thread's file.
 * glibc may also abort on the freed memory; the report comes before it,
 * and the test checks the report, not the exit status.
 *
 * expect: double-close in cleanup
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "bug.h"

static FILE *out;
static int disk_full = 1; /* the error the header's write runs into */

static NOINLINE int write_header(void)
{
	if (fputs("header\n", out) < 0 || disk_full) {
		fclose(out);
		return -1;
	}
	return 0;
}

static NOINLINE void cleanup(void)
{
	fclose(out);
	NO_TAIL();
}

int main(void)
{
	out = fopen("/dev/null", "we");
	if (!out)
		die("fopen");
	write_header();
	cleanup();
	return 0;
}
