/* SPDX-License-Identifier: MIT */
/*
 * shim_stream.c - stdio streams.
 *
 * glibc's streams call read, write, lseek and close through internal
 * aliases that no interposer sees, so a stream made on a virtual descriptor
 * is made on its backing descriptor instead.  fileno maps the backing
 * descriptor back to the virtual one, and fclose drops the virtual
 * descriptor before glibc closes the backing one.  The fopen family
 * rewrites /dev/fd paths and honours UFD_CLOEXEC with mode "e".
 * Directory streams are shim_dir.c's.
 */
#include "shim_stream.h"

#include <stdarg.h>
#include <string.h>

#include "report.h"
#include "sys.h"
#include "vfd_table.h"

/* ---- the fopen family ---- */

/* A mode string with 'e' (O_CLOEXEC) added, in buf, under UFD_CLOEXEC;
 * *added says whether it was. */
static const char *mode_cloexec(const char *mode, char *buf, size_t size,
				int *added)
{
	*added = 0;
	if (!ufd_settings.cloexec || !mode || strchr(mode, 'e') ||
	    strlen(mode) + 2 > size)
		return mode;
	snprintf(buf, size, "%se", mode);
	*added = 1;
	return buf;
}

/* Does a stream with this mode have a close-on-exec descriptor?  1 or
 * 0, as glibc reads the mode ('e' among the six characters after the
 * first), or -1 without a mode. */
static int mode_says_cloexec(const char *mode)
{
	if (!mode)
		return -1;
	for (int i = 1; i < 7 && mode[i]; i++)
		if (mode[i] == 'e')
			return 1;
	return 0;
}

FILE *ufd_stream_made(FILE *fp, enum ufd_call call)
{
	return ufd_stream_made_known(fp, call, -1);
}

/* fp, whose descriptor newfd closed (past the application's limit): the
 * stream freed without closing the number again, which another thread
 * may have been given since (glibc's fclose closes no descriptor -1). */
static void stream_drop(FILE *fp)
{
	int saved = errno;

	fp->_fileno = -1;
	UFD_REAL(fclose)(fp);
	errno = saved;
}

FILE *ufd_stream_made_known(FILE *fp, enum ufd_call call, int cloexec)
{
	int fd, vfd, backing, saved;

	if (!fp)
		return NULL;
	/* _fileno: the stream's descriptor, in glibc's FILE (struct
	 * _IO_FILE, part of its installed ABI), which every stream
	 * operation uses. */
	fd = fp->_fileno;
	if (__builtin_expect(!ufd_settings.mode_all && !ufd_settings.mode_random, 1) &&
	    (unsigned)fd < __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED)) {
		if (__builtin_expect(ufd_settings.report != NULL, 0))
			report_created(fd, call, 0);
		return fp;
	}
	/* Standard streams stay; a stream already on a backing descriptor
	 * (fdopen of a virtual one, freopen of such a stream) is virtual
	 * already. */
	if (fd <= 2 || (vfd_guarded(fd) && vfd_owner(fd) >= 0)) {
		if (ufd_settings.report)
			report_created(fd <= 2 ? fd : vfd_owner(fd), call, 0);
		return fp;
	}
	saved = errno;
	/* Virtual, or moved (random); past the application's limit (libc's
	 * own open got a number in ufd's room), closed: EMFILE, as the
	 * kernel would have failed libc's open. */
	vfd = newfd_finish_flagged(fd, 0, 0, 0, call, cloexec);
	if (vfd < 0) {
		stream_drop(fp);
		errno = -vfd;
		return NULL;
	}
	backing = vfd_translate(vfd);
	/* Moved (fd is closed now): the stream goes with it.  Adopted
	 * where it is (record locks), or left real: nothing to do. */
	if (vfd != fd && backing != fd) {
		fp->_fileno = backing;
		if (vfd_in_space(vfd))
			ufd_stream_on_vfd(vfd, backing);
	}
	errno = saved;
	return fp;
}

/*
 * A stream the fopen family just opened: one that landed on 0, 1 or 2 is
 * left without close-on-exec.  freopen on a stream of a virtual descriptor
 * reopens the backing descriptor in place (glibc dup3s the new file onto
 * the old number) with the close-on-exec flag of the new mode: that is the
 * virtual descriptor's flag now, and the backing descriptor must be
 * close-on-exec again, or every child would inherit it.  Under
 * UFD_MODE=all, a stream on a new real descriptor moves to a virtual one.
 */
