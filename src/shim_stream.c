/* SPDX-License-Identifier: MIT */
/*
 * shim_stream.c - stdio and directory streams.
 *
 * glibc's streams call read, write, lseek and close through internal
 * aliases that no interposer sees, so a stream made on a virtual descriptor
 * is made on its backing descriptor instead.  fileno and dirfd map the
 * backing descriptor back to the virtual one, and fclose and closedir drop
 * the virtual descriptor before glibc closes the backing one.  The fopen
 * family rewrites /dev/fd paths and honours UFD_CLOEXEC with mode "e".
 *
 * Listings of /proc/self/fd:
 *
 * The kernel lists the process's real descriptors there, backing
 * descriptors included, and knows nothing of virtual ones.  A program that
 * closes "every descriptor" by walking that listing would otherwise find
 * ufd's backing descriptors (and could not close them: close() says EBADF),
 * and would miss its virtual ones.  So readdir on a stream opened on that
 * directory skips backing descriptors (and the sanitizer's report
 * destination, ufd's too) and, once the kernel's entries are
 * done, lists the open virtual descriptors that are not hidden
 * (NONSEQFD_HIDE) -- what the 2007 kernel patch made the kernel's own
 * listing do.
 *
 * Covered: opendir/fdopendir + readdir/readdir64 + rewinddir + closedir.
 * glibc's scandir, glob and ftw read directories through internal calls,
 * and telldir/seekdir positions are the kernel's; those see the kernel's
 * listing as it is.
 */
#include "shim.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include "procfs.h"
#include "report.h"
#include "report_out.h"
#include "sys.h"
#include "text.h"
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

/* ---- listings of /proc/self/fd ---- */

/* readdir returns a struct dirent, readdir64 a struct dirent64: one
 * synthetic entry serves both where they are the same (64-bit Linux). */
_Static_assert(sizeof(struct dirent) == sizeof(struct dirent64),
	       "struct dirent and dirent64 differ");

/* A stream being filtered. */
struct listing {
	DIR *dir;
	int in_virtual;	      /* the kernel's entries are done */
	int last_vfd;	      /* the virtual descriptor listed last, or -1 */
	struct dirent64 ent;  /* the entry returned for it */
	struct listing *next;
};

static struct listing *listings;
static int nlistings; /* read without the lock: 0 keeps readdir fast */
static pthread_mutex_t listings_lock = PTHREAD_MUTEX_INITIALIZER;

/* Filter dir from now on as a listing of this process's descriptors. */
static void listing_track(DIR *dir)
{
	struct listing *l = calloc(1, sizeof(*l));

	if (!l)
		return; /* unfiltered, as without ufd */
	l->dir = dir;
	l->last_vfd = -1;
	pthread_mutex_lock(&listings_lock);
	l->next = listings;
	listings = l;
	__atomic_store_n(&nlistings, nlistings + 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&listings_lock);
}

