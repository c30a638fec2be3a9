/* SPDX-License-Identifier: MIT */
/*
 * Description: end-to-end tests of the first path through the shim:
 * nonseqfd(), dup2(fd, FD_UNSEQ_ALLOC), exact dup2(fd, N), F_DUPFD into the
 * virtual space, O_UNSEQFD and SOCK_UNSEQ, and read, write, close and fcntl
 * on the descriptors they make.  Wherever a call can fail, the result and
 * errno are compared with what the kernel gives for the same misuse of a
 * real descriptor.
 *
 * This file is built twice: test_e2e_linked links libufd.so, and
 * test_e2e_preload does not and runs under LD_PRELOAD=libufd.so, so both
 * ways of using ufd are tested by the same code.  The preload build is
 * also compiled without _FILE_OFFSET_BITS=64, so that between them the two
 * builds call both open/fcntl/lseek/pread/fstat/ftruncate and their
 * *64 twins.  The ufd API is reached
 * through dlsym() so that the preload build needs no link against ufd.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <linux/close_range.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_test.h"



/* A descriptor number certainly not open: opened, then closed. */
static int closed_real_fd(void)
{
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(close(fd), 0);
	return fd;
}

/* A temporary file holding text, opened read-write. */
static int temp_file(const char *text)
{
	char path[] = "/tmp/ufd-e2e-XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Number of entries in /proc/self/fd: every real descriptor open. */
static int count_real_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

/*
 * Make the same call on a real descriptor and on a virtual one and require
 * the same outcome: both succeed, or both fail with the same errno.
 */
#define ck_assert_same_as_kernel(real_call, virt_call)                         \
	do {                                                                   \
		long r_real_, r_virt_;                                         \
		int e_real_, e_virt_;                                          \
		errno = 0;                                                     \
		r_real_ = (long)(real_call);                                   \
		e_real_ = errno;                                               \
		errno = 0;                                                     \
		r_virt_ = (long)(virt_call);                                   \
		e_virt_ = errno;                                               \
		ck_assert_msg((r_real_ < 0) == (r_virt_ < 0) &&                \
				      (r_real_ >= 0 || e_real_ == e_virt_),    \
			      "%s -> %ld (%s), but %s -> %ld (%s)", #real_call, \
			      r_real_, strerror(e_real_), #virt_call, r_virt_, \
			      strerror(e_virt_));                              \
	} while (0)

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

START_TEST(open_and_socket_unseq)
{
	int fd, sv[2];
	char buf[8] = { 0 };
	struct stat st1, st2;

	fd = open("/proc/self/exe", O_RDONLY | O_UNSEQFD | O_CLOEXEC);
	ck_assert(is_vfd(fd));
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(read(fd, buf, 4), 4);
	ck_assert(memcmp(buf, "\177ELF", 4) == 0);
	ck_assert_int_eq(fstat(fd, &st1), 0);
	ck_assert_int_eq(stat("/proc/self/exe", &st2), 0);
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

/* ---- sets of descriptors, descriptors inside messages ---- */

START_TEST(epoll_thousand_virtual_sockets)
{
	enum { PAIRS = 500 };
	int sv[PAIRS][2], ep, got = 0;
	struct epoll_event ev, out[64];

	if (!raise_nofile(4 * PAIRS + 64)) {
		fprintf(stderr, "epoll_thousand_virtual_sockets: skipped: "
				"RLIMIT_NOFILE hard limit below %d\n", 4 * PAIRS + 64);
		return;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(ep, 0);
	for (int i = 0; i < PAIRS; i++) {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_UNSEQ, 0,
					    sv[i]), 0);
		ck_assert(is_vfd(sv[i][0]) && is_vfd(sv[i][1]));
		/* The caller's data comes back untouched: here, the index. */
		ev = (struct epoll_event){ .events = EPOLLIN, .data.u64 = (uint64_t)i };
		ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, sv[i][1], &ev), 0);
		ev.data.u64 = PAIRS + (uint64_t)i;
		ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, sv[i][0], &ev), 0);
	}
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, sv[0][1], &ev), -1);
	ck_assert_int_eq(errno, EEXIST);
	/* Every third pair gets a byte; exactly those ends become readable. */
	for (int i = 0; i < PAIRS; i += 3)
		ck_assert_int_eq(write(sv[i][0], "x", 1), 1);
	for (int round = 0; round < 100 && got < (PAIRS + 2) / 3; round++) {
		int n = epoll_wait(ep, out, 64, 1000);

		ck_assert_int_ge(n, 0);
		for (int k = 0; k < n; k++) {
			uint64_t i = out[k].data.u64;
			char c;

			ck_assert_msg(i < PAIRS && i % 3 == 0, "event for %llu",
				      (unsigned long long)i);
			ck_assert_int_eq(read(sv[i][1], &c, 1), 1);
			got++;
		}
	}
	ck_assert_int_eq(got, (PAIRS + 2) / 3);
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_DEL, sv[1][1], NULL), 0);
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_DEL, sv[1][1], NULL), -1);
	ck_assert_int_eq(errno, ENOENT);
	for (int i = 0; i < PAIRS; i++) {
		ck_assert_int_eq(close(sv[i][0]), 0);
		ck_assert_int_eq(close(sv[i][1]), 0);
	}
	close(ep);
}
END_TEST