static FILE *stream_opened(FILE *fp, const char *mode, int added, enum ufd_call call)
{
	int fd = fp->_fileno, vfd; /* as ufd_stream_made reads it */

	newfd_std_fixup(fd, added);
	vfd = fd >= 0 && vfd_guarded(fd) ? vfd_owner(fd) : -1;
	if (vfd >= 0) {
		ufd_sys_fcntl(fd, F_SETFD, FD_CLOEXEC);
		/* The new file's descriptor has no close-on-fork either. */
		vfd_set_flags(vfd, VFD_CLOEXEC | VFD_CLOFORK,
			      mode && strchr(mode, 'e') ? VFD_CLOEXEC : 0);
	}
	return ufd_stream_made_known(fp, call, mode_says_cloexec(mode));
}

/* The body of the fopen wrappers: path rewritten, mode with 'e' under
 * UFD_CLOEXEC, then stream_opened. */
#define FOPEN_BODY(name, path, mode, on_failure, ...)                      \
	do {                                                               \
		char mode_buf_[16];                                        \
		FILE *fp_;                                                 \
		int added_;                                                \
		UFD_PATH_BEFORE(path);                                     \
		mode = mode_cloexec(mode, mode_buf_, sizeof(mode_buf_),    \
				    &added_);                              \
		fp_ = UFD_REAL(name)(__VA_ARGS__);                         \
		if (fp_)                                                   \
			return stream_opened(fp_, mode, added_,            \
					     UFD_CALL_##name);             \
		on_failure;                                                \
		return NULL;                                               \
	} while (0)

/*
 * Can an fopen go straight to libc?  So while a new descriptor is the
 * application's as the kernel makes it (newfd_plain: no setting concerns
 * it, and the kernel's limit is the application's; past it, libc's own
 * open would get a number in ufd's room) and the process holds no
 * virtual descriptor that a /dev/fd path could name.
 */
static inline int fopen_plain(void)
{
	return newfd_plain() && !vfd_any();
}

__attribute__((noinline)) static FILE *fopen_slow(const char *path, const char *mode)
{
	FOPEN_BODY(fopen, path, mode, (void)0, path, mode);
}

UFD_PUBLIC FILE *fopen(const char *path, const char *mode)
{
	if (__builtin_expect(fopen_plain(), 1))
		return UFD_REAL(fopen)(path, mode);
	return fopen_slow(path, mode);
}

__attribute__((noinline)) static FILE *fopen64_slow(const char *path, const char *mode)
{
	FOPEN_BODY(fopen64, path, mode, (void)0, path, mode);
}

UFD_PUBLIC FILE *fopen64(const char *path, const char *mode)
{
	if (__builtin_expect(fopen_plain(), 1))
		return UFD_REAL(fopen64)(path, mode);
	return fopen64_slow(path, mode);
}

/* glibc's tmpfile opens its file without close-on-exec: the flag is
 * set after, under UFD_CLOEXEC (a window a concurrent fork+exec can see,
 * as for any descriptor set close-on-exec after the fact). */
static FILE *tmpfile_made(FILE *fp, enum ufd_call call)
{
	int fd = fp ? UFD_REAL(fileno)(fp) : -1;

	if (fd > 2 && __builtin_expect(ufd_settings.cloexec, 0))
		ufd_sys_fcntl(fd, F_SETFD, FD_CLOEXEC);
	return ufd_stream_made(fp, call);
}

UFD_PUBLIC FILE *tmpfile(void)
{
	return tmpfile_made(UFD_REAL(tmpfile)(), UFD_CALL_tmpfile);
}

UFD_PUBLIC FILE *tmpfile64(void)
{
	return tmpfile_made(UFD_REAL(tmpfile64)(), UFD_CALL_tmpfile64);
}

/*
 * freopen closes the stream's descriptor inside glibc and opens the new
 * file at the same number: a real number's close-on-fork mark must go.
 * Returns the virtual descriptor whose backing descriptor the stream is
 * on, or -1.
 */
static int freopen_start(FILE *fp)
{
	int saved = errno, fd = fp ? UFD_REAL(fileno)(fp) : -1, owner = -1;

	if (fd >= 0 && vfd_guarded(fd)) {
		owner = vfd_owner(fd);
		if (owner < 0)
			vfd_real_closing(fd);
	}
	errno = saved;
	return owner;
}

/* A failed freopen leaves the stream closed, its descriptor with it: if
 * that was the backing descriptor of virtual descriptor owner, owner is
 * gone too (else the next backing descriptor made at that number would
 * be owner's file). */
static void freopen_failed(int owner)
{
	int saved = errno;

	if (owner >= 0 && ufd_sys_fcntl(vfd_translate(owner), F_GETFD, 0) < 0)
		vfd_forget(owner);
	errno = saved;
}

UFD_PUBLIC FILE *freopen(const char *path, const char *mode, FILE *fp)
{
	int owner = freopen_start(fp);

	FOPEN_BODY(freopen, path, mode, freopen_failed(owner), path, mode, fp);
}

UFD_PUBLIC FILE *freopen64(const char *path, const char *mode, FILE *fp)
{
	int owner = freopen_start(fp);

	FOPEN_BODY(freopen64, path, mode, freopen_failed(owner), path, mode, fp);
}

/* ---- streams made on descriptors ---- */

UFD_PUBLIC FILE *fdopen(int fd, const char *mode)
{
	FILE *fp = UFD_REAL(fdopen)(vfd_translate(fd), mode);

	/* glibc applies mode "e" to the backing descriptor's kernel flag;
	 * close-on-exec of a virtual descriptor is ufd's flag. */
	if (fp && vfd_in_space(fd)) {
		if (mode && strchr(mode, 'e'))
			vfd_set_flags(fd, VFD_CLOEXEC, VFD_CLOEXEC);
		ufd_stream_on_vfd(fd, fp->_fileno);
	}
	return fp;
}

/*
 * A stream's descriptor below vfd_guard_from is its own (and what libc's
 * fileno returns for it, or EBADF): libc's answer stands, with a tail
 * call.  The descriptor is read as ufd_stream_made reads it.
 */
__attribute__((noinline)) static int fileno_slow(FILE *fp)
{
	return owner_or_self(UFD_REAL(fileno)(fp));
}

UFD_PUBLIC int fileno(FILE *fp)
{
	if (__builtin_expect(!vfd_guarded(fp->_fileno), 1))
		return UFD_REAL(fileno)(fp);
	return fileno_slow(fp);
}

__attribute__((noinline)) static int fileno_unlocked_slow(FILE *fp)
{
	return owner_or_self(UFD_REAL(fileno_unlocked)(fp));
}

UFD_PUBLIC int fileno_unlocked(FILE *fp)
{
	if (__builtin_expect(!vfd_guarded(fp->_fileno), 1))
		return UFD_REAL(fileno_unlocked)(fp);
	return fileno_unlocked_slow(fp);
}

/* fclose where the test below fails: the virtual descriptor or the mark
 * of the stream's descriptor dropped, UFD_MODE=random told. */
__attribute__((noinline)) static int fclose_slow(FILE *fp)
{
	int saved = errno, held;
	/* fileno fails (EBADF) for streams with no descriptor. */
	int fd = UFD_REAL(fileno)(fp);

	if (__builtin_expect(ufd_settings.report != NULL, 0)) {
		int was = ufd_stream_closed_before(fp);

		/* A second fclose: reported on the number the stream had,
		 * which may be another file's now, so nothing of ufd's
		 * state is changed; glibc's fclose does what it does. */
		if (was >= 0) {
			report_closed_again(was, UFD_CALL_fclose);
			errno = saved;
			return UFD_REAL(fclose)(fp);
		}
		ufd_stream_closing(fp, owner_or_self(fd));
	}
	/* Its virtual descriptor closed under it: the placeholder goes
	 * (glibc closes it), and the close is a second one. */
	held = fd >= 0 ? ufd_stream_off(fd) : -1;
	if (held >= 0) {
		if (__builtin_expect(ufd_settings.report != NULL, 0))
			report_closed_again(held, UFD_CALL_fclose);
		errno = saved;
		return UFD_REAL(fclose)(fp);
	}
	forget_owner(fd, UFD_CALL_fclose);
	errno = saved;
	return stream_closed(UFD_REAL(fclose)(fp), fd);
}

/*
 * Nothing for ufd to do while no setting wants to hear of the close
 * (newfd_work: UFD_MODE=random's quarantine) and the stream's descriptor
 * is below vfd_guard_from (neither a backing descriptor nor marked).  The
 * descriptor is read as ufd_stream_made reads it; a stream without one
 * has -1 there, which takes the long way.
 */
UFD_PUBLIC int fclose(FILE *fp)
{
	if (__builtin_expect(!ufd_settings.newfd_work && !vfd_guarded(fp->_fileno), 1))
		return UFD_REAL(fclose)(fp);
	return fclose_slow(fp);
}

/* popen's stream: a real pipe, possibly with a close-on-fork mark. */
UFD_PUBLIC int pclose(FILE *fp)
{
	int saved = errno;
	int fd = UFD_REAL(fileno)(fp);

	forget_owner(fd, UFD_CALL_pclose);
	errno = saved;
	return stream_closed(UFD_REAL(pclose)(fp), fd);
}

UFD_PUBLIC int dprintf(int fd, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = UFD_REAL(vdprintf)(vfd_translate(fd), fmt, ap);
	va_end(ap);
	return r;
}

UFD_PUBLIC int __dprintf_chk(int fd, int flag, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = UFD_REAL(__vdprintf_chk)(vfd_translate(fd), flag, fmt, ap);
	va_end(ap);
	return r;
}

UFD_PUBLIC void backtrace_symbols_fd(void *const *buffer, int size, int fd)
{
	UFD_REAL(backtrace_symbols_fd)(buffer, size, vfd_translate(fd));
}
