/* SPDX-License-Identifier: MIT */
/*
 * shim_exec.c - exec: the new program's environment, made here for every
 * way to exec (shim_exec.h), and the exec family.  posix_spawn, system
 * and popen are shim_spawn.c; vfork and _Fork shim_vfork.c.
 *
 * A virtual descriptor without close-on-exec survives exec, with its number
 * and flags, when the new program runs under ufd too.  Every way to exec
 * goes through exec_env_make: the table is locked (nothing changes under
 * the exec), the backing descriptors of the surviving virtual descriptors
 * are made inheritable, and the new program's environment gets
 * UFD_HANDOFF, which says which inherited descriptor backs which virtual
 * one, and an LD_PRELOAD that loads ufd.  If the exec fails, exec_env_done
 * puts everything back as it was.
 *
 * glibc's exec family, posix_spawn, system and popen reach execve through
 * internal calls that no interposer sees, so each entry point is covered
 * here: execv/execvp/execl... call execve/execvpe with the new
 * environment; popen runs with it as environ; system is written here on
 * top of posix_spawn, since glibc's waits for the child and the table
 * cannot stay locked that long.
 */
#include "shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/auxv.h>

#include "exec_names.h"
#include "handoff.h"
#include "log.h"
#include "report.h"
#include "shim_exec.h"
#include "sys.h"
#include "text.h"
#include "vfd_table.h"

extern char **environ;

#define HANDOFF_VAR "UFD_HANDOFF"
#define PRELOAD_VAR "LD_PRELOAD"

/* libufd.so's absolute path, for the children's LD_PRELOAD ("" if
 * unknown): the dynamic linker's own name for it, which lives as long as
 * the library, or a relative name made absolute in resolved_path
 * (absolute_of). */
static const char *self_path = "";
static char resolved_path[PATH_MAX];
/* ufd came in through LD_PRELOAD: children get it too.  Initialised, so
 * in .data beside self_path, a page start-up writes anyway, rather than
 * alone on a page of .bss (a page fault in every process). */
static int preloaded = -1; /* -1: not known yet (no constructor), as 0 */

/* Does the LD_PRELOAD value list ufd (any libufd.so*)?  A loop of its
 * own rather than strstr, which a forked child's exec would otherwise be
 * the first to call, and bind (text.h's ufd_find_nul).  Start-up calls
 * it: UFD_STARTUP, with start-up's code, not on a page of its own. */
UFD_STARTUP static int lists_ufd(const char *value)
{
	/* Named, with start-up's code: as a literal, it was alone on a
	 * page of .rodata, a page fault in every process. */
	static const char name[] UFD_STARTUP_DATA = "libufd.so";

	/* The first letter first: a test a byte, where the boundaries
	 * took four (half start-up's cost here). */
	for (const char *p = value; *p; p++)
		if (*p == name[0] &&
		    (p == value || p[-1] == '/' || p[-1] == ' ' || p[-1] == ':') &&
		    ufd_skip_prefix(p, name))
			return 1;
	return 0;
}

/*
 * name, a path relative to the working directory, made absolute in
 * resolved_path: the directory's path (one raw getcwd), '/', name.  The
 * kernel resolves it to the file it resolved name to, symbolic links and
 * ".." alike.  Returns resolved_path, or "" (unknown) when the directory
 * is unreachable or the whole too long.  realpath did it with a readlink
 * per component, and binding libc's realpath and a stub of ufd's at
 * start-up: 3.5 page faults more in every process started with a relative
 * LD_PRELOAD (issue 27's shell loop, LD_PRELOAD=build/libufd.so).  Start-up
 * only, before any chdir.
 */
