/* SPDX-License-Identifier: MIT */
/*
 * empty.c - a preloaded library that does nothing: bench/run's floor for
 * the start-up ratios.  Any LD_PRELOAD costs every process the loader's
 * work of finding, mapping and relocating one more library; what ufd costs
 * beyond that is ufd's own.
 */
int bench_empty_library;
