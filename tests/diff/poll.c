/* SPDX-License-Identifier: MIT */
/*
 * poll.c - the differential test's families of readiness: poll, ppoll
 * and select (poll); epoll_create to epoll_pwait2 (epoll).
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

/* ---- poll: poll and ppoll on mixed descriptors; select on real ones ---- */

static void note_pollfds(struct run *r, int line, const struct pollfd *pfd,
			 const int *fds, int n)
{
	char data[256] = "";
	size_t len = 0;

	for (int i = 0; i < n && len < sizeof(data); i++)
		len += (size_t)snprintf(data + len, sizeof(data) - len,
					"%s%#x%s", i ? " " : "",
					(unsigned)pfd[i].revents,
					pfd[i].fd == fds[i] ? "" : "(fd changed)");
	note(r, line, "revents", "%s", data);
}

script_fn script_poll;

/* glibc's fortified poll and ppoll, called by name: this file is built
 * without _FORTIFY_SOURCE. */
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		const sigset_t *mask, size_t fdslen);

/*
 * Arrays of the pipe's descriptors only (virtual in the virtual run: the
 * array ufd translates in one pass), of n entries from fds, revents set
 * to garbage first: poll, ppoll and their fortified forms, the revents of
 * every entry noted.
 */
static void poll_only(struct run *r, int line, struct pollfd *pfd,
		      const int *fds, const short *events, int n)
{
	const struct timespec ts0 = { 0, 0 };

	for (int call = 0; call < 4; call++) {
		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ fds[i], events[i], 0x5a5a };
		switch (call) {
		case 0:
			LOG(r, poll(pfd, (nfds_t)n, 0));
			break;
		case 1:
			LOG(r, ppoll(pfd, (nfds_t)n, &ts0, NULL));
			break;
		case 2:
			LOG(r, __poll_chk(pfd, (nfds_t)n, 0,
					  (size_t)n * sizeof(*pfd)));
			break;
		default:
			LOG(r, __ppoll_chk(pfd, (nfds_t)n, &ts0, NULL,
					   (size_t)n * sizeof(*pfd)));
			break;
		}
		for (int i = 0; i < n; i += 10)
			note_pollfds(r, line, pfd + i, fds + i,
				     n - i < 10 ? n - i : 10);
	}
}