UFD_STARTUP static const char *absolute_of(const char *name)
{
	long n = ufd_sys_getcwd(resolved_path, sizeof(resolved_path));
	size_t at;

	if (n <= 1 || resolved_path[0] != '/')
		return "";
	/* n counts the NUL: it becomes the '/' ("/" itself gets "//name").
	 * A loop, not strlen and memcpy: libc's, bound at their first call,
	 * would be bound here, in every process. */
	resolved_path[n - 1] = '/';
	for (at = (size_t)n; *name; at++, name++) {
		if (at + 1 >= sizeof(resolved_path))
			return "";
		resolved_path[at] = *name;
	}
	resolved_path[at] = '\0';
	return resolved_path;
}

UFD_STARTUP void ufd_exec_init(void)
{
	const char *name = ufd_self_name, *s;
	Dl_info info;

	/* Where the library is, as an absolute path for the children's
	 * LD_PRELOAD (resolved now, before any chdir; an absolute one, the
	 * usual case, costs no system call).  The start-up walk's name;
	 * dladdr, which searches ufd's whole symbol table, only without. */
	if (!name && dladdr((void *)ufd_exec_init, &info))
		name = info.dli_fname;
	if (name && name[0] == '/')
		self_path = name;
	else if (name && *name)
		self_path = absolute_of(name);
	s = ufd_settings.preload;
	preloaded = s && lists_ufd(s);
	if (ufd_settings.handoff_set) {
		/* A setuid or file-capability program does not take
		 * descriptors from its (untrusted) environment: the setting
		 * is NULL there.  Removed either way. */
		if (ufd_settings.handoff)
			handoff_inherit(ufd_settings.handoff);
		unsetenv(HANDOFF_VAR);
	}
}

struct vfork_child_env vfork_child_env; /* shim_exec.h */

/*
 * Where ufd reads exec arguments.  Only here, in exec_env_make: the envp
 * array of execve, execvpe, fexecve, execveat, execle, posix_spawn and
 * posix_spawnp, and environ for execv, execvp, execl, execlp, system and
 * popen; of each entry its first bytes (is it LD_PRELOAD or UFD_HANDOFF?),
 * and the whole of the LD_PRELOAD value.  Every such read goes through
 * ufd_sys_read_self, which cannot fault: where it fails, the caller's
 * pointers go on to the kernel untouched, and the kernel answers EFAULT
 * itself (posix_spawn returns it), as without ufd.  argv is never read,
 * nor the strings of other entries; the variadic arguments of
 * execl/execlp/execle are the caller's own stack (va_arg, as glibc's
 * do); the path goes through ufd_path, as every path does (ufd(7),
 * "Differences from the kernel").
 */

enum { ENV_OTHER, ENV_PRELOAD, ENV_HANDOFF };

/* The first bytes of an entry: enough to tell its kind. */
#define ENV_HEAD sizeof(HANDOFF_VAR "=")

/* The kind of an entry whose first n bytes (at most ENV_HEAD) are head,
 * or -EFAULT if it goes on past them into unreadable memory. */
static int head_kind(const char *head, size_t n)
{
	if (n < ENV_HEAD && !ufd_find_nul(head, n))
		return -EFAULT;
	if (n >= strlen(PRELOAD_VAR "=") &&
	    !memcmp(head, PRELOAD_VAR "=", strlen(PRELOAD_VAR "=")))
		return ENV_PRELOAD;
	if (n >= strlen(HANDOFF_VAR "=") &&
	    !memcmp(head, HANDOFF_VAR "=", strlen(HANDOFF_VAR "=")))
		return ENV_HANDOFF;
	return ENV_OTHER;
}

/*
 * Bytes from p to the end of its 4 KiB page.  Reads of the caller's memory
 * stop there first, and go on only if what they look for is not in it:
 * where process_vm_readv is refused (a seccomp filter), ufd_sys_read_self
 * copies directly, and a read past the end of the array or the string
 * the kernel reads could run into an unmapped page and fault.
 */
static size_t to_page_end(const void *p)
{
	return 4096 - ((uintptr_t)p & 4095);
}

