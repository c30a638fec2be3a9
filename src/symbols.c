/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - dlsym(RTLD_NEXT, name) without dlsym, for the eager
 * resolution of every real function at start-up (symbols.h): one walk of
 * the objects after ufd, then a GNU hash look-up per name.
 *
 * glibc's dlsym(RTLD_NEXT, name), called from an object loaded at
 * start-up, searches the global scope from the object after the caller's
 * on, and in each object (elf/dl-lookup.c, do_lookup_x and check_match,
 * with DL_LOOKUP_RETURN_NEWEST and no version asked for):
 *   - skips a symbol of value 0 (unless absolute or TLS), one of a type
 *     that is no definition, one of another name;
 *   - takes at once a symbol without a version (versym index 0 or 1);
 *   - counts the versioned ones whose versym lacks the hidden bit 0x8000
 *     (the default, name@@VERSION) and takes the one there is if there is
 *     exactly one;
 *   - then, for a global or weak binding, answers l_addr + st_value
 *     (calling the resolver of an IFUNC); a local symbol is passed over.
 * This file does the same and declines (-ENOTSUP) wherever it would have
 * to reproduce more than that: the caller then asks dlsym, so no answer
 * depends on the walk being complete.
 *
 * After start-up, the look-up runs on a copy of the tables of the objects
 * up to libc's (ufd_symbols_keep), in a signal handler or a vfork child
 * too: it takes no lock, allocates nothing, writes nothing, and reads
 * neither the link map nor anything dlopen or dlclose change.  What it
 * reads stays mapped and unchanged for the life of the process: dlopen
 * appends new objects at the end of the namespace's list
 * (_dl_add_to_namespace_list), after every object loaded at start-up, so
 * the objects from ufd's to libc's are all start-up objects, and
 * dlclose unmaps only objects dlopen loaded (dl-close.c: an object is
 * unloaded only if its l_type is lt_loaded; start-up objects are
 * lt_library or lt_executable); their hash, symbol, version and string
 * tables are read-only data the loader never writes after mapping.
 */
#define _GNU_SOURCE 1
#include "symbols.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "calls.h"
#include "settings.h"

/* Called through the GOT, whose entry the loader fills as it relocates
 * ufd (no lazy binding at every start-up), and whose value tells which
 * object the loader bound ufd's reference to (ufd_symbols_open). */
extern __typeof__(dl_iterate_phdr) dl_iterate_phdr __attribute__((noplt));

/* May run before a sanitizer runtime is ready (shim.h's UFD_EARLY); runs
 * only at start-up (settings.h's UFD_STARTUP). */
#define EARLY __attribute__((no_sanitize("address", "thread", "undefined"))) \
	UFD_STARTUP

#define BLOOM_BITS (sizeof(uintptr_t) * 8)

/* st_info's halves, the same in ELF32 and ELF64. */
#define ST_TYPE(info) ((info) & 0xf)
#define FUNC_OF(bind) (((bind) << 4) | STT_FUNC) /* st_info */

/* An object's place in memory, from one pass over its program headers:
 * from its lowest loaded segment's start to its highest one's end (the
 * loader reserves the whole span, gaps included, so no other object
 * lies inside), and its dynamic section (NULL: none). */
struct span {
	ElfW(Addr) lo, hi;
	const ElfW(Dyn) *dyn;
};

EARLY static void span_of(const struct dl_phdr_info *info, struct span *sp)
{
	sp->lo = UINTPTR_MAX;
	sp->hi = 0;
	sp->dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		ElfW(Addr) lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD) {
			if (lo < sp->lo)
				sp->lo = lo;
			if (lo + ph->p_memsz > sp->hi)
				sp->hi = lo + ph->p_memsz;
		} else if (ph->p_type == PT_DYNAMIC) {
			sp->dyn = (const void *)lo;
		}
	}
}

/* Is address a in the object's span? */
EARLY static inline int holds(const struct span *sp, ElfW(Addr) a)
{
	return a >= sp->lo && a < sp->hi;
}

/* The dynamic section's pointers: glibc relocates them in place (adds
 * l_addr) where the section is writable, and leaves them alone where it
 * is not (the vDSO's).  Rather than depend on which, take the reading
 * that lands in the object's span, and neither if both do: the right
 * one always does, so a wrong one is never taken, only declined. */
EARLY static const void *dyn_ptr(const struct dl_phdr_info *info,
				 const struct span *sp, ElfW(Addr) v)
{
	int as_is = holds(sp, v), plus_base = holds(sp, v + info->dlpi_addr);

	if (as_is == plus_base && info->dlpi_addr != 0)
		return NULL;
	return (const void *)(as_is ? v : v + info->dlpi_addr);
}

/* An object with no buckets defines nothing: a bloom filter that lets no
 * name through says so without a test in every look-up. */