/* Stop filtering dir; a no-op for other streams. */
static void listing_forget(DIR *dir)
{
	struct listing **p, *l = NULL;

	if (!__atomic_load_n(&nlistings, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&listings_lock);
	for (p = &listings; *p; p = &(*p)->next) {
		if ((*p)->dir == dir) {
			l = *p;
			*p = l->next;
			__atomic_store_n(&nlistings, nlistings - 1, __ATOMIC_RELAXED);
			break;
		}
	}
	pthread_mutex_unlock(&listings_lock);
	free(l);
}

/* A fork while another thread holds listings_lock must not leave it held
 * in the child.  Only another thread can hold it (nothing here is
 * async-signal-safe): a single-threaded fork leaves it alone, and writes
 * none of its words (listings_forked is set only when it was taken). */
static int listings_forked;

UFD_FORK static void listings_prepare(void)
{
	if (__libc_single_threaded)
		return;
	pthread_mutex_lock(&listings_lock);
	listings_forked = 1;
}

UFD_FORK static void listings_release(void)
{
	if (!listings_forked)
		return;
	listings_forked = 0;
	pthread_mutex_unlock(&listings_lock);
}

UFD_STARTUP void ufd_stream_init(void)
{
	pthread_atfork(listings_prepare, listings_release, listings_release);
}

static struct listing *find_listing(DIR *dir)
{
	struct listing *l;

	if (!__atomic_load_n(&nlistings, __ATOMIC_RELAXED))
		return NULL;
	pthread_mutex_lock(&listings_lock);
	for (l = listings; l && l->dir != dir; l = l->next)
		;
	pthread_mutex_unlock(&listings_lock);
	return l;
}

/* Is this entry name a backing descriptor, or the sanitizer's report
 * destination (ufd's too: report_out.h)? */
static int names_backing(const char *name)
{
	unsigned long n;
	const char *end = ufd_parse_decimal(name, FD_UNSEQ_BASE - 1, &n);

	return end && *end == '\0' &&
	       (vfd_owner((int)n) >= 0 || (int)n == report_out_fd());
}

/* The next entry of a filtered stream; next_real reads the kernel's. */
static struct dirent64 *listing_next(struct listing *l,
				     struct dirent64 *(*next_real)(DIR *))
{
	int vfd;

	while (!l->in_virtual) {
		int saved = errno;
		struct dirent64 *e;

		errno = 0;
		e = next_real(l->dir);
		if (e && !names_backing(e->d_name)) {
			errno = saved;
			return e;
		}
		if (!e) {
			if (errno) /* a real error: report it */
				return NULL;
			errno = saved;
			l->in_virtual = 1;
		}
	}
	vfd = vfd_next_listed(l->last_vfd);
	if (vfd < 0)
		return NULL;
	l->last_vfd = vfd;
	memset(&l->ent, 0, sizeof(l->ent));
	l->ent.d_ino = (ino64_t)vfd;
	l->ent.d_type = DT_LNK;
	l->ent.d_reclen = sizeof(l->ent);
	snprintf(l->ent.d_name, sizeof(l->ent.d_name), "%d", vfd);
	return &l->ent;
}

static struct dirent64 *real_readdir_as64(DIR *dir)
{
	return (struct dirent64 *)UFD_REAL(readdir)(dir);
}

static struct dirent64 *real_readdir64(DIR *dir)
{
	return UFD_REAL(readdir64)(dir);
}

UFD_PUBLIC struct dirent *readdir(DIR *dir)
{
	struct listing *l = find_listing(dir);

	if (!l)
		return UFD_REAL(readdir)(dir);
	return (struct dirent *)listing_next(l, real_readdir_as64);
}

UFD_PUBLIC struct dirent64 *readdir64(DIR *dir)
{
	struct listing *l = find_listing(dir);

	if (!l)
		return UFD_REAL(readdir64)(dir);
	return listing_next(l, real_readdir64);
}

UFD_PUBLIC void rewinddir(DIR *dir)
{
	struct listing *l = find_listing(dir);

	if (l) {
		l->in_virtual = 0;
		l->last_vfd = -1;
	}
	UFD_REAL(rewinddir)(dir);
}

/*
 * dir, a stream libc just opened on a new descriptor fd, which is its
 * first field: fd finished as a new descriptor of opendir (made virtual
 * or moved under UFD_MODE, recorded for the sanitizer) and the stream put
 * on its backing descriptor.  Past the application's limit (libc's own
 * openat got a number in ufd's room), or where finishing fails otherwise,
 * newfd has closed fd: the stream is freed without closing the number
 * again (another thread may have been given it since; glibc's closedir
 * closes -1 in vain), and NULL returned with errno (EMFILE, as the kernel
 * would have failed the openat).
 */
static DIR *dir_finished(DIR *dir, int fd)
{
	int vfd = newfd_finish_flagged(fd, 0, 0, 0, UFD_CALL_opendir, 1); /* O_CLOEXEC */

	if (vfd < 0) {
		*(int *)dir = -1;
		UFD_REAL(closedir)(dir);
		errno = -vfd;
		return NULL;
	}
	*(int *)dir = vfd_translate(vfd);
	return dir;
}

/*
 * opendir when its descriptor is not the application's as the kernel
 * makes it (newfd_plain: UFD_MODE=all or random, reports, the kernel's
 * limit raised): libc's stream, its descriptor finished (dir_finished)
 * in the stream's descriptor field, which is glibc's private first one
 * (dirstream.h; dirfd reads it, which checks it).  That costs the move's
 * two system calls only.  Where the field is not there, the directory
 * opened as glibc's opendir opens it, finished, and the stream made on
 * its backing descriptor with fdopendir (two more: F_GETFL, F_SETFD).
 * dirfd gives the virtual one.
 */
static DIR *opendir_moved(const char *path)
{
	int fd, vfd, saved;
	DIR *dir = UFD_REAL(opendir)(path);

	if (!dir)
		return NULL;
	fd = UFD_REAL(dirfd)(dir);
	if (*(int *)dir == fd)
		return dir_finished(dir, fd);
	UFD_REAL(closedir)(dir);

	/* glibc's own test, before any system call (a bad pointer faults
	 * there without ufd too). */
	if (path[0] == '\0') {
		errno = ENOENT;
		return NULL;
	}
	fd = UFD_REAL(openat)(AT_FDCWD, path, O_RDONLY | O_NONBLOCK | O_DIRECTORY |
					      O_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	/* Past the application's limit: closed, EMFILE. */
	vfd = newfd_finish_flagged(fd, 0, 0, 0, UFD_CALL_opendir, 1); /* O_CLOEXEC */
	if (vfd < 0) {
		errno = -vfd;
		return NULL;
	}
	dir = UFD_REAL(fdopendir)(vfd_translate(vfd));
	if (!dir) {
		saved = errno;
		ufd_close(vfd);
		errno = saved;
	}
	return dir;
}

/*
 * Could path name a descriptor or the directory of them (/dev/fd...,
 * /proc/...), for ufd_path_before or ufd_path_is_fd_dir?  Their own first
 * test: the first two bytes, the second only after a '/'.  Read before
 * libc's opendir, which reads the first itself.
 */
static inline int maybe_fd_dir(const char *path)
{
	return path[0] == '/' && (path[1] == 'd' || path[1] == 'p');
}

/* opendir with work for ufd: the path rewritten, its descriptor
 * finished (opendir_moved), a listing of this process's descriptors
 * filtered. */
__attribute__((noinline)) static DIR *opendir_slow(const char *path)
{
	const char *real_path = path;
	DIR *dir;

	UFD_PATH_BEFORE(real_path);
	if (__builtin_expect(newfd_plain(), 1))
		dir = UFD_REAL(opendir)(real_path);
	else
		dir = opendir_moved(real_path);
	if (dir && maybe_fd_dir(path) && ufd_path_is_fd_dir(path))
		listing_track(dir);
	return dir;
}

/* While a new descriptor is the application's as the kernel makes it
 * (newfd_plain), a path that names no descriptor, virtual or not, is
 * libc's. */
UFD_PUBLIC DIR *opendir(const char *path)
{
	if (__builtin_expect(newfd_plain() && !maybe_fd_dir(path), 1))
		return UFD_REAL(opendir)(path);
	return opendir_slow(path);
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

/* The virtual descriptor real_fd backs, or real_fd. */
static int owner_or_self(int real_fd)
{
	int vfd = real_fd >= 0 ? vfd_owner(real_fd) : -1;

	return vfd >= 0 ? vfd : real_fd;
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

/* A stream's descriptor real_fd is about to be closed by glibc (call):
 * drop the virtual descriptor it backs, or its close-on-fork mark; for
 * the sanitizer, record the close. */
static void forget_owner(int real_fd, enum ufd_call call)
{
	int vfd = real_fd >= 0 ? vfd_owner(real_fd) : -1;

	if (__builtin_expect(ufd_settings.report != NULL, 0) && real_fd >= 0)
		report_closing(vfd >= 0 ? vfd : real_fd, call);
	if (vfd >= 0)
		vfd_forget(vfd);
	else if (real_fd >= 0 && vfd_guarded(real_fd))
		vfd_real_closing(real_fd);
}

/* libc closed a stream's descriptor fd (its own close, unseen): for
 * UFD_MODE=random's quarantine.  Returns r. */
static int stream_closed(int r, int fd)
{
	if (__builtin_expect(ufd_settings.mode_random, 0) && fd >= 0)
		random_fd_closed(fd);
	return r;
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

/* Does real descriptor fd name the directory listing this process's
 * descriptors?  Asks where /proc/self/fd/<fd> points. */
static int is_fd_dir(int fd)
{
	char target[64];

	if (ufd_proc_fd_link(fd, target, sizeof(target)) <= 0)
		return 0;
	return ufd_path_is_fd_dir(target);
}

UFD_PUBLIC DIR *fdopendir(int fd)
{
	int real = vfd_translate(fd);
	DIR *dir = UFD_REAL(fdopendir)(real);

	if (dir && is_fd_dir(real))
		listing_track(dir);
	return dir;
}

/*
 * Has ufd never made a backing descriptor nor marked one (vfd_guard_from
 * never lowered)?  Then no stream's descriptor is ufd's business.  A DIR
 * is opaque, its descriptor only known through a call: this is the cheap
 * test for dirfd and closedir.
 */
static inline int guard_untouched(void)
{
	return __atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED) == ~0U;
}

__attribute__((noinline)) static int dirfd_slow(DIR *dir)
{
	return owner_or_self(UFD_REAL(dirfd)(dir));
}

UFD_PUBLIC int dirfd(DIR *dir)
{
	if (__builtin_expect(guard_untouched(), 1))
		return UFD_REAL(dirfd)(dir);
	return dirfd_slow(dir);
}

/* closedir with work for ufd: as fclose_slow, and a listing forgotten. */
__attribute__((noinline)) static int closedir_slow(DIR *dir)
{
	int saved = errno, fd = -1;

	/* glibc answers closedir(NULL) with EINVAL, but declares dir nonnull:
	 * hide the pointer from the optimiser so the NULL test stays. */
	__asm__("" : "+r"(dir));
	if (dir) {
		fd = UFD_REAL(dirfd)(dir);
		forget_owner(fd, UFD_CALL_closedir);
		listing_forget(dir);
	}
	errno = saved;
	return stream_closed(UFD_REAL(closedir)(dir), fd);
}

/*
 * Nothing for ufd to do: no setting wants to hear of it (newfd_work), no
 * descriptor is backing or marked (guard_untouched: vfd_guard_from + 1 is
 * 0), no listing is filtered.  Or'ed, for one test.  libc's closedir
 * answers closedir(NULL) itself.
 */
UFD_PUBLIC int closedir(DIR *dir)
{
	if (__builtin_expect(((__atomic_load_n(&vfd_guard_from, __ATOMIC_RELAXED) + 1) |
			      (unsigned)ufd_settings.newfd_work |
			      (unsigned)__atomic_load_n(&nlistings, __ATOMIC_RELAXED)) == 0,
			     1))
		return UFD_REAL(closedir)(dir);
	return closedir_slow(dir);
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
