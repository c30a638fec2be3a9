/* SPDX-License-Identifier: MIT */
/*
 * Description: descriptors that an ioctl or a socket option makes
 * (TIOCGPTPEER, NS_GET_USERNS, SIOCGSKNS, getsockopt SO_PEERPIDFD) are new
 * descriptors like any other: virtual under UFD_MODE=all, close-on-exec
 * under UFD_CLOEXEC=1, and usable.  Run under ufd with one of those
 * settings (tests/meson.build runs it with each); it checks what the
 * setting in its environment asks for.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/nsfs.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ufd_test.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

static int failed;

/* fd, which call made, is what the settings ask for, and open. */
static void check(const char *call, int fd)
{
	const char *all = getenv("UFD_MODE"), *cloexec = getenv("UFD_CLOEXEC");
	struct stat st;

	if (fd < 0) {
		printf("FAIL %s: -1 (%m)\n", call);
		failed++;
		return;
	}
	if (fstat(fd, &st) != 0) {
		printf("FAIL %s: made %d, which fstat says is not open\n", call, fd);
		failed++;
	}
	if (all && !strcmp(all, "all") && api_is_virtual(fd) != 1) {
		printf("FAIL %s: made %d, not virtual under UFD_MODE=all\n", call, fd);
		failed++;
	}
	if (cloexec && !strcmp(cloexec, "1") && !(fcntl(fd, F_GETFD) & FD_CLOEXEC)) {
		printf("FAIL %s: made %d, not close-on-exec under UFD_CLOEXEC=1\n", call, fd);
		failed++;
	}
	printf("%s: %d\n", call, fd);
	close(fd);
}

int main(void)
{
	int master, ns, s, sv[2], pidfd = -1;
	socklen_t len = sizeof(pidfd);

	load_api(1);
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
		printf("skipped: no pseudo-terminal (%m)\n");
		return 77;
	}
	check("ioctl(TIOCGPTPEER)", ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY));
	ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	check("ioctl(NS_GET_USERNS)", ioctl(ns, NS_GET_USERNS));
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	check("ioctl(SIOCGSKNS)", ioctl(s, SIOCGSKNS));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 1;
	if (getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0)
		printf("getsockopt(SO_PEERPIDFD): not on this kernel (%m)\n");
	else
		check("getsockopt(SO_PEERPIDFD)", pidfd);
	printf("%s\n", failed ? "FAIL" : "ok");
	return failed ? 1 : 0;
}
