/* SPDX-License-Identifier: MIT */
/*
 * reserve.h - the sanitizer's memory, reserved once at start-up: one
 * anonymous mapping that the depot of stacks, the names, the records and
 * the table of merged leaks are carved from.
 *
 * One mmap (and one madvise) in place of seven, one mapping for the kernel
 * to keep and tear down at exit, and huge pages refused on it: where
 * transparent huge pages are "always", the first touch of a part would
 * clear 2 MB for the few records or stacks most processes keep.  Reserved
 * with MAP_NORESERVE: only the pages used cost memory.
 */
#ifndef UFD_RESERVE_H
#define UFD_RESERVE_H

#include <stddef.h>

/*
 * bytes (rounded up to pages) of the reserved mapping, mapped on the
 * first call; past its end (or if it could not be mapped), a mapping of
 * their own.  Returns the address, or -errno as a pointer
 * (ufd_sys_is_error).  The pages are zero until written.  From start-up
 * only (report_init and what it calls): not thread-safe, not
 * async-signal-safe.
 */
void *ufd_reserve(size_t bytes);

#endif /* UFD_RESERVE_H */