/* Is entry e "LD_PRELOAD=...", "UFD_HANDOFF=..." or another?  Reads only
 * its first bytes, not past its NUL's page; -EFAULT if they cannot be read
 * up to its end.  pid: the caller's pid, asked once per exec. */
static int env_kind(long pid, const char *e)
{
	char head[ENV_HEAD];
	size_t first = to_page_end(e);
	long n, more;

	if (first > sizeof(head))
		first = sizeof(head);
	n = ufd_sys_read_self_pid(pid, head, e, first);
	if (n == (long)first && first < sizeof(head) && !ufd_find_nul(head, first)) {
		more = ufd_sys_read_self_pid(pid, head + first, e + first,
					     sizeof(head) - first);
		n += more > 0 ? more : 0;
	}
	return n < 0 ? (int)n : head_kind(head, (size_t)n);
}

/*
 * Entries of an environment read a batch at a time: the pointers in one
 * read, the first bytes of the strings in one more (read one by one, an
 * entry took two system calls and a pid look-up each, and an exec reads
 * them twice).
 */
#define ENV_BATCH 64

/* Bytes of an LD_PRELOAD value read with its length: most values whole. */
#define VALUE_HEAD 256

/*
 * The strings of an environment mostly lie close together (the initial
 * stack's block, a shell's own): their first bytes are read as a few
 * spans of memory, ENV_SPANS at most and ENV_SPAN_BYTES in all, rather
 * than as a piece per entry.  process_vm_readv pins the pages of each
 * remote piece apart: 38 pieces cost ~40-80 us on a virtual machine, a
 * tenth of a whole /bin/true, and one span a few.  An entry that fits in
 * no span is read as its own piece in the same call.
 */
#define ENV_SPANS 4
#define ENV_SPAN_BYTES 4096

/*
 * Where the last exec of this process found its entries' first bytes: the
 * spans env_kinds read them from.  A shell's next command finds its
 * environment in the same places (its vfork child stores this in its
 * parent's memory, for the next child), so the read of the pointers reads
 * these spans too, and a second read is made only for an entry outside
 * them.  A guess and nothing more: an entry's kind is taken from a span
 * only where the read that brought its pointer copied its first bytes.
 * Relaxed atomics (threads and vfork children may write it at once); a
 * mixed pair is a miss.
 */
static uintptr_t hint_lo[ENV_SPANS], hint_hi[ENV_SPANS];

struct env_batch {
	char *e[ENV_BATCH];
	int kind[ENV_BATCH];
	size_t n; /* entries read, the NULL not counted */
	int last; /* the NULL came after them */
	/* The batch's last LD_PRELOAD entry as a span read it: its bytes
	 * and how many (up to the span's end); NULL if none did. */
	const char *preload_seen;
	size_t preload_len;
	/* The hint's spans that came whole with the pointers:
	 * [hlo[s], hhi[s]) at got + hoff[s], nhint of them. */
	uintptr_t hlo[ENV_SPANS], hhi[ENV_SPANS];
	size_t hoff[ENV_SPANS], nhint;
	/* What the read copied: the spans, then a head per other entry. */
	char got[ENV_SPAN_BYTES + ENV_BATCH * ENV_HEAD];
};

/* The kinds of b's entries from the hint's spans read with the pointers:
 * 1 if every entry's first bytes were there, else 0 (nothing set). */
static int kinds_from_hint(struct env_batch *b)
{
	size_t j, s, at[ENV_BATCH];

	for (j = 0; j < b->n; j++) {
		uintptr_t e = (uintptr_t)b->e[j];

		for (s = 0; s < b->nhint; s++)
			if (e >= b->hlo[s] && e + ENV_HEAD > e && e + ENV_HEAD <= b->hhi[s])
				break;
		if (s == b->nhint)
			return 0;
		at[j] = s;
	}
	b->preload_seen = NULL;
	for (j = 0; j < b->n; j++) {
		s = at[j];
		b->kind[j] = head_kind(b->got + b->hoff[s] +
					       ((uintptr_t)b->e[j] - b->hlo[s]),
				       ENV_HEAD);
		if (b->kind[j] == ENV_PRELOAD) {
			b->preload_seen = b->got + b->hoff[s] +
					  ((uintptr_t)b->e[j] - b->hlo[s]);
			b->preload_len = b->hhi[s] - (uintptr_t)b->e[j];
		}
	}
	return 1;
}

