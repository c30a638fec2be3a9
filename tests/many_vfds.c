/* SPDX-License-Identifier: MIT */
/*
 * Description: a library for LD_PRELOAD after libufd.so whose constructor
 * creates 1000 virtual descriptors, as a library using ufd privately
 * would.  tests/process/backing.c runs a program that opens files with
 * and without it: the program's own descriptor numbers must not change,
 * since the 1000 backing descriptors sit just below the RLIMIT_NOFILE
 * soft limit.  ufd_test_many_count() tells the program how many were
 * made.
 *
 * Its constructor may run before libufd.so's (a later preload is
 * initialised first), so it calls ufd's wrappers before ufd has resolved
 * the real functions.  It duplicates a socket, whose wrapper is not
 * variadic; with UFD_TEST_MANY_OPEN=1 it opens /dev/null instead, through
 * the variadic open(), for the known bug kb_early_variadic
 * (tests/process/regressions.c).  With UFD_TEST_MANY_SIGNALFD=1 it makes
 * a signalfd first, whose read check goes in front of the real read
 * before ufd has resolved it (tests/resolve.sh).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ufd.h"

#define MANY 1000

int ufd_test_many_count(void);

static int made;

int ufd_test_many_count(void)
{
	return made;
}

__attribute__((constructor)) static void make_many(void)
{
	const char *s = getenv("UFD_TEST_MANY_OPEN");
	const char *sfd = getenv("UFD_TEST_MANY_SIGNALFD");
	int fd;

	if (sfd && sfd[0] == '1') {
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		signalfd(-1, &set, SFD_CLOEXEC); /* kept open */
	}
	fd = s && s[0] == '1' ? open("/dev/null", O_RDONLY | O_CLOEXEC)
			      : socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (int i = 0; i < MANY; i++)
		if (dup2(fd, FD_UNSEQ_ALLOC) >= (int)FD_UNSEQ_BASE)
			made++;
	close(fd);
}
