/* SPDX-License-Identifier: MIT */
/*
 * fdset_crash.c - for fdset_crash.py: FD_SET on a virtual descriptor
 * (UFD_MODE=all) with a stack-allocated fd_set, built unfortified, writes
 * 32 MiB or more past the set and dies of SIGSEGV before select is
 * called (issue 23 item 13).  Cases (argv[1]):
 *   set      FD_SET in watch_client: the crash
 *   isset    FD_ISSET in poll_client: the same, reading
 *   heapset  FD_SET in watch_heap_client, on a set from malloc
 *   handler  the program's own SIGSEGV handler, then the crash: the
 *            handler runs ("caught"), exit 3
 *   null     a SIGSEGV of a null pointer, with a virtual descriptor open
 *   raise    a SIGSEGV sent by raise(), with one open
 *   view     what sigaction and signal say of SIGSEGV
 * Built at -O0 and -O2, unfortified.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NO_TAIL() __asm__ volatile("" ::: "memory")

static NOINLINE int open_client(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	NO_TAIL();
	return fd;
}

static NOINLINE int watch_client(int fd)
{
	fd_set set;
	struct timeval tv = { 0, 0 };

	FD_ZERO(&set);
	FD_SET(fd, &set);
	return select(fd + 1, &set, NULL, NULL, &tv);
}

static NOINLINE int watch_heap_client(int fd)
{
	fd_set *set = malloc(sizeof(*set));
	struct timeval tv = { 0, 0 };

	if (!set)
		return -1;
	FD_ZERO(set);
	FD_SET(fd, set);
	return select(fd + 1, set, NULL, NULL, &tv);
}

static NOINLINE int poll_client(int fd)
{
	fd_set set;

	FD_ZERO(&set);
	__asm__ volatile("" : : "r"(&set) : "memory"); /* contents unknown */
	return FD_ISSET(fd, &set);
}

static NOINLINE void write_null(volatile int *p)
{
	*p = 1;
	NO_TAIL();
}

static void caught(int sig, siginfo_t *info, void *uc)
{
	static const char msg[] = "caught\n";

	(void)sig, (void)info, (void)uc;
	write(1, msg, sizeof(msg) - 1);
	_exit(3);
}

int main(int argc, char **argv)
{
	int fd = open_client();

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 2 || fd < 0)
		return 2;
	printf("descriptor %s\n", fd >= 1 << 28 ? "virtual" : "real");
	if (!strcmp(argv[1], "set"))
		printf("select %d\n", watch_client(fd));
	else if (!strcmp(argv[1], "heapset"))
		printf("select %d\n", watch_heap_client(fd));
	else if (!strcmp(argv[1], "isset"))
		printf("isset %d\n", poll_client(fd));
	else if (!strcmp(argv[1], "handler")) {
		struct sigaction sa = { .sa_sigaction = caught, .sa_flags = SA_SIGINFO };

		sigaction(SIGSEGV, &sa, NULL);
		printf("select %d\n", watch_client(fd));
	} else if (!strcmp(argv[1], "null"))
		write_null(NULL);
	else if (!strcmp(argv[1], "raise"))
		raise(SIGSEGV);
	else if (!strcmp(argv[1], "view")) {
		struct sigaction old;
		/* The kernel's part of the mask (glibc copies its own stack
		 * into the rest). */
		unsigned char zero[sizeof(unsigned long)] = { 0 };

		memset(&old, 0, sizeof(old));
		sigaction(SIGSEGV, NULL, &old);
		printf("handler %s flags %#x mask %s\n",
		       old.sa_handler == SIG_DFL ? "SIG_DFL" : "other",
		       (unsigned)old.sa_flags,
		       memcmp(&old.sa_mask, zero, sizeof(zero)) ? "set" : "empty");
		printf("signal %s\n", signal(SIGSEGV, SIG_DFL) == SIG_DFL ? "SIG_DFL" : "other");
		printf("after %s\n", signal(SIGSEGV, SIG_DFL) == SIG_DFL ? "SIG_DFL" : "other");
	}
	printf("survived\n");
	return 0;
}