/* Entry at, its first ENV_HEAD bytes at [at, end), into one of the n
 * spans [lo[s], hi[s]) (or a new one), *total bytes in all kept at most
 * ENV_SPAN_BYTES.  Returns the span's index, or -1 if it fits in none. */
static int span_take(uintptr_t lo[], uintptr_t hi[], size_t *n, size_t *total,
		     uintptr_t at, uintptr_t end)
{
	size_t s;

	for (s = 0; s < *n; s++) {
		uintptr_t l = at < lo[s] ? at : lo[s], h = end > hi[s] ? end : hi[s];
		size_t grown = *total + (size_t)(h - l) - (size_t)(hi[s] - lo[s]);

		if (h - l <= ENV_SPAN_BYTES && grown <= ENV_SPAN_BYTES) {
			lo[s] = l;
			hi[s] = h;
			*total = grown;
			return (int)s;
		}
	}
	if (*n == ENV_SPANS || *total + (size_t)(end - at) > ENV_SPAN_BYTES)
		return -1;
	lo[*n] = at;
	hi[*n] = end;
	*total += (size_t)(end - at);
	return (int)(*n)++;
}

/* The kinds of b's n entries: their first bytes in one read into b->got
 * (the kernel fills it piece after piece), spans where entries lie close
 * and a piece (split at a page boundary) for each of the others; entry by
 * entry where that read stops short. */
static int env_kinds(long pid, struct env_batch *b)
{
	struct ufd_iovec mine, theirs[ENV_SPANS + 2 * ENV_BATCH];
	uintptr_t lo[ENV_SPANS], hi[ENV_SPANS];
	size_t off[ENV_BATCH], soff[ENV_SPANS], nspan = 0, total = 0, k, j, s;
	signed char in[ENV_BATCH];
	long want;

	if (kinds_from_hint(b))
		return 0;
	for (j = 0; j < b->n; j++) {
		uintptr_t at = (uintptr_t)b->e[j];

		in[j] = (signed char)(at + ENV_HEAD > at ?
			span_take(lo, hi, &nspan, &total, at, at + ENV_HEAD) : -1);
	}
	/* Each span on to the end of its last byte's page, as the budget
	 * allows: that page is read anyway, and an LD_PRELOAD value is then
	 * mostly read whole with its name. */
	for (s = 0; s < nspan; s++) {
		size_t more = (4096 - (hi[s] & 4095)) & 4095;

		if (more > ENV_SPAN_BYTES - total)
			more = ENV_SPAN_BYTES - total;
		hi[s] += more;
		total += more;
	}
	for (k = 0, want = 0; k < nspan; k++) {
		soff[k] = (size_t)want;
		theirs[k] = (struct ufd_iovec){ (const void *)lo[k], hi[k] - lo[k] };
		want += (long)(hi[k] - lo[k]);
	}
	for (j = 0; j < b->n; j++) {
		size_t first = to_page_end(b->e[j]);

		if (in[j] >= 0) {
			off[j] = soff[in[j]] + ((uintptr_t)b->e[j] - lo[in[j]]);
			continue;
		}
		off[j] = (size_t)want;
		if (first > ENV_HEAD)
			first = ENV_HEAD;
		theirs[k++] = (struct ufd_iovec){ b->e[j], first };
		if (first < ENV_HEAD)
			theirs[k++] = (struct ufd_iovec){ b->e[j] + first,
							  ENV_HEAD - first };
		want += (long)ENV_HEAD;
	}
	mine = (struct ufd_iovec){ b->got, (size_t)want };
	b->preload_seen = NULL;
	if (k && ufd_sys6(SYS_process_vm_readv, pid, (long)&mine, 1, (long)theirs,
			  (long)k, 0) == want) {
		/* The next exec's guess (spans past nspan: none). */
		for (s = 0; s < ENV_SPANS; s++) {
			__atomic_store_n(&hint_lo[s], s < nspan ? lo[s] : 0, __ATOMIC_RELAXED);
			__atomic_store_n(&hint_hi[s], s < nspan ? hi[s] : 0, __ATOMIC_RELAXED);
		}
		for (j = 0; j < b->n; j++) {
			b->kind[j] = head_kind(b->got + off[j], ENV_HEAD);
			if (b->kind[j] == ENV_PRELOAD && in[j] >= 0) {
				b->preload_seen = b->got + off[j];
				b->preload_len = hi[in[j]] - (uintptr_t)b->e[j];
			} else if (b->kind[j] == ENV_PRELOAD) {
				b->preload_seen = NULL;
			}
		}
		return 0;
	}
	/* An entry near the end of readable memory, or no
	 * process_vm_readv: each by itself. */
	for (j = 0; j < b->n; j++)
		if ((b->kind[j] = env_kind(pid, b->e[j])) < 0)
			return -EFAULT;
	return 0;
}

