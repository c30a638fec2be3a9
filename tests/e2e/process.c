/* SPDX-License-Identifier: MIT */
/*
 * process.c - process state: backing descriptors out of the way, fork
 * closing close-on-fork descriptors and reseeding (tcase process);
 * threads making and closing virtual descriptors at once (tcase
 * threads).
 */
#include "e2e.h"

/* ---- process state ---- */

START_TEST(backing_descriptors_stay_out_of_the_way)
{
	int fd = temp_file("x"), first, again, v[100];

	first = open("/dev/null", O_RDONLY);
	close(first);
	for (int i = 0; i < 100; i++)
		v[i] = api_nonseqfd(fd, 0);
	again = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(again, first);
	close(again);
	for (int i = 0; i < 100; i++)
		close(v[i]);
	close(fd);
}
END_TEST

START_TEST(fork_closes_clofork_and_reseeds)
{
	int fd = temp_file("x"), keep, drop, p[2], parent_next, child_next;
	pid_t pid;
	int status;

	keep = api_nonseqfd(fd, 0);
	drop = api_nonseqfd(fd, NONSEQFD_CLOFORK);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int ok = fcntl(keep, F_GETFD) == 0 && fcntl(drop, F_GETFD) == -1 &&
			 errno == EBADF;

		child_next = dup2(fd, FD_UNSEQ_ALLOC);
		if (write(p[1], &child_next, sizeof(child_next)) < 0)
			ok = 0;
		_exit(ok ? 0 : 1);
	}
	parent_next = dup2(fd, FD_UNSEQ_ALLOC);
	ck_assert_int_eq(read(p[0], &child_next, sizeof(child_next)),
			 sizeof(child_next));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "close-on-fork not applied in the child");
	ck_assert_int_eq(fcntl(drop, F_GETFD), FD_CLOFORK); /* the parent keeps it */
	ck_assert_msg(parent_next != child_next,
		      "parent and child allocated the same number %d", parent_next);
	close(parent_next);
	close(keep);
	close(drop);
	close(p[0]);
	close(p[1]);
	close(fd);
}
END_TEST

/* ---- threads ---- */

struct churn {
	int src;	/* descriptor to duplicate */
	int stable;	/* a virtual descriptor that must stay valid */
	int rounds;
	int errors;
};

static void *churn_thread(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < c->rounds; i++) {
		int v = i % 3 ? dup2(c->src, FD_UNSEQ_ALLOC)
			      : fcntl(c->src, F_DUPFD, FD_UNSEQ_BASE + 4096);

		if (!is_vfd(v) || fcntl(v, F_GETFD) != 0 ||
		    fcntl(c->stable, F_GETFD) != FD_CLOEXEC || close(v) != 0)
			c->errors++;
	}
	return NULL;
}

START_TEST(threads_create_and_close)
{
	int fd = temp_file("x"), stable = api_nonseqfd(fd, NONSEQFD_CLOEXEC);
	int before = count_real_fds();
	struct churn c[2] = { { fd, stable, 3000, 0 }, { fd, stable, 3000, 0 } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn_thread, &c[i]), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(c[0].errors + c[1].errors, 0);
	/* Every backing descriptor made was closed again. */
	ck_assert_int_eq(count_real_fds(), before);
	close(stable);
	close(fd);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *process_case(void)
{
	TCase *proc = tcase_create("process");

	tcase_add_test(proc, backing_descriptors_stay_out_of_the_way);
	tcase_add_test(proc, fork_closes_clofork_and_reseeds);
	return proc;
}

TCase *threads_case(void)
{
	TCase *threads = tcase_create("threads");

	tcase_add_test(threads, threads_create_and_close);
	tcase_set_timeout(threads, 60);
	return threads;
}
