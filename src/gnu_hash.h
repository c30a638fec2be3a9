/* SPDX-License-Identifier: MIT */
/*
 * gnu_hash.h - the GNU hash of a name, folded by the compiler from a
 * string literal: what the table of calls (calls.c) stores for each row
 * and the resolver (symbols.c) looks up, in a header that needs neither.
 */
#ifndef UFD_GNU_HASH_H
#define UFD_GNU_HASH_H

#include <stdint.h>

/*
 * The GNU hash of a string literal of at most UFD_SYMBOLS_HASH_MAX
 * characters, for ufd_symbols_find: h = h * 33 + c from 5381, one step a
 * character, a step past the end multiplying by 1 and adding 0, so that
 * each step names h once.  The compiler folds it to a constant; longer
 * names must be refused where it is used (a static assertion).
 */
#define UFD_SYMBOLS_HASH_MAX 48
#define UFD_SH_(h, s, i)                                            \
	((h) * ((i) < sizeof(s) - 1 ? 33u : 1u) +                     \
	 ((i) < sizeof(s) - 1 ? (uint32_t)(unsigned char)(s)[(i) < sizeof(s) - 1 ? (i) : 0] : 0u))
#define UFD_SH0_(h, s) UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_((h), s, 0), s, 1), s, 2), s, 3), s, 4), s, 5), s, 6), s, 7)
#define UFD_SH1_(h, s) UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_((h), s, 8), s, 9), s, 10), s, 11), s, 12), s, 13), s, 14), s, 15)
#define UFD_SH2_(h, s) UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_((h), s, 16), s, 17), s, 18), s, 19), s, 20), s, 21), s, 22), s, 23)
#define UFD_SH3_(h, s) UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_((h), s, 24), s, 25), s, 26), s, 27), s, 28), s, 29), s, 30), s, 31)
#define UFD_SH4_(h, s) UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_((h), s, 32), s, 33), s, 34), s, 35), s, 36), s, 37), s, 38), s, 39)
#define UFD_SH5_(h, s) UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_(UFD_SH_((h), s, 40), s, 41), s, 42), s, 43), s, 44), s, 45), s, 46), s, 47)
#define UFD_SYMBOLS_HASH(s) ((uint32_t)(UFD_SH5_(UFD_SH4_(UFD_SH3_(UFD_SH2_(UFD_SH1_(UFD_SH0_(5381u, s), s), s), s), s), s)))

#endif /* UFD_GNU_HASH_H */
