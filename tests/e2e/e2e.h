/* SPDX-License-Identifier: MIT */
/*
 * e2e.h - what the files of the end-to-end tests share: the headers,
 * ufd's API (ufd_test.h), small helpers, ck_assert_same_as_kernel, and
 * the test case each file makes for main.c.
 */
#ifndef UFD_E2E_H
#define UFD_E2E_H

#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <linux/close_range.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* ufd's API, held by main.c for every file of this test. */
#define UFD_TEST_SHARED_API
#include "ufd.h"
#include "ufd_check.h"
#include "ufd_test.h"

/* A descriptor number certainly not open: opened, then closed. */
static inline int closed_real_fd(void)
{
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(close(fd), 0);
	return fd;
}

/* A temporary file holding text, opened read-write. */
static inline int temp_file(const char *text)
{
	char path[] = "/tmp/ufd-e2e-XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Number of entries in /proc/self/fd: every real descriptor open. */
static inline int count_real_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

/*
 * Make the same call on a real descriptor and on a virtual one and require
 * the same outcome: both succeed, or both fail with the same errno.
 */
#define ck_assert_same_as_kernel(real_call, virt_call)                         \
	do {                                                                   \
		long r_real_, r_virt_;                                         \
		int e_real_, e_virt_;                                          \
		errno = 0;                                                     \
		r_real_ = (long)(real_call);                                   \
		e_real_ = errno;                                               \
		errno = 0;                                                     \
		r_virt_ = (long)(virt_call);                                   \
		e_virt_ = errno;                                               \
		ck_assert_msg((r_real_ < 0) == (r_virt_ < 0) &&                \
				      (r_real_ >= 0 || e_real_ == e_virt_),    \
			      "%s -> %ld (%s), but %s -> %ld (%s)", #real_call, \
			      r_real_, strerror(e_real_), #virt_call, r_virt_, \
			      strerror(e_virt_));                              \
	} while (0)

/* ---- the test cases, in the order main.c runs them ---- */

TCase *threads_case(void);	/* process.c */
TCase *sets_case(void);		/* sets.c */
TCase *alloc_case(void);	/* alloc.c */
TCase *data_case(void);		/* io.c */
TCase *misuse_case(void);	/* io.c */
TCase *process_case(void);	/* process.c */

#endif /* UFD_E2E_H */
