/* SPDX-License-Identifier: MIT */
/*
 * settings.h - every UFD_* environment setting, read once, here.
 *
 * The lowest layer with log.h and sys.h: every other layer reads the
 * parsed values below and none reads the environment itself.  In a
 * secure-execution program (AT_SECURE: setuid, setgid, file capabilities)
 * the environment is the unprivileged caller's, so every setting is
 * ignored there (see settings.c).
 */
#ifndef UFD_SETTINGS_H
#define UFD_SETTINGS_H

#include <stdint.h>

#include "calls.h"
#include "sections.h"

struct ufd_settings {
	int cloexec;	     /* UFD_CLOEXEC=1: every new descriptor is close-on-exec */
	int mode_all;	     /* UFD_MODE=all: every new descriptor is virtual */
	int mode_random;     /* UFD_MODE=random: every new descriptor is real,
			      * moved to a random free number below
			      * random_max */
	int random_max;	     /* UFD_RANDOM_MAX, or 0: the soft RLIMIT_NOFILE
			      * capped at FD_SETSIZE */
	const char *report;  /* UFD_REPORT: "stderr", a file's path, or NULL
			      * (no reports); in the environment, which a
			      * program may write over: its text is read at
			      * start-up only (report_out_name after) */
	int report_json;     /* UFD_REPORT_FORMAT=json: one object a line */
	int report_xml;	     /* UFD_REPORT_FORMAT=xml: Valgrind's XML */
	int report_leaks;    /* UFD_REPORT_LEAKS=1: descriptors open at exit */
	int report_exitcode; /* UFD_REPORT_EXITCODE, or -1: exit status of a
			      * process that reported anything */
	const char *suppress; /* UFD_SUPPRESS: the suppressions file, or NULL */
	int suppress_default; /* UFD_SUPPRESS_DEFAULT, 1 unless =0: ufd's own
			       * suppressions too (report_suppress.c) */
	int newfd_work;	     /* any setting above that concerns new
			      * descriptors (UFD_CLOEXEC, UFD_MODE other than
			      * transparent, UFD_REPORT): one load tells a
			      * creating wrapper it has nothing to do */
	int exclude;	     /* UFD_EXCLUDE names a call or a number (see
			      * ufd_settings_exclude) */
	int inherit;	     /* UFD_INHERIT, 1 unless =0: children get ufd */
	int seed_fixed;	     /* UFD_SEED was given ... */
	uint64_t seed;	     /* ... and is this */
	const char *log;     /* UFD_LOG: the log file's path, or NULL */
	int check_resolve;   /* UFD_CHECK_RESOLVE=1: the start-up resolution
			      * is checked against dlsym (a test aid) */
	const char *handoff; /* UFD_HANDOFF: ufd's own message from the program
			      * that exec'd this one (not a setting), or NULL */
	/* Not settings: what else start-up needs of the environment, found
	 * in the same one walk of it (getenv's answers, without a getenv
	 * each, which is a call through the PLT and another walk). */
	int handoff_set;     /* UFD_HANDOFF is set, even where handoff is
			      * NULL (a secure-execution program) */
	const char *preload; /* LD_PRELOAD's value, or NULL */
	int dynamic_weak;    /* LD_DYNAMIC_WEAK is set (to anything) */
};

/* Hidden, so that the wrappers read it without the GOT. */
extern struct ufd_settings ufd_settings __attribute__((visibility("hidden")));

/*
 * Read every setting (at most once; later calls return at once).  A value
 * that is not one of the setting's is reported on stderr, one line each,
 * and the default used.  In a secure-execution program all UFD_* variables
 * are ignored, reported in one line and removed from the environment.
 * From the library constructor, and from vfd_init, which may run before
 * it (another library's constructor making a virtual descriptor).  Not
 * async-signal-safe.
 */
void ufd_settings_load(void);

/* Whether UFD_EXCLUDE leaves fd, made by call, out of UFD_MODE=all.
 * Lock-free and async-signal-safe. */
int ufd_settings_exclude(int fd, enum ufd_call call);

#endif /* UFD_SETTINGS_H */
