/* SPDX-License-Identifier: MIT */
/*
 * fdname.c - the depot of what descriptors refer to (fdname.h).
 *
 * Two arrays mapped once with MAP_NORESERVE, so only the pages used cost
 * memory: the names, appended by an atomic counter (an entry is its hash,
 * its length and its bytes with a NUL, 4-byte aligned; its id is its
 * offset / 4 + 1), and open-addressing tables of ids by hash: a first one
 * of one page, filled to half, then the large one (a few names spread
 * over the large one touched a page each, twice: read, then written, in
 * every process with reports on).  A name is
 * added with a compare-and-swap on its slot, as stack.c adds a stack: no
 * lock, no allocation, so a signal handler may name a descriptor in the
 * middle of another naming.
 */
#define _GNU_SOURCE 1
#include "fdname.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "reserve.h"
#include "sys.h"
#include "text.h"

#define ARENA_BYTES (4U << 20)
#define SLOTS (1U << 16) /* a power of two */
#define FIRST 1024U	 /* the first table's: a page of them */

struct entry {
	uint32_t hash;
	uint32_t len;
	char text[];
};

static char *arena;
static uint32_t *first, *slots; /* one mapping, first first */
static uint32_t first_used;	  /* ids added to first */
static uint32_t arena_used; /* bytes */

int fdname_init(void)
{
	void *a, *s;

	if (arena)
		return 0;
	a = ufd_reserve(ARENA_BYTES);
	if (ufd_sys_is_error((long)a))
		return (int)(long)a;
	s = ufd_reserve((FIRST + SLOTS) * sizeof(uint32_t));
	if (ufd_sys_is_error((long)s))
		return (int)(long)s; /* (the arena stays reserved, unused) */
	first = s;
	slots = first + FIRST;
	__atomic_store_n(&arena, (char *)a, __ATOMIC_RELEASE);
	return 0;
}

static struct entry *entry_of(uint32_t id)
{
	return (struct entry *)(void *)(arena + (size_t)(id - 1) * 4);
}

/*
 * The id of the name (s, len, hash) in table t of n slots (a power of
 * two); else, if add, the name added there (*want: its entry, made in
 * the arena on first need, which the caller's next table may use); else
 * 0 (also when t or the arena is full).
 */
static uint32_t probe(uint32_t *t, uint32_t n, uint32_t hash, const char *s,
		      size_t len, int add, uint32_t *want)
{
	char *a = __atomic_load_n(&arena, __ATOMIC_ACQUIRE);

	for (uint32_t slot = hash & (n - 1);; slot = (slot + 1) & (n - 1)) {
		uint32_t v = __atomic_load_n(&t[slot], __ATOMIC_ACQUIRE);

		if (v == 0) {
			if (!add)
				return 0;
			if (!*want) {
				uint32_t size = (uint32_t)(sizeof(struct entry) + len + 4) & ~3U;
				uint32_t at = __atomic_fetch_add(&arena_used, size,
								 __ATOMIC_RELAXED);
				struct entry *e;

				if (at > ARENA_BYTES - size)
					return 0; /* full */
				e = (struct entry *)(void *)(a + at);
				e->hash = hash;
				e->len = (uint32_t)len;
				memcpy(e->text, s, len);
				e->text[len] = 0;
				*want = at / 4 + 1;
			}
			if (__atomic_compare_exchange_n(&t[slot], &v, *want, 0,
							__ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
				return *want;
			/* Taken meanwhile: v is what is there now. */
		}
		{
			const struct entry *e = entry_of(v);

			if (e->hash == hash && e->len == len && !memcmp(e->text, s, len))
				return v; /* (our entry, if any, stays unused) */
		}
		if (slot == ((hash - 1) & (n - 1)))
			return 0; /* every slot taken */
	}
}

uint32_t fdname_intern(const char *s, size_t len)
{
	uint32_t hash = 2166136261u, want = 0, id;
	int in_first;

	if (!__atomic_load_n(&arena, __ATOMIC_ACQUIRE) || !len)
		return 0;
	if (len > FDNAME_MAX)
		len = FDNAME_MAX;
	for (size_t i = 0; i < len; i++)
		hash = (hash ^ (unsigned char)s[i]) * 16777619u; /* FNV-1a */
	/* The first table while it is under half full, then the large one:
	 * a name is looked for in both.  (Two threads may add one name to
	 * each as the first fills: two ids for it, harmless.) */
	in_first = __atomic_load_n(&first_used, __ATOMIC_RELAXED) < FIRST / 2;
	id = probe(first, FIRST, hash, s, len, in_first, &want);
	if (id) {
		if (id == want)
			__atomic_fetch_add(&first_used, 1, __ATOMIC_RELAXED);
		return id;
	}
	return probe(slots, SLOTS, hash, s, len, 1, &want);
}

uint32_t fdname_str(const char *s)
{
	return s ? fdname_intern(s, strlen(s)) : 0;
}

uint32_t fdname_path(uint32_t dir_id, const char *path)
{
	const char *dir = fdname_text(dir_id);
	char buf[FDNAME_MAX];
	size_t d, p;

	if (!path)
		return 0;
	if (path[0] == '/' || !dir[0])
		return fdname_str(path);
	d = strlen(dir);
	p = strlen(path);
	if (d > sizeof(buf) - 1)
		d = sizeof(buf) - 1;
	memcpy(buf, dir, d);
	if (d < sizeof(buf))
		buf[d++] = '/';
	if (p > sizeof(buf) - d)
		p = sizeof(buf) - d;
	memcpy(buf + d, path, p);
	return fdname_intern(buf, d + p);
}

uint32_t fdname_prefixed(const char *prefix, const char *s)
{
	char buf[FDNAME_MAX];
	size_t p = strlen(prefix), n = s ? strlen(s) : 0;

	if (!s || p >= sizeof(buf))
		return 0;
	memcpy(buf, prefix, p);
	if (n > sizeof(buf) - p)
		n = sizeof(buf) - p;
	memcpy(buf + p, s, n);
	return fdname_intern(buf, p + n);
}

/* Append s to buf at *n (of size bytes, keeping room for the NUL). */
static void put(char *buf, size_t *n, size_t size, const char *s)
{
	while (*s && *n < size - 1)
		buf[(*n)++] = *s++;
}

static void put_num(char *buf, size_t *n, size_t size, unsigned long v)
{
	char d[24];

	*ufd_put_decimal(d, v) = 0;
	put(buf, n, size, d);
}

uint32_t fdname_socket(int domain, int type)
{
	static const struct {
		int n;
		const char *name;
	} domains[] = {
		{ AF_UNIX, "AF_UNIX" },	    { AF_INET, "AF_INET" },
		{ AF_INET6, "AF_INET6" },   { AF_NETLINK, "AF_NETLINK" },
		{ AF_PACKET, "AF_PACKET" }, { AF_VSOCK, "AF_VSOCK" },
		{ AF_ALG, "AF_ALG" },
	}, types[] = {
		{ SOCK_STREAM, "SOCK_STREAM" }, { SOCK_DGRAM, "SOCK_DGRAM" },
		{ SOCK_SEQPACKET, "SOCK_SEQPACKET" }, { SOCK_RAW, "SOCK_RAW" },
		{ SOCK_RDM, "SOCK_RDM" },
	};
	const char *dn = NULL, *tn = NULL;
	char buf[64];
	size_t n = 0;

	type &= 0xf; /* SOCK_TYPE_MASK: without SOCK_CLOEXEC and the like */
	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++)
		if (domains[i].n == domain)
			dn = domains[i].name;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].n == type)
			tn = types[i].name;
	put(buf, &n, sizeof(buf), "socket:[");
	if (dn)
		put(buf, &n, sizeof(buf), dn);
	else
		put_num(buf, &n, sizeof(buf), (unsigned)domain);
	put(buf, &n, sizeof(buf), ", ");
	if (tn)
		put(buf, &n, sizeof(buf), tn);
	else
		put_num(buf, &n, sizeof(buf), (unsigned)type);
	put(buf, &n, sizeof(buf), "]");
	return fdname_intern(buf, n);
}

