/* SPDX-License-Identifier: MIT */
/*
 * sets.c - sets of descriptors and descriptors inside other things:
 * epoll and poll, SCM_RIGHTS, close_range and closefrom, stdio streams,
 * pidfds, record locks, /dev/fd paths, the /proc/self/fd listing (tcase
 * sets).
 */
#include "e2e.h"

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

int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);

/* Fortified poll told the array is shorter than n entries: glibc's check
 * aborts, as without ufd, before ufd looks at the (virtual) entries. */
START_TEST(poll_chk_short_array_aborts)
{
	int sv[2];
	struct pollfd p[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_UNSEQ, 0, sv), 0);
	ck_assert(is_vfd(sv[0]) && is_vfd(sv[1]));
	p[0] = (struct pollfd){ .fd = sv[0], .events = POLLOUT };
	p[1] = (struct pollfd){ .fd = sv[1], .events = POLLOUT };
	ck_assert_int_eq(__poll_chk(p, 2, 0, sizeof(p)), 2);
	ck_assert_int_eq(p[0].revents, POLLOUT);
	__poll_chk(p, 2, 0, sizeof(p[0]));
	ck_abort_msg("__poll_chk did not abort");
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

/* The ways a program closes a stream's descriptor under it. */
enum close_under { BY_CLOSE, BY_CLOSE_RANGE, BY_CLOSEFROM };

static void close_under(int v, enum close_under how)
{
	switch (how) {
	case BY_CLOSE:
		ck_assert_int_eq(close(v), 0);
		break;
	case BY_CLOSE_RANGE:
		ck_assert_int_eq(close_range((unsigned)v, (unsigned)v, 0), 0);
		break;
	case BY_CLOSEFROM:
		closefrom(v); /* virtual: reaches no real descriptor */
		break;
	}
	ck_assert_int_eq(fcntl(v, F_GETFD), -1);
}

/* A stream whose virtual descriptor the program closed under it (fdopen,
 * close, ...): the next virtual descriptor does not get the stream's
 * backing number, so the stream's late writes fail with EBADF, as on a
 * closed descriptor, rather than land in the new file; fclose then closes
 * the placeholder.  Without ufd (or with the number reused), the write
 * would go into the new file.  The same whether close, close_range or
 * closefrom closed it. */
static void stream_closed_under(enum close_under how)
{
	int fd = temp_file(""), v = api_nonseqfd(fd, NONSEQFD_CLOSE), w, b;
	char buf[16] = { 0 };
	FILE *fp = fdopen(v, "w");

	ck_assert_ptr_nonnull(fp);
	b = api_backing_fd(v);
	close_under(v, how);
	w = api_nonseqfd(temp_file(""), NONSEQFD_CLOSE);
	ck_assert(is_vfd(w));
	ck_assert_int_ne(api_backing_fd(w), b);
	ck_assert_int_ge(fputs("late", fp), 0);
	ck_assert_int_eq(fflush(fp), EOF);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(pread(w, buf, sizeof(buf), 0), 0);
	fclose(fp);
	/* The placeholder is gone with the stream. */
	ck_assert_int_eq(syscall(SYS_fcntl, b, F_GETFD), -1);
	ck_assert_int_eq(close(w), 0);
}

START_TEST(stream_closed_under_does_not_write_elsewhere)
{
	stream_closed_under(BY_CLOSE);
}
END_TEST

START_TEST(stream_closed_by_close_range_does_not_write_elsewhere)
{
	stream_closed_under(BY_CLOSE_RANGE);
}
END_TEST

START_TEST(stream_closed_by_closefrom_does_not_write_elsewhere)
{
	stream_closed_under(BY_CLOSEFROM);
}
END_TEST

/* The placeholder that holds a closed stream's number is ufd's, as a
 * backing descriptor is: a close_range or a close by number over it
 * leaves it (else the number is free again, the next virtual descriptor's
 * backing may get it, and the stream's writes and its fclose reach that
 * file). */