void script_poll(struct run *r)
{
	const struct timespec ts0 = { 0, 0 }, bad_ts = { 0, -1 };
	struct timeval tv0;
	enum { LONG_POLL = 70 };
	struct pollfd pfd[8], *many, long_pfd[LONG_POLL];
	int long_fds[LONG_POLL];
	struct rlimit rl;
	nfds_t too_many;
	int fds[8];
	sigset_t mask;
	fd_set rset, wset;
	char buf[16];
	int p[2], q[2], bad, closed_real, sel, n = 0;
	size_t big_size;
	fd_set *big;

	/* More entries than RLIMIT_NOFILE, all ignored: EINVAL.  An array
	 * that big, as the sanitizers read all of it. */
	must(r, getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1U << 24,
	     "RLIMIT_NOFILE");
	too_many = (nfds_t)rl.rlim_cur + 1;
	many = calloc(too_many, sizeof(*many));
	must(r, many != NULL, "calloc pollfds");
	for (nfds_t i = 0; i < too_many; i++)
		many[i].fd = -1;

	sigemptyset(&mask);
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, pipe2(q, O_NONBLOCK));	/* stays real in both runs */
	LOG(r, write(p[1], "x", 1));

	bad = closed_fd(r);
	fds[n++] = p[0];
	fds[n++] = q[0];
	fds[n++] = -1;
	fds[n++] = p[1];
	fds[n++] = bad;
	fds[n++] = q[1];
	fds[n++] = -5;
	fds[n++] = p[0];
	for (int i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ fds[i], POLLIN, 0 };
	pfd[3].events = POLLOUT;
	pfd[5].events = POLLOUT;
	pfd[7].events = POLLOUT | POLLPRI;

	LOG(r, poll(pfd, (nfds_t)n, 0));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, poll(pfd, (nfds_t)n, 10));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, ppoll(pfd, (nfds_t)n, &ts0, NULL));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, ppoll(pfd, (nfds_t)n, &ts0, &mask));
	note_pollfds(r, __LINE__, pfd, fds, n);
	LOG(r, ppoll(pfd, (nfds_t)n, &bad_ts, NULL));
	LOG(r, poll(NULL, 0, 0));
	LOG(r, poll(many, too_many, 0));
	LOG(r, poll(pfd + 2, 1, 0));
	note_pollfds(r, __LINE__, pfd + 2, fds + 2, 1);
	LOG(r, poll(pfd + 4, 1, 0));
	note_pollfds(r, __LINE__, pfd + 4, fds + 4, 1);

	/*
	 * More entries than ufd translates on its stack, and unopened numbers
	 * in the virtual space far from any open one (a segment of ufd's map
	 * that holds nothing) between open ones: POLLNVAL for those in both
	 * runs, the same answers for the others.
	 */
	for (int i = 0; i < LONG_POLL; i++) {
		long_fds[i] = i % 4 == 0 ? p[0] : i % 4 == 1 ? q[0] : i % 4 == 3 ? p[1]
			: (int)(FD_UNSEQ_BASE + (3U << 26) + 65536U * (unsigned)i);
		long_pfd[i] = (struct pollfd){ long_fds[i], i % 4 == 3 ? POLLOUT : POLLIN, 0 };
	}
	LOG(r, poll(long_pfd, LONG_POLL, 0));
	for (int i = 0; i < LONG_POLL; i += 10)
		note_pollfds(r, __LINE__, long_pfd + i, long_fds + i,
			     LONG_POLL - i < 10 ? LONG_POLL - i : 10);
	LOG(r, ppoll(long_pfd, LONG_POLL, &ts0, NULL));
	for (int i = 0; i < LONG_POLL; i += 10)
		note_pollfds(r, __LINE__, long_pfd + i, long_fds + i,
			     LONG_POLL - i < 10 ? LONG_POLL - i : 10);

	/*
	 * Arrays of the pipe's descriptors only: odd and even lengths, some
	 * entries ready and none ready (every revents written, to zero), a
	 * closed number among them (in the virtual run a closed virtual
	 * number in the segment of the open ones: POLLNVAL), and more
	 * entries than ufd translates on its stack.
	 */
	{
		enum { ONLY = 69 };
		int only_fds[ONLY];
		short only_ev[ONLY];
		struct pollfd only[ONLY];

		for (int i = 0; i < ONLY; i++) {
			only_fds[i] = i % 3 == 1 ? p[1] : p[0];
			only_ev[i] = i % 3 == 1 ? POLLOUT : POLLIN;
		}
		poll_only(r, __LINE__, only, only_fds, only_ev, 1);
		poll_only(r, __LINE__, only, only_fds, only_ev, 2);
		poll_only(r, __LINE__, only, only_fds, only_ev, 3);
		/* Around ufd's unrolled block of 32 entries. */
		poll_only(r, __LINE__, only, only_fds, only_ev, 31);
		poll_only(r, __LINE__, only, only_fds, only_ev, 32);
		poll_only(r, __LINE__, only, only_fds, only_ev, 33);
		poll_only(r, __LINE__, only, only_fds, only_ev, 47);
		poll_only(r, __LINE__, only, only_fds, only_ev, 64);
		poll_only(r, __LINE__, only, only_fds, only_ev, ONLY);
		for (int i = 0; i < ONLY; i++)
			only_ev[i] = POLLPRI; /* never, on a pipe */
		poll_only(r, __LINE__, only, only_fds, only_ev, 5);
		poll_only(r, __LINE__, only, only_fds, only_ev, 64);
		poll_only(r, __LINE__, only, only_fds, only_ev, ONLY);
		poll_only(r, __LINE__, only, only_fds, only_ev, 33);
		only_fds[33] = bad;
		poll_only(r, __LINE__, only, only_fds, only_ev, 34);
		/* The closed one in the first block, and last. */
		only_fds[33] = p[0];
		only_fds[6] = bad;
		poll_only(r, __LINE__, only, only_fds, only_ev, 40);
		only_fds[6] = p[0];
		only_fds[63] = bad;
		poll_only(r, __LINE__, only, only_fds, only_ev, 64);
		poll_only(r, __LINE__, only, only_fds, only_ev, ONLY);
	}

	/* Drained, then hung up. */
	LOG_BUF(r, read(p[0], buf, sizeof(buf)), buf);
	LOG(r, poll(pfd, 1, 0));
	note_pollfds(r, __LINE__, pfd, fds, 1);
	LOG(r, close(p[1]));
	LOG(r, ppoll(pfd, 1, &ts0, NULL));
	note_pollfds(r, __LINE__, pfd, fds, 1);

	/* select and pselect with real descriptors only. */
	LOG(r, write(q[1], "y", 1));
	FD_ZERO(&rset);
	FD_ZERO(&wset);
	FD_SET(q[0], &rset);
	FD_SET(q[1], &wset);
	tv0 = (struct timeval){ 0, 0 };
	LOG(r, select(q[1] + 1, &rset, &wset, NULL, &tv0));
	NOTE(r, "select sets", "r=%d w=%d", FD_ISSET(q[0], &rset),
	     FD_ISSET(q[1], &wset));
	FD_ZERO(&rset);
	FD_ZERO(&wset);
	FD_SET(q[0], &rset);
	FD_SET(q[1], &rset);
	LOG(r, pselect(q[1] + 1, &rset, NULL, NULL, &ts0, &mask));
	NOTE(r, "pselect sets", "r0=%d r1=%d", FD_ISSET(q[0], &rset),
	     FD_ISSET(q[1], &rset));
	tv0 = (struct timeval){ 0, 0 };
	LOG(r, select(-1, NULL, NULL, NULL, &tv0));

	/*
	 * A descriptor select() cannot take: VIRTUAL, a virtual descriptor
	 * (beyond any fd_set, so EBADF); REAL, a closed real one (EBADF).
	 * The set is made big enough to hold the number.
	 */
	closed_real = open("/dev/null", O_RDONLY);
	must(r, closed_real >= 0 && close(closed_real) == 0, "closed_real");
	sel = r->mode == MODE_VIRTUAL ? p[0] : closed_real;
	big_size = ((size_t)sel / 64 + 1) * 8;
	big = mmap(NULL, big_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	must(r, big != MAP_FAILED, "mmap fd_set");
	((unsigned long *)big)[sel / 64] |= 1UL << (sel % 64);
	tv0 = (struct timeval){ 0, 0 };
	LOG(r, select(sel + 1, big, NULL, NULL, &tv0));
	((unsigned long *)big)[sel / 64] |= 1UL << (sel % 64);
	LOG(r, pselect(sel + 1, big, NULL, NULL, &ts0, NULL));
	/* The same through syscall(): refused as select() refuses it. */
#ifdef SYS_select
	((unsigned long *)big)[sel / 64] |= 1UL << (sel % 64);
	tv0 = (struct timeval){ 0, 0 };
	LOG(r, syscall(SYS_select, sel + 1, big, NULL, NULL, &tv0));
#endif
	((unsigned long *)big)[sel / 64] |= 1UL << (sel % 64);
	LOG(r, syscall(SYS_pselect6, sel + 1, big, NULL, NULL, &ts0, NULL));
	munmap(big, big_size);
	free(many);

	LOG(r, close(p[0]));
	LOG(r, close(q[0]));
	LOG(r, close(q[1]));
}

