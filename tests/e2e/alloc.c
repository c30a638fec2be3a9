/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - the ways to make a virtual descriptor: nonseqfd(),
 * dup2(fd, FD_UNSEQ_ALLOC), exact dup2 and dup3, F_DUPFD into the virtual
 * space, O_UNSEQFD, SOCK_UNSEQ and accept4 (tcase alloc).
 */
#include "e2e.h"

#include <sys/auxv.h>

/* ---- allocation ---- */

START_TEST(alloc_random_is_virtual_and_scattered)
{
	int fd = temp_file("x"), prev = -1, sequential = 0;
	int v[200];

	for (int i = 0; i < 200; i++) {
		v[i] = dup2(fd, FD_UNSEQ_ALLOC);
		ck_assert_msg(is_vfd(v[i]), "dup2(fd, FD_UNSEQ_ALLOC) = %d", v[i]);
		for (int j = 0; j < i; j++)
			ck_assert_int_ne(v[i], v[j]);
		if (prev >= 0 && (v[i] == prev + 1 || v[i] == prev - 1))
			sequential++;
		prev = v[i];
	}
	/* At least 4096 candidates each time: neighbours are rare. */
	ck_assert_int_le(sequential, 5);
	for (int i = 0; i < 200; i++)
		ck_assert_int_eq(close(v[i]), 0);
	close(fd);
}
END_TEST

START_TEST(dup2_exact_and_replace)
{
	int a = temp_file("first"), b = temp_file("second");
	int n = FD_UNSEQ_BASE + 12345, before;
	char buf[16] = { 0 };

	ck_assert_int_eq(dup2(a, n), n);
	before = count_real_fds();
	/* dup2 onto an open virtual descriptor replaces it, and its old
	 * backing descriptor is closed: the count of real ones stays. */
	ck_assert_int_eq(dup2(b, n), n);
	ck_assert_int_eq(count_real_fds(), before);
	ck_assert_int_eq(read(n, buf, sizeof(buf) - 1), 6);
	ck_assert_str_eq(buf, "second");
	/* dup2 clears close-on-exec on the new descriptor, as the kernel's. */
	ck_assert_int_eq(fcntl(n, F_SETFD, FD_CLOEXEC), 0);
	ck_assert_int_eq(dup2(a, n), n);
	ck_assert_int_eq(fcntl(n, F_GETFD), 0);
	/* dup2(x, x) returns x for an open x, for both kinds. */
	ck_assert_int_eq(dup2(n, n), n);
	ck_assert_int_eq(dup2(a, a), a);
	ck_assert_int_eq(close(n), 0);
	close(a);
	close(b);
}
END_TEST

