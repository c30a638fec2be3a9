/* SPDX-License-Identifier: MIT */
/*
 * shim_stream_closed.c - stdio streams closed under or closed twice: the
 * table of streams made on virtual descriptors, whose backing numbers
 * stay taken while a stream holds them (shim.h: ufd_stream_vfd_close),
 * and, for the sanitizer, the ring of streams fclose closed, which names
 * a second fclose of the same FILE.  The stream wrappers (shim_stream.c)
 * and close (shim_close.c) call it.
 */
#include "shim.h"

#include <fcntl.h>

#include "sys.h"
#include "vfd_table.h"

/* ---- streams on virtual descriptors closed under them ---- */

/*
 * A stream on a virtual descriptor is made on its backing descriptor,
 * which glibc's own calls use.  When the program closes the virtual
 * descriptor under the stream (fdopen's descriptor closed, then fclose;
 * close(fileno(f))), the backing number must not be free for the next
 * virtual descriptor's backing: the stream would read and write that
 * other file, where ufd promises that a closed number is not handed out
 * again at once.  So the number is held by a placeholder, an O_PATH
 * descriptor on which every read and write fails with EBADF as on a
 * closed descriptor, until the stream's fclose closes it (a double
 * close, reported when reports are on).
 *
 * The table pairs streams' backing descriptors with their virtual ones:
 * open addressing on the backing number, linear probes, deletion by
 * shifting back (no tombstones), so that each stream made or closed
 * costs a hash and a probe or two.  Past STREAM_VFDS / 2 streams at
 * once, a stream is not held (closing under it acts as before).  Its
 * lock is a try-lock: a close that finds it taken (another thread, or a
 * handler that interrupted this one) closes as if no stream held the
 * descriptor.
 */
#define STREAM_VFDS 256 /* a power of 2 */

static struct {
	int backing; /* the stream's descriptor, + 1; 0: a free slot */
	int vfd;
	int held; /* vfd was closed: backing is a placeholder */
} stream_vfds[STREAM_VFDS];
static int stream_vfds_used; /* entries in use */
static int stream_vfds_lock;

static int stream_vfds_trylock(void)
{
	return !__atomic_exchange_n(&stream_vfds_lock, 1, __ATOMIC_ACQUIRE);
}

static void stream_vfds_unlock(void)
{
	__atomic_store_n(&stream_vfds_lock, 0, __ATOMIC_RELEASE);
}

static unsigned stream_vfd_hash(int backing)
{
	return ((unsigned)backing * 2654435761U) >> 24 & (STREAM_VFDS - 1);
}

/* The slot of backing descriptor backing: its entry, or the free slot
 * where it would go.  Under the lock. */
static unsigned stream_vfd_slot(int backing)
{
	unsigned i = stream_vfd_hash(backing);

	while (stream_vfds[i].backing && stream_vfds[i].backing != backing + 1)
		i = (i + 1) & (STREAM_VFDS - 1);
	return i;
}

/* Free slot i, shifting back the entries after it that probed past it.
 * Under the lock. */
static void stream_vfd_free(unsigned i)
{
	unsigned j = i;

	for (;;) {
		unsigned home;

		j = (j + 1) & (STREAM_VFDS - 1);
		if (!stream_vfds[j].backing)
			break;
		home = stream_vfd_hash(stream_vfds[j].backing - 1);
		/* j's entry may move to i if i lies on its probe path
		 * (cyclically in [home, j)). */
		if (((j - home) & (STREAM_VFDS - 1)) >= ((j - i) & (STREAM_VFDS - 1))) {
			stream_vfds[i] = stream_vfds[j];
			i = j;
		}
	}
	stream_vfds[i].backing = 0;
	if (__atomic_sub_fetch(&stream_vfds_used, 1, __ATOMIC_RELAXED) == 0)
		__atomic_and_fetch(&ufd_close_slow, ~UFD_CLOSE_STREAMS, __ATOMIC_RELAXED);
}