/* ---- epoll ---- */

static int cmp_event(const void *a, const void *b)
{
	const struct epoll_event *x = a, *y = b;

	return x->data.u64 < y->data.u64 ? -1 : x->data.u64 > y->data.u64;
}

static void note_events(struct run *r, int line, struct epoll_event *ev, int n)
{
	char data[512] = "";
	size_t len = 0;

	if (n <= 0)
		return;
	qsort(ev, (size_t)n, sizeof(*ev), cmp_event);
	for (int i = 0; i < n && len < sizeof(data); i++)
		len += (size_t)snprintf(data + len, sizeof(data) - len,
					"%s%#llx:%#x", i ? " " : "",
					(unsigned long long)ev[i].data.u64,
					(unsigned)ev[i].events);
	note(r, line, "events", "%s", data);
}

#define EP_WAIT(r, expr, ev) \
	note_events(r, __LINE__, ev, \
		    (int)log_ret(r, __LINE__, #expr, (errno = 0, (long)(expr))))

script_fn script_epoll;

void script_epoll(struct run *r)
{
	const struct timespec ts0 = { 0, 0 };
	struct epoll_event ev, out[8];
	sigset_t mask;
	int ep, ep2, old, p[2], q[2], f, bad;

	sigemptyset(&mask);
	ep = FD_OF(r, epoll_create1(EPOLL_CLOEXEC));
	LOG(r, fcntl(ep, F_GETFD));
	LOG_FD(r, epoll_create1(0x1234));
	LOG_FD(r, epoll_create(0));
	old = FD_OF(r, epoll_create(1));
	LOG(r, pipe2(p, O_NONBLOCK));
	fd_of_pair(r, p);
	LOG(r, pipe2(q, O_NONBLOCK));
	fd_of_pair(r, q);
	make_file(r, "reg", "regular");
	f = FD_OF(r, open("reg", O_RDONLY));

	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x1111000000000001ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x2222000000000002ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, q[0], &ev));
	ev = (struct epoll_event){ EPOLLOUT, { .u64 = 0x3333000000000003ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);
	ev = (struct epoll_event){ EPOLLIN | EPOLLET,
				   { .u64 = 0x2222000000000022ULL } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_MOD, q[0], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_MOD, q[1], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_DEL, q[1], NULL));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
	LOG(r, epoll_ctl(ep, 99, p[0], &ev));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev));
	LOG(r, epoll_ctl(p[0], EPOLL_CTL_ADD, q[1], &ev));
	ev = (struct epoll_event){ EPOLLIN | EPOLLEXCLUSIVE, { .u64 = 9 } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));

	LOG(r, write(p[1], "x", 1));
	LOG(r, write(q[1], "y", 1));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);
	EP_WAIT(r, epoll_wait(ep, out, 1, 0), out);
	EP_WAIT(r, epoll_pwait(ep, out, 8, 0, NULL), out);
	EP_WAIT(r, epoll_pwait(ep, out, 8, 0, &mask), out);
	EP_WAIT(r, epoll_pwait2(ep, out, 8, &ts0, NULL), out);
	EP_WAIT(r, epoll_pwait2(ep, out, 8, NULL, &mask), out);
	LOG(r, epoll_wait(ep, out, 0, 0));
	LOG(r, epoll_wait(p[0], out, 8, 0));
	LOG(r, epoll_pwait2(p[0], out, 8, &ts0, NULL));

	LOG(r, epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);

	/* Epoll in epoll, and an old-style epoll descriptor. */
	ep2 = FD_OF(r, epoll_create1(0));
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x4444000000000004ULL } };
	LOG(r, epoll_ctl(ep2, EPOLL_CTL_ADD, ep, &ev));
	EP_WAIT(r, epoll_wait(ep2, out, 8, 0), out);
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, ep2, &ev));
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 0x5555000000000005ULL } };
	LOG(r, epoll_ctl(old, EPOLL_CTL_ADD, q[0], &ev));
	EP_WAIT(r, epoll_wait(old, out, 8, 0), out);

	/* A registered descriptor closed: its registration goes with it. */
	LOG(r, close(p[1]));
	EP_WAIT(r, epoll_wait(ep, out, 8, 0), out);

	/* A closed descriptor, as the epoll descriptor and as the target. */
	bad = closed_fd(r);
	ev = (struct epoll_event){ EPOLLIN, { .u64 = 1 } };
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, bad, &ev));
	LOG(r, epoll_ctl(bad, EPOLL_CTL_ADD, q[0], &ev));
	LOG(r, epoll_wait(bad, out, 8, 0));
	LOG(r, epoll_pwait(bad, out, 8, 0, NULL));
	LOG(r, epoll_pwait2(bad, out, 8, &ts0, NULL));
	LOG(r, epoll_ctl(ep, EPOLL_CTL_ADD, -1, &ev));
	LOG(r, epoll_ctl(-1, EPOLL_CTL_ADD, q[0], &ev));
	LOG(r, epoll_wait(-1, out, 8, 0));

	LOG(r, close(ep));
	LOG(r, close(ep2));
	LOG(r, close(old));
	LOG(r, close(p[0]));
	LOG(r, close(q[0]));
	LOG(r, close(q[1]));
	LOG(r, close(f));
}
