/* SPDX-License-Identifier: MIT */
/*
 * main.c - the differential test: one Check test per family of descriptor
 * calls, the families listed in FAMILIES.  Each family has one script: a
 * sequence of calls, misuse included, written once.  The script runs
 * twice, each time in a fresh child process and a fresh temporary
 * directory, under LD_PRELOAD=libufd.so: once on real descriptors (REAL)
 * and once with every descriptor it works with replaced by a virtual
 * duplicate (VIRTUAL).  Every call is logged - its text, its result, errno
 * when it failed, and the data it read back - and the two logs must agree
 * record by record: a virtual descriptor must give the kernel's exact
 * results and errno.
 *
 * A script never logs what legitimately differs between the runs:
 * descriptor numbers (a new descriptor is logged as "fd", valid, or the
 * error), paths and inode numbers of the run's fresh files (it logs "same
 * file as" relations instead), times and pids.
 *
 * The ufd API is reached through dlsym() so that the program needs no link
 * against ufd; without libufd.so loaded every test fails saying so.
 * CK_RUN_CASE=<family> runs one family; UFD_DIFF_DUMP=1 prints both logs
 * side by side.  Adding a family is a script and one line in FAMILIES.
 *
 * The harness that runs and compares (harness.c, diff.h) is apart from
 * the scripts, a file per family or small group of them: io.c, files.c,
 * dirfd.c, sockets.c, poll.c, fdtable.c, misc.c, inside.c, sysdata.c, syscalls.c,
 * signals.c.
 */
#include "diff.h"

/* Every family: one line each. */
#define FAMILIES(X)       \
	X(io)             \
	X(stat)           \
	X(fileops)        \
	X(dirfd_calls)    \
	X(sockets)        \
	X(pipes_splice)   \
	X(poll)           \
	X(epoll)          \
	X(fdflags)        \
	X(misc)           \
	X(stdio)          \
	X(devfd_paths)    \
	X(raw_syscall)    \
	X(new_syscalls)   \
	X(bulk_close)     \
	X(inside_data)    \
	X(inside_syscall) \
	X(signals)

/* The scripts, in the files of their families. */
#define DECLARE_SCRIPT(name) script_fn script_##name;
FAMILIES(DECLARE_SCRIPT)

/* One Check test per family. */
#define DECLARE_TEST(name)                              \
	START_TEST(test_##name)                         \
	{                                               \
		run_family(#name, script_##name);       \
	}                                               \
	END_TEST
FAMILIES(DECLARE_TEST)

static const struct family {
	const char *name;
	const TTest *const *test;
} families[] = {
#define FAMILY_ROW(name) { #name, &test_##name },
	FAMILIES(FAMILY_ROW)
#undef FAMILY_ROW
};

int main(void)
{
	Suite *s = suite_create("diff");

	load_api(0);
	if (!api_nonseqfd)
		fprintf(stderr, "libufd.so is not loaded: run this test under "
				"LD_PRELOAD=libufd.so\n");
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		TCase *tc = tcase_create(families[i].name);

		tcase_add_test(tc, *families[i].test);
		tcase_set_timeout(tc, 3 * SCRIPT_TIMEOUT);
		suite_add_tcase(s, tc);
	}
	return ufd_test_run_suite(s);
}
