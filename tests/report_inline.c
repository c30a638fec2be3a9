/* SPDX-License-Identifier: MIT */
/*
 * report_inline.c - a double close whose line is reached only through an
 * inlined call (built -O2 -g): release() is inlined into cleanup(), so the
 * bug's own line (the close) is in no frame of its own; only the
 * program's DWARF tells it (tests/report_symbolize.sh).
 */
#include <fcntl.h>
#include <unistd.h>

static inline __attribute__((always_inline)) int release(int fd)
{
	return close(fd); /* BUG: the second call closes a closed descriptor */
}

__attribute__((noinline)) static int cleanup(int fd)
{
	int r = release(fd);

	r |= release(fd); /* SECOND: the call that reaches the bug */
	return r;
}

int main(void)
{
	int fd = open("/dev/null", O_RDONLY);

	return fd >= 0 && cleanup(fd) == -1 ? 0 : 1;
}
