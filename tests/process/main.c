/* SPDX-License-Identifier: MIT */
/*
 * main.c - the process tests' suite and main.  The tests: virtual
 * descriptors across process events: fork in a threaded program,
 * close-on-fork (virtual and real descriptors), the reseeding of the
 * generator in a fork child, vfork, closes from signal handlers, exec
 * (self, a chain of programs through each member of the exec family,
 * failed execs), posix_spawn file actions, the protection of backing
 * descriptors (close, dup2, close_range, closefrom), descriptor numbering
 * with many virtual descriptors, RLIMIT_NOFILE exhaustion, and `ls
 * /proc/self/fd` under the shim.
 *
 * Like the e2e tests, this test is built twice, linked against libufd.so and
 * not linked but run under LD_PRELOAD; the ufd API is reached through
 * dlsym().  The helper program it runs (ufd_helper, not linked against
 * ufd) and the preload library many_vfds come in through the environment:
 * UFD_TEST_HELPER, UFD_TEST_MANY and UFD_TEST_PRELOAD (the LD_PRELOAD
 * value that loads ufd, with the ASan runtime first in sanitizer builds).
 *
 * The threaded cases (tcases "forkthreads", "signals" and "makers") also run alone
 * under ThreadSanitizer (CK_RUN_CASE); they make no virtual descriptor
 * with socketpair or pipe, whose TSan interceptors abort on numbers past
 * 2^20.
 *
 * The tcase "regressions" holds bugs of src/ that these tests (the kb_*
 * ones) or a review found, since fixed; each one's comment says what the
 * bug was.
 *
 * The tests are in files by topic, each making its test cases: fork.c,
 * signals.c, exec.c, backing.c, regressions.c; helpers.c and process.h
 * hold what they share.  With two arguments (--closed or --open and a
 * number) this program is the exec'd side of exec.c's O_CLOEXEC test.
 */
#include "process.h"

static Suite *process_suite(void)
{
	Suite *s = suite_create("process");

	suite_add_tcase(s, forkthreads_case());
	suite_add_tcase(s, signals_case());
	suite_add_tcase(s, clofork_case());
	suite_add_tcase(s, reseed_case());
	suite_add_tcase(s, vfork_case());
	suite_add_tcase(s, exec_case());
	suite_add_tcase(s, protect_case());
	suite_add_tcase(s, listing_case());
	suite_add_tcase(s, makers_case());
	suite_add_tcase(s, regressions_case());
	return s;
}

int main(int argc, char **argv)
{
	load_api(1);
	self_exe = realpath("/proc/self/exe", NULL);
	if (argc == 3)
		return self_exec_mode(argv[1], atoi(argv[2]));
	helper_path = getenv("UFD_TEST_HELPER");
	many_path = getenv("UFD_TEST_MANY");
	preload = getenv("UFD_TEST_PRELOAD");
	if (!helper_path || !many_path || !preload || !self_exe) {
		fprintf(stderr, "UFD_TEST_HELPER, UFD_TEST_MANY and "
				"UFD_TEST_PRELOAD must be set (tests/meson.build)\n");
		return EXIT_FAILURE;
	}
	/* The programs this test runs get ufd (and, in a sanitizer build,
	 * the ASan runtime before it) through the environment, also when
	 * this test is linked against ufd rather than preloaded. */
	if (!getenv("LD_PRELOAD"))
		setenv("LD_PRELOAD", preload, 1);
	return ufd_test_run_suite(process_suite());
}