/*
 * ask bytes of pointers at src (within one page) into b->e, and with them,
 * in the same process_vm_readv, the hint's spans into b->got (b->nhint:
 * those that came whole).  Returns what ufd_sys_read_self_pid would for
 * the pointers alone, which it is asked where the hint cannot come along.
 */
static long read_pointers(long pid, char *const *src, size_t ask, struct env_batch *b)
{
	struct ufd_iovec mine[1 + ENV_SPANS], theirs[1 + ENV_SPANS];
	size_t n = 1, total = 0, s;
	long r;

	b->nhint = 0;
	mine[0] = (struct ufd_iovec){ b->e, ask };
	theirs[0] = (struct ufd_iovec){ src, ask };
	for (s = 0; s < ENV_SPANS; s++) {
		uintptr_t lo = __atomic_load_n(&hint_lo[s], __ATOMIC_RELAXED);
		uintptr_t hi = __atomic_load_n(&hint_hi[s], __ATOMIC_RELAXED);

		if (hi <= lo || hi - lo > ENV_SPAN_BYTES - total)
			continue;
		b->hlo[b->nhint] = lo;
		b->hhi[b->nhint] = hi;
		b->hoff[b->nhint++] = total;
		mine[n] = (struct ufd_iovec){ b->got + total, hi - lo };
		theirs[n++] = (struct ufd_iovec){ (const void *)lo, hi - lo };
		total += hi - lo;
	}
	r = n > 1 ? ufd_sys6(SYS_process_vm_readv, pid, (long)mine, (long)n,
			     (long)theirs, (long)n, 0)
		  : -1;
	if (r < (long)ask) {
		b->nhint = 0;
		return ufd_sys_read_self_pid(pid, b->e, src, ask);
	}
	/* The kernel copies the pieces in order and stops where one
	 * cannot be read: the spans that ended within its count. */
	for (s = 0; s < b->nhint &&
		    (long)(ask + b->hoff[s] + (b->hhi[s] - b->hlo[s])) <= r; s++)
		;
	b->nhint = s;
	return (long)ask;
}

/* Read the batch of envp's entries from `from` into b: 0, or -EFAULT
 * where the array or an entry's first bytes cannot be read. */
static int env_read_batch(long pid, char *const envp[], size_t from,
			  struct env_batch *b)
{
	/* Up to the page's end, where the NULL may be the last pointer;
	 * a pointer that straddles it is read whole, as the kernel does. */
	size_t ask = to_page_end(&envp[from]), have;
	long got;