const char *fdname_text(uint32_t id)
{
	char *a = __atomic_load_n(&arena, __ATOMIC_ACQUIRE);
	uint32_t used = __atomic_load_n(&arena_used, __ATOMIC_RELAXED);

	if (!a || id == 0 || (size_t)(id - 1) * 4 >= used || (size_t)(id - 1) * 4 >= ARENA_BYTES)
		return "";
	return entry_of(id)->text;
}

/* ---- pending names ---- */

#define TLS_IE __attribute__((tls_model("initial-exec")))

static __thread struct {
	int call; /* family(call) + 1; 0 or -1: none */
	int n, next;
	uint32_t id[2];
} pending TLS_IE;

/* The call a wrapper records for a descriptor that call made: a wrapper
 * may make it with a sibling (pipe with pipe2, accept with accept4, dup
 * with F_DUPFD_CLOEXEC under UFD_CLOEXEC), so siblings are one. */
static int family(int call)
{
	switch (call) {
	case UFD_CALL_pipe2:
		return UFD_CALL_pipe;
	case UFD_CALL_accept4:
		return UFD_CALL_accept;
	case UFD_CALL_epoll_create1:
		return UFD_CALL_epoll_create;
	case UFD_CALL_inotify_init1:
		return UFD_CALL_inotify_init;
	case UFD_CALL_getpt:
		return UFD_CALL_posix_openpt;
	case UFD_CALL_fcntl:
	case UFD_CALL_fcntl64:
		return UFD_CALL_dup;
	default:
		return call;
	}
}

void fdname_pending(enum ufd_call call, uint32_t id0, uint32_t id1, int n)
{
	/* The call last: a handler between these stores sees no match for
	 * its own call, or replaces all of it. */
	__atomic_store_n(&pending.call, -1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pending.id[0] = id0;
	pending.id[1] = id1;
	pending.n = n;
	pending.next = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&pending.call, family((int)call) + 1, __ATOMIC_RELAXED);
}

uint32_t fdname_take(int call)
{
	uint32_t id;

	/* Stored as call + 1, so that the zeroed TLS of a new thread names
	 * no call. */
	if (__atomic_load_n(&pending.call, __ATOMIC_RELAXED) != family(call) + 1)
		return 0;
	id = pending.id[pending.next & 1];
	if (++pending.next >= pending.n)
		__atomic_store_n(&pending.call, -1, __ATOMIC_RELAXED);
	return id;
}
