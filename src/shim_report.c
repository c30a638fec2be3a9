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
 * earlier (UFD_MODE=random's close) keeps working.
 *
 * The wrappers call the real function with descriptors translated: a
 * closed virtual number reaches it as itself (vfd_translate has nothing
 * for it), and that is the number looked up.
 */
#include "shim.h"

#include <stdarg.h>

#include "report.h"

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
		ret r_ = prev_##name args;                                  \
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
		ret r_ = prev_##name args;                              \
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
		int r_ = prev_at_##name args;                                    \
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
	report_closing(fd, UFD_CALL_close);
	return prev_close(fd);
}

/* dup2/dup3 onto a number the program chose: meant to be inherited. */
static int (*prev_dup2)(int, int);
static int (*prev_dup3)(int, int, int);

static int check_dup2(int oldfd, int newfd)
{
	int r = prev_dup2(oldfd, newfd);

	if (r >= 0)
		report_created(r, UFD_CALL_dup2, 1);
	else if (errno == EBADF) {
		report_ebadf(oldfd, UFD_CALL_dup2);
		errno = EBADF;
	}
	return r;
}

static int check_dup3(int oldfd, int newfd, int flags)
{
	int r = prev_dup3(oldfd, newfd, flags);

	if (r >= 0)
		report_created(r, UFD_CALL_dup3, !(flags & O_CLOEXEC));
	else if (errno == EBADF) {
		report_ebadf(oldfd, UFD_CALL_dup3);
		errno = EBADF;
	}
	return r;
}

/* fcntl: F_SETFD without FD_CLOEXEC means the descriptor to cross an
 * exec.  (A virtual one's flags are set in the table: shim_fd.c.) */
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
		r = prev_##name(fd, cmd, arg);                           \
		if (r == 0 && cmd == F_SETFD && !((long)arg & FD_CLOEXEC)) \
			report_inherit(fd);                              \
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
	r = prev_ioctl(fd, request, arg);
	if (r == 0 && request == FIONCLEX)
		report_inherit(fd);
	else if (r < 0 && errno == EBADF) {
		report_ebadf(fd, UFD_CALL_ioctl);
		errno = EBADF;
	}
	return r;
}

/* select and pselect past FD_SETSIZE: reported, then called as asked
 * (glibc's fd_set macros have written past the sets already). */
static int (*prev_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
static int (*prev_pselect)(int, fd_set *, fd_set *, fd_set *,
			   const struct timespec *, const sigset_t *);

static int check_select(int nfds, fd_set *r, fd_set *w, fd_set *e,
			struct timeval *timeout)
{
	if (nfds > FD_SETSIZE)
		report_fd_set(nfds, UFD_CALL_select);
	return prev_select(nfds, r, w, e, timeout);
}

static int check_pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
			 const struct timespec *timeout, const sigset_t *mask)
{
	if (nfds > FD_SETSIZE)
		report_fd_set(nfds, UFD_CALL_pselect);
	return prev_pselect(nfds, r, w, e, timeout, mask);
}

/* glibc's fortified FD_SET, FD_CLR, FD_ISSET: past FD_SETSIZE it aborts,
 * after this report. */
static long int (*prev___fdelt_chk)(long int);
static long int (*prev___fdelt_warn)(long int);

static long int check_fdelt_chk(long int d)
{
	if ((unsigned long)d >= FD_SETSIZE)
		report_fd_set((int)d, UFD_CALL___fdelt_chk);
	return prev___fdelt_chk(d);
}

static long int check_fdelt_warn(long int d)
{
	if ((unsigned long)d >= FD_SETSIZE)
		report_fd_set((int)d, UFD_CALL___fdelt_warn);
	return prev___fdelt_warn(d);
}

#define INSTALL(name) UFD_REAL_PUT_FRONT(name, check_##name, prev_##name)

void ufd_report_shim_init(void)
{
	if (!ufd_settings.report)
		return;
	report_init();
#define FD(arg) +1
#define PATH(arg)
#define PATH_MUT(arg)
#define CLOEXEC(arg, flag)
#define UFD_WRAP(name, ret, err, params, args, fds) \
	if ((0 fds) && !hand_checked(UFD_CALL_##name)) \
		INSTALL(name);
#include "calls.def"
	UFD_REAL_PUT_FRONT(fstatat, check_at_fstatat, prev_at_fstatat);
	UFD_REAL_PUT_FRONT(fstatat64, check_at_fstatat64, prev_at_fstatat64);
	UFD_REAL_PUT_FRONT(statx, check_at_statx, prev_at_statx);
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
	UFD_REAL_PUT_FRONT(__fdelt_chk, check_fdelt_chk, prev___fdelt_chk);
	UFD_REAL_PUT_FRONT(__fdelt_warn, check_fdelt_warn, prev___fdelt_warn);
	INSTALL(select);
	INSTALL(pselect);
}
