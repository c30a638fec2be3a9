/* SPDX-License-Identifier: MIT */
/*
 * shim_report.c - the checking versions of the real functions, for the
 * sanitizer (UFD_REPORT): each calls the function the pointer held
 * before, and on its way back records a close, a descriptor made by
 * dup2/dup3 or meant to be inherited, or looks up a descriptor that got
 * EBADF (use after close, report.h).
 *
 * They replace the ufd_reals.r_NAME pointers at start-up only when reports
 * are on (ufd_report_shim_init, from the constructor after
 * ufd_shim_init), so a process without UFD_REPORT runs the wrappers as
 * they are, at their instruction counts.  Each saves the pointer it
 * replaces and calls that: another checking function put in front
 * earlier (UFD_MODE=random's close) keeps working.  A row not resolved
 * yet stays so until its first call (CALL_ON).
 *
 * The wrappers call the real function with descriptors translated: a
 * closed virtual number reaches it as itself (vfd_translate has nothing
 * for it), and that is the number looked up.
 *
 * The naming functions (name_NAME) see the arguments of a call that makes
 * a descriptor and, when it succeeds, leave what it refers to pending
 * (fdname.h) for the record the wrapper makes as it finishes the
 * descriptor (report_created): a report needs no system call to say it.
 */
#include "shim.h"

#include <stdarg.h>

#include "fdname.h"
#include "report.h"
#include "report_probe.h"
#include "report_out.h"

/* fn in row call's pointer, without resolving the row: the function it
 * replaced, or NULL where that was still the row's stub (shim.h). */
static void *put_front_lazy(enum ufd_call call, void *fn)
{
	const char *was = __atomic_exchange_n(&ufd_reals.slot[call], fn, __ATOMIC_ACQ_REL);

	return was >= __start_ufd_stubs && was < __stop_ufd_stubs ? NULL : (void *)was;
}

/*
 * The function a checker calls on: prev, the function it was put in front
 * of (put_front_lazy), or, while prev is NULL (the row was still
 * at its stub), the row's real function, looked up on this first call
 * and kept in prev.  Async-signal-safe as the row's stub is; a race
 * stores the same pointer twice.  So a process pays the look-up only for
 * the rows it calls, not for 200-odd at start-up (60,000 instructions,
 * and dlsym's heap for a name libc lacks, in every process).
 */
static void *first_call(enum ufd_call call, void **prev)
{
	void *fn = ufd_shim_real(call);

	__atomic_store_n(prev, fn, __ATOMIC_RELAXED);
	return fn;
}

#define CALL_ON(name, prev)                                                    \
	({                                                                     \
		__typeof__(prev) f_ = __atomic_load_n(&(prev), __ATOMIC_RELAXED); \
		__builtin_expect(f_ != NULL, 1)                                \
			? f_                                                   \
			: (__typeof__(prev))first_call(UFD_CALL_##name,        \
						       (void **)&(prev));      \
	})

/* Each FD(x) of a generated row's fds is looked up when the call fails
 * with EBADF. */