/* A stream was made on vfd's backing descriptor backing. */
void ufd_stream_on_vfd(int vfd, int backing)
{
	unsigned i;

	if (__atomic_load_n(&stream_vfds_used, __ATOMIC_RELAXED) >= STREAM_VFDS / 2 ||
	    !stream_vfds_trylock())
		return;
	i = stream_vfd_slot(backing);
	if (!stream_vfds[i].backing) {
		stream_vfds[i].backing = backing + 1;
		stream_vfds[i].vfd = vfd;
		stream_vfds[i].held = 0;
		if (__atomic_add_fetch(&stream_vfds_used, 1, __ATOMIC_RELAXED) == 1)
			__atomic_or_fetch(&ufd_close_slow, UFD_CLOSE_STREAMS, __ATOMIC_RELAXED);
	}
	stream_vfds_unlock();
}

/*
 * A stream on real descriptor backing is being closed by fclose: its
 * entry goes.  Returns the virtual descriptor that was closed under the
 * stream (the placeholder holds backing), or -1.
 */
int ufd_stream_off(int backing)
{
	int closed = -1;
	unsigned i;

	if (__atomic_load_n(&stream_vfds_used, __ATOMIC_RELAXED) == 0 ||
	    !stream_vfds_trylock())
		return -1;
	i = stream_vfd_slot(backing);
	if (stream_vfds[i].backing) {
		if (stream_vfds[i].held)
			closed = stream_vfds[i].vfd;
		stream_vfd_free(i);
	}
	stream_vfds_unlock();
	return closed;
}

/*
 * Close vfd, whose backing descriptor backing a stream holds (slot i):
 * the placeholder takes the backing number (held), or, without a
 * descriptor for it, the backing descriptor is closed and the entry goes.
 * Returns 0 or -errno.  Under the lock.
 */
static int hold_closed(unsigned i, int vfd)
{
	int placeholder, backing;

	placeholder = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)"/",
				    O_PATH | O_CLOEXEC, 0, 0, 0);
	backing = vfd_forget(vfd);
	if (backing >= 0 && placeholder >= 0 &&
	    ufd_sys3(SYS_dup3, placeholder, backing, O_CLOEXEC) == backing) {
		stream_vfds[i].held = 1;
	} else {
		/* No placeholder (no descriptor left): closed, as before. */
		if (backing >= 0)
			ufd_sys_close(backing);
		stream_vfd_free(i);
	}
	if (placeholder >= 0)
		ufd_sys_close(placeholder);
	return backing >= 0 ? 0 : backing;
}

/* The slot of the stream on vfd's backing descriptor, if one holds it and
 * vfd is still open, else -1.  Under the lock. */
static int held_slot(int vfd)
{
	int backing = vfd_translate(vfd);
	unsigned i;

	if (backing == vfd)
		return -1;
	i = stream_vfd_slot(backing);
	if (!stream_vfds[i].backing || stream_vfds[i].vfd != vfd || stream_vfds[i].held)
		return -1; /* no stream holds it (or not any more) */
	return (int)i;
}

int ufd_stream_vfd_close(int vfd)
{
	int i, r;

	if (vfd_translate(vfd) == vfd || !stream_vfds_trylock())
		return ufd_close_virtual(vfd);
	i = held_slot(vfd);
	r = i < 0 ? ufd_close_virtual(vfd) : hold_closed((unsigned)i, vfd);
	stream_vfds_unlock();
	return r;
}

