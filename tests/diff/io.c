/* SPDX-License-Identifier: MIT */
/*
 * io.c - the differential test's families that move data: read, write,
 * their p*, *v and *v2 forms and lseek on a file and a pipe (io); pipes,
 * splice, tee, vmsplice, sendfile and copy_file_range (pipes_splice).
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

/* ---- io: read, write, p*, *v, *v2, lseek on a file and a pipe ---- */

script_fn script_io;

void script_io(struct run *r)
{
	char buf[64] = "", b1[4], b2[5];
	struct iovec iov[2] = { { b1, sizeof(b1) }, { b2, sizeof(b2) } };
	struct iovec wv[2] = { { (void *)"IO", 2 }, { (void *)"VEC", 3 } };
	int fd, ro, wo, dfd, p[2], bad;

	make_file(r, "data", "0123456789abcdefghij");
	fd = FD_OF(r, open("data", O_RDWR));
	LOG_BUF(r, read(fd, buf, 4), buf);
	LOG(r, write(fd, "WXYZ", 4));
	LOG(r, lseek(fd, 0, SEEK_CUR));
	LOG(r, lseek64(fd, 2, SEEK_SET));
	LOG_BUF(r, read(fd, buf, sizeof(buf)), buf);
	LOG_BUF(r, read(fd, buf, sizeof(buf)), buf);
	LOG(r, lseek(fd, 0, SEEK_END));
	LOG(r, lseek64(fd, -3, SEEK_END));
	LOG(r, lseek(fd, -100, SEEK_SET));
	LOG(r, lseek(fd, 0, 42));
	LOG(r, lseek(fd, 0, SEEK_DATA));
	LOG(r, lseek64(fd, 0, SEEK_HOLE));
	LOG(r, lseek(fd, 100, SEEK_DATA));
	LOG_BUF(r, pread(fd, buf, 6, 3), buf);
	LOG_BUF(r, pread64(fd, buf, 6, 10), buf);
	LOG(r, pwrite(fd, "pw", 2, 0));
	LOG(r, pwrite64(fd, "PW64", 4, 18));
	LOG_BUF(r, pread(fd, buf, 4, -1), buf);
	LOG_BUF(r, pread64(fd, buf, 4, 1000), buf);
	LOG(r, pwrite(fd, "x", 1, -5));
	LOG(r, lseek(fd, 0, SEEK_SET));
	LOG(r, writev(fd, wv, 2));
	LOG(r, lseek(fd, 1, SEEK_SET));
	LOG_IOV(r, readv(fd, iov, 2), iov, 2);
	LOG_IOV(r, preadv(fd, iov, 2, 3), iov, 2);
	LOG_IOV(r, preadv64(fd, iov, 2, 5), iov, 2);
	LOG(r, pwritev(fd, wv, 2, 10));
	LOG(r, pwritev64(fd, wv, 2, 12));
	LOG_IOV(r, preadv2(fd, iov, 2, 8, 0), iov, 2);
	LOG_IOV(r, preadv2(fd, iov, 2, -1, 0), iov, 2);
	LOG_IOV(r, preadv64v2(fd, iov, 2, 0, 0), iov, 2);
	LOG_IOV(r, preadv64v2(fd, iov, 2, -1, 0), iov, 2);
	LOG(r, pwritev2(fd, wv, 2, 14, RWF_DSYNC));
	LOG(r, pwritev64v2(fd, wv, 1, -1, 0));
	LOG(r, pwritev64v2(fd, wv, 2, 16, 0));
	LOG(r, pwritev2(fd, wv, 2, 0, 0x40000000));
	LOG_IOV(r, preadv2(fd, iov, 2, 0, 0x40000000), iov, 2);
	LOG(r, lseek(fd, 0, SEEK_CUR));
	LOG_IOV(r, readv(fd, iov, minus_one), iov, 2);
	LOG(r, writev(fd, wv, 0));
	LOG(r, writev(fd, wv, too_many_iov));
	LOG_BUF(r, read(fd, buf, 0), buf);
	LOG_BUF(r, read(fd, null_ptr, 4), buf);
	LOG(r, write(fd, null_ptr, 4));
	LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);

	/* Opened for one direction only, and a directory. */
	ro = FD_OF(r, open("data", O_RDONLY));
	LOG(r, write(ro, "x", 1));
	LOG(r, pwrite(ro, "x", 1, 0));
	LOG(r, writev(ro, wv, 2));
	LOG(r, pwritev2(ro, wv, 2, 0, 0));
	wo = FD_OF(r, open("data", O_WRONLY | O_APPEND));
	LOG_BUF(r, read(wo, buf, 4), buf);
	LOG_IOV(r, preadv(wo, iov, 2, 0), iov, 2);
	LOG(r, write(wo, "end", 3));
	LOG(r, pwrite(wo, "P", 1, 0));
	LOG(r, lseek(wo, 0, SEEK_CUR));
	LOG_BUF(r, pread(ro, buf, sizeof(buf), 0), buf);
	dfd = FD_OF(r, open(".", O_RDONLY | O_DIRECTORY));
	LOG_BUF(r, read(dfd, buf, 4), buf);
	LOG(r, write(dfd, "x", 1));
	LOG(r, lseek(dfd, 0, SEEK_SET));
	LOG_BUF(r, pread(dfd, buf, 4, 0), buf);

	/* A pipe: ESPIPE for everything with an offset. */
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, write(p[1], "hello pipe", 10));
	LOG_BUF(r, read(p[0], buf, 5), buf);
	LOG(r, lseek(p[0], 0, SEEK_CUR));
	LOG(r, lseek64(p[1], 0, SEEK_SET));
	LOG_BUF(r, pread(p[0], buf, 2, 0), buf);
	LOG_BUF(r, pread64(p[0], buf, 2, 0), buf);
	LOG(r, pwrite(p[1], "x", 1, 0));
	LOG(r, pwrite64(p[1], "x", 1, 0));
	LOG_IOV(r, preadv(p[0], iov, 2, 0), iov, 2);
	LOG(r, pwritev(p[1], wv, 2, 0));
	LOG_IOV(r, preadv2(p[0], iov, 2, -1, 0), iov, 2);
	LOG(r, pwritev2(p[1], wv, 2, -1, 0));
	LOG(r, pwritev2(p[1], wv, 2, 0, 0));
	LOG_IOV(r, preadv64v2(p[0], iov, 2, 0, 0), iov, 2);
	LOG_IOV(r, readv(p[0], iov, 2), iov, 2);
	LOG_BUF(r, read(p[0], buf, 4), buf);
	LOG_BUF(r, read(p[1], buf, 4), buf);
	LOG(r, write(p[0], "x", 1));
	LOG(r, close(p[1]));
	LOG_BUF(r, read(p[0], buf, 4), buf);
	LOG(r, close(p[0]));

	/* A closed descriptor. */
	bad = closed_fd(r);
	LOG_BUF(r, read(bad, buf, 1), buf);
	LOG(r, write(bad, "x", 1));
	LOG_BUF(r, pread(bad, buf, 1, 0), buf);
	LOG_BUF(r, pread64(bad, buf, 1, 0), buf);
	LOG(r, pwrite(bad, "x", 1, 0));
	LOG(r, pwrite64(bad, "x", 1, 0));
	LOG_IOV(r, readv(bad, iov, 2), iov, 2);
	LOG(r, writev(bad, wv, 2));
	LOG_IOV(r, preadv(bad, iov, 2, 0), iov, 2);
	LOG_IOV(r, preadv64(bad, iov, 2, 0), iov, 2);
	LOG(r, pwritev(bad, wv, 2, 0));
	LOG(r, pwritev64(bad, wv, 2, 0));
	LOG_IOV(r, preadv2(bad, iov, 2, 0, 0), iov, 2);
	LOG_IOV(r, preadv64v2(bad, iov, 2, 0, 0), iov, 2);
	LOG(r, pwritev2(bad, wv, 2, 0, 0));
	LOG(r, pwritev64v2(bad, wv, 2, 0, 0));
	LOG(r, lseek(bad, 0, SEEK_SET));
	LOG(r, lseek64(bad, 0, SEEK_SET));
	LOG(r, close(bad));

	/* Negative numbers. */
	LOG_BUF(r, read(-1, buf, 1), buf);
	LOG(r, write(-1, "x", 1));
	LOG_BUF(r, pread(-7, buf, 1, 0), buf);
	LOG(r, pwrite64(INT_MIN, "x", 1, 0));
	LOG_IOV(r, readv(-1, iov, 2), iov, 2);
	LOG(r, pwritev2(-1, wv, 2, 0, 0));
	LOG(r, lseek(-1, 0, SEEK_SET));
	LOG(r, lseek64(INT_MIN, 0, SEEK_SET));

	LOG(r, close(fd));
	LOG(r, close(ro));
	LOG(r, close(wo));
	LOG(r, close(dfd));
	LOG_BUF(r, read(fd, buf, 1), buf);
	LOG(r, close(fd));
}

