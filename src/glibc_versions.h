/* SPDX-License-Identifier: MIT */
/*
 * glibc_versions.h - which version of a glibc function ufd's code binds
 * to, where glibc exports the same one under an older version too: the
 * oldest.  Every version the library needs costs the loader a look-up in
 * libc's version definitions at every start-up (~240 instructions each,
 * callgrind of /bin/true), so a need that brings nothing goes.  Forced
 * into every file of the library (meson.build's -include): a .symver
 * must be in each object that refers to the function.  tests/version_needs.sh
 * holds the versions the library may need, and why.
 *
 * The same function, under an older version as well (objdump -T libc.so.6:
 * one address):
 *   - dlsym, dladdr: GLIBC_2.34 since libdl went into libc; GLIBC_2.2.5
 *     too, for programs linked against libdl.  Not GLIBC_2.34.
 *   - clock_gettime: GLIBC_2.17 since librt's went into libc; GLIBC_2.2.5
 *     too.  secure_getenv: GLIBC_2.17, the same function as
 *     __secure_getenv@GLIBC_2.2.5.  Not GLIBC_2.17.
 * A different function:
 *   - memcpy: memcpy@GLIBC_2.14 is the processor's best variant chosen at
 *     its first call (an IFUNC); memcpy@GLIBC_2.2.5 is glibc's SSE2 one
 *     (__memcpy_sse2_unaligned), which also allows overlap (the reason
 *     for 2.14).  ufd copies at most a few KB at a time (names, message
 *     headers, poll arrays), where the two differ by nothing measurable.
 *     Not GLIBC_2.14.
 * A .symver names a function without referring to it: an object that
 * calls none of these gets nothing from this file.
 */
#ifndef UFD_GLIBC_VERSIONS_H
#define UFD_GLIBC_VERSIONS_H

/* x86-64's glibc, whose first version is GLIBC_2.2.5 (features.h, which
 * says whether the libc is glibc, cannot come before a file's own
 * _GNU_SOURCE; ufd builds on glibc only). */
#if defined(__x86_64__) && !defined(__ILP32__)
__asm__(".symver dlsym, dlsym@GLIBC_2.2.5");
__asm__(".symver dladdr, dladdr@GLIBC_2.2.5");
__asm__(".symver clock_gettime, clock_gettime@GLIBC_2.2.5");
__asm__(".symver secure_getenv, __secure_getenv@GLIBC_2.2.5");
__asm__(".symver memcpy, memcpy@GLIBC_2.2.5");
#endif

#endif
