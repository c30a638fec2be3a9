/* SPDX-License-Identifier: MIT */
/*
 * random_fd.c - UFD_MODE=random's chooser and move (random_fd.h).
 *
 * State, all lock-free:
 *   busy[]:  one bit per number in [0, N), set while the number is believed
 *            open (from /proc/self/fd at the first use, then the moves and
 *            the application's closes); only advice, see random_fd.h.
 *   until[]: per number, the creation count at which it leaves quarantine
 *            (compared as a signed difference, so that the count may wrap).
 *   creations: the creations placed so far.
 *   rng:     a splitmix64 counter (one atomic add per draw): reproducible
 *            under UFD_SEED in a program that creates from one thread.
 * busy and until are one mapping, made at the first use (state 0 -> 1 ->
 * 2); a creation that finds the state building keeps the kernel's number,
 * as one does while a vfork child runs (PAUSED).
 */
#include "random_fd.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>

#include "log.h"
#include "placement.h"
#include "procfs.h"
#include "settings.h"
#include "sys.h"
#include "vfd_table.h"

/* Draws tried at random before counting the free numbers. */
#define RANDOM_TRIES 16
/* Moves tried before the kernel's number is kept. */
#define MOVE_TRIES 4

/* PAUSED: while a vfork child runs in this memory (random_fd.h). */
enum { UNBUILT, BUILDING, READY, FAILED, PAUSED };

static int state, paused_from;
static unsigned limit;	    /* N */
static unsigned quarantine; /* Q */
static uint64_t *busy;
static uint64_t *fresh; /* the scan's own bitmap */
static uint32_t *until;
static uint32_t creations;
static uint32_t rescanned_at; /* the creation count at the last rescan */
static uint64_t rng;

/* ---- the random source ---- */

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift, with rejection). */
static uint32_t draw_below(uint32_t n)
{
	for (;;) {
		uint64_t x = mix(__atomic_add_fetch(&rng, 0x9e3779b97f4a7c15ULL,
						    __ATOMIC_RELAXED));
		uint64_t m = (x >> 32) * n;

		if ((uint32_t)m >= n || (uint32_t)m >= (uint32_t)-n % n)
			return (uint32_t)(m >> 32);
	}
}

static uint64_t kernel_seed(void)
{
	uint64_t seed = 0;

	if (ufd_sys_getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (long)sizeof(seed))
		seed ^= (uint64_t)(uintptr_t)&seed ^
			((uint64_t)ufd_sys_getpid() << 32);
	return seed;
}

/* A forked child draws apart from its parent: from the parent's sequence
 * under UFD_SEED (reproducible), else from a new seed. */
UFD_FORK void random_fd_fork_child(void)
{
	uint64_t s = ufd_settings.seed_fixed ? mix(rng ^ 0x5eed0f0c4ULL) : kernel_seed();

	__atomic_store_n(&rng, s, __ATOMIC_RELAXED);
	/* Forked by a vfork child: this memory is no vfork's. */
	if (__atomic_load_n(&state, __ATOMIC_RELAXED) == PAUSED)
		__atomic_store_n(&state, paused_from, __ATOMIC_RELAXED);
	/* Forked while another thread built the state: build it again. */
	if (__atomic_load_n(&state, __ATOMIC_RELAXED) == BUILDING)
		__atomic_store_n(&state, UNBUILT, __ATOMIC_RELAXED);
}

void random_fd_vfork_begin(void)
{
	paused_from = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	__atomic_store_n(&state, PAUSED, __ATOMIC_RELAXED);
}

void random_fd_vfork_end(void)
{
	__atomic_store_n(&state, paused_from, __ATOMIC_RELEASE);
}

UFD_STARTUP void random_fd_init(void)
{
	rng = ufd_settings.seed_fixed ? ufd_settings.seed : kernel_seed();
	pthread_atfork(NULL, NULL, random_fd_fork_child);
}

/* ---- what the chooser believes ---- */

static int is_busy(unsigned n)
{
	return (__atomic_load_n(&busy[n / 64], __ATOMIC_RELAXED) >> (n % 64)) & 1;
}

static void set_busy(unsigned n)
{
	if (n < limit)
		__atomic_fetch_or(&busy[n / 64], 1ULL << (n % 64), __ATOMIC_RELAXED);
}

