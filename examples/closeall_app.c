/* SPDX-License-Identifier: MIT */
/*
 * closeall_app - an application that closes "all" descriptors, as daemons
 * do, and then relies on the lowest-number rule; it uses the privlog
 * library, which keeps a descriptor of its own.
 *
 *   closeall_app [--ordinary] [--close loop|proc|closefrom] LOG DATA
 *
 * It starts the logger on LOG, closes every descriptor from 3 up, opens
 * DATA expecting descriptor 3, and writes to both.  It prints the numbers
 * it saw and exits 1 if DATA did not get descriptor 3.
 *
 * By default the logger keeps a virtual descriptor (nonseqfd()): the
 * application gets 3, LOG gets every line, DATA only the application's.
 * With --ordinary the logger keeps the descriptor open() gave it (3): the
 * close-all closes it, the next line is lost, and the lines after that
 * land in DATA, which now owns number 3.
 *
 * The ways of closing "all":
 *   loop       close(fd) for fd = 3 .. sysconf(_SC_OPEN_MAX) - 1 (the
 *              default): never reaches a virtual descriptor, and ufd
 *              refuses to close the real descriptors behind them;
 *   proc       close each descriptor listed in /proc/self/fd: the logger's
 *              is hidden there (NONSEQFD_HIDE);
 *   closefrom  closefrom(3), like close_range(3, ~0U, 0), names every
 *              number from 3 up, the virtual ones included: ufd closes
 *              them, except hidden ones (NONSEQFD_HIDE), the logger's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privlog.h"

/* close(fd) for every fd from 3 to the descriptor limit. */
static void close_all_by_loop(void)
{
	long max = sysconf(_SC_OPEN_MAX);

	for (long fd = 3; fd < max; fd++)
		close((int)fd);
}

/* close every descriptor from 3 up that /proc/self/fd lists.  The
 * numbers are collected first: closing while reading would close the
 * listing's own descriptor under it. */
static void close_all_by_proc(void)
{
	int fds[1024], n = 0;
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;

	if (!dir) {
		perror("closeall_app: /proc/self/fd");
		exit(77);
	}
	while ((entry = readdir(dir)) && n < 1024) {
		int fd = atoi(entry->d_name);

		if (entry->d_name[0] != '.' && fd >= 3 && fd != dirfd(dir))
			fds[n++] = fd;
	}
	closedir(dir);
	while (n > 0)
		close(fds[--n]);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "ordinary", no_argument, NULL, 'o' },
		{ "close", required_argument, NULL, 'c' },
		{ 0 },
	};
	enum privlog_kind kind = PRIVLOG_NONSEQ;
	const char *how = "loop";
	int opt, log_fd, data_fd;

	while ((opt = getopt_long(argc, argv, "oc:", options, NULL)) != -1) {
		if (opt == 'o')
			kind = PRIVLOG_ORDINARY;
		else if (opt == 'c')
			how = optarg;
		else
			goto usage;
	}
	if (argc - optind != 2 ||
	    (strcmp(how, "loop") && strcmp(how, "proc") && strcmp(how, "closefrom")))
		goto usage;

	log_fd = privlog_open(argv[optind], kind);
	if (log_fd < 0) {
		perror("closeall_app: privlog_open");
		return 2;
	}
	printf("logger: descriptor %d (%s)\n", log_fd,
	       kind == PRIVLOG_NONSEQ ? "nonseqfd" : "ordinary");
	privlog("application started");

	/* Like a daemon: drop whatever we were started with. */
	if (strcmp(how, "loop") == 0)
		close_all_by_loop();
	else if (strcmp(how, "proc") == 0)
		close_all_by_proc();
	else
		closefrom(3);
	privlog("closed all descriptors from 3 up (%s)", how);

	/* The lowest-number rule: nothing from 3 up is open, so this is 3,
	 * and code after it may say 3 where it means the data file. */
	data_fd = open(argv[optind + 1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("application: data file got descriptor %d\n", data_fd);
	if (data_fd != 3) {
		fprintf(stderr, "closeall_app: expected descriptor 3\n");
		return 1;
	}
	dprintf(3, "application data 1\n");
	privlog("data file opened");
	dprintf(3, "application data 2\n");
	privlog("exiting");
	printf("logger: %u lines lost\n", privlog_lost());
	return 0;

usage:
	fprintf(stderr, "usage: closeall_app [--ordinary] [--close loop|proc|closefrom] LOG DATA\n");
	return 2;
}
