/* SPDX-License-Identifier: MIT */
/*
 * report_given.h - the descriptors a program was given by name when it
 * started, for the sanitizer's leak reports at exec (UFD_REPORT_LEAKS).
 *
 * A descriptor above 2 that a program gets at its start is its own to
 * use or close when its arguments or environment name it (/dev/fd/N,
 * --fd N, make's jobserver, LISTEN_FDS, UFD_INHERIT_OK: exec_names.h).
 * If the program then execs another without naming it there (nor
 * clearing its close-on-exec flag, nor dup2-ing onto it), the new program
 * does not know it is there and will not use it: an exec leak of this
 * program's.  A descriptor it was given without a name is its parent's
 * leak, reported by the parent at its exec (exec-leak), and not again
 * by each program that passes it on.
 */
#ifndef UFD_REPORT_GIVEN_H
#define UFD_REPORT_GIVEN_H

/*
 * From the constructor, after report_init, with the program's own
 * argument vector and environment (either may be NULL): under
 * UFD_REPORT_LEAKS, each number above 2 they name that was open at start
 * (its record named by report_init) becomes report_given_named's.  Reads
 * without faulting; no system call but those reads.
 */
void report_given_start(char **argv, char **envp);

#endif /* UFD_REPORT_GIVEN_H */
