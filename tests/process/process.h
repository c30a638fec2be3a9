/* SPDX-License-Identifier: MIT */
/*
 * process.h - what the files of the process tests share: the system
 * headers, the programs they run (from the environment), the helpers of
 * helpers.c, and the test cases each file makes for main.c.  Include it
 * first: it sets _GNU_SOURCE before any system header.
 */
#ifndef UFD_PROCESS_H
#define UFD_PROCESS_H

#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ufd's API, held by helpers.c for every file of this test. */
#define UFD_TEST_SHARED_API
#include "ufd.h"
#include "ufd_check.h"
#include "ufd_test.h"

extern char **environ;

/* The helper program, the many_vfds library, the LD_PRELOAD value that
 * loads ufd, and this program (main.c sets them). */
extern const char *helper_path, *many_path, *preload;
extern char *self_exe;

/* ---- helpers.c ---- */

int temp_file(const char *text);
int reads(int fd, const char *text);
int is_ebadf(int r);
int kernel_fd_count(void);
int kernel_open(int fd);
int wait_bounded(pid_t pid, int ms);
int exited_ok(int status);
char **env_with(char *const *extra, const char *const *drop);
int run(const char *path, char *const argv[], char *const env[],
	int in_fd, char *out, size_t size);
void in_fork_child(int (*check)(const int *), const int *arg);
void read_all(int fd, char *out, size_t size);
int exec_helper(int by_vfork, char *const argv[], char *out, size_t size);

TCase *new_case(const char *name, const TTest *const *tests, int timeout);
#define TESTS(...) ((const TTest *const[]){ __VA_ARGS__, NULL })

/* ---- shared by the files of the tests ---- */

int self_exec_mode(const char *mode, int fd);		/* exec.c */
void run_chain(const char *hop1, const char *hop2);	/* exec.c */
void ls_listing(int spawn);				/* backing.c */

/* ---- the test cases, in the order main.c runs them ---- */

TCase *forkthreads_case(void);		/* fork.c */
TCase *signals_case(void);		/* signals.c */
TCase *clofork_case(void);		/* fork.c */
TCase *reseed_case(void);		/* fork.c */
TCase *vfork_case(void);		/* fork.c */
TCase *exec_case(void);			/* exec.c */
TCase *protect_case(void);		/* backing.c */
TCase *listing_case(void);		/* backing.c */
TCase *makers_case(void);		/* backing.c */
TCase *regressions_case(void);		/* regressions.c */

#endif /* UFD_PROCESS_H */
