/* SPDX-License-Identifier: MIT */
/*
 * report_group.c - the sanitizer's table of reports merged by making
 * stack (report_group.h).
 */
#include "report_group.h"

#include <sys/mman.h>

#include "sys.h"

static size_t table_size(const struct report_groups *t)
{
	return ((size_t)t->mask + 1) * sizeof(struct report_group);
}

int report_groups_map(struct report_groups *t, uint32_t n)
{
	void *p;

	for (t->mask = 63; t->mask < 2 * (uint64_t)n; t->mask = t->mask * 2 + 1)
		;
	t->g = NULL;
	p = ufd_sys_mmap(NULL, table_size(t), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ufd_sys_is_error((long)p))
		return -ENOMEM;
	t->g = p;
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
		ufd_sys_munmap(t->g, table_size(t));
	t->g = NULL;
}