static const uintptr_t no_bloom[1] UFD_STARTUP_DATA;

/* Read one object's tables into o: 0, or -1 when they are not all there
 * (no DT_GNU_HASH: only the old DT_HASH, which this file does not read). */
EARLY static int read_object(const struct dl_phdr_info *info,
			     const struct span *sp, struct ufd_symbols_object *o)
{
	const ElfW(Dyn) *dyn = sp->dyn;
	const uint32_t *gnu_hash = NULL;

	o->base = info->dlpi_addr;
	o->symtab = o->strtab = NULL;
	o->strsz = 0;
	o->versym = NULL;
	if (!dyn)
		return -1;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		const void *p;

		switch (dyn->d_tag) {
		case DT_STRSZ:
			if (dyn->d_un.d_val > UINT32_MAX)
				return -1;
			o->strsz = (uint32_t)dyn->d_un.d_val;
			break;
		case DT_SYMTAB:
		case DT_STRTAB:
		case DT_VERSYM:
		case DT_GNU_HASH:
			p = dyn_ptr(info, sp, dyn->d_un.d_ptr);
			if (!p)
				return -1;
			if (dyn->d_tag == DT_SYMTAB)
				o->symtab = p;
			else if (dyn->d_tag == DT_STRTAB)
				o->strtab = p;
			else if (dyn->d_tag == DT_VERSYM)
				o->versym = p;
			else
				gnu_hash = p;
			break;
		}
	}
	if (!o->symtab || !o->strtab || !gnu_hash)
		return -1;
	/* glibc masks the bloom index with size - 1: a power of two. */
	uint32_t bloom_size = gnu_hash[2];

	if (bloom_size == 0 || (bloom_size & (bloom_size - 1)))
		return -1;
	o->nbuckets = gnu_hash[0];
	o->symoffset = gnu_hash[1];
	o->bloom_mask = bloom_size - 1;
	o->bloom_shift = gnu_hash[3];
	o->bloom = (const void *)(gnu_hash + 4);
	o->chain = (const uint32_t *)(o->bloom + bloom_size) + o->nbuckets -
		   o->symoffset;
	if (o->nbuckets == 0) {
		o->bloom = no_bloom;
		o->bloom_mask = 0;
	}
	return 0;
}

/* The linker's name for this object's ELF header, at the start of its
 * first loaded segment: its program headers, e_phoff after it, are where
 * the loader's list points for this object (dlpi_phdr, the loader's
 * l_phdr, is the headers in the mapping when the first segment holds
 * them, a copy elsewhere when not: then the walk finds no self and
 * declines). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

struct walk {
	struct ufd_symbols *s;
	const ElfW(Phdr) *self; /* this object's program headers */
	int found_self;
	int listed;		/* objects in the caller's namespace */
	unsigned long long loaded; /* objects in every namespace */
};

EARLY static int walk_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct walk *w = data;
	struct ufd_symbols *s = w->s;
	struct span sp;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		return -1;
	w->listed++;
	w->loaded = info->dlpi_adds - info->dlpi_subs;
	/* The objects after one the walk cannot read are never searched:
	 * a name not found before it is left to dlsym.  Nor are those after
	 * the one the loader bound ufd's dl_iterate_phdr to (libc), which
	 * only ufd_symbols_find's -ENOENT would need (no kept tables). */
	if (w->found_self && (!s->complete || s->bound_obj >= 0)) {
		s->complete = 0;
		return 0;
	}
	if (!w->found_self) {
		w->found_self = info->dlpi_phdr == w->self;
		if (w->found_self)
			s->self_name = info->dlpi_name;
		return 0;
	}
	span_of(info, &sp);
	if (s->n == UFD_SYMBOLS_MAX || read_object(info, &sp, &s->obj[s->n]) < 0) {
		s->complete = 0;
		return 0;
	}
	if (holds(&sp, (ElfW(Addr))dl_iterate_phdr))
		s->bound_obj = s->n;
	s->n++;
	return 0;
}

EARLY int ufd_symbols_open(struct ufd_symbols *s)
{
	struct walk w = {
		.s = s,
		.self = (const void *)((const char *)&__ehdr_start + __ehdr_start.e_phoff),
	};

	s->n = 0;
	s->bound_obj = -1;
	s->self_name = NULL;
	/* With LD_DYNAMIC_WEAK set (to anything), a weak definition does not
	 * end the search, and the walk declines such definitions.  The loader
	 * reads it as settings.c does, and in a secure-execution program has
	 * already removed it from the environment (unsecvars.h). */
	s->weak_final = !ufd_settings.dynamic_weak;
	/* Apart from n: stored together, the two are one 64-bit constant
	 * that the compiler reads from .rodata, a page start-up would read
	 * for it alone (a page fault in every process).  Apart in the
	 * source is not enough: the compiler merges the stores unless a
	 * barrier parts them. */
	__asm__ volatile("" ::: "memory");
	s->complete = 1;
	if (dl_iterate_phdr(walk_one, &w) != 0 || !w.found_self)
		return -ENOTSUP;
	/* dl_iterate_phdr lists the caller's namespace only; dlpi_adds -
	 * dlpi_subs counts the objects of all.  Another namespace means
	 * audit modules (whose la_symbind may change dlsym's answers) or
	 * dlmopen: leave it all to dlsym. */
	if (w.loaded != (unsigned long long)w.listed)
		return -ENOTSUP;
	return 0;
}

