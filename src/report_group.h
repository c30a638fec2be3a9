/* SPDX-License-Identifier: MIT */
/*
 * report_group.h - for the sanitizer (report.h): reports of one kind
 * merged by the stack that made their descriptors, as LeakSanitizer
 * merges its leaks.  A table from a making stack (the depot's id) to the
 * first number added with it and how many, for one scan of the records:
 * open addressing, at most half full, in memory mapped once at start-up
 * (no system call at report time, no heap: usable in a vfork child).
 */
#ifndef UFD_REPORT_GROUP_H
#define UFD_REPORT_GROUP_H

#include <stdint.h>

struct report_group {
	uint32_t stack, count; /* count 0: a free slot */
	int first;
};

struct report_groups {
	struct report_group *g; /* NULL: not mapped */
	uint32_t mask;
};

/* At start-up, when reports are on: map the memory the tables use. */
void report_groups_reserve(void);

/* Make t, empty, for up to n stacks.  0; -ENOMEM (too many, or nothing
 * reserved) or -EBUSY (another scan has the memory): t->g stays NULL. */
int report_groups_map(struct report_groups *t, uint32_t n);

/* Count fd in the group of stack; the first fd added is its first. */
void report_groups_add(struct report_groups *t, uint32_t stack, int fd);

/* The group of stack (count 0 if nothing was added with it). */
const struct report_group *report_groups_of(const struct report_groups *t,
					    uint32_t stack);

/* Give back t's memory (if it has it). */
void report_groups_unmap(struct report_groups *t);

#endif /* UFD_REPORT_GROUP_H */
