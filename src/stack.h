/* SPDX-License-Identifier: MIT */
/*
 * stack.h - call stacks for the sanitizer's reports (UFD_REPORT): captured
 * into a deduplicating depot, symbolized when a report is written.
 *
 * Capture gives what glibc's backtrace() gives (it unwinds through
 * .eh_frame, so it works in programs built without frame pointers), at a
 * fraction of its cost: unwind.c caches each return address's rule, and
 * backtrace() is called only for a stack with a frame it does not cover.  The stacks live in a fixed depot: a stack is stored once and
 * named by a 32-bit id, so a loop that makes a million descriptors at the
 * same place uses one entry.  When the depot is full, new stacks get id 0
 * ("no stack"): memory is bounded.
 *
 * Symbolization: the module (its path and the offset in it) and the
 * nearest function at or below the address: dladdr's for exported
 * symbols, else the nearest STT_FUNC of the module's ELF .symtab, read
 * from the file (static functions of a program not linked -rdynamic).
 */
#ifndef UFD_STACK_H
#define UFD_STACK_H

#include <stddef.h>
#include <stdint.h>

/* Frames kept per stack, after ufd's own frames at the top are dropped. */
#define STACK_FRAMES 16

/*
 * Set up the depot, find libufd's own code (its frames are skipped) and
 * map the modules' files for their symbols.  From the constructor, only
 * when reports are on.  Returns 0 or -errno (then stack_capture returns
 * 0).  Not async-signal-safe.
 */
int stack_init(void);

/*
 * Load what a later capture may need that would take system calls then:
 * libgcc's unwinder, which glibc's backtrace() loads on its first call.
 * For a process about to be sandboxed (a seccomp filter going in: the
 * prctl and syscall wrappers, through report_before_sandbox) or already
 * sandboxed at start-up, since a filter may refuse those calls.  Once per
 * process; does nothing before stack_init.  Not async-signal-safe (dlopen).
 */
void stack_load_unwinder(void);

/*
 * The caller's stack, without libufd's frames at its top: its depot id,
 * or 0 (no depot, depot full).  Lock-free (compare-and-swap on the
 * depot's slots and unwind.c's cache); async-signal-safe once stack_init
 * has run, as far as glibc's backtrace() is (called for a stack with a
 * frame unwind.c does not cover: the first such call in a process loads
 * libgcc_s, with system calls, the heap and the loader's lock, so it is
 * not async-signal-safe; stack.c says why it is not made at start-up).
 */
uint32_t stack_capture(void);

/* The frames (return addresses) of stack id into pcs (up to max): their
 * number, 0 for id 0 or an unknown id.  Lock-free, async-signal-safe. */
int stack_frames(uint32_t id, uintptr_t *pcs, int max);

/* What stack_symbolize says of one address. */
struct stack_symbol {
	char module[256];    /* the module's path, or "" if unknown */
	uintptr_t module_off; /* pc's offset from the module's start */
	char name[128];      /* the nearest function, or "" */
	uintptr_t name_off;  /* pc's offset from that function */
	int exact;           /* pc is inside that symbol (its size says so);
			      * 0: only the nearest exported one is known */
};

/*
 * Symbolize pc, a return address (looked up at pc - 1, the call).  Fills
 * *s; returns 0, or -ENOENT if pc is in no module.  Keeps a small cache of
 * mapped symbol tables: the caller holds the lock that serialises
 * reports (report.c).  Not async-signal-safe (dladdr takes the loader's
 * lock).
 */
int stack_symbolize(uintptr_t pc, struct stack_symbol *s);

/*
 * When module, a stack_symbol's, is the program run by a link to its file
 * (dash as /bin/sh): that file's path (/usr/bin/dash), else NULL.  Known
 * from the first stack_symbolize; no lock, no system call.
 */
const char *stack_program_file(const char *module);

#endif /* UFD_STACK_H */