START_TEST(poll_mixed_real_and_virtual)
{
	int a[2], b[2], closed_v;
	struct pollfd p[5];

	ck_assert_int_eq(pipe(a), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_UNSEQ, 0, b), 0);
	closed_v = dup2(a[0], FD_UNSEQ_ALLOC);
	close(closed_v);
	ck_assert_int_eq(write(a[1], "r", 1), 1);
	ck_assert_int_eq(write(b[0], "v", 1), 1);
	p[0] = (struct pollfd){ .fd = a[0], .events = POLLIN };	  /* real, ready */
	p[1] = (struct pollfd){ .fd = b[1], .events = POLLIN };	  /* virtual, ready */
	p[2] = (struct pollfd){ .fd = b[0], .events = POLLIN };	  /* virtual, idle */
	p[3] = (struct pollfd){ .fd = -1, .events = POLLIN };	  /* ignored */
	p[4] = (struct pollfd){ .fd = closed_v, .events = POLLIN }; /* closed */
	ck_assert_int_eq(poll(p, 5, 0), 3);
	ck_assert_int_eq(p[0].revents, POLLIN);
	ck_assert_int_eq(p[1].revents, POLLIN);
	ck_assert_int_eq(p[2].revents, 0);
	ck_assert_int_eq(p[3].revents, 0);
	ck_assert_int_eq(p[4].revents, POLLNVAL);
	/* The caller's array keeps its own numbers. */
	ck_assert_int_eq(p[1].fd, b[1]);
	ck_assert_int_eq(p[4].fd, closed_v);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