EARLY uint32_t ufd_symbols_hash(const char *name)
{
	uint32_t h = 5381;

	for (const unsigned char *c = (const void *)name; *c; c++)
		h = h * 33 + *c;
	return h;
}

#define DEFINITION_TYPES                                                    \
	((1u << STT_NOTYPE) | (1u << STT_OBJECT) | (1u << STT_FUNC) |         \
	 (1u << STT_COMMON) | (1u << STT_TLS) | (1u << STT_GNU_IFUNC))

/* The bytes at p as a number, for same_bytes: any alignment. */
#define LOADER(type, fn)                                                   \
	EARLY static inline __attribute__((always_inline)) type fn(const char *p) \
	{                                                                  \
		type v;                                                    \
		memcpy(&v, p, sizeof(v));                                  \
		return v;                                                  \
	}
LOADER(uint64_t, load8)
LOADER(uint32_t, load4)
LOADER(uint16_t, load2)

/* Do the size bytes at a (a name and its NUL, so size >= 2) equal those
 * at b?  In 8-byte words, the last one overlapping the one before; under
 * 8 bytes, two overlapping words of 4 or of 2.  A call to strcmp cost as
 * much as the rest of a look-up. */
EARLY static inline __attribute__((always_inline)) int
same_bytes(const char *a, const char *b, size_t size)
{
	if (size >= 8) {
		for (; size > 8; a += 8, b += 8, size -= 8)
			if (load8(a) != load8(b))
				return 0;
		return load8(a + size - 8) == load8(b + size - 8);
	}
	if (size >= 4)
		return load4(a) == load4(b) &&
		       load4(a + size - 4) == load4(b + size - 4);
	return load2(a) == load2(b) && load2(a + size - 2) == load2(b + size - 2);
}

/* Is the string at offset at of o's string table name, of size bytes
 * with its NUL?  1, 0, or -ENOTSUP when the table ends first: a string
 * that runs past the table's end, which strcmp would read on, or a
 * shorter one (after a hash match, hardly ever) that does not. */
EARLY static inline __attribute__((always_inline)) int name_is(const struct ufd_symbols_object *o,
				uint32_t at, const char *name, size_t size)
{
	if ((size_t)at + size > o->strsz)
		return -ENOTSUP;
	return same_bytes(o->strtab + at, name, size);
}

/* find_in's answer when it cannot tell: no symbol has this index (the
 * chain's indexes are 32-bit, below the count of symbols). */
#define UNSURE UINT32_MAX

/* The index of name's definition in o, as check_match and do_lookup_x
 * pick it; 0 (index 0 is no symbol) when o has none; UNSURE for a bucket
 * that points below the hashed symbols, a string table that ends first,
 * or a second default version (dlsym would pass over o: let it). */
EARLY static inline __attribute__((always_inline)) uint32_t
find_in(const struct ufd_symbols_object *o, const char *name, size_t size,
	uint32_t h)
{
	uintptr_t word = o->bloom[(h / BLOOM_BITS) & o->bloom_mask];
	uint32_t i, ch, versioned = 0;

	if (!((word >> (h % BLOOM_BITS)) &
	      (word >> ((h >> o->bloom_shift) % BLOOM_BITS)) & 1))
		return 0;
	i = ((const uint32_t *)(o->bloom + o->bloom_mask + 1))[h % o->nbuckets];
	if (i == 0)
		return 0;
	if (i < o->symoffset)
		return UNSURE;
	do {
		const ElfW(Sym) *sym;
		unsigned type;
		int same;

		ch = o->chain[i];
		if (((ch ^ h) >> 1) != 0)
			continue;
		sym = (const ElfW(Sym) *)o->symtab + i;
		type = ST_TYPE(sym->st_info);
		if ((sym->st_value == 0 && sym->st_shndx != SHN_ABS &&
		     type != STT_TLS) ||
		    !((1u << type) & DEFINITION_TYPES))
			continue;
		same = name_is(o, sym->st_name, name, size);
		if (same < 0)
			return UNSURE;
		if (!same)
			continue;
		if (!o->versym || (o->versym[i] & 0x7fff) < 2)
			return i;
		if (o->versym[i] & 0x8000)
			continue; /* hidden: name@VERSION */
		if (versioned)
			return UNSURE;
		versioned = i;
	} while (i++, !(ch & 1));
	return versioned;
}