#define FD(arg) report_ebadf(arg, call_);
#define PATH(arg)
#define PATH_MUT(arg)
#define CLOEXEC(arg, flag)
#define UFD_WRAP(name, ret, err, params, args, fds)                         \
	static ret (*prev_##name) params;                                   \
	__attribute__((unused)) static ret check_##name params              \
	{                                                                   \
		ret r_ = CALL_ON(name, prev_##name) args;                                  \
		if (__builtin_expect(r_ == (ret)(err), 0) && errno == EBADF) { \
			__attribute__((unused)) enum ufd_call call_ =       \
				UFD_CALL_##name;                            \
			fds errno = EBADF;                                  \
		}                                                           \
		return r_;                                                  \
	}
#include "calls.def"

/* Hand-written rows whose first argument is the descriptor. */
#define CHECK_FIRST(name, ret, params, args, fd)                        \
	static ret (*prev_##name) params;                               \
	static ret check_##name params                                  \
	{                                                               \
		ret r_ = CALL_ON(name, prev_##name) args;                              \
		if (__builtin_expect(r_ < 0, 0) && errno == EBADF) {    \
			report_ebadf(fd, UFD_CALL_##name);              \
			errno = EBADF;                                  \
		}                                                       \
		return r_;                                              \
	}
CHECK_FIRST(accept, int, (int fd, __SOCKADDR_ARG addr, socklen_t *len),
	    (fd, addr, len), fd)
CHECK_FIRST(accept4, int, (int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags),
	    (fd, addr, len, flags), fd)
CHECK_FIRST(dup, int, (int fd), (fd), fd)
CHECK_FIRST(sendmsg, ssize_t, (int fd, const struct msghdr *msg, int flags),
	    (fd, msg, flags), fd)
CHECK_FIRST(recvmsg, ssize_t, (int fd, struct msghdr *msg, int flags),
	    (fd, msg, flags), fd)

/* fstatat and statx: probes on the descriptor itself (an empty path),
 * uses of it as a directory (a path under it).  In place of the
 * generated checks of their rows (hand_checked). */
#define CHECK_AT(name, params, args, fd, path, flags)                            \
	static int (*prev_at_##name) params;                                     \
	static int check_at_##name params                                        \
	{                                                                        \
		int r_ = CALL_ON(name, prev_at_##name) args;                                    \
		if (__builtin_expect(r_ < 0, 0) && errno == EBADF) {             \
			report_ebadf_args(fd, UFD_CALL_##name, flags, path);     \
			errno = EBADF;                                           \
		}                                                                \
		return r_;                                                       \
	}
CHECK_AT(fstatat, (int dirfd, const char *path, struct stat *st, int flags),
	 (dirfd, path, st, flags), dirfd, path, flags)
CHECK_AT(fstatat64, (int dirfd, const char *path, struct stat64 *st, int flags),
	 (dirfd, path, st, flags), dirfd, path, flags)
CHECK_AT(statx, (int dirfd, const char *path, int flags, unsigned int mask,
		 struct statx *st),
	 (dirfd, path, flags, mask, st), dirfd, path, flags)

static int hand_checked(enum ufd_call call)
{
	return call == UFD_CALL_fstatat || call == UFD_CALL_fstatat64 ||
	       call == UFD_CALL_statx;
}

/* close: recorded (or a double close reported) before the kernel's. */
static int (*prev_close)(int);

static int check_close(int fd)
{
	int recorded;

	if (fd == report_out_fd() && fd >= 0) {
		errno = EBADF; /* ufd's: not the program's to close */
		return -1;
	}
	recorded = report_closing(fd, UFD_CALL_close);
	if (CALL_ON(close, prev_close)(fd) == 0)
		return 0;
	if (recorded && errno == EBADF) {
		report_close_failed(fd);
		errno = EBADF;
	}
	return -1;
}

/* dup2/dup3 onto a number the program chose: meant to be inherited. */
static int (*prev_dup2)(int, int);
static int (*prev_dup3)(int, int, int);

static int check_dup2(int oldfd, int newfd)
{
	int r;

	if (oldfd != newfd)
		report_out_make_way(newfd);
	r = CALL_ON(dup2, prev_dup2)(oldfd, newfd);

	if (r >= 0) {
		fdname_pending(UFD_CALL_dup2, report_name_of(oldfd), 0, 1);
		report_created(r, UFD_CALL_dup2, 1);
	}
	else if (errno == EBADF) {
		report_ebadf(oldfd, UFD_CALL_dup2);
		errno = EBADF;
	}
	return r;
}

static int check_dup3(int oldfd, int newfd, int flags)
{
	int r;

	if (oldfd != newfd)
		report_out_make_way(newfd);
	r = CALL_ON(dup3, prev_dup3)(oldfd, newfd, flags);

	if (r >= 0) {
		fdname_pending(UFD_CALL_dup3, report_name_of(oldfd), 0, 1);
		report_created(r, UFD_CALL_dup3, !(flags & O_CLOEXEC));
	}
	else if (errno == EBADF) {
		report_ebadf(oldfd, UFD_CALL_dup3);
		errno = EBADF;
	}
	return r;
}

/* fcntl: F_SETFD without FD_CLOEXEC means the descriptor to cross an
 * exec.  (A virtual one's flags are set in the table: shim_fcntl.c.) */
#define CHECK_FCNTL(name)                                                \
	static int (*prev_##name)(int, int, ...);                        \
	static int check_##name(int fd, int cmd, ...)                    \
	{                                                                \
		va_list ap;                                              \
		void *arg;                                               \
		int r;                                                   \
		va_start(ap, cmd);                                       \
		arg = va_arg(ap, void *);                                \
		va_end(ap);                                              \
		r = CALL_ON(name, prev_##name)(fd, cmd, arg);                           \
		if (r == 0 && cmd == F_SETFD && !((long)arg & FD_CLOEXEC)) \
			report_inherit(fd);                              \
		else if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) \
			fdname_pending(UFD_CALL_##name, report_name_of(fd), 0, 1); \
		else if (r < 0 && errno == EBADF) {                      \
			report_ebadf_args(fd, UFD_CALL_##name, cmd, NULL); \
			errno = EBADF;                                   \
		}                                                        \
		return r;                                                \
	}
CHECK_FCNTL(fcntl)
CHECK_FCNTL(fcntl64)

static int (*prev_ioctl)(int, unsigned long, ...);

static int check_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int r;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	r = CALL_ON(ioctl, prev_ioctl)(fd, request, arg);
	if (r == 0 && request == FIONCLEX)
		report_inherit(fd);
	else if (r < 0 && errno == EBADF) {
		report_ebadf(fd, UFD_CALL_ioctl);
		errno = EBADF;
	}
	return r;
}

/* ---- select, pselect ---- */

/* Bytes of each set read, from nfds down, for the descriptor past
 * FD_SETSIZE: 64 KiB, half a million descriptors (a virtual one's bit is
 * the first word read when nfds is that descriptor + 1). */
#define SET_SCAN_MAX 65536

/*
 * The highest descriptor below nfds and at or past FD_SETSIZE set in one
 * of the three sets (each may be NULL), read without faulting (a set is
 * read down to its first unreadable page, and SET_SCAN_MAX bytes at
 * most; with process_vm_readv only, never directly: this memory is past
 * the sets, and may be unmapped), or -1.  Reads only; no lock;
 * async-signal-safe.
 */
static int select_highest_wide(int nfds, fd_set *const sets[3])
{
	int best = -1;

	for (int i = 0; i < 3; i++) {
		uintptr_t base = (uintptr_t)sets[i];
		long lo = FD_SETSIZE / __NFDBITS, w = ((long)nfds - 1) / __NFDBITS;

		if (!base || nfds <= FD_SETSIZE)
			continue;
		if (w - lo > SET_SCAN_MAX / (long)sizeof(__fd_mask))
			lo = w - SET_SCAN_MAX / (long)sizeof(__fd_mask);
		/* Down a page at a time: a page is read whole or not at
		 * all; stop where the last found cannot be beaten. */
		while (w >= lo && (long)(w + 1) * __NFDBITS - 1 > best) {
			__fd_mask buf[4096 / sizeof(__fd_mask)];
			uintptr_t top = base + (uintptr_t)w * sizeof(__fd_mask);
			long first = w - (long)((top & 4095) / sizeof(__fd_mask)), n;

			if (first < lo)
				first = lo;
			n = w - first + 1;
			if (ufd_sys_read_self_span(buf,
						   (const void *)(base + (uintptr_t)first *
								  sizeof(__fd_mask)),
						   (size_t)n * sizeof(__fd_mask)) !=
			    n * (long)sizeof(__fd_mask))
				break;
			for (long k = n - 1; k >= 0; k--) {
				unsigned long bits = (unsigned long)buf[k];
				long fd0 = (first + k) * __NFDBITS;

				if (fd0 + __NFDBITS > nfds) /* bits past nfds */
					bits &= (1UL << (nfds - fd0)) - 1;
				if (bits) {
					long fd = fd0 + 63 - __builtin_clzl(bits);

					if (fd >= FD_SETSIZE && fd > best)
						best = (int)fd;
					break;
				}
			}
			w = first - 1;
		}
	}
	return best;
}

void ufd_report_select_wide(enum ufd_call call, int nfds, fd_set *r, fd_set *w,
			    fd_set *e)
{
	fd_set *const sets[3] = { r, w, e };
	int fd = select_highest_wide(nfds, sets);

	report_fd_set(fd >= 0 ? fd : nfds - 1, call);
}

void ufd_report_select_ebadf(enum ufd_call call, int nfds, fd_set *r, fd_set *w,
			     fd_set *e, int kernel_read)
{
	fd_set *const sets[3] = { r, w, e };
	__fd_mask all[FD_SETSIZE / __NFDBITS] = { 0 };
	int n = nfds < FD_SETSIZE ? nfds : FD_SETSIZE;
	size_t words = ((size_t)(n > 0 ? n : 0) + __NFDBITS - 1) / __NFDBITS;

	/* A descriptor in two sets is looked up once. */
	for (int i = 0; i < 3; i++) {
		__fd_mask set[FD_SETSIZE / __NFDBITS];

		if (!sets[i] || !words)
			continue;
		if (kernel_read)
			__builtin_memcpy(set, sets[i], words * sizeof(set[0]));
		else if (ufd_sys_read_self(set, sets[i], words * sizeof(set[0])) !=
			 (long)(words * sizeof(set[0])))
			continue;
		for (size_t k = 0; k < words; k++)
			all[k] |= set[k];
	}
	for (int fd = 0; fd < n; fd++)
		if ((unsigned long)all[fd / __NFDBITS] >> (fd % __NFDBITS) & 1)
			report_ebadf(fd, call);
}

/* Past FD_SETSIZE: reported, then called as asked (glibc's fd_set macros
 * have written past the sets already).  EBADF: the closed descriptors in
 * the sets.  (nfds reaching virtual numbers, and sets naming backing
 * descriptors, are refused before, by the wrappers: shim_poll.c.) */
static int (*prev_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
static int (*prev_pselect)(int, fd_set *, fd_set *, fd_set *,
			   const struct timespec *, const sigset_t *);

static int check_select(int nfds, fd_set *r, fd_set *w, fd_set *e,
			struct timeval *timeout)
{
	int ret;

	if (nfds > FD_SETSIZE)
		ufd_report_select_wide(UFD_CALL_select, nfds, r, w, e);
	ret = CALL_ON(select, prev_select)(nfds, r, w, e, timeout);
	if (ret < 0 && errno == EBADF) {
		ufd_report_select_ebadf(UFD_CALL_select, nfds, r, w, e, 1);
		errno = EBADF;
	}
	return ret;
}

static int check_pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
			 const struct timespec *timeout, const sigset_t *mask)
{
	int ret;

	if (nfds > FD_SETSIZE)
		ufd_report_select_wide(UFD_CALL_pselect, nfds, r, w, e);
	ret = CALL_ON(pselect, prev_pselect)(nfds, r, w, e, timeout, mask);
	if (ret < 0 && errno == EBADF) {
		ufd_report_select_ebadf(UFD_CALL_pselect, nfds, r, w, e, 1);
		errno = EBADF;
	}
	return ret;
}

/* ---- poll, ppoll ---- */

/*
 * After a poll that found something: POLLNVAL for a number the program
 * closed is a use after close (report_ebadf), but not in a sweep of
 * consecutive numbers, which asks which are open (report_probe.c).  Not
 * on the first try of an array that names an open virtual descriptor:
 * the wrapper makes the call again on a translated copy (shim_poll.c),
 * looked at here then; the copy names none.  The kernel has just written the array's revents.
 */
static void poll_nval(const struct pollfd *fds, nfds_t n, enum ufd_call call)
{
	nfds_t i = 0;

	if (report_probe_poll_sweep(fds, n))
		return;
	while (i < n && !(fds[i].revents & POLLNVAL))
		i++;
	if (i == n)
		return;
	for (nfds_t j = 0; j < n; j++)
		if (vfd_in_space(fds[j].fd) && vfd_translate(fds[j].fd) != fds[j].fd)
			return;
	for (; i < n; i++)
		if (fds[i].revents & POLLNVAL)
			report_ebadf(fds[i].fd, call);
}

static int (*prev_poll)(struct pollfd *, nfds_t, int);
static int (*prev_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *);
static int (*prev___poll_chk)(struct pollfd *, nfds_t, int, size_t);
static int (*prev___ppoll_chk)(struct pollfd *, nfds_t, const struct timespec *,
			       const sigset_t *, size_t);

static int check_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int r = CALL_ON(poll, prev_poll)(fds, n, timeout);

	if (r > 0)
		poll_nval(fds, n, UFD_CALL_poll);
	return r;
}

static int check_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		       const sigset_t *mask)
{
	int r = CALL_ON(ppoll, prev_ppoll)(fds, n, ts, mask);

	if (r > 0)
		poll_nval(fds, n, UFD_CALL_ppoll);
	return r;
}

static int check___poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t len)
{
	int r = CALL_ON(__poll_chk, prev___poll_chk)(fds, n, timeout, len);

	if (r > 0)
		poll_nval(fds, n, UFD_CALL_poll);
	return r;
}

static int check___ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts,
			     const sigset_t *mask, size_t len)
{
	int r = CALL_ON(__ppoll_chk, prev___ppoll_chk)(fds, n, ts, mask, len);

	if (r > 0)
		poll_nval(fds, n, UFD_CALL_ppoll);
	return r;
}

/* glibc's fortified FD_SET, FD_CLR, FD_ISSET: past FD_SETSIZE it aborts,
 * after this report. */
static long int (*prev___fdelt_chk)(long int);
static long int (*prev___fdelt_warn)(long int);

static long int check_fdelt_chk(long int d)
{
	if ((unsigned long)d >= FD_SETSIZE)
		report_fd_set((int)d, UFD_CALL___fdelt_chk);
	return CALL_ON(__fdelt_chk, prev___fdelt_chk)(d);
}

static long int check_fdelt_warn(long int d)
{
	if ((unsigned long)d >= FD_SETSIZE)
		report_fd_set((int)d, UFD_CALL___fdelt_warn);
	return CALL_ON(__fdelt_warn, prev___fdelt_warn)(d);
}

/* ---- what new descriptors refer to ---- */

/* A call whose success (ok, of r_) made a descriptor named id. */
#define NAMED(name, ret, params, args, ok, id)                           \
	static ret (*prevn_##name) params;                                \
	static ret name_##name params                                     \
	{                                                                 \
		ret r_ = CALL_ON(name, prevn_##name) args;                               \
		if (ok)                                                   \
			fdname_pending(UFD_CALL_##name, (id), 0, 1);      \
		return r_;                                                \
	}

/* The open family's variadic entries: mode read as CHECK_FCNTL reads its
 * argument, passed on. */
#define NAMED_OPEN(name, params, args, dir)                               \
	static int (*prevn_##name)(UFD_UNPAREN params, ...);              \
	static int name_##name(UFD_UNPAREN params, ...)                   \
	{                                                                 \
		va_list ap;                                               \
		mode_t mode;                                              \
		int r_;                                                   \
		va_start(ap, flags);                                      \
		mode = va_arg(ap, mode_t);                                \
		va_end(ap);                                               \
		r_ = CALL_ON(name, prevn_##name)(UFD_UNPAREN args, mode);                \
		if (r_ >= 0)                                              \
			fdname_pending(UFD_CALL_##name,                   \
				       fdname_path(report_name_of(dir), path), 0, 1); \
		return r_;                                                \
	}
NAMED_OPEN(open, (const char *path, int flags), (path, flags), -1)
NAMED_OPEN(open64, (const char *path, int flags), (path, flags), -1)
NAMED_OPEN(openat, (int dirfd, const char *path, int flags), (dirfd, path, flags), dirfd)
NAMED_OPEN(openat64, (int dirfd, const char *path, int flags), (dirfd, path, flags), dirfd)
#define PATH_ID(path) fdname_path(0, path)
#define AT_ID(dirfd, path) fdname_path(report_name_of(dirfd), path)
NAMED(__open_2, int, (const char *path, int flags), (path, flags), r_ >= 0, PATH_ID(path))
NAMED(__open64_2, int, (const char *path, int flags), (path, flags), r_ >= 0, PATH_ID(path))
NAMED(__openat_2, int, (int dirfd, const char *path, int flags), (dirfd, path, flags),
      r_ >= 0, AT_ID(dirfd, path))
NAMED(__openat64_2, int, (int dirfd, const char *path, int flags), (dirfd, path, flags),
      r_ >= 0, AT_ID(dirfd, path))
NAMED(creat, int, (const char *path, mode_t mode), (path, mode), r_ >= 0, PATH_ID(path))
NAMED(creat64, int, (const char *path, mode_t mode), (path, mode), r_ >= 0, PATH_ID(path))
NAMED(mkstemp, int, (char *t), (t), r_ >= 0, PATH_ID(t))
NAMED(mkstemp64, int, (char *t), (t), r_ >= 0, PATH_ID(t))
NAMED(mkstemps, int, (char *t, int n), (t, n), r_ >= 0, PATH_ID(t))
NAMED(mkstemps64, int, (char *t, int n), (t, n), r_ >= 0, PATH_ID(t))
NAMED(mkostemp, int, (char *t, int f), (t, f), r_ >= 0, PATH_ID(t))
NAMED(mkostemp64, int, (char *t, int f), (t, f), r_ >= 0, PATH_ID(t))
NAMED(mkostemps, int, (char *t, int n, int f), (t, n, f), r_ >= 0, PATH_ID(t))
NAMED(mkostemps64, int, (char *t, int n, int f), (t, n, f), r_ >= 0, PATH_ID(t))
NAMED(fopen, FILE *, (const char *path, const char *mode), (path, mode), r_, PATH_ID(path))
NAMED(fopen64, FILE *, (const char *path, const char *mode), (path, mode), r_,
      PATH_ID(path))
NAMED(freopen, FILE *, (const char *path, const char *mode, FILE *fp), (path, mode, fp),
      r_ && path, PATH_ID(path))
NAMED(freopen64, FILE *, (const char *path, const char *mode, FILE *fp),
      (path, mode, fp), r_ && path, PATH_ID(path))
NAMED(opendir, DIR *, (const char *path), (path), r_, PATH_ID(path))
NAMED(shm_open, int, (const char *name, int oflag, mode_t mode), (name, oflag, mode),
      r_ >= 0, fdname_prefixed(name[0] == '/' ? "/dev/shm" : "/dev/shm/", name))
NAMED(socket, int, (int domain, int type, int protocol), (domain, type, protocol),
      r_ >= 0, fdname_socket(domain, type))
NAMED(accept, int, (int fd, __SOCKADDR_ARG addr, socklen_t *len), (fd, addr, len),
      r_ >= 0, report_name_of(fd))
NAMED(accept4, int, (int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags),
      (fd, addr, len, flags), r_ >= 0, report_name_of(fd))
NAMED(dup, int, (int fd), (fd), r_ >= 0, report_name_of(fd))
NAMED(eventfd, int, (unsigned int v, int flags), (v, flags), r_ >= 0,
      fdname_str("anon_inode:[eventfd]"))
NAMED(epoll_create, int, (int size), (size), r_ >= 0, fdname_str("anon_inode:[eventpoll]"))
NAMED(epoll_create1, int, (int flags), (flags), r_ >= 0,
      fdname_str("anon_inode:[eventpoll]"))
NAMED(inotify_init, int, (void), (), r_ >= 0, fdname_str("anon_inode:inotify"))
NAMED(inotify_init1, int, (int flags), (flags), r_ >= 0, fdname_str("anon_inode:inotify"))
NAMED(timerfd_create, int, (clockid_t clock, int flags), (clock, flags), r_ >= 0,
      fdname_str("anon_inode:[timerfd]"))
NAMED(signalfd, int, (int fd, const sigset_t *mask, int flags), (fd, mask, flags),
      r_ >= 0 && fd == -1, fdname_str("anon_inode:[signalfd]"))
NAMED(pidfd_open, int, (pid_t pid, unsigned int flags), (pid, flags), r_ >= 0,
      fdname_str("anon_inode:[pidfd]"))
NAMED(fanotify_init, int, (unsigned int flags, unsigned int ev), (flags, ev), r_ >= 0,
      fdname_str("anon_inode:[fanotify]"))
NAMED(posix_openpt, int, (int flags), (flags), r_ >= 0, fdname_str("/dev/ptmx"))
NAMED(getpt, int, (void), (), r_ >= 0, fdname_str("/dev/ptmx"))
NAMED(memfd_create, int, (const char *name, unsigned int flags), (name, flags), r_ >= 0,
      fdname_prefixed("/memfd:", name))

/* Pairs: two names, in the order the wrappers finish them. */
static int (*prevn_pipe)(int[2]);
static int (*prevn_pipe2)(int[2], int);
static int (*prevn_socketpair)(int, int, int, int[2]);

static void name_ends(enum ufd_call call)
{
	fdname_pending(call, fdname_str("pipe:[read end]"), fdname_str("pipe:[write end]"),
		       2);
}

static int name_pipe(int fds[2])
{
	int r = CALL_ON(pipe, prevn_pipe)(fds);

	if (r == 0)
		name_ends(UFD_CALL_pipe);
	return r;
}

static int name_pipe2(int fds[2], int flags)
{
	int r = CALL_ON(pipe2, prevn_pipe2)(fds, flags);

	if (r == 0)
		name_ends(UFD_CALL_pipe2);
	return r;
}

static int name_socketpair(int domain, int type, int protocol, int sv[2])
{
	int r = CALL_ON(socketpair, prevn_socketpair)(domain, type, protocol, sv);

	if (r == 0) {
		uint32_t id = fdname_socket(domain, type);

		fdname_pending(UFD_CALL_socketpair, id, id, 2);
	}
	return r;
}

/* fn in front of row name, prev what it calls on (CALL_ON).  The sizeof
 * fails to compile for a row without a pointer (calls.def's UFD_ALIAS). */
#define PUT_FRONT(name, fn, prev)                                        \
	((void)sizeof(ufd_reals.r_##name),                               \
	 (prev) = (__typeof__(prev))put_front_lazy(UFD_CALL_##name, (void *)(fn)))
#define INSTALL(name) PUT_FRONT(name, check_##name, prev_##name)
#define INSTALL_NAMED(name) PUT_FRONT(name, name_##name, prevn_##name)

void ufd_report_shim_init(void)
{
	if (!ufd_settings.report)
		return;
	__atomic_or_fetch(&ufd_close_slow, UFD_CLOSE_REPORT, __ATOMIC_RELAXED);
	report_init();
#define FD(arg) +1
#define PATH(arg)
#define PATH_MUT(arg)
#define CLOEXEC(arg, flag)
#define UFD_WRAP(name, ret, err, params, args, fds) \
	if ((0 fds) && !hand_checked(UFD_CALL_##name)) \
		INSTALL(name);
#include "calls.def"
	PUT_FRONT(fstatat, check_at_fstatat, prev_at_fstatat);
	PUT_FRONT(fstatat64, check_at_fstatat64, prev_at_fstatat64);
	PUT_FRONT(statx, check_at_statx, prev_at_statx);
	INSTALL(accept);
	INSTALL(accept4);
	INSTALL(dup);
	INSTALL(sendmsg);
	INSTALL(recvmsg);
	INSTALL(close);
	INSTALL(dup2);
	INSTALL(dup3);
	INSTALL(fcntl);
	INSTALL(fcntl64);
	INSTALL(ioctl);
	PUT_FRONT(__fdelt_chk, check_fdelt_chk, prev___fdelt_chk);
	PUT_FRONT(__fdelt_warn, check_fdelt_warn, prev___fdelt_warn);
	INSTALL(select);
	INSTALL(pselect);
	INSTALL(poll);
	INSTALL(ppoll);
	INSTALL(__poll_chk);
	INSTALL(__ppoll_chk);
	INSTALL_NAMED(open);
	INSTALL_NAMED(open64);
	INSTALL_NAMED(openat);
	INSTALL_NAMED(openat64);
	INSTALL_NAMED(__open_2);
	INSTALL_NAMED(__open64_2);
	INSTALL_NAMED(__openat_2);
	INSTALL_NAMED(__openat64_2);
	INSTALL_NAMED(creat);
	INSTALL_NAMED(creat64);
	INSTALL_NAMED(mkstemp);
	INSTALL_NAMED(mkstemp64);
	INSTALL_NAMED(mkstemps);
	INSTALL_NAMED(mkstemps64);
	INSTALL_NAMED(mkostemp);
	INSTALL_NAMED(mkostemp64);
	INSTALL_NAMED(mkostemps);
	INSTALL_NAMED(mkostemps64);
	INSTALL_NAMED(fopen);
	INSTALL_NAMED(fopen64);
	INSTALL_NAMED(freopen);
	INSTALL_NAMED(freopen64);
	INSTALL_NAMED(opendir);
	INSTALL_NAMED(shm_open);
	INSTALL_NAMED(socket);
	INSTALL_NAMED(socketpair);
	INSTALL_NAMED(accept);
	INSTALL_NAMED(accept4);
	INSTALL_NAMED(dup);
	INSTALL_NAMED(pipe);
	INSTALL_NAMED(pipe2);
	INSTALL_NAMED(eventfd);
	INSTALL_NAMED(epoll_create);
	INSTALL_NAMED(epoll_create1);
	INSTALL_NAMED(inotify_init);
	INSTALL_NAMED(inotify_init1);
	INSTALL_NAMED(timerfd_create);
	INSTALL_NAMED(signalfd);
	INSTALL_NAMED(pidfd_open);
	INSTALL_NAMED(fanotify_init);
	INSTALL_NAMED(posix_openpt);
	INSTALL_NAMED(getpt);
	INSTALL_NAMED(memfd_create);
}
