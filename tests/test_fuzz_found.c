/* SPDX-License-Identifier: MIT */
/*
 * Description: what the fuzzer (tests/fuzz) and the review of its round
 * found, each case the smallest program that shows it, against the
 * kernel's answer (what the same calls give without ufd, stated in the
 * case).
 *
 *   dupfd_from_past_limit  F_DUPFD from a number at or past the
 *                          application's soft limit is EINVAL, also when
 *                          ufd has raised the kernel's limit over a
 *                          backing descriptor there (placement_cover) and
 *                          the kernel finds nothing free below it (EMFILE)
 *
 * A case whose bug is not fixed yet is listed in known_bugs with the
 * reason and left out (the run says so), unless UFD_TEST_KNOWN_BUGS is set
 * in the environment: then it runs, and fails until the fix is in.
 *
 * Runs under LD_PRELOAD=libufd.so (not linked); each case is a fork of its
 * own (Check's default), so the limits it sets stay in it.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_check.h"
#include "ufd_test.h"

/* Set the soft RLIMIT_NOFILE to soft, the hard one as it is. */
static void set_soft(rlim_t soft)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = soft;
	ck_assert_msg(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit(%lu): %s",
		      (unsigned long)soft, strerror(errno));
}

/*
 * Fuzz seed 1014 (--ops 300, UFD_MODE=all), shrunk.  A backing descriptor
 * placed while the soft limit was the hard one sits high; the limit is
 * lowered to 1024, and a dup2 onto its virtual descriptor makes ufd raise
 * the kernel's limit just over it (placement_cover).  F_DUPFD from that
 * number: the kernel, without ufd, answers EINVAL (from >= RLIMIT_NOFILE,
 * before it looks for a free number); under ufd the kernel's own limit let
 * the call through, found nothing free up to it, and its EMFILE came out.
 */
START_TEST(dupfd_from_past_limit)
{
	struct rlimit rl;
	int v, b, r;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 4096 || rl.rlim_max > (1 << 20))
		return; /* the hard limit leaves no room for the case */
	set_soft(rl.rlim_max);
	v = dup2(0, FD_UNSEQ_ALLOC);
	ck_assert_msg(is_vfd(v), "dup2(0, FD_UNSEQ_ALLOC): %d (%s)", v, strerror(errno));
	b = api_backing_fd(v);
	ck_assert_int_ge(b, 2048);
	set_soft(1024);
	ck_assert_int_eq(dup2(1, v), v);
	errno = 0;
	r = fcntl(0, F_DUPFD_CLOEXEC, b);
	ck_assert_msg(r == -1 && errno == EINVAL,
		      "F_DUPFD_CLOEXEC from %d at soft limit 1024: %d (%s), the "
		      "kernel's answer EINVAL", b, r, strerror(errno));
	errno = 0;
	r = fcntl(0, F_DUPFD, b);
	ck_assert_msg(r == -1 && errno == EINVAL,
		      "F_DUPFD from %d at soft limit 1024: %d (%s), the kernel's "
		      "answer EINVAL", b, r, strerror(errno));
}
END_TEST

/* Cases not fixed yet: left out unless UFD_TEST_KNOWN_BUGS is set. */
static const struct {
	const TTest *test;
	const char *why;
} known_bugs[] = {
	{ &dupfd_from_past_limit_ttest,
	  "fcntl_common (src/shim_fd.c) turns the kernel's answer into EINVAL "
	  "past the application's limit only when the call succeeded, not when "
	  "it failed with EMFILE" },
	{ NULL, NULL },
};

static int is_known_bug(const TTest *t)
{
	for (size_t i = 0; known_bugs[i].test; i++)
		if (known_bugs[i].test == t) {
			if (getenv("UFD_TEST_KNOWN_BUGS"))
				return 0;
			printf("SKIP %s: known bug: %s (UFD_TEST_KNOWN_BUGS=1 runs it)\n",
			       t->name, known_bugs[i].why);
			return 1;
		}
	return 0;
}

static void add(TCase *tc, const TTest *t)
{
	if (!is_known_bug(t))
		tcase_add_test(tc, t);
}

int main(void)
{
	Suite *s = suite_create("fuzz-found");
	TCase *tc = tcase_create("fuzz-found");

	load_api(1);
	tcase_set_timeout(tc, 60);
	add(tc, dupfd_from_past_limit);
	suite_add_tcase(s, tc);
	return ufd_test_run_suite(s);
}