/* ufd_symbols_find over n objects obj, inlined in its callers: weak_final
 * as struct ufd_symbols has it; complete, whether a name none of them
 * defines is missing (-ENOENT) or unknown (-ENOTSUP). */
EARLY static inline __attribute__((always_inline)) int
find_objs(const struct ufd_symbols_object *obj, int n, int weak_final,
	  int complete, const char *name, size_t len, uint32_t h, void **addr)
{
	for (int k = 0; k < n; k++) {
		const struct ufd_symbols_object *o = &obj[k];
		uint32_t i = find_in(o, name, len + 1, h);
		const ElfW(Sym) *sym;

		if (i == 0)
			continue;
		if (i == UNSURE)
			return -ENOTSUP;
		sym = (const ElfW(Sym) *)o->symtab + i;
		/* A plain function: not local, unique or a weak one that may
		 * yield; not an IFUNC or data; an address of o's. */
		if (sym->st_info != FUNC_OF(STB_GLOBAL) &&
		    !(sym->st_info == FUNC_OF(STB_WEAK) && weak_final))
			return -ENOTSUP;
		if (sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS)
			return -ENOTSUP;
		*addr = (void *)(o->base + sym->st_value);
		return 0;
	}
	return complete ? -ENOENT : -ENOTSUP;
}

/* ufd_symbols_find, inlined in both its callers. */
EARLY static inline __attribute__((always_inline)) int
find(const struct ufd_symbols *s, const char *name, size_t len, uint32_t h,
     void **addr)
{
	return find_objs(s->obj, s->n, s->weak_final, s->complete, name, len,
			 h, addr);
}

EARLY int ufd_symbols_find(const struct ufd_symbols *s, const char *name,
			   size_t len, uint32_t h, void **addr)
{
	return find(s, name, len, h, addr);
}

EARLY int ufd_symbols_object_of(const struct ufd_symbols *s, const void *addr)
{
	int best = -1;

	for (int k = 0; k < s->n; k++)
		if (s->obj[k].base <= (uintptr_t)addr &&
		    (best < 0 || s->obj[k].base > s->obj[best].base))
			best = k;
	return best;
}

EARLY void ufd_symbols_resolve_calls(const struct ufd_symbols *s, void **slot,
				     const char *stub_lo, const char *stub_hi,
				     const unsigned char *skip,
				     void (*fallback)(enum ufd_call call, int r))
{
	/* Where every row's name_at counts from: row 0's name, the first
	 * member of calls.c's structure of names (name_at 0). */
	const char *names = ufd_call_name(0);

	for (int i = 0; i < UFD_NREALS; i++) {
		const struct ufd_call_key *key = &ufd_call_keys[i];
		void *was = __atomic_load_n(&slot[i], __ATOMIC_RELAXED), *addr;
		int r;

		if (skip[i] || (const char *)was < stub_lo ||
		    (const char *)was >= stub_hi)
			continue;
		r = find(s, names + key->name_at, key->len, key->hash, &addr);
		if (r == 0)
			__atomic_compare_exchange_n(&slot[i], &was, addr, 0,
						    __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
		else
			fallback(i, r);
	}
}

/* The objects ufd_symbols_keep copied, for the look-ups after start-up;
 * kept_n (0: none) is stored after them, with release.  Written at every
 * start-up: in .data (sections.h).  In .bss they began a page of their
 * own, a page fault in every process. */
static struct ufd_symbols_object kept[UFD_SYMBOLS_KEEP] UFD_STARTUP_RW UFD_DATA_ALIGNED;
static int kept_n UFD_STARTUP_RW;

EARLY int ufd_symbols_keep(const struct ufd_symbols *s, int n)
{
	if (n <= 0 || n > UFD_SYMBOLS_KEEP || n > s->n || !s->weak_final)
		return -ENOTSUP;
	for (int k = 0; k < n; k++)
		kept[k] = s->obj[k];
	__atomic_store_n(&kept_n, n, __ATOMIC_RELEASE);
	return 0;
}

__attribute__((no_sanitize("address", "thread", "undefined"))) int
ufd_symbols_find_kept(enum ufd_call call, void **addr)
{
	int n = __atomic_load_n(&kept_n, __ATOMIC_ACQUIRE);
	const struct ufd_call_key *key = &ufd_call_keys[call];

	if (n == 0)
		return -ENOTSUP;
	/* Not complete: a name these objects lack may be defined by one
	 * after them, which dlsym searches. */
	return find_objs(kept, n, 1, 0, ufd_call_name(call), key->len,
			 key->hash, addr);
}
