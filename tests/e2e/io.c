/* SPDX-License-Identifier: MIT */
/*
 * io.c - read, write, offsets and fcntl flags through virtual
 * descriptors (tcase data); misuse, and unmapped pointers, get the
 * kernel's errno (tcase misuse).
 */
#include "e2e.h"

/* ---- data through virtual descriptors ---- */

START_TEST(read_write_pipe)
{
	int p[2], r, w;
	char buf[32] = { 0 };

	ck_assert_int_eq(pipe(p), 0);
	r = dup2(p[0], FD_UNSEQ_ALLOC);
	w = dup2(p[1], FD_UNSEQ_ALLOC);
	ck_assert(is_vfd(r) && is_vfd(w));
	ck_assert_int_eq(write(w, "through ufd", 11), 11);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 11);
	ck_assert_str_eq(buf, "through ufd");
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(write(p[1], "and back", 8), 8);
	ck_assert_int_eq(read(r, buf, sizeof(buf)), 8);
	ck_assert_str_eq(buf, "and back");
	/* The write end closed everywhere: read gives end of file. */
	close(p[1]);
	close(w);
	ck_assert_int_eq(read(r, buf, sizeof(buf)), 0);
	close(r);
	close(p[0]);
}
END_TEST

START_TEST(file_offsets_shared)
{
	int fd = temp_file("0123456789"), v = dup2(fd, FD_UNSEQ_ALLOC);
	char buf[4] = { 0 };
	struct stat st;

	ck_assert(is_vfd(v));
	/* A duplicate shares the open file and so the offset. */
	ck_assert_int_eq(read(v, buf, 3), 3);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 3);
	ck_assert_int_eq(lseek(v, 7, SEEK_SET), 7);
	ck_assert_int_eq(read(fd, buf, 3), 3);
	ck_assert(memcmp(buf, "789", 3) == 0);
	ck_assert_int_eq(pread(v, buf, 2, 1), 2);
	ck_assert(memcmp(buf, "12", 2) == 0);
	ck_assert_int_eq(pwrite(v, "AB", 2, 0), 2);
	ck_assert_int_eq(pread(fd, buf, 2, 0), 2);
	ck_assert(memcmp(buf, "AB", 2) == 0);
	ck_assert_int_eq(ftruncate(v, 4), 0);
	ck_assert_int_eq(fstat(v, &st), 0);
	ck_assert_int_eq(st.st_size, 4);
	ck_assert_int_eq(fsync(v), 0);
	close(v);
	close(fd);
}
END_TEST

START_TEST(fcntl_flags_like_kernel)
{
	int fd = open("/dev/null", O_WRONLY | O_APPEND), v = dup2(fd, FD_UNSEQ_ALLOC);
	int r = dup(fd);

	ck_assert(is_vfd(v));
	ck_assert_int_eq(fcntl(v, F_GETFL), fcntl(fd, F_GETFL));
	/* F_SETFD keeps only FD_CLOEXEC, for both kinds. */
	ck_assert_int_eq(fcntl(r, F_SETFD, 0xff), 0);
	ck_assert_int_eq(fcntl(v, F_SETFD, 0xff), 0);
	ck_assert_int_eq(fcntl(v, F_GETFD), fcntl(r, F_GETFD));
	ck_assert_int_eq(fcntl(r, F_SETFD, 0xfe), 0);
	ck_assert_int_eq(fcntl(v, F_SETFD, 0xfe), 0);
	ck_assert_int_eq(fcntl(v, F_GETFD), fcntl(r, F_GETFD));
	/* F_SETFL reaches the shared open file. */
	ck_assert_int_eq(fcntl(v, F_SETFL, O_NONBLOCK), 0);
	ck_assert(fcntl(fd, F_GETFL) & O_NONBLOCK);
	/* dup() of a virtual descriptor: the lowest real number free. */
	close(r);
	ck_assert_int_eq(dup(v), r);
	close(r);
	close(v);
	close(fd);
}
END_TEST

/* ---- misuse: the kernel's errno ---- */

