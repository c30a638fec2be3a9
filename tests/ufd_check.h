/* SPDX-License-Identifier: MIT */
/*
 * ufd_check.h - what the test programs built on Check share: running the
 * suite.  Apart from ufd_test.h, which programs without Check include
 * too (ufd_helper) and the fdmap tests, built without ufd, do not.
 */
#ifndef UFD_CHECK_H
#define UFD_CHECK_H

#include <check.h>
#include <stdlib.h>

/* Run every test of s (Check's CK_RUN_CASE and CK_RUN_SUITE choose
 * fewer), free it, and return the program's exit status: EXIT_SUCCESS
 * when none failed. */
static inline int ufd_test_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* UFD_CHECK_H */