	if (ask > sizeof(b->e))
		ask = sizeof(b->e);
	if (ask < sizeof(b->e[0]))
		ask = sizeof(b->e[0]);
	got = read_pointers(pid, &envp[from], ask, b);
	if (got < 0)
		return -EFAULT;
	have = (size_t)got / sizeof(b->e[0]);
	for (b->n = 0; b->n < have && b->e[b->n]; b->n++)
		;
	b->last = b->n < have;
	/* Stopped short, without the NULL: unreadable memory. */
	if (!b->last && (size_t)got < ask)
		return -EFAULT;
	return env_kinds(pid, b);
}

/*
 * strlen(s), or -EFAULT if s does not end in readable memory.  The first
 * bytes read are left in head, and *whole says whether they are all of s
 * with its NUL (then the caller need not read s again to look at it).
 */
static long env_strlen(long pid, const char *s, char head[VALUE_HEAD], int *whole)
{
	char chunk[VALUE_HEAD], *buf = head;
	size_t len = 0;

	for (;;) {
		size_t ask = to_page_end(s + len);
		long n;
		const char *nul;

		if (ask > VALUE_HEAD)
			ask = VALUE_HEAD;
		n = ufd_sys_read_self_pid(pid, buf, s + len, ask);
		if (n < 0)
			return n;
		nul = ufd_find_nul(buf, (size_t)n);
		if (nul) {
			*whole = buf == head;
			return (long)(len + (size_t)(nul - buf));
		}
		if ((size_t)n < ask)
			return -EFAULT;
		len += (size_t)n;
		buf = chunk;
	}
}

/* The length of the LD_PRELOAD value b's spans read whole, with the
 * value and its NUL copied to head, if it fits there; -1 where not
 * (env_strlen reads it then). */
static long seen_value(const struct env_batch *b, char head[VALUE_HEAD])
{
	const size_t name = strlen(PRELOAD_VAR "=");
	const char *nul;

	if (!b->preload_seen)
		return -1;
	nul = ufd_find_nul(b->preload_seen + name, b->preload_len - name);
	if (!nul || nul - (b->preload_seen + name) >= VALUE_HEAD)
		return -1;
	memcpy(head, b->preload_seen + name, (size_t)(nul - b->preload_seen) - name + 1);
	return nul - (b->preload_seen + name);
}

/* Free x's new environment (a failed exec, or one not needed after all). */
static void env_unmap(struct exec_env *x)
{
	if (!x->envp)
		return;
	ufd_sys_munmap(x->envp, x->envp_len);
	if (vfork_child_env.addr == x->envp)
		vfork_child_env.addr = NULL;
	x->envp = NULL;
}

/*
 * Make the environment for an exec (spawn: the exec of a new child, from
 * posix_spawn, system or popen) from the caller's envp: the hand-off
 * (if any virtual descriptor or mark survives), LD_PRELOAD with ufd added
 * (if ufd was preloaded or descriptors are handed off), any stale
 * UFD_HANDOFF dropped.  With keep 0 (UFD_INHERIT=0, or a spawn whose
 * file actions close every virtual descriptor) no virtual descriptor is
 * handed off.  *out is envp itself when nothing changes, and
 * when envp cannot be read (above: the exec then fails with the kernel's
 * EFAULT, nothing handed off).  Returns 0 or -errno (ENOMEM; EMFILE for a
 * long hand-off's memfd); on success exec_env_done must follow.
 */
