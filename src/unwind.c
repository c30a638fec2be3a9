/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - the calling thread's return addresses, with a cache of each
 * return address's unwind rule (unwind.h).
 *
 * A rule is found once per return address: glibc's _dl_find_object names
 * the module and its .eh_frame_hdr, whose sorted table gives the FDE; its
 * call frame instructions (and its CIE's) are run up to the address.  What
 * is left is cached in one 64-bit word with the address (x86_64 user
 * addresses fit in 47 bits), added with a compare-and-swap: no lock, and a
 * reader sees a whole entry or none.  After that, a frame costs a hash
 * look-up and two loads from the stack.
 *
 * The cache is never emptied: a module unloaded (dlclose) and another
 * loaded at the same address would find the first one's rules.  Every
 * step is checked to move up the stack by less than UNWIND_SPAN, so such
 * a rule ends the walk (the caller then asks backtrace()) rather than
 * reading far away.
 */
#define _GNU_SOURCE 1
#include "unwind.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "sections.h"

#if defined(__x86_64__)

static int (*find_object)(void *, struct dl_find_object *);

int unwind_init(void)
{
	find_object = (int (*)(void *, struct dl_find_object *))dlsym(
		RTLD_DEFAULT, "_dl_find_object");
	return find_object ? 0 : -ENOSYS;
}

/* ---- the rule of one address, from .eh_frame ---- */

/* A rule, in 17 bits: bit 0 the CFA's register (0 rsp, 1 rbp), bits 1-11
 * the CFA's offset in words (1..2047), bits 12-16 where rbp is saved
 * (CFA - 8 * k, k 1..31) or 0 if it is unchanged.  Three special values,
 * with offset 0: NOT_SIMPLE, END (the return address is undefined: the
 * outermost frame) and SIGNAL (the kernel's signal frame: the registers
 * are in the ucontext_t at rsp, as glibc's __restore_rt's CFI says). */
#define RULE_NOT_SIMPLE 0U
#define RULE_END 1U
#define RULE_SIGNAL (1U << 12)
#define RULE_BITS 17
#define ADDR_BITS 47
#define ADDR_MASK ((1ULL << ADDR_BITS) - 1)

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* What the call frame instructions say of the registers that matter. */
enum how { SAME, OFFSET, UNDEF, OTHER };
struct cfi_state {
	int cfa_reg; /* -1: not simple (an expression) */
	long cfa_off;
	enum how rbp, ra;
	long rbp_off, ra_off;
};

struct reader {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t uleb(struct reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static int64_t sleb(struct reader *r)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0x80;

	while (r->p < r->end && (b & 0x80)) {
		b = *r->p++;
		if (shift < 64)
			v |= (int64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (b & 0x80)
		r->bad = 1;
	else if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

static uint64_t fixed(struct reader *r, int size)
{
	uint64_t v = 0;

	if (r->end - r->p < size) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, (size_t)size); /* little-endian */
	r->p += size;
	return v;
}

/* A pointer in DWARF's exception-header encoding enc (no indirection;
 * pc-relative and data-relative only, as GCC and Clang write them). */
static uintptr_t encoded(struct reader *r, uint8_t enc, uintptr_t dbase)
{
	const uint8_t *at = r->p;
	uint64_t v;

	switch (enc & 0x0f) {
	case 0x00: v = fixed(r, 8); break;                       /* absptr */
	case 0x02: v = fixed(r, 2); break;                       /* udata2 */
	case 0x03: v = fixed(r, 4); break;                       /* udata4 */
	case 0x04: case 0x0c: v = fixed(r, 8); break;            /* (s|u)data8 */
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(r, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(r, 4); break;
	default: r->bad = 1; return 0;
	}
	switch (enc & 0xf0) {
	case 0x00: return (uintptr_t)v;
	case 0x10: return (uintptr_t)at + (uintptr_t)v;
	case 0x30: return dbase + (uintptr_t)v;
	default: r->bad = 1; return 0;
	}
}

/* Run the call frame instructions in [r->p, r->end) on *s from address
 * loc, up to and including the row of target; init is the state after the
 * CIE's instructions (for DW_CFA_restore).  Returns 0, or -1 on an
 * instruction it does not know. */
static int run_cfi(struct reader *r, struct cfi_state *s, const struct cfi_state *init,
		   uintptr_t loc, uintptr_t target, uint64_t code_align,
		   int64_t data_align, uint8_t fde_enc)
{
	struct cfi_state saved[8];
	int depth = 0;

	while (r->p < r->end && !r->bad) {
		uint8_t op = *r->p++;
		uint64_t reg = op & 0x3f, delta = 0;
		int64_t off = 0;
		enum how how = OTHER;

		switch (op >> 6) {
		case 1: /* advance_loc */
			delta = reg * code_align;
			goto advance;
		case 2: /* offset */
			off = (int64_t)uleb(r) * data_align;
			how = OFFSET;
			break;
		case 3: /* restore */
			if (reg == REG_RBP)
				s->rbp = init->rbp, s->rbp_off = init->rbp_off;
			else if (reg == REG_RA)
				s->ra = init->ra, s->ra_off = init->ra_off;
			continue;
		}
		if (op >> 6)
			goto set_reg;
		switch (op) {
		case 0x00: /* nop */
			continue;
		case 0x01: /* set_loc */
			loc = encoded(r, fde_enc, 0);
			if (loc > target)
				return 0;
			continue;
		case 0x02: delta = fixed(r, 1) * code_align; goto advance;
		case 0x03: delta = fixed(r, 2) * code_align; goto advance;
		case 0x04: delta = fixed(r, 4) * code_align; goto advance;
		case 0x05: /* offset_extended */
			reg = uleb(r);
			off = (int64_t)uleb(r) * data_align;
			how = OFFSET;
			break;
		case 0x06: /* restore_extended */
			reg = uleb(r);
			if (reg == REG_RBP)
				s->rbp = init->rbp, s->rbp_off = init->rbp_off;
			else if (reg == REG_RA)
				s->ra = init->ra, s->ra_off = init->ra_off;
			continue;
		case 0x07: reg = uleb(r); how = UNDEF; break;
		case 0x08: reg = uleb(r); how = SAME; break;
		case 0x09: reg = uleb(r); uleb(r); how = OTHER; break; /* register */
		case 0x0a: /* remember_state */
			if (depth == 8)
				return -1;
			saved[depth++] = *s;
			continue;
		case 0x0b: /* restore_state: the CFA too (GCC relies on it) */
			if (depth == 0)
				return -1;
			*s = saved[--depth];
			continue;
		case 0x0c: /* def_cfa */
			s->cfa_reg = (int)uleb(r);
			s->cfa_off = (long)uleb(r);
			continue;
		case 0x0d: s->cfa_reg = (int)uleb(r); continue;
		case 0x0e: s->cfa_off = (long)uleb(r); continue;
		case 0x0f: /* def_cfa_expression */
			s->cfa_reg = -1;
			r->p += uleb(r);
			continue;
		case 0x10: /* expression */
		case 0x16: /* val_expression */
			reg = uleb(r);
			r->p += uleb(r);
			how = OTHER;
			break;
		case 0x11: /* offset_extended_sf */
			reg = uleb(r);
			off = sleb(r) * data_align;
			how = OFFSET;
			break;
		case 0x12: /* def_cfa_sf */
			s->cfa_reg = (int)uleb(r);
			s->cfa_off = (long)(sleb(r) * data_align);
			continue;
		case 0x13: s->cfa_off = (long)(sleb(r) * data_align); continue;
		case 0x14: /* val_offset */
			reg = uleb(r);
			uleb(r);
			how = OTHER;
			break;
		case 0x15: /* val_offset_sf */
			reg = uleb(r);
			sleb(r);
			how = OTHER;
			break;
		case 0x2e: uleb(r); continue; /* GNU_args_size */
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(r);
			off = -(int64_t)uleb(r) * data_align;
			how = OFFSET;
			break;
		default:
			return -1;
		}
set_reg:
		if (reg == REG_RBP)
			s->rbp = how, s->rbp_off = (long)off;
		else if (reg == REG_RA)
			s->ra = how, s->ra_off = (long)off;
		continue;
advance:
		if (loc + delta > target)
			return 0;
		loc += delta;
	}
	return r->bad ? -1 : 0;
}

/* The rule at address target (a call's address, or the exact pc of the
 * first frame), read from the module's .eh_frame. */
static unsigned find_rule(uintptr_t target)
{
	struct dl_find_object fo;
	const uint8_t *hdr, *fde, *cie, *tab;
	struct reader r;
	struct cfi_state s, init;
	uintptr_t pc_begin, pc_range, dbase = 0;
	uint64_t count, code_align;
	int64_t data_align;
	uint8_t fde_enc = 0;
	size_t lo, hi;
	const char *aug;
	int z = 0, signal_frame = 0;

	if (find_object((void *)target, &fo) != 0 || !fo.dlfo_eh_frame)
		return RULE_NOT_SIMPLE;
#if DLFO_STRUCT_HAS_EH_DBASE
	dbase = (uintptr_t)fo.dlfo_eh_dbase;
#endif
	/* .eh_frame_hdr: version 1, then the encodings of eh_frame_ptr, of
	 * the count and of the table; the table must be the binary-search
	 * one (datarel sdata4, relative to the header). */
	hdr = fo.dlfo_eh_frame;
	if (hdr[0] != 1 || hdr[3] != 0x3b)
		return RULE_NOT_SIMPLE;
	r = (struct reader){ hdr + 4, hdr + 4 + 16, 0 };
	encoded(&r, hdr[1], (uintptr_t)hdr);
	count = encoded(&r, hdr[2], (uintptr_t)hdr);
	if (r.bad || count == 0)
		return RULE_NOT_SIMPLE;
	tab = r.p;
	/* The last entry at or below target. */
	lo = 0;
	hi = count;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t at;

		memcpy(&at, tab + 8 * mid, 4);
		if ((uintptr_t)hdr + (intptr_t)at <= target)
			lo = mid;
		else
			hi = mid;
	}
	{
		int32_t at, f;

		memcpy(&at, tab + 8 * lo, 4);
		memcpy(&f, tab + 8 * lo + 4, 4);
		if ((uintptr_t)hdr + (intptr_t)at > target)
			return RULE_NOT_SIMPLE;
		fde = hdr + f;
	}
	/* The FDE and its CIE (32-bit lengths only). */
	{
		uint32_t len, id;

		memcpy(&len, fde, 4);
		memcpy(&id, fde + 4, 4);
		if (len == 0 || len == 0xffffffffU || id == 0)
			return RULE_NOT_SIMPLE;
		cie = fde + 4 - id;
		memcpy(&len, cie, 4);
		if (len == 0 || len == 0xffffffffU)
			return RULE_NOT_SIMPLE;
		r = (struct reader){ cie + 8, cie + 4 + len, 0 };
	}
	if (r.p >= r.end || (*r.p != 1 && *r.p != 3))
		return RULE_NOT_SIMPLE;
	{
		uint8_t version = *r.p++;

		aug = (const char *)r.p;
		r.p = memchr(r.p, 0, (size_t)(r.end - r.p));
		if (!r.p)
			return RULE_NOT_SIMPLE;
		r.p++;
		code_align = uleb(&r);
		data_align = sleb(&r);
		if ((version == 1 ? fixed(&r, 1) : uleb(&r)) != REG_RA)
			return RULE_NOT_SIMPLE;
	}
	if (aug[0] == 'z') {
		uint64_t n = uleb(&r);
		const uint8_t *next = r.p + n;

		z = 1;
		for (const char *a = aug + 1; *a && !r.bad; a++) {
			if (*a == 'R')
				fde_enc = (uint8_t)fixed(&r, 1);
			else if (*a == 'L')
				fixed(&r, 1);
			else if (*a == 'P') {
				uint8_t enc = (uint8_t)fixed(&r, 1);

				encoded(&r, enc & 0x7f, 0);
			} else if (*a == 'S') {
				signal_frame = 1;
			} else {
				return RULE_NOT_SIMPLE;
			}
		}
		r.p = next;
	} else if (aug[0]) {
		return RULE_NOT_SIMPLE;
	}
	if (r.bad || r.p > r.end)
		return RULE_NOT_SIMPLE;
	if (signal_frame)
		return RULE_SIGNAL;
	s = (struct cfi_state){ REG_RSP, 8, SAME, SAME, 0, 0 };
	if (run_cfi(&r, &s, &s, 0, 0, code_align, data_align, fde_enc) < 0)
		return RULE_NOT_SIMPLE;
	init = s;
	/* The FDE's range, then its instructions. */
	{
		uint32_t len;

		memcpy(&len, fde, 4);
		r = (struct reader){ fde + 8, fde + 4 + len, 0 };
	}
	pc_begin = encoded(&r, fde_enc, dbase);
	pc_range = encoded(&r, fde_enc & 0x0f, 0);
	if (z)
		r.p += uleb(&r);
	if (r.bad || r.p > r.end || target < pc_begin || target - pc_begin >= pc_range)
		return RULE_NOT_SIMPLE;
	if (run_cfi(&r, &s, &init, pc_begin, target, code_align, data_align, fde_enc) < 0)
		return RULE_NOT_SIMPLE;
	if (s.ra == UNDEF)
		return RULE_END;
	if ((s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP) || s.cfa_off % 8 ||
	    s.cfa_off < 8 || s.cfa_off / 8 > 2047 || s.ra != OFFSET || s.ra_off != -8)
		return RULE_NOT_SIMPLE;
	if (s.rbp == OFFSET) {
		if (s.rbp_off >= 0 || s.rbp_off % 8 || -s.rbp_off / 8 > 31)
			return RULE_NOT_SIMPLE;
	} else if (s.rbp != SAME) {
		return RULE_NOT_SIMPLE;
	}
	return (unsigned)(s.cfa_reg == REG_RBP) | (unsigned)(s.cfa_off / 8) << 1 |
	       (s.rbp == OFFSET ? (unsigned)(-s.rbp_off / 8) << 12 : 0);
}

/* ---- the cache ---- */

#define CACHE_BITS 13
#define CACHE_SLOTS (1U << CACHE_BITS)
#define CACHE_PROBES 8

/* Entries: the address in the low 47 bits, its rule above; 0 is free.
 * In .bss: untouched (no page) in a process that makes no report. */
static uint64_t cache[CACHE_SLOTS] UFD_LATE_BSS;

static uint32_t slot_of(uintptr_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - CACHE_BITS));
}

/* The cache entry of address key, found after its first slot or made and
 * added (not added if its slots are full): the entry's word, its rule
 * above ADDR_BITS. */
static __attribute__((noinline)) uint64_t entry_slow(uintptr_t key)
{
	uint32_t slot = slot_of(key);
	uint64_t made;

	for (int i = 0; i < CACHE_PROBES; i++) {
		uint64_t e = __atomic_load_n(&cache[(slot + i) & (CACHE_SLOTS - 1)],
					     __ATOMIC_RELAXED);

		if ((e & ADDR_MASK) == key && e)
			return e;
		if (e == 0)
			break;
	}
	if (key == 0 || key > ADDR_MASK)
		return RULE_NOT_SIMPLE;
	made = key | (uint64_t)find_rule(key) << ADDR_BITS;
	for (int i = 0; i < CACHE_PROBES; i++) {
		uint64_t *p = &cache[(slot + i) & (CACHE_SLOTS - 1)];
		uint64_t e = 0;

		if (__atomic_compare_exchange_n(p, &e, made, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED) ||
		    (e & ADDR_MASK) == key)
			break; /* added, or added by another thread meanwhile */
	}
	return made;
}

/* In the kernel's signal frame, rsp points at the ucontext_t: its
 * uc_mcontext.gregs (after uc_flags, uc_link and uc_stack), and the slots
 * of rbp, rsp and rip there (REG_RBP, REG_RSP, REG_RIP of sys/ucontext.h). */
#define UC_GREGS 40
#define REG_RBP_SLOT 10
#define REG_RSP_SLOT 15
#define REG_RIP_SLOT 16

/* How far up the stack one frame may move: more means a wrong rule. */
#define UNWIND_SPAN (1UL << 20)

__attribute__((noinline, no_sanitize_address)) int unwind_capture(uintptr_t *pcs,
								   int max)
{
	uintptr_t pc, sp, fp, key;
	int n = 0;

	if (!find_object || max <= 0)
		return max <= 0 ? 0 : -1;
	/* This frame's state at one of its instructions: its rule is the
	 * one at that exact address. */
	__asm__ volatile("1: lea 1b(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(pc), "=r"(sp), "=r"(fp));
	key = pc;
	for (;;) {
		/* The rule's fields read straight from the entry (see
		 * RULE_BITS): the CFA's offset in bytes, its register, rbp's
		 * slot. */
		uint64_t e = __atomic_load_n(&cache[slot_of(key)], __ATOMIC_RELAXED);
		uintptr_t off, cfa, ra;
		unsigned k;

		if ((e & ADDR_MASK) != key || !e)
			e = entry_slow(key);
		off = (uintptr_t)(e >> (ADDR_BITS + 1 - 3)) & (2047 << 3);
		if (off == 0 && (e >> ADDR_BITS) == RULE_SIGNAL) {
			/* The interrupted frame: its registers as they were,
			 * its pc exact (not a return address). */
			const uintptr_t *gregs = (const uintptr_t *)(sp + UC_GREGS);

			if (gregs[REG_RSP_SLOT] <= sp)
				return -1;
			fp = gregs[REG_RBP_SLOT];
			sp = gregs[REG_RSP_SLOT];
			key = gregs[REG_RIP_SLOT];
			if (key == 0)
				return n;
			pcs[n++] = key;
			if (n == max)
				return n;
			continue;
		}
		if (off == 0)
			return (e >> ADDR_BITS) == RULE_END ? n : -1;
		cfa = ((e >> ADDR_BITS) & 1 ? fp : sp) + off;
		if (cfa - sp - 1 >= UNWIND_SPAN)
			return -1;
		ra = *(const uintptr_t *)(cfa - 8);
		k = (unsigned)(e >> (ADDR_BITS + 12));
		if (k)
			fp = *(const uintptr_t *)(cfa - 8 * k);
		sp = cfa;
		if (ra == 0)
			return n; /* (libgcc's end, which backtrace drops) */
		pcs[n++] = ra;
		if (n == max)
			return n;
		key = ra - 1; /* the call */
	}
}

#else /* not x86_64 */

int unwind_init(void)
{
	return -ENOSYS;
}

int unwind_capture(uintptr_t *pcs, int max)
{
	(void)pcs;
	(void)max;
	return -1;
}

#endif
