/* SPDX-License-Identifier: MIT */
/*
 * main.c - unit tests of the descriptor map (src/fdmap.c): the suite.
 *
 * Description:
 *   Tests the contract of fdmap.h on the data structure alone, with Check
 *   (fork mode, one suite):
 *   - ops:        every operation's return values and effects: init limits,
 *                 alloc_random/exact/from (including value 0), release,
 *                 replace, get and the next_busy iteration;
 *   - exhaustion: small limits filled by random allocation then -EMFILE,
 *                 -EBUSY and -ERANGE, and a freed slot found again;
 *   - from:       alloc_from returns the lowest free slot >= n, across
 *                 segment boundaries, over full segments (and 64 of them),
 *                 and at the very end of the space;
 *   - random:     uniformity (chi-square) and non-sequential draws with a
 *                 fixed seed, same seed same sequence, other seed other one,
 *                 and the same draws whichever segments are mapped;
 *   - growth:     the drawing range keeps max(4096, 4k) free slots for k
 *                 live, also when exact allocations, put and release move
 *                 live in jumps, and the values chosen spread over it;
 *   - concurrent: one writer mutating (and mapping new segments) while two
 *                 readers call fdmap_get and must never see garbage;
 *   - model:      a long random sequence of operations checked against a
 *                 plain array model;
 *   - destroy:    fdmap_destroy unmaps the segments and a re-initialised map
 *                 is all free.
 *
 *   The tests are in ops.c, alloc.c, concurrent.c and model.c, each
 *   making its test cases; fdmap_test.h holds what they share.
 */
#include "fdmap_test.h"

static Suite *fdmap_suite(void)
{
	Suite *s = suite_create("fdmap");

	suite_add_tcase(s, ops_case());
	suite_add_tcase(s, exhaustion_case());
	suite_add_tcase(s, alloc_from_case());
	suite_add_tcase(s, randomness_case());
	suite_add_tcase(s, growth_case());
	suite_add_tcase(s, concurrent_case());
	suite_add_tcase(s, model_case());
	suite_add_tcase(s, destroy_case());
	return s;
}

int main(void)
{
	return ufd_test_run_suite(fdmap_suite());
}