/* ---- pipes_splice ---- */

script_fn script_pipes_splice;

void script_pipes_splice(struct run *r)
{
	char buf[64] = "", vbuf[] = "vmspliced";
	struct iovec viov = { vbuf, 9 };
	off64_t off, off2;
	off_t soff;
	int p[2], q[2], x[2], y[2], src, dst, ro, bad;

	make_file(r, "src", "0123456789");
	make_file(r, "dst", "");
	LOG(r, pipe(x));
	fd_of_pair(r, x);
	LOG(r, fcntl(x[0], F_GETFL));
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, pipe2(q, O_NONBLOCK | O_CLOEXEC));
	fd_of_pair(r, q);
	LOG(r, fcntl(q[1], F_GETFL));
	LOG(r, fcntl(q[1], F_GETFD));
	LOG(r, pipe2(y, 0x12345));
	src = FD_OF(r, open("src", O_RDONLY));
	dst = FD_OF(r, open("dst", O_RDWR));
	ro = FD_OF(r, open("src", O_RDONLY));

	LOG(r, write(x[1], "blocking pipe", 13));
	LOG_BUF(r, read(x[0], buf, sizeof(buf)), buf);

	/* splice */
	off = 2;
	LOG(r, splice(src, &off, p[1], NULL, 5, 0));
	NOTE(r, "off", "%lld", (long long)off);
	LOG(r, lseek(src, 0, SEEK_CUR));
	off = 1;
	LOG(r, splice(p[0], NULL, dst, &off, 5, 0));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, splice(src, NULL, p[1], NULL, 3, SPLICE_F_NONBLOCK));
	LOG(r, lseek(src, 0, SEEK_CUR));
	LOG(r, splice(p[0], NULL, dst, NULL, 64, SPLICE_F_NONBLOCK));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, splice(p[0], NULL, dst, NULL, 64, SPLICE_F_NONBLOCK));
	LOG(r, splice(src, NULL, dst, NULL, 4, 0));
	off = 0;
	LOG(r, splice(p[0], &off, dst, NULL, 4, 0));
	LOG(r, splice(src, NULL, p[0], NULL, 4, 0));
	LOG(r, splice(src, NULL, p[1], NULL, 4, 0x40000000));

	/* tee */
	LOG(r, write(p[1], "teedata", 7));
	LOG(r, tee(p[0], q[1], 3, SPLICE_F_NONBLOCK));
	LOG_BUF(r, read(q[0], buf, sizeof(buf)), buf);
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, tee(p[0], q[1], 3, SPLICE_F_NONBLOCK));
	LOG(r, tee(src, q[1], 3, 0));
	LOG(r, tee(p[0], dst, 3, 0));
	LOG(r, tee(p[0], p[1], 3, 0));

	/* vmsplice */
	LOG(r, vmsplice(p[1], &viov, 1, 0));
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, vmsplice(src, &viov, 1, 0));
	LOG(r, vmsplice(p[1], &viov, 1, 0x40000000));
	LOG(r, vmsplice(p[0], &viov, 1, SPLICE_F_NONBLOCK));
	LOG_BUF(r, read(p[1], buf, sizeof(buf)), buf);

	/* sendfile */
	soff = 3;
	LOG(r, sendfile(p[1], src, &soff, 4));
	NOTE(r, "soff", "%lld", (long long)soff);
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, lseek(src, 0, SEEK_SET));
	LOG(r, sendfile64(dst, src, NULL, 4));
	LOG(r, lseek(src, 0, SEEK_CUR));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, sendfile(p[1], p[0], NULL, 4));
	LOG(r, sendfile(src, dst, NULL, 4));
	LOG(r, sendfile(p[1], src, &soff, 0));

	/* copy_file_range */
	off = 4;
	off2 = 2;
	LOG(r, copy_file_range(src, &off, dst, &off2, 5, 0));
	NOTE(r, "offs", "%lld %lld", (long long)off, (long long)off2);
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, lseek(src, 7, SEEK_SET));
	LOG(r, lseek(dst, 0, SEEK_SET));
	LOG(r, copy_file_range(src, NULL, dst, NULL, 3, 0));
	LOG(r, lseek(src, 0, SEEK_CUR));
	LOG(r, lseek(dst, 0, SEEK_CUR));
	LOG_BUF(r, pread(dst, buf, sizeof(buf), 0), buf);
	LOG(r, copy_file_range(src, NULL, dst, NULL, 1, 1));
	LOG(r, copy_file_range(p[0], NULL, dst, NULL, 1, 0));
	LOG(r, copy_file_range(src, NULL, p[1], NULL, 1, 0));
	LOG(r, copy_file_range(src, NULL, ro, NULL, 1, 0));

	/* A closed descriptor on either side. */
	bad = closed_fd(r);
	LOG(r, splice(bad, NULL, p[1], NULL, 1, 0));
	LOG(r, splice(p[0], NULL, bad, NULL, 1, 0));
	LOG(r, tee(bad, q[1], 1, 0));
	LOG(r, tee(p[0], bad, 1, 0));
	LOG(r, vmsplice(bad, &viov, 1, 0));
	LOG(r, sendfile(bad, src, NULL, 1));
	LOG(r, sendfile(p[1], bad, NULL, 1));
	LOG(r, sendfile64(dst, bad, NULL, 1));
	LOG(r, copy_file_range(bad, NULL, dst, NULL, 1, 0));
	LOG(r, copy_file_range(src, NULL, bad, NULL, 1, 0));
	LOG(r, close(bad));

	/* Negative numbers. */
	LOG(r, splice(-1, NULL, p[1], NULL, 1, 0));
	LOG(r, tee(p[0], -1, 1, 0));
	LOG(r, vmsplice(-1, &viov, 1, 0));
	LOG(r, sendfile(-1, src, NULL, 1));
	LOG(r, copy_file_range(src, NULL, -1, NULL, 1, 0));

	/* End of file on the pipe once the write end is closed. */
	LOG(r, close(p[1]));
	LOG(r, splice(p[0], NULL, dst, NULL, 4, 0));
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, close(p[0]));
	LOG(r, close(q[0]));
	LOG(r, close(q[1]));
	LOG(r, close(x[0]));
	LOG(r, close(x[1]));
	LOG(r, close(src));
	LOG(r, close(dst));
	LOG(r, close(ro));
}