START_TEST(dup3_flags)
{
	int fd = temp_file("x"), v;

	v = dup3(fd, FD_UNSEQ_BASE + 77, O_CLOEXEC);
	ck_assert_int_eq(v, FD_UNSEQ_BASE + 77);
	ck_assert_int_eq(fcntl(v, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(close(v), 0);
	v = dup3(fd, FD_UNSEQ_ALLOC, 0);
	ck_assert(is_vfd(v));
	ck_assert_int_eq(fcntl(v, F_GETFD), 0);
	ck_assert_int_eq(close(v), 0);
	close(fd);
}
END_TEST

START_TEST(fdupfd_lowest_from_n)
{
	int fd = temp_file("x"), n = FD_UNSEQ_BASE + 1000;
	int a, b, c;

	a = fcntl(fd, F_DUPFD, n);
	b = fcntl(fd, F_DUPFD, n);
	c = fcntl(fd, F_DUPFD_CLOEXEC, n);
	ck_assert_int_eq(a, n);
	ck_assert_int_eq(b, n + 1);
	ck_assert_int_eq(c, n + 2);
	ck_assert_int_eq(fcntl(a, F_GETFD), 0);
	ck_assert_int_eq(fcntl(c, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(close(b), 0);
	ck_assert_int_eq(fcntl(fd, F_DUPFD, n), n + 1);
	/* From a virtual source below FD_UNSEQ_BASE: a real descriptor. */
	b = fcntl(a, F_DUPFD, 0);
	ck_assert_int_ge(b, 0);
	ck_assert(!is_vfd(b));
	close(b);
	close(a);
	close(n + 1);
	close(c);
	close(fd);
}
END_TEST

START_TEST(nonseqfd_flags)
{
	int fd = temp_file("hello"), v, w;
	char buf[8] = { 0 };

	v = api_nonseqfd(fd, NONSEQFD_CLOEXEC);
	ck_assert(is_vfd(v));
	ck_assert_int_eq(fcntl(v, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(api_is_virtual(v), 1);
	ck_assert_int_eq(api_is_virtual(fd), 0);
	ck_assert_int_ge(api_backing_fd(v), 0);
	ck_assert(!is_vfd(api_backing_fd(v)));
	ck_assert_int_eq(api_backing_fd(fd), fd);

	/* NONSEQFD_CLOSE: the original is gone, the duplicate works. */
	w = api_nonseqfd(v, NONSEQFD_CLOSE);
	ck_assert(is_vfd(w));
	ck_assert_int_eq(fcntl(w, F_GETFD), 0);
	ck_assert_int_eq(fcntl(v, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(read(w, buf, 5), 5);
	ck_assert_str_eq(buf, "hello");
	ck_assert_int_eq(close(w), 0);
	close(fd);
}
END_TEST

/* The program's own file: /proc/self/exe, or under qemu-user, which
 * makes only open() of that path name the program (stat, /dev/fd and
 * openat name qemu), the path the program was started by. */
static const char *self_exe(void)
{
	if (getenv("UFD_TEST_EMULATOR"))
		return (const char *)getauxval(AT_EXECFN);
	return "/proc/self/exe";
}

START_TEST(open_and_socket_unseq)
{
	int fd, sv[2];
	char buf[8] = { 0 };
	struct stat st1, st2;

	fd = open(self_exe(), O_RDONLY | O_UNSEQFD | O_CLOEXEC);
	ck_assert(is_vfd(fd));
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(read(fd, buf, 4), 4);
	ck_assert(memcmp(buf, "\177ELF", 4) == 0);
	ck_assert_int_eq(fstat(fd, &st1), 0);
	ck_assert_int_eq(stat(self_exe(), &st2), 0);
	ck_assert(st1.st_ino == st2.st_ino);
	ck_assert_int_eq(close(fd), 0);

	fd = openat(AT_FDCWD, "/proc/self/exe", O_RDONLY | O_UNSEQFD);
	ck_assert(is_vfd(fd));
	ck_assert_int_eq(fcntl(fd, F_GETFD), 0);
	ck_assert_int_eq(close(fd), 0);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_UNSEQ, 0, sv), 0);
	ck_assert(is_vfd(sv[0]) && is_vfd(sv[1]));
	ck_assert_int_eq(write(sv[0], "ping", 4), 4);
	ck_assert_int_eq(read(sv[1], buf, 4), 4);
	ck_assert(memcmp(buf, "ping", 4) == 0);
	close(sv[0]);
	close(sv[1]);

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_UNSEQ | SOCK_CLOEXEC, 0);
	ck_assert(is_vfd(fd));
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(close(fd), 0);
}
END_TEST

/* glibc's fortify entry point (fcntl2.h declares it only under
 * _FORTIFY_SOURCE). */
extern int __open_2(const char *path, int flags);

/* Do a and b name the same file? */
static int same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * O_UNSEQFD's own path in the open wrappers, while virtual descriptors
 * exist: a /dev/fd path naming one (looked at after the call), a virtual
 * directory descriptor, O_CREAT (looked at before), a failure's errno, a
 * /dev/fd path naming a closed one (ENOENT, as the kernel says for a
 * closed descriptor), and the fortify entry point.
 */
START_TEST(open_unseq_paths)
{
	char path[64], tmp[] = "/tmp/ufd-e2e-unseq-XXXXXX";
	int v, w, d, gone;

	v = open(self_exe(), O_RDONLY | O_UNSEQFD);
	ck_assert(is_vfd(v));
	snprintf(path, sizeof(path), "/dev/fd/%d", v);
	w = open(path, O_RDONLY | O_UNSEQFD | O_CLOEXEC);
	ck_assert(is_vfd(w));
	ck_assert(same_file(v, w));
	ck_assert_int_eq(fcntl(w, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(close(w), 0);
	w = __open_2(path, O_RDONLY | O_UNSEQFD);
	ck_assert(is_vfd(w));
	ck_assert(same_file(v, w));
	ck_assert_int_eq(fcntl(w, F_GETFD), 0);
	ck_assert_int_eq(close(w), 0);

	d = open("/proc/self", O_RDONLY | O_DIRECTORY | O_UNSEQFD);
	ck_assert(is_vfd(d));
	w = openat(d, "exe", O_RDONLY | O_UNSEQFD);
	ck_assert(is_vfd(w));
	ck_assert(same_file(v, w) ||
		  skip_under_emulator("openat(/proc/self, \"exe\") is the program",
				      "it names qemu itself"));
	ck_assert_int_eq(close(w), 0);
	ck_assert_int_eq(close(d), 0);

	errno = 0;
	ck_assert_int_eq(open("/nonexistent-ufd/x", O_RDONLY | O_UNSEQFD), -1);
	ck_assert_int_eq(errno, ENOENT);

	w = mkstemp(tmp);
	ck_assert_int_ge(w, 0);
	ck_assert_int_eq(close(w), 0);
	w = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_UNSEQFD, 0600);
	ck_assert(is_vfd(w));
	ck_assert_int_eq(write(w, "x", 1), 1);
	ck_assert_int_eq(close(w), 0);
	ck_assert_int_eq(unlink(tmp), 0);

	gone = open("/proc/self/exe", O_RDONLY | O_UNSEQFD);
	ck_assert(is_vfd(gone));
	ck_assert_int_eq(close(gone), 0);
	snprintf(path, sizeof(path), "/dev/fd/%d", gone);
	errno = 0;
	ck_assert_int_eq(open(path, O_RDONLY | O_UNSEQFD), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(close(v), 0);
}
END_TEST

START_TEST(accept4_unseq)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int lst, cli, conn;
	char buf[4];

	/* An abstract socket name: nothing to clean up on disk. */
	snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "ufd-e2e-%d",
		 (int)getpid());
	lst = socket(AF_UNIX, SOCK_STREAM | SOCK_UNSEQ, 0);
	ck_assert(is_vfd(lst));
	ck_assert_int_eq(bind(lst, (struct sockaddr *)&addr,
			      sizeof(addr)), 0);
	ck_assert_int_eq(listen(lst, 1), 0);
	cli = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert(!is_vfd(cli));
	ck_assert_int_eq(connect(cli, (struct sockaddr *)&addr, sizeof(addr)), 0);
	conn = accept4(lst, NULL, NULL, SOCK_UNSEQ | SOCK_CLOEXEC);
	ck_assert(is_vfd(conn));
	ck_assert_int_eq(fcntl(conn, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(write(cli, "abc", 3), 3);
	ck_assert_int_eq(read(conn, buf, 3), 3);
	ck_assert(memcmp(buf, "abc", 3) == 0);
	close(conn);
	close(cli);
	close(lst);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *alloc_case(void)
{
	TCase *alloc = tcase_create("alloc");

	tcase_add_test(alloc, alloc_random_is_virtual_and_scattered);
	tcase_add_test(alloc, dup2_exact_and_replace);
	tcase_add_test(alloc, dup3_flags);
	tcase_add_test(alloc, fdupfd_lowest_from_n);
	tcase_add_test(alloc, nonseqfd_flags);
	tcase_add_test(alloc, open_and_socket_unseq);
	tcase_add_test(alloc, open_unseq_paths);
	tcase_add_test(alloc, accept4_unseq);
	return alloc;
}
