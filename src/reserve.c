/* SPDX-License-Identifier: MIT */
/*
 * reserve.c - the sanitizer's memory, reserved once at start-up
 * (reserve.h).
 */
#include "reserve.h"

#include <sys/mman.h>

#include "sys.h"

/* The parts: the record table (64 MB) and the pool of record chunks
 * (32 MB, report.c), the depot (8.5 MB and 512 KB, stack.c), the names
 * (4 MB and 260 KB, fdname.c), the table of merged leaks (768 KB,
 * report_group.c): 110 MB, and room. */
#define RESERVE_BYTES ((size_t)112 << 20)
#define PAGE 4096U

static char *base;
static size_t used;

void *ufd_reserve(size_t bytes)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	void *p;

	bytes = (bytes + PAGE - 1) & ~(size_t)(PAGE - 1);
	if (!base) {
		p = ufd_sys_mmap(NULL, RESERVE_BYTES, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (ufd_sys_is_error((long)p))
			return ufd_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
		ufd_sys6(SYS_madvise, (long)p, RESERVE_BYTES, MADV_NOHUGEPAGE, 0, 0, 0);
		base = p;
	}
	if (bytes > RESERVE_BYTES - used)
		return ufd_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
	p = base + used;
	used += bytes;
	return p;
}