START_TEST(scm_rights_sends_the_file)
{
	int sv[2], fd = temp_file("passed along"), v = api_nonseqfd(fd, 0), got;
	char data = 'm', cbuf[CMSG_SPACE(sizeof(int))], text[16] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_UNSEQ, 0, sv), 0);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &v, sizeof(int));
	ck_assert_int_eq(sendmsg(sv[0], &msg, 0), 1);
	/* The caller's message is left as it was. */
	memcpy(&got, CMSG_DATA(c), sizeof(int));
	ck_assert_int_eq(got, v);

	memset(cbuf, 0, sizeof(cbuf));
	msg.msg_controllen = sizeof(cbuf);
	ck_assert_int_eq(recvmsg(sv[1], &msg, 0), 1);
	c = CMSG_FIRSTHDR(&msg);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->cmsg_type, SCM_RIGHTS);
	memcpy(&got, CMSG_DATA(c), sizeof(int));
	/* Received descriptors are real, and name the same open file. */
	ck_assert(!is_vfd(got));
	ck_assert_int_eq(pread(got, text, 12, 0), 12);
	ck_assert_str_eq(text, "passed along");
	close(got);
	close(v);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(close_range_spares_backing_descriptors)
{
	int fd = temp_file("kept"), v = api_nonseqfd(fd, 0), w = api_nonseqfd(fd, 0);
	int lo = dup(fd), backing = api_backing_fd(v);
	char c;

	ck_assert_int_ge(backing, 0);
	close(fd);
	/* Everything real from lo up, past where backing descriptors live. */
	ck_assert_int_eq(close_range((unsigned)lo, FD_UNSEQ_BASE - 1, 0), 0);
	ck_assert_int_eq(fcntl(lo, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
	/* The virtual descriptors were not in the range, and their backing
	 * descriptors were not the application's to close. */
	ck_assert_int_eq(pread(v, &c, 1, 0), 1);
	ck_assert_int_eq(api_backing_fd(v), backing);
	/* A range over the virtual space closes the virtual descriptors. */
	ck_assert_int_eq(close_range(FD_UNSEQ_BASE, ~0U, CLOSE_RANGE_CLOEXEC), 0);
	ck_assert_int_eq(fcntl(v, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(close_range(FD_UNSEQ_BASE, ~0U, 0), 0);
	ck_assert_int_eq(fcntl(v, F_GETFD), -1);
	ck_assert_int_eq(fcntl(w, F_GETFD), -1);
	ck_assert_int_eq(close_range(5, 4, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(close_range(5, 6, 0x100), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(closefrom_spares_backing_descriptors)
{
	int fd = temp_file("kept"), v = api_nonseqfd(fd, 0);
	int low = dup(fd);
	char c;

	/* closefrom(low) closes every real descriptor from low and every
	 * virtual one, and no backing descriptor is left behind open. */
	closefrom(low);
	ck_assert_int_eq(fcntl(low, F_GETFD), -1);
	ck_assert_int_eq(fcntl(v, F_GETFD), -1);
	ck_assert_int_eq(read(v, &c, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(count_real_fds(), low);
}
END_TEST

START_TEST(streams_on_virtual_descriptors)
{
	int fd = temp_file("line one\n"), v = api_nonseqfd(fd, NONSEQFD_CLOSE);
	int dfd, dv;
	char line[32];
	FILE *fp;
	DIR *d;
	struct dirent *e;
	int seen = 0;

	fp = fdopen(v, "r+");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fileno(fp), v);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), fp));
	ck_assert_str_eq(line, "line one\n");
	ck_assert_int_ge(fputs("line two\n", fp), 0);
	ck_assert_int_eq(fflush(fp), 0);
	ck_assert_int_eq(fseek(fp, 0, SEEK_SET), 0);
	ck_assert_int_eq(ftell(fp), 0);
	ck_assert_int_eq(fclose(fp), 0);
	/* fclose closed the virtual descriptor. */
	ck_assert_int_eq(fcntl(v, F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);

	dfd = open("/proc/self", O_RDONLY | O_DIRECTORY);
	dv = api_nonseqfd(dfd, NONSEQFD_CLOSE);
	d = fdopendir(dv);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(dirfd(d), dv);
	while ((e = readdir(d)))
		seen += strcmp(e->d_name, "status") == 0;
	ck_assert_int_eq(seen, 1);
	ck_assert_int_eq(closedir(d), 0);
	ck_assert_int_eq(fcntl(dv, F_GETFD), -1);
}
END_TEST

/* freopen on a stream of a virtual descriptor: the stream keeps the
 * virtual number, now on the new file, with the new mode's close-on-exec;
 * the backing descriptor stays close-on-exec for the kernel. */
START_TEST(freopen_on_virtual_stream)
{
	int fd = temp_file("first"), v = api_nonseqfd(fd, NONSEQFD_CLOEXEC | NONSEQFD_CLOFORK), b;
	int second = temp_file("second"), status;
	pid_t pid;
	char path[64], line[16] = { 0 };
	FILE *fp = fdopen(v, "r");

	ck_assert_ptr_nonnull(fp);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", second);
	fp = freopen(path, "r", fp);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fileno(fp), v);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), fp));
	ck_assert_str_eq(line, "second");
	/* Mode "r" has no 'e': not close-on-exec, as for a real stream; and
	 * the new file's descriptor has no close-on-fork either. */
	ck_assert_int_eq(fcntl(v, F_GETFD), 0);
	b = api_backing_fd(v);
	ck_assert_int_eq(syscall(SYS_fcntl, b, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	fp = freopen(path, "re", fp);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fcntl(v, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert(fcntl(v, F_GETFD) == -1 && errno == EBADF);
	close(second);

	/* A freopen that fails closes the stream and its descriptor: the
	 * virtual one is gone, and does not come back on the next backing
	 * descriptor made at the same number.  In a child: glibc keeps the
	 * failed stream's memory, which LeakSanitizer would report. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int ok;

		v = api_nonseqfd(fd, 0);
		fp = fdopen(v, "r");
		ok = fp && !freopen("/nonexistent-dir/x", "r", fp) &&
		     fcntl(v, F_GETFD) == -1 && errno == EBADF &&
		     api_is_virtual(v) == -1;
		second = api_nonseqfd(fd, 0);
		ok = ok && is_vfd(second) && fcntl(v, F_GETFD) == -1 && errno == EBADF;
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "a failed freopen left its virtual descriptor");
	close(fd);
}
END_TEST

/* A pidfd, virtual: waitid(P_PIDFD) takes it (the descriptor is in an
 * id_t), as does the raw system call; pidfd_open and pidfd_getfd make
 * descriptors. */
START_TEST(waitid_on_virtual_pidfd)
{
	siginfo_t info;
	pid_t pid = fork();
	int pidfd, v, self, got;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(7);
	pidfd = pidfd_open(pid, 0);
	ck_assert_int_ge(pidfd, 0);
	v = api_nonseqfd(pidfd, NONSEQFD_CLOSE);
	ck_assert(is_vfd(v));
	memset(&info, 0, sizeof(info));
	ck_assert_int_eq(waitid(P_PIDFD, (id_t)v, &info, WEXITED | WNOWAIT), 0);
	ck_assert_int_eq(info.si_pid, pid);
	ck_assert_int_eq(info.si_status, 7);
	memset(&info, 0, sizeof(info));
	ck_assert_int_eq(syscall(SYS_waitid, P_PIDFD, v, &info, WEXITED, NULL), 0);
	ck_assert_int_eq(info.si_pid, pid);
	ck_assert_int_eq(close(v), 0);
	/* A closed virtual number: what the kernel says of a closed one. */
	ck_assert_int_eq(waitid(P_PIDFD, (id_t)v, &info, WEXITED), -1);
	ck_assert_int_eq(errno, EBADF);

	/* pidfd_getfd on this process copies a virtual descriptor's file. */
	self = pidfd_open(getpid(), 0);
	ck_assert_int_ge(self, 0);
	got = pidfd_getfd(self, v = api_nonseqfd(self, 0), 0);
	if (got < 0 && (errno == EPERM || errno == ENOSYS)) {
		fprintf(stderr, "waitid_on_virtual_pidfd: pidfd_getfd part skipped: %s\n",
			strerror(errno));
	} else {
		ck_assert_int_ge(got, 0);
		ck_assert_int_eq(close(got), 0);
	}
	close(v);
	close(self);
}
END_TEST

/* Does another process see a write lock on path's first byte? */
static int lock_seen_from_child(const char *path)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
		int fd = open(path, O_RDWR);

		_exit(fd >= 0 && fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Opening a file the process has locked (fcntl F_SETLK) as a virtual
 * descriptor must not close the kernel's descriptor for it (any close
 * drops the process's locks on the file): it becomes the backing
 * descriptor where it is.  The same for lockf. */
START_TEST(record_locks_survive_a_virtual_open)
{
	char path[] = "/tmp/ufd-lock-XXXXXX";
	int fd = mkstemp(path), v, kernel_first, status;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
	ck_assert(lock_seen_from_child(path));
	kernel_first = open("/dev/null", O_RDONLY);
	close(kernel_first); /* the number the next open gets */
	v = open(path, O_RDONLY | O_UNSEQFD);
	ck_assert(is_vfd(v));
	ck_assert_msg(lock_seen_from_child(path), "the virtual open dropped the lock");
	ck_assert_int_eq(api_backing_fd(v), kernel_first);
	ck_assert_int_eq(close(v), 0);
	/* Closing a descriptor of the file drops the locks, as the kernel
	 * does for a real one. */
	ck_assert(!lock_seen_from_child(path));

	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(lockf(fd, F_LOCK, 1), 0);
	v = open(path, O_RDONLY | O_UNSEQFD);
	ck_assert(is_vfd(v));
	ck_assert_msg(lock_seen_from_child(path), "lockf: the virtual open dropped the lock");
	close(v);

	/* Never a standard stream as a backing descriptor, locks or not
	 * (an exec hand-off refuses one): with 0 closed, the open's number
	 * is 0, and it is duplicated and closed as usual.  In a child, which
	 * takes its own lock (locks are not inherited). */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
		close(0);
		v = open(path, O_RDONLY | O_UNSEQFD);
		_exit(is_vfd(v) && api_backing_fd(v) > 2 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "descriptor 0 became a backing descriptor");
	close(fd);
	unlink(path);
}
END_TEST

/* pclose closes its pipe through glibc: the close-on-fork mark set on it
 * must not pass to the next descriptor with that number. */
START_TEST(pclose_drops_clofork_mark)
{
	int src = temp_file("x"), fd, again;
	FILE *p = popen("true", "r");

	ck_assert_ptr_nonnull(p);
	fd = fileno(p);
	ck_assert_int_eq(fcntl(fd, F_SETFD, FD_CLOFORK), 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOFORK);
	ck_assert_int_ne(pclose(p), -1);
	again = fcntl(src, F_DUPFD, fd);
	ck_assert_int_eq(again, fd);
	ck_assert_int_eq(fcntl(again, F_GETFD), 0);
	close(again);
	close(src);
}
END_TEST

START_TEST(dev_fd_paths_and_syscall)
{
	int fd = temp_file("by path"), v = api_nonseqfd(fd, 0), p;
	char path[64], link1[256] = { 0 }, link2[256] = { 0 }, buf[8] = { 0 };
	struct stat st1, st2;

	snprintf(path, sizeof(path), "/dev/fd/%d", v);
	p = open(path, O_RDONLY);
	ck_assert_int_ge(p, 0);
	ck_assert_int_eq(read(p, buf, 7), 7);
	ck_assert_str_eq(buf, "by path");
	ck_assert_int_eq(fstat(p, &st1), 0);
	close(p);
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), v);
	ck_assert_int_eq(stat(path, &st2), 0);
	ck_assert(st1.st_ino == st2.st_ino);
	ck_assert_int_gt(readlink(path, link1, sizeof(link1) - 1), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ck_assert_int_gt(readlink(path, link2, sizeof(link2) - 1), 0);
	ck_assert_str_eq(link1, link2);

	/* syscall() translates too, and close through it frees the number. */
	ck_assert_int_eq(syscall(SYS_pread64, v, buf, 2, 3), 2);
	ck_assert(memcmp(buf, "pa", 2) == 0);
	ck_assert_int_eq(syscall(SYS_close, v), 0);
	ck_assert_int_eq(syscall(SYS_close, v), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(syscall(100000), -1);
	ck_assert_int_eq(errno, ENOSYS);
	close(fd);
}
END_TEST

/* Is name listed in the directory at path (through opendir/readdir)? */
static int listed(const char *path, int fd)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		found += atoi(e->d_name) == fd && e->d_name[0] != '.';
	closedir(d);
	return found;
}

START_TEST(fd_listing_shows_virtual_not_backing)
{
	int fd = temp_file("x"), v = api_nonseqfd(fd, 0);
	int h = api_nonseqfd(fd, NONSEQFD_HIDE), dfd;
	char self[32];
	DIR *d;
	struct dirent *e;
	int found = 0;

	snprintf(self, sizeof(self), "/proc/%d/fd/", (int)getpid());
	ck_assert_int_eq(listed("/proc/self/fd", fd), 1);
	ck_assert_int_eq(listed("/proc/self/fd", v), 1);
	ck_assert_int_eq(listed("/dev/fd", v), 1);
	ck_assert_int_eq(listed(self, v), 1);
	ck_assert_int_eq(listed("/proc/self/fd", h), 0);
	ck_assert_int_eq(listed("/proc/self/fd", api_backing_fd(v)), 0);
	ck_assert_int_eq(listed("/proc/self/fd", api_backing_fd(h)), 0);
	/* Through fdopendir too, and again after rewinddir. */
	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
	d = fdopendir(dfd);
	ck_assert_ptr_nonnull(d);
	for (int pass = 0; pass < 2; pass++) {
		while ((e = readdir(d)))
			found += atoi(e->d_name) == v;
		rewinddir(d);
	}
	ck_assert_int_eq(found, 2);
	closedir(d);
	close(v);
	ck_assert_int_eq(listed("/proc/self/fd", v), 0);
	close(h);
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

static Suite *e2e_suite(void)
{
	Suite *s = suite_create("e2e");
	TCase *alloc = tcase_create("alloc"), *data = tcase_create("data");
	TCase *misuse = tcase_create("misuse"), *proc = tcase_create("process");
	TCase *threads = tcase_create("threads"), *sets = tcase_create("sets");

	tcase_add_test(alloc, alloc_random_is_virtual_and_scattered);
	tcase_add_test(alloc, dup2_exact_and_replace);
	tcase_add_test(alloc, dup3_flags);
	tcase_add_test(alloc, fdupfd_lowest_from_n);
	tcase_add_test(alloc, nonseqfd_flags);
	tcase_add_test(alloc, open_and_socket_unseq);
	tcase_add_test(alloc, accept4_unseq);
	tcase_add_test(data, read_write_pipe);
	tcase_add_test(data, file_offsets_shared);
	tcase_add_test(data, fcntl_flags_like_kernel);
	tcase_add_test(misuse, misuse_errno_matches_kernel);
	tcase_add_test(misuse, unmapped_pointers_get_efault);
	tcase_add_test(proc, backing_descriptors_stay_out_of_the_way);
	tcase_add_test(proc, fork_closes_clofork_and_reseeds);
	tcase_add_test(threads, threads_create_and_close);
	tcase_set_timeout(threads, 60);
	suite_add_tcase(s, threads);
	tcase_add_test(sets, epoll_thousand_virtual_sockets);
	tcase_add_test(sets, poll_mixed_real_and_virtual);
	tcase_add_test(sets, scm_rights_sends_the_file);
	tcase_add_test(sets, close_range_spares_backing_descriptors);
	tcase_add_test(sets, closefrom_spares_backing_descriptors);
	tcase_add_test(sets, streams_on_virtual_descriptors);
	tcase_add_test(sets, pclose_drops_clofork_mark);
	tcase_add_test(sets, freopen_on_virtual_stream);
	tcase_add_test(sets, waitid_on_virtual_pidfd);
	tcase_add_test(sets, record_locks_survive_a_virtual_open);
	tcase_add_test(sets, dev_fd_paths_and_syscall);
	tcase_add_test(sets, fd_listing_shows_virtual_not_backing);
	suite_add_tcase(s, sets);
	suite_add_tcase(s, alloc);
	suite_add_tcase(s, data);
	suite_add_tcase(s, misuse);
	suite_add_tcase(s, proc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(e2e_suite());
	int failed;

	load_api(1);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