int exec_env_make(struct exec_env *x, char *const envp[], int spawn,
			 int keep, char ***out)
{
	const size_t preload_name = strlen(PRELOAD_VAR "=");
	const char *preload = NULL;
	size_t n = 0, i, j, k = 0, text_len = 0;
	long value_len = 0;
	int handing_off, add_ufd, stale = 0, whole = 0, err;
	struct env_batch b;
	char **v, *text, head[VALUE_HEAD];
	/* For every read of envp below: the process stays itself through
	 * the call.  A vfork child's, as the kernel gave it at the vfork:
	 * no getpid per command of a shell (0 where it was not given: under
	 * qemu-user, whose vfork is a fork that writes it after). */
	long pid = !envp ? 0
		   : vfd_in_vfork_child() && ufd_vfork_pid > 0 ? ufd_vfork_pid
							       : ufd_sys_getpid();

	memset(x, 0, sizeof(*x));
	*out = (char **)envp;
	/* Read first, before anything is locked or made inheritable. */
	for (n = 0; envp; n += b.n) {
		if (env_read_batch(pid, envp, n, &b) < 0)
			return 0;
		for (j = 0; j < b.n; j++) {
			if (b.kind[j] == ENV_PRELOAD) {
				preload = b.e[j];
				value_len = seen_value(&b, head);
			}
			stale |= b.kind[j] == ENV_HANDOFF;
		}
		if (b.last) {
			n += b.n;
			break;
		}
	}
	if (preload && value_len >= 0)
		whole = 1;
	else if (preload) {
		value_len = env_strlen(pid, preload + preload_name, head, &whole);
		if (value_len < 0)
			return 0;
	}

	/* Also without UFD_INHERIT: the table locked and the application's
	 * RLIMIT_NOFILE for the exec, and no virtual descriptor kept. */
	err = handoff_prepare(&x->handoff, spawn, keep);
	if (err < 0)
		return err;
	handing_off = ufd_settings.inherit && x->handoff.entry;
	/* ufd listed already (a process of a preloaded program, mostly): no
	 * new environment, unless descriptors are handed off. */
	add_ufd = ufd_settings.inherit && (preloaded > 0 || handing_off) &&
		  self_path[0] && !(preload && whole && lists_ufd(head));
	if (!handing_off && !add_ufd && !stale)
		return 0;

	/* "LD_PRELOAD=<value> <self_path>" */
	text_len = preload_name + (size_t)value_len + 1 + strlen(self_path) + 1;
	x->envp_len = (n + 3) * sizeof(char *) + text_len;
	v = ufd_sys_mmap(NULL, x->envp_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ufd_sys_is_error((long)v)) {
		handoff_done(&x->handoff);
		return -ENOMEM;
	}
	x->envp = v;
	/* A vfork child's successful exec leaves it to the parent. */
	if (vfd_in_vfork_child()) {
		vfork_child_env.addr = v;
		vfork_child_env.len = x->envp_len;
	}
	text = (char *)(v + n + 3);
	memcpy(text, PRELOAD_VAR "=", preload_name);
	if (preload && ufd_sys_read_self_pid(pid, text + preload_name,
					     preload + preload_name,
					     (size_t)value_len) != value_len)
		goto unreadable;
	text[preload_name + (size_t)value_len] = '\0';
	if (preload && lists_ufd(text + preload_name))
		add_ufd = 0;
	if (!handing_off && !add_ufd && !stale) {
		env_unmap(x);
		return 0;
	}
	if (add_ufd) {
		/* After the caller's own preloads: an ASan runtime must stay
		 * first. */
		char *end = text + preload_name + value_len;

		if (preload)
			*end++ = ' ';
		strcpy(end, self_path);
		v[k++] = text;
	}
	for (i = 0; i < n; i += b.n) {
		/* Read again: another thread may have changed it meanwhile. */
		if (env_read_batch(pid, envp, i, &b) < 0 ||
		    (b.last && i + b.n < n))
			goto unreadable;
		if (b.n > n - i)
			b.n = n - i;
		for (j = 0; j < b.n; j++)
			if (b.kind[j] != ENV_HANDOFF &&
			    !(add_ufd && b.kind[j] == ENV_PRELOAD))
				v[k++] = b.e[j];
	}
	if (handing_off)
		v[k++] = x->handoff.entry;
	v[k] = NULL;
	*out = v;
	return 0;

unreadable:
	env_unmap(x);
	handoff_done(&x->handoff);
	memset(x, 0, sizeof(*x));
	return 0;
}

