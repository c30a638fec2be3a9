/* SPDX-License-Identifier: MIT */
/*
 * sections.h - where start-up's code and data go: the section attributes
 * every layer uses, in a header of their own so that any file can have
 * them without the settings (calls.c, which settings.h itself needs).
 */
#ifndef UFD_SECTIONS_H
#define UFD_SECTIONS_H

/*
 * Code that runs only at start-up (the constructor and what it calls):
 * in the section the compiler gives the constructor itself, which the
 * linker keeps in one piece, so that start-up reads as few pages of the
 * library's code as it can (each a page fault in every process).
 */
#define UFD_STARTUP __attribute__((section(".text.startup")))

/*
 * Read-only data that only start-up reads (the names it looks up, the
 * prefixes it compares): beside the code, in the pages start-up reads
 * anyway, rather than in .rodata, one more page (and page fault) for a
 * few strings.  The linker puts .text.startup.* sections with
 * .text.startup; the data is not executed.  String literals cannot be
 * placed: name the array.
 */
#define UFD_STARTUP_DATA __attribute__((section(".text.startup.data")))
/*
 * Large zeroed arrays that a process uses late if at all (the reports'
 * buffers, the suppressions' tables, the unwinder's cache): after .bss
 * (x86_64's .lbss, in the same segment), so that they do not spread the
 * small variables written at start-up over more pages (each a page fault
 * in every process with reports on: 8 pages, with the arrays between).
 */
#if defined(__x86_64__)
#define UFD_LATE_BSS __attribute__((section(".lbss.ufd")))
#else
#define UFD_LATE_BSS
#endif

/*
 * Zeroed data that start-up (or exit) reads or writes in every process:
 * in .data, whose pages the loader writes anyway (the relocated pointers
 * to the real functions fill most of them), rather than on a page of
 * .bss of its own: the first read of a page of .bss maps the zero page,
 * its first write a page of its own, each a page fault in every process.
 * For a variable touched whatever the settings; .bss is for what waits
 * for a feature's first use.  `perf record -e minor-faults -d /bin/true`
 * names the first one that is not.
 */
#define UFD_STARTUP_RW __attribute__((section(".data.ufd_startup")))
/*
 * A large variable of .data (or UFD_STARTUP_RW) at the alignment its type
 * needs, not the 32 bytes GCC gives x86_64 arrays and structures of 32
 * bytes or more (for vector moves, which none of these needs): that
 * padding, ~100 bytes between the objects' .data, counts, since .data
 * must end, and .bss's first variables (crtstuff's, written at exit)
 * begin, on the page the loader writes anyway (readelf -SW).
 */
#define UFD_DATA_ALIGNED __attribute__((aligned(sizeof(void *))))

#endif /* UFD_SECTIONS_H */