START_TEST(misuse_errno_matches_kernel)
{
	int fd = temp_file("x"), bad = closed_real_fd();
	int v = dup2(fd, FD_UNSEQ_ALLOC), vbad = dup2(fd, FD_UNSEQ_ALLOC);
	char c;

	ck_assert_int_eq(close(vbad), 0); /* vbad: a closed virtual number */
	ck_assert_same_as_kernel(close(bad), close(vbad));
	ck_assert_same_as_kernel(read(bad, &c, 1), read(vbad, &c, 1));
	ck_assert_same_as_kernel(write(bad, &c, 1), write(vbad, &c, 1));
	ck_assert_same_as_kernel(fcntl(bad, F_GETFD), fcntl(vbad, F_GETFD));
	ck_assert_same_as_kernel(fcntl(bad, F_SETFD, 1), fcntl(vbad, F_SETFD, 1));
	ck_assert_same_as_kernel(fcntl(bad, F_GETFL), fcntl(vbad, F_GETFL));
	ck_assert_same_as_kernel(dup(bad), dup(vbad));
	ck_assert_same_as_kernel(dup2(bad, 100), dup2(vbad, FD_UNSEQ_ALLOC));
	ck_assert_same_as_kernel(dup2(bad, bad), dup2(vbad, vbad));
	ck_assert_same_as_kernel(dup2(fd, fd), dup2(v, v));
	ck_assert_same_as_kernel(dup3(fd, fd, 0), dup3(v, v, 0));
	ck_assert_same_as_kernel(dup3(fd, 100, 0x1234),
				 dup3(fd, FD_UNSEQ_BASE + 100, 0x1234));
	ck_assert_same_as_kernel(fcntl(bad, F_DUPFD, 10),
				 fcntl(bad, F_DUPFD, FD_UNSEQ_BASE));
	ck_assert_same_as_kernel(fcntl(vbad, F_DUPFD, 10),
				 fcntl(vbad, F_DUPFD, FD_UNSEQ_BASE));
	/* Past the virtual space: what the kernel says past RLIMIT_NOFILE. */
	ck_assert_same_as_kernel(fcntl(fd, F_DUPFD, 1 << 25),
				 fcntl(v, F_DUPFD, FD_UNSEQ_LIMIT));
	ck_assert_same_as_kernel(fcntl(fd, F_DUPFD, -1), fcntl(v, F_DUPFD, -1));
	ck_assert_same_as_kernel(dup2(fd, 1 << 25), dup2(v, FD_UNSEQ_ALLOC + 1));
	ck_assert_same_as_kernel(close(-1), close(FD_UNSEQ_LIMIT + 5));
	ck_assert_same_as_kernel(read(-5, &c, 1), read(INT32_MIN, &c, 1));
	ck_assert_same_as_kernel(fcntl(fd, 0x7fff), fcntl(v, 0x7fff));
	ck_assert_same_as_kernel(api_nonseqfd(bad, 0), api_nonseqfd(vbad, 0));
	errno = 0;
	ck_assert_int_eq(api_nonseqfd(fd, 0x100), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(api_is_virtual(vbad), -1);
	ck_assert_int_eq(api_backing_fd(bad), -1);
	close(v);
	close(fd);
}
END_TEST

/* Pointers no program can have mapped get the kernel's EFAULT, not a crash
 * in ufd, which reads paths, pollfd arrays and msghdrs before the kernel
 * does.  In variables, so that the compiler does not see constants. */
static char *volatile unmapped_ptrs[] = { (char *)8, (char *)-4096L };
static struct pollfd *volatile no_pollfds;

START_TEST(unmapped_pointers_get_efault)
{
	int sv[2], vs;
	struct stat st;

#ifdef __SANITIZE_ADDRESS__
	/* AddressSanitizer's own interceptors of stat, poll and sendmsg read
	 * the pointer first, and fault. */
	fprintf(stderr, "unmapped_pointers_get_efault: skipped under "
			"AddressSanitizer\n");
	return;
#endif
	if (skip_under_emulator("unmapped_pointers_get_efault",
				"qemu-user has no process_vm_readv, so ufd reads "
				"the caller's memory itself (as under a sandbox "
				"refusing it), and an unmapped pointer faults"))
		return;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	vs = api_nonseqfd(sv[0], NONSEQFD_CLOSE);
	ck_assert(is_vfd(vs));
	for (size_t i = 0; i < sizeof(unmapped_ptrs) / sizeof(unmapped_ptrs[0]); i++) {
		char *p = unmapped_ptrs[i];

		errno = 0;
		ck_assert_int_eq(open(p, O_RDONLY), -1);
		ck_assert_int_eq(errno, EFAULT);
		errno = 0;
		ck_assert_int_eq(stat(p, &st), -1);
		ck_assert_int_eq(errno, EFAULT);
		errno = 0;
		ck_assert_int_eq(poll((struct pollfd *)(void *)p, 1, 0), -1);
		ck_assert_int_eq(errno, EFAULT);
		errno = 0;
		ck_assert_int_eq(sendmsg(vs, (struct msghdr *)(void *)p, 0), -1);
		ck_assert_int_eq(errno, EFAULT);
		errno = 0;
		ck_assert_int_eq(sendmmsg(vs, (struct mmsghdr *)(void *)p, 1, 0), -1);
		ck_assert_int_eq(errno, EFAULT);
	}
	/* An empty set with no array is a plain sleep. */
	ck_assert_int_eq(poll(no_pollfds, 0, 1), 0);
	close(vs);
	close(sv[1]);
}
END_TEST

/* ---- the test cases (main.c) ---- */

TCase *data_case(void)
{
	TCase *data = tcase_create("data");

	tcase_add_test(data, read_write_pipe);
	tcase_add_test(data, file_offsets_shared);
	tcase_add_test(data, fcntl_flags_like_kernel);
	return data;
}

TCase *misuse_case(void)
{
	TCase *misuse = tcase_create("misuse");

	tcase_add_test(misuse, misuse_errno_matches_kernel);
	tcase_add_test(misuse, unmapped_pointers_get_efault);
	return misuse;
}