static void set_free(unsigned n)
{
	if (n < limit)
		__atomic_fetch_and(&busy[n / 64], ~(1ULL << (n % 64)), __ATOMIC_RELAXED);
}

static int in_quarantine(unsigned n, uint32_t now)
{
	return (int32_t)(__atomic_load_n(&until[n], __ATOMIC_RELAXED) - now) > 0;
}

static void each_open(int fd, void *ctx)
{
	uint64_t *bits = ctx;

	if ((unsigned)fd < limit)
		bits[fd / 64] |= 1ULL << (fd % 64);
}

/*
 * The bitmap from /proc/self/fd: listed into `fresh` (one scanner at a
 * time), then stored a word at a time.  A change another thread makes to a
 * word meanwhile may be lost, which only costs a wrong guess later: the
 * move's check is the kernel's.
 */
static void scan(void)
{
	static int scanning;
	unsigned words = (limit + 63) / 64;

	if (__atomic_exchange_n(&scanning, 1, __ATOMIC_ACQUIRE))
		return;
	__builtin_memset(fresh, 0, words * sizeof(*fresh));
	if (ufd_proc_fds(each_open, fresh) == 0)
		for (unsigned w = 0; w < words; w++)
			__atomic_store_n(&busy[w], fresh[w], __ATOMIC_RELAXED);
	__atomic_store_n(&scanning, 0, __ATOMIC_RELEASE);
}

/* N: the application's soft RLIMIT_NOFILE, capped at FD_SETSIZE or at
 * UFD_RANDOM_MAX. */
static unsigned range_limit(void)
{
	struct rlimit rl;
	unsigned cap = ufd_settings.random_max ? (unsigned)ufd_settings.random_max
					       : FD_SETSIZE;
	unsigned app = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);

	if (app == UINT_MAX) {
		if (ufd_sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl, 0, 0) < 0)
			return 0;
		app = rl.rlim_cur > UINT_MAX ? UINT_MAX : (unsigned)rl.rlim_cur;
	}
	return app < cap ? app : cap;
}

/*
 * The state at the first use: N, Q, the mapping, the first scan.  Returns
 * 1 when ready; 0 while another thread (or the code this signal handler
 * interrupted) builds it, or if it cannot be built (then random mode does
 * nothing).
 */
