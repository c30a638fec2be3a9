/* SPDX-License-Identifier: MIT */
/*
 * stale_stream.c - the stale-stream bug (issue 23 item 12), for
 * stale_stream.sh: a stream's descriptor closed under it (by close,
 * close_range or closefrom, argv[1]), another file opened, a late write
 * through the stream, then its fclose.  Without ufd the new file gets the
 * number, the late write and the fclose; under UFD_MODE=all it must not.  Prints how
 * many bytes the new file (the victim) got.
 * Usage: stale_stream close|close_range|closefrom DIR
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static char path[4096];

static NOINLINE void close_under(const char *how, int fd)
{
	if (!strcmp(how, "close"))
		close(fd);
	else if (!strcmp(how, "close_range"))
		close_range((unsigned)fd, (unsigned)fd, 0);
	else
		closefrom(fd);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

static NOINLINE int open_victim(const char *dir)
{
	snprintf(path, sizeof(path), "%s/victim", dir);
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

static NOINLINE void finish_log(FILE *f)
{
	fputs("late line\n", f);
	fflush(f);
	fclose(f);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	char log[4096];
	int fd, victim;
	FILE *f;
	struct stat st;

	if (argc != 3)
		return 2;
	snprintf(log, sizeof(log), "%s/log", argv[2]);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return 2;
	fputs("first line\n", f);
	fflush(f);
	close_under(argv[1], fd);
	victim = open_victim(argv[2]);
	if (victim < 0)
		return 2;
	finish_log(f);
	/* By path: without ufd the fclose closed the victim's descriptor. */
	if (stat(path, &st) < 0)
		return 2;
	printf("victim got %lld bytes\n", (long long)st.st_size);
	close(victim);
	return 0;
}
