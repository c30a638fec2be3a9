/* SPDX-License-Identifier: MIT */
/*
 * stress.h - what the files of the stress test share: the sizes of the
 * run, failures, the workers the watchdog watches, the files and the
 * stable descriptors (common.c), the churning threads' state (churn.c)
 * and the threads' entry points.  Include it first: it sets _GNU_SOURCE.
 */
#ifndef UFD_STRESS_H
#define UFD_STRESS_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ufd's API, held by common.c for every file of this test. */
#define UFD_TEST_SHARED_API
#include "ufd.h"
#include "ufd_test.h"

extern char **environ;

/* The sizes of the run.  About a second in the plain build. */
#define CHURNERS 3
#define CHURN_OPS 10000    /* operations per churning thread */
#define SLOTS 24           /* live descriptors per churning thread, at most */
#define HANDLER_FDS 200    /* closed by the signal handler, per churner */
#define FORKS 200
#define EXECS 40
#define SPAWNS 40
#define SYSTEM_THREADS 2   /* at once: system() must restore SIGINT/SIGQUIT */
#define SYSTEMS 12         /* per system thread */

/* A thread with no progress for this long is stuck (a deadlock): far
 * beyond any run, even under TSan on a loaded machine. */
#ifndef STALL_SECONDS
#define STALL_SECONDS 60
#endif

/* The helper's listing: some 30 bytes per virtual descriptor it has. */
#define OUT_MAX (64 * 1024)

/* ---- failures (common.c) ---- */

extern int failures;

void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int failed(void);

/* ---- the watchdog (common.c) ---- */

/* What each thread is doing, for the watchdog's report. */
struct worker {
	const char *name;
	const char *phase;      /* a string literal */
	unsigned long progress; /* operations done */
	pid_t child;            /* the child it waits for, or 0 */
};

extern int all_done;	/* set by main once every thread is joined */

struct worker *new_worker(const char *name);
void *watchdog_thread(void *arg);

static inline void set_phase(struct worker *w, const char *phase)
{
	__atomic_store_n(&w->phase, phase, __ATOMIC_RELAXED);
}

static inline void progress(struct worker *w)
{
	__atomic_fetch_add(&w->progress, 1, __ATOMIC_RELAXED);
}

/* ---- files and stable descriptors (common.c) ---- */

/* The files: one per stable descriptor, then the one every churned
 * close-on-exec descriptor refers to (FILE_X: never in a child), and the
 * one every other churned or handler's descriptor refers to (FILE_I). */
#define NSTABLE 6
#define FILE_X NSTABLE
#define FILE_I (NSTABLE + 1)
#define NFILES (NSTABLE + 2)

struct file {
	char path[80];
	int fd; /* real, read-write, close-on-exec */
	dev_t dev;
	ino_t ino;
};

extern struct file files[NFILES];
extern char tmpdir[];

int file_of(const struct stat *st);
int file_by_id(unsigned long dev, unsigned long ino);

struct stable {
	int vfd;
	int fdflags; /* FD_CLOEXEC, FD_CLOFORK */
};

extern struct stable stables[NSTABLE];
extern const char *helper;

void make_stables(void);
int stable_expected(int i, int exec);

/* ---- churning threads (churn.c) ---- */

struct entry {
	int vfd;
	int file;    /* FILE_X or FILE_I */
	int fdflags; /* as F_GETFD must give */
};

struct churner {
	int id;
	uint64_t rng;
	struct worker *w;
	pthread_t thread;
	int exact;  /* [exact, exact + 64): dup3 onto these exact numbers */
	int lowest; /* F_DUPFD from here: [lowest, lowest + SLOTS] */
	struct entry e[SLOTS];
	int n;
	int history[CHURN_OPS + 1]; /* every number it was given */
	int nhist;
	/* The signal handler's: it closes hfd[hnext++] at each signal. */
	int hfd[HANDLER_FDS];
	int hres[HANDLER_FDS]; /* 0, or the errno of the failed close */
	int hnext;
	int finished; /* its operations are done */
};

extern struct churner churners[CHURNERS];

void closing_handler(int sig);
void *churn_thread(void *arg);
void *signaller_thread(void *arg);

/* ---- forking and exec'ing threads (procs.c) ---- */

void *fork_thread(void *arg);
void *exec_thread(void *arg);
void *spawn_thread(void *arg);
void *system_thread(void *arg);

#endif /* UFD_STRESS_H */
