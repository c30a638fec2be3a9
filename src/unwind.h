/* SPDX-License-Identifier: MIT */
/*
 * unwind.h - the return addresses of the calling thread's stack, fast: a
 * cache of each return address's unwind rule (read once from the module's
 * .eh_frame) in front of a loop that only loads from the stack.
 *
 * Only the simple rules that compilers emit for ordinary code are cached
 * (the CFA is rsp or rbp plus a constant, the return address at CFA-8,
 * rbp unchanged or saved at a constant offset from the CFA), and the
 * kernel's signal frame.  On any other frame (a CFA given by an
 * expression, a frame over 16 KiB without a frame pointer, code with no unwind
 * information) unwind_capture says so, and the caller uses glibc's
 * backtrace() for the whole stack: its stacks are the same as backtrace's.
 * x86_64 only; elsewhere unwind_capture always says so.
 */
#ifndef UFD_UNWIND_H
#define UFD_UNWIND_H

#include <stdint.h>

/* Look up glibc's _dl_find_object (2.35 and later).  Returns 0, or -ENOSYS
 * (then unwind_capture always returns -1).  Not async-signal-safe: from
 * stack_init. */
int unwind_init(void);

/*
 * What backtrace(pcs, max) would store, called from the same place: the
 * return address into unwind_capture's caller first, then its callers',
 * ending at the outermost frame (whose return address is undefined) or
 * at max.  Returns their number, or -1 if a frame's rule is not simple
 * or its code has no unwind information (the caller then uses
 * backtrace()).  Lock-free (each rule is added to the cache with one
 * compare-and-swap) and async-signal-safe: no system call, no lock, no
 * allocation (glibc's _dl_find_object is lock-free and async-signal-safe).
 */
int unwind_capture(uintptr_t *pcs, int max);

#endif /* UFD_UNWIND_H */
