/* SPDX-License-Identifier: MIT */
/*
 * c02: a use after close into a reused number (CWE-672).  A logger keeps
 * the number of a file it closed on rotation; the application opens its
 * database and gets the number; the logger's next line goes into the
 * database -- SQLite's "How To Corrupt An SQLite Database File", 1.1.
 *
 * expect: use-after-close in log_line
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bug.h"

static int log_fd = -1;

static NOINLINE void log_rotate(void)
{
	close(log_fd); /* and forgets to reopen */
	NO_TAIL();
}

static NOINLINE void log_line(const char *s)
{
	if (write(log_fd, s, strlen(s)) > 0)
		printf("the log line went into another file\n");
	NO_TAIL();
}

int main(void)
{
	char path[] = "/tmp/ufd-c02-XXXXXX";
	int db;

	log_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (log_fd < 0)
		die("open");
	log_rotate();
	db = mkostemp(path, O_CLOEXEC);
	if (db < 0)
		die("mkostemp");
	unlink(path);
	log_line("rotated\n");
	close(db);
	return 0;
}
