/* SPDX-License-Identifier: MIT */
/*
 * shim_dir.c - listings of /proc/self/fd as the application should see
 * them.
 *
 * The kernel lists the process's real descriptors there, backing
 * descriptors included, and knows nothing of virtual ones.  A program that
 * closes "every descriptor" by walking that listing would otherwise find
 * ufd's backing descriptors (and could not close them: close() says EBADF),
 * and would miss its virtual ones.  So readdir on a stream opened on that
 * directory skips backing descriptors and, once the kernel's entries are
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
#include <string.h>

#include "vfd_table.h"

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

void ufd_listing_track(DIR *dir)
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

void ufd_listing_forget(DIR *dir)
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
 * in the child. */
static void listings_prepare(void)
{
	pthread_mutex_lock(&listings_lock);
}

static void listings_release(void)
{
	pthread_mutex_unlock(&listings_lock);
}

void ufd_dir_init(void)
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

/* Is this entry name a backing descriptor? */
static int names_backing(const char *name)
{
	char *end;
	long n = strtol(name, &end, 10);

	return *name >= '0' && *name <= '9' && *end == '\0' && n < FD_UNSEQ_BASE &&
	       vfd_owner((int)n) >= 0;
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

UFD_PUBLIC DIR *opendir(const char *path)
{
	char path_buf[ufd_path_size(path)];
	DIR *dir = UFD_REAL(opendir)(ufd_path(path, path_buf, sizeof(path_buf)));

	if (dir && ufd_path_is_fd_dir(path))
		ufd_listing_track(dir);
	return dir;
}