START_TEST(stream_placeholder_survives_close_by_number)
{
	int v = api_nonseqfd(temp_file(""), NONSEQFD_CLOSE), w, b;
	char buf[16] = { 0 };
	FILE *fp = fdopen(v, "w");

	ck_assert_ptr_nonnull(fp);
	b = api_backing_fd(v);
	ck_assert_int_eq(close(v), 0);
	ck_assert_int_eq(close_range((unsigned)b, (unsigned)b, 0), 0);
	ck_assert_int_eq(close(b), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_ge(syscall(SYS_fcntl, b, F_GETFD), 0);
	w = api_nonseqfd(temp_file(""), NONSEQFD_CLOSE);
	ck_assert_int_ne(api_backing_fd(w), b);
	ck_assert_int_ge(fputs("late", fp), 0);
	ck_assert_int_eq(fflush(fp), EOF);
	fclose(fp);
	ck_assert_int_eq(syscall(SYS_fcntl, b, F_GETFD), -1);
	ck_assert_int_eq(pread(w, buf, sizeof(buf), 0), 0);
	ck_assert_int_ge(fcntl(w, F_GETFD), 0); /* fclose left w's backing */
	ck_assert_int_eq(close(w), 0);
}
END_TEST

/* dup2 or dup3 onto a stream's virtual descriptor replaces the file at
 * that number, as the kernel's does (a program's stdout redirection): the
 * stream now writes to the new file, and its number stays taken. */
START_TEST(stream_follows_dup2_onto_its_descriptor)
{
	int v = api_nonseqfd(temp_file(""), NONSEQFD_CLOSE), b, w, x, i;
	char buf[16];
	FILE *fp = fdopen(v, "w");

	ck_assert_ptr_nonnull(fp);
	b = api_backing_fd(v);
	for (i = 0; i < 2; i++) {
		x = temp_file("");
		ck_assert_int_eq(i ? dup3(x, v, O_CLOEXEC) : dup2(x, v), v);
		w = api_nonseqfd(temp_file(""), NONSEQFD_CLOSE);
		ck_assert_int_ne(api_backing_fd(w), b);
		ck_assert_int_ge(fputs("new", fp), 0);
		ck_assert_int_eq(fflush(fp), 0);
		memset(buf, 0, sizeof(buf));
		ck_assert_int_eq(pread(x, buf, sizeof(buf), 0), 3);
		ck_assert_int_eq(pread(w, buf, sizeof(buf), 0), 0);
		ck_assert_int_eq(close(x), 0);
		ck_assert_int_eq(close(w), 0);
	}
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(fcntl(v, F_GETFD), -1);
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

/* ---- the test cases (main.c) ---- */

TCase *sets_case(void)
{
	TCase *sets = tcase_create("sets");

	tcase_add_test(sets, epoll_thousand_virtual_sockets);
	tcase_add_test(sets, poll_mixed_real_and_virtual);
	tcase_add_test_raise_signal(sets, poll_chk_short_array_aborts, SIGABRT);
	tcase_add_test(sets, scm_rights_sends_the_file);
	tcase_add_test(sets, close_range_spares_backing_descriptors);
	tcase_add_test(sets, closefrom_spares_backing_descriptors);
	tcase_add_test(sets, streams_on_virtual_descriptors);
	tcase_add_test(sets, pclose_drops_clofork_mark);
	tcase_add_test(sets, stream_closed_under_does_not_write_elsewhere);
	tcase_add_test(sets, stream_closed_by_close_range_does_not_write_elsewhere);
	tcase_add_test(sets, stream_closed_by_closefrom_does_not_write_elsewhere);
	tcase_add_test(sets, stream_placeholder_survives_close_by_number);
	tcase_add_test(sets, stream_follows_dup2_onto_its_descriptor);
	tcase_add_test(sets, freopen_on_virtual_stream);
	tcase_add_test(sets, waitid_on_virtual_pidfd);
	tcase_add_test(sets, record_locks_survive_a_virtual_open);
	tcase_add_test(sets, dev_fd_paths_and_syscall);
	tcase_add_test(sets, fd_listing_shows_virtual_not_backing);
	return sets;
}
