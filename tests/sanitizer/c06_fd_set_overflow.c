/* SPDX-License-Identifier: MIT */
/*
 * c06: FD_SET past FD_SETSIZE (CWE-787).  A server that select()s on a
 * connection numbered 1024 or more writes past its fd_set -- the reason
 * select(2) says "WARNING: select() can monitor only file descriptors
 * numbers that are less than FD_SETSIZE (1024)", and the cause of many
 * servers' crashes under load.  Built unfortified (no __fdelt_chk), as
 * most programs are; the set is followed by spare room here so that the
 * overflow does no harm but is still an overflow.
 *
 * expect: fd-set-overflow in wait_for_client
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <unistd.h>

#include "bug.h"

static struct {
	fd_set set;
	unsigned long spill[64];
} readable;

/* Not UBSan's bounds check: GCC 14's sees FD_SET's index past the set
 * and aborts before select, where ufd is to see the overflow. */
__attribute__((no_sanitize("bounds")))
static NOINLINE void wait_for_client(int fd)
{
	struct timeval tv = { 0, 0 };

	FD_ZERO(&readable.set);
	FD_SET(fd, &readable.set);
	select(fd + 1, &readable.set, NULL, NULL, &tv);
	NO_TAIL();
}

int main(void)
{
	struct rlimit rl = { 2048, 2048 };
	int fd;

	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("setrlimit");
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, 1030) != 1030)
		die("dup2 to 1030");
	close(fd);
	wait_for_client(1030);
	close(1030);
	return 0;
}
