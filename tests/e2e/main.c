/* SPDX-License-Identifier: MIT */
/*
 * main.c - the suite of the end-to-end tests of the first path through
 * the shim: nonseqfd(), dup2(fd, FD_UNSEQ_ALLOC), exact dup2(fd, N),
 * F_DUPFD into the virtual space, O_UNSEQFD and SOCK_UNSEQ, and read,
 * write, close and fcntl on the descriptors they make.  Wherever a call
 * can fail, the result and errno are compared with what the kernel gives
 * for the same misuse of a real descriptor.
 *
 * This test is built twice: test_e2e_linked links libufd.so, and
 * test_e2e_preload does not and runs under LD_PRELOAD=libufd.so, so both
 * ways of using ufd are tested by the same code.  The preload build is
 * also compiled without _FILE_OFFSET_BITS=64, so that between them the two
 * builds call both open/fcntl/lseek/pread/fstat/ftruncate and their
 * *64 twins.  The ufd API is reached
 * through dlsym() so that the preload build needs no link against ufd.
 *
 * The tests are in alloc.c, io.c, process.c and sets.c, each making its
 * test cases; e2e.h holds what they share.
 */
#include "e2e.h"

/* ufd's API, for every file of this test (ufd_test.h). */
int (*api_nonseqfd)(int, int);
int (*api_is_virtual)(int);
int (*api_backing_fd)(int);

static Suite *e2e_suite(void)
{
	Suite *s = suite_create("e2e");

	suite_add_tcase(s, threads_case());
	suite_add_tcase(s, sets_case());
	suite_add_tcase(s, alloc_case());
	suite_add_tcase(s, data_case());
	suite_add_tcase(s, misuse_case());
	suite_add_tcase(s, process_case());
	return s;
}

int main(void)
{
	load_api(1);
	return ufd_test_run_suite(e2e_suite());
}
