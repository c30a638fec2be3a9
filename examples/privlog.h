/* SPDX-License-Identifier: MIT */
/*
 * privlog.h - a tiny logging library that keeps one descriptor of its own
 * for the life of the process, the kind of library ufd exists for.  See
 * privlog.c, and closeall_app.c for the application that uses it.
 */
#ifndef PRIVLOG_H
#define PRIVLOG_H

/* Where the logger keeps its descriptor. */
enum privlog_kind {
	PRIVLOG_ORDINARY, /* the number open() gives: in the application's sequence */
	PRIVLOG_NONSEQ,   /* a virtual descriptor from nonseqfd(): out of it */
};

/* Open (create, append to) the log file at path.  Returns the descriptor
 * the logger keeps, or -1 with errno set. */
int privlog_open(const char *path, enum privlog_kind kind);

/* Append one numbered line.  A line that cannot be written is counted,
 * not reported: a logger must not disturb its application's output. */
void privlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How many lines could not be written. */
unsigned privlog_lost(void);

#endif /* PRIVLOG_H */
