/* SPDX-License-Identifier: MIT */
/*
 * cloexec_race - the close-on-exec race that O_CLOEXEC was made for.
 *
 * One thread opens a file and marks it close-on-exec afterwards, with
 * fcntl(FD_CLOEXEC), as code written before O_CLOEXEC does.  Another
 * thread forks and executes a program in between, and the program
 * inherits the file.  Here the threads take turns (open, then fork and
 * exec, then fcntl), so the window that is rare in real programs is hit
 * every time.  The program executed is this one again, which reports
 * whether it holds the file.
 *
 *   cloexec_race [MODE] [FILE]     FILE defaults to /etc/passwd
 *
 * MODE says how the file is opened:
 *   racy             open(FILE, O_RDONLY), fcntl(FD_CLOEXEC) after the
 *                    exec (the default);
 *   virtual          open(FILE, O_RDONLY | O_UNSEQFD | O_CLOEXEC): a
 *                    virtual descriptor, close-on-exec from the start;
 *   virtual-inherit  open(FILE, O_RDONLY | O_UNSEQFD), never marked: the
 *                    child inherits it (ufd hands virtual descriptors on),
 *                    which shows that the child's check sees them.
 *
 * Run it:
 *   cloexec_race                                            leaks
 *   LD_PRELOAD=libufd.so UFD_CLOEXEC=1 cloexec_race         no leak: every
 *                    descriptor is created close-on-exec, atomically
 *   LD_PRELOAD=libufd.so cloexec_race virtual               no leak
 *
 * The program is not linked against ufd; it takes O_UNSEQFD from ufd.h.
 * It prints "LEAK: ..." or "no leak: ..." and exits 0, or 2 on an error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"

static const char *mode = "racy", *file = "/etc/passwd";
static int file_fd;
static sem_t file_opened, child_done;
static int child_status;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* The child's side: count the descriptors this process holds on FILE,
 * listing every inherited descriptor from 3 up on the way. */
static int report_inherited(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;
	struct stat want, got;
	int held = 0;

	if (!dir || stat(file, &want) < 0)
		die("child");
	while ((entry = readdir(dir))) {
		int fd = atoi(entry->d_name);

		if (entry->d_name[0] == '.' || fd < 3 || fd == dirfd(dir) ||
		    fstat(fd, &got) < 0)
			continue;
		if (got.st_dev == want.st_dev && got.st_ino == want.st_ino) {
			printf("  child: inherited descriptor %d: %s\n", fd, file);
			held++;
		} else {
			printf("  child: inherited descriptor %d\n", fd);
		}
	}
	closedir(dir);
	return held;
}

/* Thread 1: open the file, let the other thread run a program, then
 * (racy mode) mark the file close-on-exec: too late for that program. */
static void *opener(void *unused)
{
	int flags = O_RDONLY;

	(void)unused;
	if (strcmp(mode, "virtual") == 0)
		flags |= O_UNSEQFD | O_CLOEXEC;
	else if (strcmp(mode, "virtual-inherit") == 0)
		flags |= O_UNSEQFD;
	file_fd = open(file, flags);
	if (file_fd < 0)
		die(file);
	printf("%s: opened %s as descriptor %d%s\n", mode, file, file_fd,
	       (unsigned)file_fd >= FD_UNSEQ_BASE ? " (virtual)" : "");
	fflush(stdout);
	sem_post(&file_opened);
	sem_wait(&child_done);
	if (strcmp(mode, "racy") == 0 && fcntl(file_fd, F_SETFD, FD_CLOEXEC) < 0)
		die("fcntl");
	return NULL;
}

/* Thread 2: fork and execute this program as the child, and wait for it. */
static void *spawner(void *unused)
{
	char *child_argv[] = { "cloexec_race", "--child", (char *)file, NULL };
	pid_t pid;

	(void)unused;
	sem_wait(&file_opened);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execv("/proc/self/exe", child_argv);
		_exit(127);
	}
	if (waitpid(pid, &child_status, 0) < 0)
		die("waitpid");
	sem_post(&child_done);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[2];

	if (argc == 3 && strcmp(argv[1], "--child") == 0) {
		file = argv[2];
		return report_inherited() ? 1 : 0;
	}
	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		file = argv[2];
	if (argc > 3 || (strcmp(mode, "racy") && strcmp(mode, "virtual") &&
			 strcmp(mode, "virtual-inherit"))) {
		fprintf(stderr, "usage: cloexec_race [racy|virtual|virtual-inherit] [FILE]\n");
		return 2;
	}

	sem_init(&file_opened, 0, 0);
	sem_init(&child_done, 0, 0);
	if (pthread_create(&threads[0], NULL, opener, NULL) ||
	    pthread_create(&threads[1], NULL, spawner, NULL))
		die("pthread_create");
	pthread_join(threads[0], NULL);
	pthread_join(threads[1], NULL);

	if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) > 1) {
		fprintf(stderr, "cloexec_race: the child failed (status %#x)\n", child_status);
		return 2;
	}
	if (WEXITSTATUS(child_status) == 1)
		printf("LEAK: the program another thread executed inherited %s\n", file);
	else
		printf("no leak: the program another thread executed did not get %s\n", file);
	return 0;
}
