/* SPDX-License-Identifier: MIT */
/*
 * bug.h - what the corpus's programs share: functions kept as they are
 * written (not inlined, folded or turned into tail calls), so that the
 * function named by a program's "expect:" line is a frame of its stack,
 * and a die() for set-up steps that must not fail.
 */
#ifndef UFD_SANITIZER_BUG_H
#define UFD_SANITIZER_BUG_H

#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif
/* After a call that would be a tail call: keeps the caller's frame. */
#define NO_TAIL() __asm__ volatile("" ::: "memory")

static inline void die(const char *what)
{
	perror(what);
	exit(2);
}

#endif /* UFD_SANITIZER_BUG_H */
