/* SPDX-License-Identifier: MIT */
/*
 * c03: close(0), then open.  A daemon closes standard input to detach
 * from its terminal, without reopening /dev/null on it; the first file
 * it opens next gets number 0 (the lowest), and from then on every read
 * of "standard input" -- a confirmation prompt still in the code -- reads
 * that file instead (SQLite's "How To Corrupt An SQLite Database File",
 * 1.1, is the same with standard error).  ufd reports the read that
 * comes while 0 is closed, with the close that detached.
 *
 * expect: use-after-close in confirm
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE void detach(void)
{
	close(0);
	NO_TAIL();
}

static NOINLINE int confirm(void)
{
	char answer[8];

	return read(0, answer, sizeof(answer)) > 0 && answer[0] == 'y';
}

int main(void)
{
	int db;

	detach();
	confirm();
	db = open("/etc/hostname", O_RDONLY);
	if (db < 0)
		die("open");
	if (db == 0 && confirm() == 0)
		printf("the prompt read the file on 0\n");
	close(db);
	return 0;
}