int ufd_stream_close_range(unsigned first, unsigned last, unsigned flags,
			   int (*close_fn)(unsigned, unsigned, unsigned))
{
	int vfds[STREAM_VFDS], keep[STREAM_VFDS], nv = 0, nk = 0, r = 0;
	unsigned from = first;

	if (!stream_vfds_trylock())
		return close_fn(first, last, flags);
	for (unsigned i = 0; i < STREAM_VFDS; i++)
		if (stream_vfds[i].backing && !stream_vfds[i].held &&
		    (unsigned)stream_vfds[i].vfd >= first &&
		    (unsigned)stream_vfds[i].vfd <= last)
			vfds[nv++] = stream_vfds[i].vfd;
	/* Not hold_closed inside the walk: freeing a slot shifts others. */
	for (int k = 0; k < nv; k++) {
		int i = held_slot(vfds[k]);

		if (i >= 0)
			hold_closed((unsigned)i, vfds[k]);
	}
	/* The placeholders in the range, in order (insertion sort: at
	 * most STREAM_VFDS / 2 of them). */
	for (unsigned i = 0; i < STREAM_VFDS; i++) {
		int b = stream_vfds[i].backing - 1, k;

		if (!stream_vfds[i].held || (unsigned)b < first || (unsigned)b > last)
			continue;
		for (k = nk++; k > 0 && keep[k - 1] > b; k--)
			keep[k] = keep[k - 1];
		keep[k] = b;
	}
	for (int k = 0; k < nk && r == 0; k++) {
		if ((unsigned)keep[k] > from)
			r = close_fn(from, (unsigned)keep[k] - 1, flags);
		from = (unsigned)keep[k] + 1;
	}
	if (r == 0 && (nk == 0 || (unsigned)keep[nk - 1] < last))
		r = close_fn(from, last, flags);
	stream_vfds_unlock();
	return r;
}

int ufd_stream_is_placeholder(int fd)
{
	unsigned i;
	int held;

	if (fd < 0 || !stream_vfds_trylock())
		return 0;
	i = stream_vfd_slot(fd);
	held = stream_vfds[i].backing && stream_vfds[i].held;
	stream_vfds_unlock();
	return held;
}

/* ---- streams closed twice ---- */

/*
 * A double fclose, for the sanitizer.  glibc's fclose sets the stream's
 * descriptor to -1 and frees the FILE, so a second fclose of it finds no
 * descriptor to report: the last CLOSED_STREAMS streams closed are kept
 * here with their descriptors.  A FILE whose memory holds a live stream
 * again (glibc's magic number in its flags: the heap reused it for a new
 * stream, which may be one ufd does not see made, such as fmemopen's)
 * is no double fclose.  Entries are read and written with relaxed
 * atomics: two threads closing at once may at worst lose a report.
 */
#define CLOSED_STREAMS 64
#define STREAM_MAGIC_MASK 0xFFFF0000U
#define STREAM_MAGIC 0xFBAD0000U /* glibc's _IO_MAGIC */

static struct {
	FILE *fp;
	int fd;
} closed_streams[CLOSED_STREAMS];
static unsigned closed_streams_next;

/* The flags word of fp, which may be freed memory (so not instrumented:
 * the read is the point). */
__attribute__((no_sanitize("address", "thread")))
static unsigned stream_flags(FILE *fp)
{
	return (unsigned)__atomic_load_n(&fp->_flags, __ATOMIC_RELAXED);
}

/* fp (descriptor fd) is about to be closed by fclose: remember it. */
void ufd_stream_closing(FILE *fp, int fd)
{
	unsigned i = __atomic_fetch_add(&closed_streams_next, 1, __ATOMIC_RELAXED) %
		     CLOSED_STREAMS;

	__atomic_store_n(&closed_streams[i].fd, fd, __ATOMIC_RELAXED);
	__atomic_store_n(&closed_streams[i].fp, fp, __ATOMIC_RELAXED);
}

/* The descriptor fp had when it was closed, if fp is a stream closed
 * before and not a live one again; else -1. */
int ufd_stream_closed_before(FILE *fp)
{
	if ((stream_flags(fp) & STREAM_MAGIC_MASK) == STREAM_MAGIC)
		return -1;
	for (unsigned i = 0; i < CLOSED_STREAMS; i++)
		if (__atomic_load_n(&closed_streams[i].fp, __ATOMIC_RELAXED) == fp)
			return __atomic_load_n(&closed_streams[i].fd, __ATOMIC_RELAXED);
	return -1;
}
