/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - the definitions that follow an object in the lookup order,
 * found by reading the ELF hash tables of the objects loaded after it:
 * what dlsym(RTLD_NEXT, name) answers, at a fraction of its cost, for the
 * real functions: at start-up, and after it in a copy kept of the tables
 * (ufd_symbols_keep), where the look-up is async-signal-safe.
 *
 * The walk answers only when it is sure to give dlsym's answer; the
 * caller asks dlsym for the rest (ufd_symbols_find's -ENOTSUP).
 */
#ifndef UFD_SYMBOLS_H
#define UFD_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "calls.h"
#include "gnu_hash.h"

#define UFD_SYMBOLS_MAX 32

/* One object after the caller's: its load address and its tables.  72
 * bytes: start-up writes the kept copies on the last page of .data
 * (symbols.c), which has no room for more. */
struct ufd_symbols_object {
	uintptr_t base;
	const void *symtab;
	const char *strtab;
	const uint16_t *versym; /* NULL: the object has no versions */
	uint32_t strsz;		/* strtab's size in bytes */
	/* Read from the GNU hash table (the buckets follow the bloom
	 * filter's bloom_mask + 1 words): */
	uint32_t nbuckets, symoffset, bloom_mask, bloom_shift;
	const uintptr_t *bloom;
	const uint32_t *chain; /* indexed by symbol */
};

struct ufd_symbols {
	const char *self_name; /* the caller's object's name, as the loader
				* has it (dladdr's dli_fname), or NULL */
	int n;		 /* objects held, in lookup order */
	int complete;	 /* every object after the caller's is held (not:
			  * too many, or one whose tables could not be
			  * read with certainty, and those after it; nor
			  * those after bound_obj, which are not read) */
	int weak_final;	 /* a weak definition ends the search (no LD_DYNAMIC_WEAK) */
	int bound_obj;	 /* the index of the object that holds the function
			  * the loader bound ufd's own dl_iterate_phdr to
			  * (libc's), or -1: none of them holds it */
	struct ufd_symbols_object obj[UFD_SYMBOLS_MAX];
};

/*
 * Walk the objects loaded after this one (libufd.so), in the
 * link map's order, noting which of them holds the loader's binding of
 * dl_iterate_phdr (bound_obj).  Returns 0, or -ENOTSUP when the walk
 * cannot stand in for dlsym(RTLD_NEXT): this object is not found in its
 * namespace's list (by its program headers, symbols.c), or
 * the process has more than one namespace (LD_AUDIT modules, dlmopen),
 * where the list is not the whole story.  For objects loaded at start-up
 * (LD_PRELOAD, the program's dependencies) the list is in the order of
 * the global scope, which is what RTLD_NEXT searches.  Reads
 * LD_DYNAMIC_WEAK from ufd_settings (ufd_settings_load first).  Not
 * async-signal-safe (dl_iterate_phdr takes the loader's lock).
 */
int ufd_symbols_open(struct ufd_symbols *s);

/*
 * The first definition of name, of len characters (strlen), whose GNU
 * hash is hash (UFD_SYMBOLS_HASH, ufd_symbols_hash), in s's objects, as dlsym(RTLD_NEXT, name)
 * finds it (the default version, hidden versions skipped).  Returns 0 and
 * sets *addr; -ENOENT when none of the objects defines name; -ENOTSUP when
 * the walk cannot tell with certainty (an object whose tables it cannot
 * read before a definition, a definition that is not a plain function:
 * an IFUNC, a unique or local symbol, several default versions): ask
 * dlsym.  Lock-free; reads only the objects' tables.
 */
int ufd_symbols_find(const struct ufd_symbols *s, const char *name,
		     size_t len, uint32_t hash, void **addr);

/*
 * Start-up's resolution of the real functions, one call for all the rows
 * of calls.def (calls.h's keys), ufd_symbols_find's look-up inlined:
 * each row i under UFD_NREALS (slot[] and skip[] have no more) whose
 * skip[i] is 0 and whose slot[i] still points into
 * [stub_lo, stub_hi) (at its stub, shim.c) gets the address the walk
 * finds, by a compare-and-swap from the value it saw (a function put in
 * front meanwhile stays); a row the walk cannot answer goes to
 * fallback(i, r) with ufd_symbols_find's -ENOENT or -ENOTSUP.
 */
void ufd_symbols_resolve_calls(const struct ufd_symbols *s, void **slot,
			       const char *stub_lo, const char *stub_hi,
			       const unsigned char *skip,
			       void (*fallback)(enum ufd_call call, int r));

/* The index in s of the object that holds address addr (one
 * ufd_symbols_find gave), or -1: the object loaded highest at or below
 * it, since objects do not overlap. */
int ufd_symbols_object_of(const struct ufd_symbols *s, const void *addr);

/*
 * Keep a copy of s's first n objects (those up to libc's, which must all
 * be objects loaded at start-up: symbols.c says why they stay mapped) for
 * ufd_symbols_find_kept.  Returns 0, or -ENOTSUP (nothing kept) when n is
 * over UFD_SYMBOLS_KEEP or s's count, or under LD_DYNAMIC_WEAK.  Once, at
 * start-up, before any call of ufd_symbols_find_kept that should see it.
 */
#define UFD_SYMBOLS_KEEP 8
int ufd_symbols_keep(const struct ufd_symbols *s, int n);

/*
 * calls.def row call's real function in the kept objects, as
 * ufd_symbols_find answers: 0 and *addr; -ENOTSUP when nothing is kept,
 * the look-up is unsure, or none of the kept objects defines it (an
 * object after them may: ask dlsym).  Async-signal-safe, lock-free, and
 * safe in a vfork child: reads only the copy and the objects' read-only
 * tables, writes nothing.
 */
int ufd_symbols_find_kept(enum ufd_call call, void **addr);

/* The GNU hash of name, computed (for names that are no literal). */
uint32_t ufd_symbols_hash(const char *name);

#endif /* UFD_SYMBOLS_H */
