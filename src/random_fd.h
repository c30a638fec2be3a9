/* SPDX-License-Identifier: MIT */
/*
 * random_fd.h - UFD_MODE=random: every new descriptor a real one, moved to
 * a number drawn at random among the free numbers in [3, N).
 *
 * N is the application's soft RLIMIT_NOFILE capped at FD_SETSIZE (1024),
 * or UFD_RANDOM_MAX (still capped by the soft limit), fixed at the first
 * use.  No call is translated: a move costs the creation two system
 * calls (F_DUPFD at the chosen number, close of the kernel's number), and
 * a third (F_GETFD) where the call does not say whether it asked for
 * close-on-exec; nothing afterwards.
 *
 * What the chooser believes (a bitmap of numbers in [0, N) believed open,
 * built from /proc/self/fd at the first use) is only advice: a move is
 * fcntl(fd, F_DUPFD, target), accepted only if the kernel answers target,
 * so an open descriptor is never replaced, and an answer above target
 * teaches the bitmap that [target, answer) is open.  That is how it learns
 * of dup2/dup3 targets and of descriptors libc makes for itself, which
 * it does not see; and a range that looks full is listed from /proc again
 * (once per Q creations at most), for closes it did not see either.
 * A dup2 that replaces an open descriptor frees no number: nothing to
 * quarantine.
 *
 * Quarantine: a number the application closed is not chosen again for
 * the next Q creations, Q = N / 4 (256 for N = 1024): long enough that a
 * stale descriptor used soon after its close gets EBADF instead of a new
 * file, short enough that at most a quarter of the range is held out (a
 * close follows a creation), so that the draw keeps a wide choice.
 *
 * Every function here is lock-free (atomics on the bitmap, the quarantine
 * and the random source) and async-signal-safe (raw system calls only), so
 * that creating and closing calls may come from any thread or a signal
 * handler.  Returns are as newfd.h's: >= 0 or -errno, errno untouched.
 */
#ifndef UFD_RANDOM_FD_H
#define UFD_RANDOM_FD_H

#include "calls.h"

/*
 * At start-up (the constructor), under UFD_MODE=random only: seeds the
 * random source (UFD_SEED, else the kernel's getrandom) and has a forked
 * child draw apart from its parent (with UFD_SEED, reproducibly).  Not
 * async-signal-safe (pthread_atfork).
 */
void random_fd_init(void);

/* random_fd_init's fork handler, in a fork child (also _Fork's, which runs
 * no atfork handler: shim_vfork.c): draws apart from the parent.
 * Async-signal-safe. */
void random_fd_fork_child(void);

/*
 * Is the chooser's state built (at the first use: the range, the bitmap
 * from /proc/self/fd)?  1, or 0 while another thread (or the code a
 * signal handler interrupted) builds it, or if it cannot be built: then
 * random mode leaves descriptors where the kernel made them.
 */
int random_fd_ready(void);

/*
 * Around a real vfork, in the parent (shim_vfork.c), the application's
 * signals blocked: random_fd_vfork_begin before the system call, _end
 * once the child has exec'd or exited.  In between the chooser is paused
 * (random_fd_ready 0, random_fd_closed nothing): the child, which shares
 * this memory, makes its descriptors where the kernel does, and its
 * closes are not quarantined, so that the chooser is as before once it
 * is gone; and the parent pays nothing per call for it.  A fork from
 * the child has its chooser back.  Async-signal-safe.
 */
void random_fd_vfork_begin(void);
void random_fd_vfork_end(void);

/* fd (> 2), just made, stays where the kernel made it (newfd.h decided:
 * UFD_EXCLUDE, record locks): counted as a creation (the quarantine's
 * clock), its number taken.  After random_fd_ready said 1. */
void random_fd_kept(int fd);

/*
 * fd (> 2), just made by call, moved to a free number drawn at random in
 * [from, N) (from is 3 for a creation, n for F_DUPFD(n)), with its
 * close-on-exec flag and close-on-fork mark.  cloexec is that flag if the
 * caller knows it (1 set, 0 clear: the flags it made fd with), or -1: then
 * it is read (F_GETFD), one system call more.  Returns the new number, or
 * fd itself where it stays: from >= N, the range is full (no free number
 * out of quarantine), or the kernel refuses every try.  Whether fd may
 * move at all (UFD_EXCLUDE, record locks) is newfd.h's decision, made
 * before.  After random_fd_ready said 1.  Never fails.
 */
int random_fd_place(int fd, int from, enum ufd_call call, int cloexec);

/* The application closed fd: its number is free, and in quarantine for the
 * next Q creations.  Numbers outside [3, N) are ignored. */
void random_fd_closed(int fd);

/* The application closed the numbers first..last (close_range without
 * CLOSE_RANGE_CLOEXEC, closefrom): those the bitmap believed open are
 * free, in quarantine. */
void random_fd_closed_range(unsigned first, unsigned last);

#endif /* UFD_RANDOM_FD_H */