/* After an exec that returned (failed), or a spawn: as before, errno kept. */
void exec_env_done(struct exec_env *x)
{
	env_unmap(x);
	handoff_done(&x->handoff);
}

/* Run `call` (an expression using env_) with the new environment made
 * from envp_expr; the common body of the exec wrappers (argv: for the
 * sanitizer, the descriptors it names). */
#define WITH_EXEC_ENV(name, argv, envp_expr, call)                     \
	do {                                                           \
		struct exec_env x_;                                    \
		char **env_;                                           \
		if (__builtin_expect(ufd_settings.report != NULL, 0))  \
			report_exec_named(UFD_CALL_##name, (argv), (envp_expr), 1, \
					  NULL, 0, NULL, 0, -1);       \
		int r_ = exec_env_make(&x_, (envp_expr), 0,            \
				       ufd_settings.inherit, &env_);   \
		if (r_ < 0)                                            \
			return ufd_ret(r_);                            \
		ufd_log_flush_held();                                  \
		r_ = (call);                                           \
		exec_env_done(&x_);                                    \
		return r_;                                             \
	} while (0)

/* ---- the exec family ---- */

UFD_PUBLIC int execve(const char *path, char *const argv[], char *const envp[])
{
	UFD_PATH_BEFORE(path);

	WITH_EXEC_ENV(execve, argv, envp, UFD_REAL(execve)(path, argv, env_));
}

UFD_PUBLIC int execvpe(const char *file, char *const argv[], char *const envp[])
{
	UFD_PATH_BEFORE(file);

	WITH_EXEC_ENV(execvpe, argv, envp, UFD_REAL(execvpe)(file, argv, env_));
}

UFD_PUBLIC int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

UFD_PUBLIC int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

UFD_PUBLIC int fexecve(int fd, char *const argv[], char *const envp[])
{
	fd = vfd_translate(fd);
	WITH_EXEC_ENV(fexecve, argv, envp, UFD_REAL(fexecve)(fd, argv, env_));
}

UFD_PUBLIC int execveat(int dirfd, const char *path, char *const argv[],
			char *const envp[], int flags)
{
	UFD_PATH_BEFORE(path);

	dirfd = vfd_translate(dirfd);
	WITH_EXEC_ENV(execveat, argv, envp, UFD_REAL(execveat)(dirfd, path, argv, env_, flags));
}

/*
 * execl, execlp, execle: the arguments, up to the NULL, into an array on
 * the stack (as glibc does), then execve/execvp.
 */
#define COLLECT_ARGS(argv, arg0, ap_var)                             \
	size_t argc_ = 1;                                            \
	va_start(ap_var, arg0);                                      \
	while (va_arg(ap_var, char *))                               \
		argc_++;                                             \
	va_end(ap_var);                                              \
	char *argv[argc_ + 1];                                       \
	argv[0] = (char *)arg0;                                      \
	va_start(ap_var, arg0);                                      \
	for (size_t i_ = 1; i_ <= argc_; i_++)                       \
		argv[i_] = va_arg(ap_var, char *);

UFD_PUBLIC int execl(const char *path, const char *arg, ...)
{
	va_list ap;

	COLLECT_ARGS(argv, arg, ap);
	va_end(ap);
	return execve(path, argv, environ);
}

UFD_PUBLIC int execlp(const char *file, const char *arg, ...)
{
	va_list ap;

	COLLECT_ARGS(argv, arg, ap);
	va_end(ap);
	return execvpe(file, argv, environ);
}

UFD_PUBLIC int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char *const *envp;

	COLLECT_ARGS(argv, arg, ap);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
