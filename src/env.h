/* SPDX-License-Identifier: MIT */
/*
 * env.h - how every layer reads a UFD_* setting from the environment.
 *
 * In a secure-execution program (AT_SECURE: setuid, setgid, file
 * capabilities) the environment is the unprivileged caller's: UFD_LOG
 * would make the program create or append to a file of the caller's
 * choosing with the program's privileges, and the other settings change
 * what it does.  So every UFD_* variable is read here, with
 * secure_getenv, which answers NULL in such a program (glibc decides it
 * from AT_SECURE before any constructor runs, so the answer is right
 * however early a setting is read).  ufd_secure_settings (shim.c) says so
 * on stderr once and removes the variables from the environment, as ld.so
 * does with LD_PRELOAD, so that the program's children do not get them
 * either.
 */
#ifndef UFD_ENV_H
#define UFD_ENV_H

#include <stdlib.h>

/* glibc's, declared only under _GNU_SOURCE. */
char *secure_getenv(const char *name);

static inline const char *ufd_env(const char *name)
{
	return secure_getenv(name);
}

#endif /* UFD_ENV_H */
