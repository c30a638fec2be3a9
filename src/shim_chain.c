/* SPDX-License-Identifier: MIT */
/*
 * shim_chain.c - what a preload listed after ufd must see
 * (LD_PRELOAD=libufd.so:libother.so): found once at start-up (is the
 * close after ufd's libc's or another object's?), and then the
 * application's closes of what that preload saw made, through its close.
 *
 * Such a preload gets the calls ufd makes to the real functions: it sees
 * backing descriptors made (an open, a dup) and used by their numbers.
 * ufd closes them with raw system calls, which it would never see, so a
 * descriptor-tracking library (torsocks' and proxychains' registries, a
 * tracer) would keep stale state for numbers the kernel reuses.  ufd's
 * own descriptors (its log, the hand-off, /proc reads) stay raw: nobody
 * after ufd saw them made.
 */
#include "shim.h"

#include <limits.h>

#include "symbols.h"
#include "vfd_shared.h"
#include "vfd_table.h"

int ufd_close_chained;

/*
 * libc is the object that defines gnu_get_libc_version, which no
 * interposer has reason to define; the walk's objects do not overlap, so
 * the object of an address is the one loaded highest below it.
 */
UFD_STARTUP int ufd_chain_found(const struct ufd_symbols *walk, void *close_fn)
{
	static const char libc_name[] UFD_STARTUP_DATA = "gnu_get_libc_version";
	void *libc_fn;

	if (ufd_symbols_find(walk, libc_name, sizeof(libc_name) - 1,
			     UFD_SYMBOLS_HASH("gnu_get_libc_version"), &libc_fn) < 0)
		return 0;
	return ufd_symbols_object_of(walk, close_fn) !=
	       ufd_symbols_object_of(walk, libc_fn);
}

/* The close after ufd's (the preload's): 0 or -errno. */
static int close_next(int fd)
{
	return UFD_REAL(close)(fd) < 0 ? -errno : 0;
}

/* The preload's close runs outside the table lock, as glibc's fclose of a
 * stream on a forgotten virtual descriptor does (vfd_forget): it may call
 * back into ufd. */
int ufd_chain_close_virtual(int fd)
{
	int backing = vfd_forget(fd);

	if (backing < 0)
		return backing;
	placement_backing_closed(backing);
	return close_next(backing);
}

/* A close-on-fork mark, or a descriptor adopted for its record locks
 * below fd, puts fd past the guard: ufd closes it itself. */
int ufd_close_real(int fd)
{
	return vfd_real_close(fd, ufd_close_chained ? close_next : NULL);
}

/*
 * The virtual descriptors in [first, last] closed one by one
 * (ufd_chain_close_virtual), then a range that holds nothing of ufd's
 * (below vfd_guard_from) passed to the preload's close_range, any other
 * to vfd_close_range, whose closes of real descriptors stay ufd's own.
 * Not with flags that close nothing (CLOSE_RANGE_CLOEXEC) or close in
 * another table (CLOSE_RANGE_UNSHARE), or that the kernel refuses; nor
 * in a child sharing the memory (vfd_shared.h), which must not write its
 * parent's table (vfd_forget would) nor the preload's state, its
 * parent's too: vfd_close_range closes such a child's descriptors raw.
 */
int ufd_chain_close_range(unsigned first, unsigned last, unsigned flags)
{
	if (flags == 0 && first <= last && !vfd_shared_child()) {
		for (int v = first < FD_UNSEQ_LIMIT
				     ? vfd_next_listed(first > FD_UNSEQ_BASE ? (int)first - 1 : -1)
				     : -1;
		     v >= 0 && (unsigned)v <= last; v = vfd_next_listed(v))
			ufd_chain_close_virtual(v);
		if (!vfd_guarded(last < INT_MAX ? (int)last : INT_MAX))
			return UFD_REAL(close_range)(first, last, 0) < 0 ? -errno : 0;
	}
	return vfd_close_range(first, last, flags);
}
