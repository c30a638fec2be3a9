/* SPDX-License-Identifier: MIT */
/*
 * report_group.c - the sanitizer's table of reports merged by making
 * stack (report_group.h).
 */
#include "report_group.h"

#include <string.h>
#include <sys/mman.h>

#include "reserve.h"
#include "sys.h"

/*
 * One table, reserved at start-up (report_groups_reserve), so that a report
 * at exit or exec maps nothing: a program under a seccomp filter may not
 * allow mmap.  Its pages are touched only as far as a scan clears them.
 * One scan at a time has it (busy); another at once, or one with more
 * descriptors than half the table, merges nothing.
 */
#define RESERVED_SLOTS 65536U

static struct report_group *reserved;
static int busy;

void report_groups_reserve(void)
{
	void *p = ufd_reserve(RESERVED_SLOTS * sizeof(struct report_group));

	if (!ufd_sys_is_error((long)p))
		reserved = p;
}

int report_groups_map(struct report_groups *t, uint32_t n)
{
	t->g = NULL;
	if (!reserved || 2 * (uint64_t)n > RESERVED_SLOTS)
		return -ENOMEM;
	if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	for (t->mask = 63; t->mask < 2 * (uint64_t)n; t->mask = t->mask * 2 + 1)
		;
	memset(reserved, 0, ((size_t)t->mask + 1) * sizeof(struct report_group));
	t->g = reserved;
	return 0;
}

/* stack's slot: its group, or the free slot where it goes. */
static struct report_group *slot(const struct report_groups *t, uint32_t stack)
{
	for (uint32_t i = stack * 2654435761U;; i++) {
		struct report_group *g = &t->g[i & t->mask];

		if (!g->count || g->stack == stack)
			return g;
	}
}

void report_groups_add(struct report_groups *t, uint32_t stack, int fd)
{
	struct report_group *g = slot(t, stack);

	if (!g->count++) {
		g->stack = stack;
		g->first = fd;
	}
}

const struct report_group *report_groups_of(const struct report_groups *t,
					    uint32_t stack)
{
	return slot(t, stack);
}

void report_groups_unmap(struct report_groups *t)
{
	if (t->g)
		__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	t->g = NULL;
}