static int ready(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	unsigned n, words;
	size_t size;
	void *map;

	if (__builtin_expect(s == READY, 1))
		return 1;
	if (s != UNBUILT ||
	    !__atomic_compare_exchange_n(&state, &s, BUILDING, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return 0;
	n = range_limit();
	words = (n + 63) / 64;
	size = 2 * words * sizeof(uint64_t) + n * sizeof(uint32_t);
	map = n > 3 ? ufd_sys_mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
		    : (void *)-ENOMEM;
	if (ufd_sys_is_error((long)map)) {
		__atomic_store_n(&state, FAILED, __ATOMIC_RELEASE);
		return 0;
	}
	busy = map;
	fresh = busy + words;
	until = (uint32_t *)(fresh + words);
	limit = n;
	quarantine = n / 4;
	scan();
	UFD_LOG("random mode: numbers in [3, %u), quarantine %u creations", n,
		quarantine);
	__atomic_store_n(&state, READY, __ATOMIC_RELEASE);
	return 1;
}

/* ---- choosing ---- */

static int is_free(unsigned n, uint32_t now)
{
	return !is_busy(n) && !in_quarantine(n, now);
}

/* The number of free numbers in [lo, hi), and the k-th of them if k is
 * below it (else *nth untouched). */
static unsigned count_free(unsigned lo, unsigned hi, uint32_t now, unsigned k,
			   unsigned *nth)
{
	unsigned count = 0;

	for (unsigned n = lo; n < hi; n++) {
		if (!is_free(n, now))
			continue;
		if (count++ == k)
			*nth = n;
	}
	return count;
}

/*
 * A number drawn uniformly among those believed free in [lo, hi), or -1
 * if there is none.  Draws at random first (each draw uniform, so an
 * accepted one is uniform among the free); if those miss (a crowded
 * range), counts the free numbers and takes one of them at random.  With
 * none, the bitmap is listed again from /proc once per Q creations, in
 * case descriptors were closed where ufd does not see it (inside libc).
 */
static int choose(unsigned lo, unsigned hi, uint32_t now)
{
	unsigned count, nth = 0;

	for (int i = 0; i < RANDOM_TRIES; i++) {
		unsigned n = lo + draw_below(hi - lo);

		if (is_free(n, now))
			return (int)n;
	}
	count = count_free(lo, hi, now, UINT_MAX, &nth);
	if (count == 0 &&
	    now - __atomic_load_n(&rescanned_at, __ATOMIC_RELAXED) >= quarantine) {
		__atomic_store_n(&rescanned_at, now, __ATOMIC_RELAXED);
		scan();
		count = count_free(lo, hi, now, UINT_MAX, &nth);
	}
	if (count == 0)
		return -1;
	/* The free set may change meanwhile: the k-th may be gone. */
	return count_free(lo, hi, now, draw_below(count), &nth) ? (int)nth : -1;
}

/* ---- moving ---- */

/*
 * fd moved to target exactly, with close-on-exec as cmd says
 * (F_DUPFD_CLOEXEC or F_DUPFD): returns 1, 0 if target was open (the
 * bitmap learns it, and every number up to the kernel's answer), or
 * -errno (past the limit, EMFILE: no use trying again).
 */
static int move_to(int fd, int cmd, int target)
{
	int r = ufd_sys_fcntl(fd, cmd, target);

	if (r == target)
		return 1;
	if (r < 0)
		return r;
	ufd_sys_close(r);
	for (int n = target; n < r && (unsigned)n < limit; n++)
		set_busy((unsigned)n);
	return 0;
}

int random_fd_ready(void)
{
	return ready();
}

void random_fd_kept(int fd)
{
	__atomic_fetch_add(&creations, 1, __ATOMIC_RELAXED);
	set_busy((unsigned)fd);
}

int random_fd_place(int fd, int from, enum ufd_call call, int cloexec)
{
	unsigned lo = from > 3 ? (unsigned)from : 3, hi;
	int flags, target = -1, moved = 0;
	uint32_t now, mark;

	now = __atomic_fetch_add(&creations, 1, __ATOMIC_RELAXED);
	set_busy((unsigned)fd);
	hi = __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED);
	hi = hi < limit ? hi : limit;
	if (lo >= hi)
		return fd;
	flags = __builtin_expect(cloexec < 0, 1) ? ufd_sys_fcntl(fd, F_GETFD, 0)
					       : cloexec ? FD_CLOEXEC : 0;
	if (flags < 0)
		return fd;
	for (int i = 0; i < MOVE_TRIES && !moved; i++) {
		target = choose(lo, hi, now);
		if (target < 0 || target == fd)
			break;
		moved = move_to(fd, flags & FD_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD,
				target);
		if (moved < 0)
			break;
	}
	if (moved <= 0) {
		UFD_LOG("%s made %d: stays (no free number taken)", ufd_call_name(call), fd);
		return fd;
	}
	set_busy((unsigned)target);
	/* The close-on-fork mark goes with it, set before the application
	 * sees the new number; dropped from the old one before its close. */
	mark = vfd_real_get_flags(fd) & VFD_CLOFORK;
	if (mark && vfd_real_set_flags(target, VFD_CLOFORK) < 0) {
		ufd_sys_close(target);
		set_free((unsigned)target);
		return fd;
	}
	vfd_real_closing(fd);
	ufd_sys_close(fd);
	set_free((unsigned)fd);
	UFD_LOG("%s made %d: moved to %d", ufd_call_name(call), fd, target);
	return target;
}

/* ---- closes ---- */

void random_fd_closed(int fd)
{
	if ((unsigned)fd < 3 || __atomic_load_n(&state, __ATOMIC_ACQUIRE) != READY ||
	    (unsigned)fd >= limit)
		return;
	__atomic_store_n(&until[fd],
			 __atomic_load_n(&creations, __ATOMIC_RELAXED) + quarantine,
			 __ATOMIC_RELAXED);
	set_free((unsigned)fd);
}

void random_fd_closed_range(unsigned first, unsigned last)
{
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != READY)
		return;
	/* Only numbers believed open are quarantined: closefrom(3) must not
	 * hold out the whole range. */
	for (unsigned n = first < 3 ? 3 : first; n <= last && n < limit; n++)
		if (is_busy(n))
			random_fd_closed((int)n);
}
