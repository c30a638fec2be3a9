/* SPDX-License-Identifier: MIT */
/*
 * shim_dir.c - directory streams: opendir, fdopendir, readdir, rewinddir,
 * dirfd and closedir, and the listings of /proc/self/fd; libc's readers
 * of directories (scandir, glob) held to the application's limit.
 *
 * As a stdio stream (shim_stream.c), a directory stream made on a virtual
 * descriptor is made on its backing descriptor: dirfd maps it back, and
 * closedir drops the virtual descriptor before glibc closes the backing
 * one.  opendir rewrites /dev/fd paths.
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
 * Covered: opendir/fdopendir + readdir/readdir64 + rewinddir + closedir,
 * and glob, which is given them (GLOB_ALTDIRFUNC) while ufd has work.
 * glibc's scandir and ftw read directories through internal calls, and
 * telldir/seekdir positions are the kernel's; those see the kernel's
 * listing as it is.
 *
 * Also scandir and scandirat, whose libc descriptor ufd does not see:
 * EMFILE where it would be past the application's limit (ufd_app_room).
 */
#include "shim_stream.h"

#include <pthread.h>
#include <string.h>

#include "procfs.h"
#include "report.h"
#include "report_out.h"
#include "sys.h"
#include "text.h"
#include "vfd_table.h"

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

/* ---- libc's own readers of directories ---- */

/*
 * scandir and scandirat open their directory with libc's internal
 * openat, unseen: ufd_app_room asks first whether the application has a
 * number left, for EMFILE where the kernel would have failed that openat.
 * An empty path is glibc's ENOENT before any system call, and the
 * kernel's EMFILE comes before the path's errors.  Returns 0, or -1 with
 * errno.
 */
static int scan_room(const char *path)
{
	int r;

	if (path[0] == '\0' || (r = ufd_app_room()) == 0)
		return 0;
	errno = -r;
	return -1;
}

UFD_PUBLIC int scandir(const char *path, struct dirent ***list,
		       int (*filter)(const struct dirent *),
		       int (*compar)(const struct dirent **, const struct dirent **))
{
	if (scan_room(path) < 0)
		return -1;
	UFD_PATH_BEFORE(path);
	return UFD_REAL(scandir)(path, list, filter, compar);
}

UFD_PUBLIC int scandirat(int dirfd, const char *path, struct dirent ***list,
			 int (*filter)(const struct dirent *),
			 int (*compar)(const struct dirent **, const struct dirent **))
{
	if (scan_room(path) < 0)
		return -1;
	UFD_PATH_BEFORE(path);
	return UFD_REAL(scandirat)(vfd_translate(dirfd), path, list, filter, compar);
}

UFD_PUBLIC int scandirat64(int dirfd, const char *path, struct dirent64 ***list,
			   int (*filter)(const struct dirent64 *),
			   int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	if (scan_room(path) < 0)
		return -1;
	UFD_PATH_BEFORE(path);
	return UFD_REAL(scandirat64)(vfd_translate(dirfd), path, list, filter, compar);
}

/*
 * glob opens its directories with libc's internal opendir, unseen, unless
 * the caller gives it its own functions (GLOB_ALTDIRFUNC): while ufd has
 * work for a new descriptor (newfd_plain: the application's limit, which
 * the kernel's is above, or a setting) or a /dev/fd path could name a
 * virtual descriptor, glob is given ufd's opendir, readdir, closedir,
 * stat and lstat, so that its directories are opened as the
 * application's (EMFILE past its limit, which glob handles as the
 * kernel's), and a listing of /proc/self/fd is filtered.  glob's own
 * logic is the same either way.  The flag is taken out of gl_flags
 * again: the caller did not set it.  A caller's GLOB_ALTDIRFUNC is left
 * alone.
 */
static void *glob_opendir(const char *path)
{
	return opendir(path);
}

static struct dirent *glob_readdir(void *dir)
{
	return readdir(dir);
}

static void glob_closedir(void *dir)
{
	closedir(dir);
}

static inline int glob_plain(int flags)
{
	return (newfd_plain() && !vfd_any()) || (flags & GLOB_ALTDIRFUNC);
}

UFD_PUBLIC int glob(const char *pattern, int flags,
		    int (*errfunc)(const char *, int), glob_t *pglob)
{
	int r;

	if (glob_plain(flags))
		return UFD_REAL(glob)(pattern, flags, errfunc, pglob);
	pglob->gl_opendir = glob_opendir;
	pglob->gl_readdir = glob_readdir;
	pglob->gl_closedir = glob_closedir;
	pglob->gl_stat = stat;
	pglob->gl_lstat = lstat;
	r = UFD_REAL(glob)(pattern, flags | GLOB_ALTDIRFUNC, errfunc, pglob);
	pglob->gl_flags &= ~GLOB_ALTDIRFUNC;
	return r;
}

/* ---- opening and closing directory streams ---- */

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

