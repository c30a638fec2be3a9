/* SPDX-License-Identifier: MIT */
/*
 * stack.c - call stacks for the reports: capture, the depot, symbols
 * (stack.h).
 *
 * The depot is two arrays reserved once at start-up (reserve.h), so
 * only the pages used cost memory: the entries (frames and their hash),
 * filled in order by an atomic counter, and an open-addressing table of
 * entry numbers by hash.  A stack is added with a compare-and-swap on its
 * slot: no lock, so a signal handler may capture a stack in the middle of
 * another capture.  Two threads adding the same new stack at once may
 * both store it (one entry is then wasted): rare and harmless.
 *
 * backtrace and dladdr1 are looked up (dlsym) when reports are turned on,
 * not imported: each import of libufd.so costs every process a symbol
 * binding at load, reports or not.
 *
 * The modules' files are mapped for their symbols once, at the first
 * report (stack_symbolize), not at start-up: a dozen system calls and three
 * mappings that a process without a report never uses.  A report under
 * a seccomp filter makes no system call but its write (issue 23), so
 * they are mapped before a filter goes in as well (stack_load_unwinder),
 * or at start-up in a process started under one; a module loaded after
 * that (dlopen) is named by dladdr alone.  (A thread's first report made
 * while another thread puts a filter in may map some after it.)
 * One exception, once per process: the first capture that unwind.c
 * cannot make (a frame whose unwind rule is not simple: see unwind.h)
 * calls backtrace(), whose first call loads libgcc_s (dlopen, its
 * constructor) and starts the heap.  That was done at start-up, in every
 * process, until unwind.c read the kernel's signal frame itself: it cost
 * a fork + exec a third more with reports on, for stacks that few
 * processes have.  After it, libgcc's unwinder and dladdr read the
 * loader's tables, taking its lock (a futex wait only if another thread
 * holds it).  So a process that will run under a seccomp filter loads it
 * first: at start-up if it already does (PR_GET_SECCOMP), else when the
 * program puts one in (stack_load_unwinder, from the prctl and syscall
 * wrappers): a filter would refuse its openat and mmap, and kill.
 */
#define _GNU_SOURCE 1
#include "stack.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "reserve.h"
#include "sections.h"
#include "sys.h"
#include "unwind.h"

#define DEPOT_ENTRIES (1U << 16)
#define DEPOT_SLOTS (1U << 17) /* a power of two, twice the entries */

struct depot_entry {
	uint32_t hash;
	uint32_t n;
	uintptr_t pc[STACK_FRAMES];
};

static int (*backtrace_fn)(void **, int);
static int (*dladdr1_fn)(const void *, Dl_info *, void **, int);

static struct depot_entry *depot;
static uint32_t *depot_slots; /* entry index + 1, or 0 for free */
static uint32_t depot_used;

/*
 * Executable segments of libufd (frames there are ufd's own) and of a
 * sanitizer runtime loaded with the program (ASan's, TSan's: their
 * interceptor of the call sits between the program's frame and ufd's).
 */
#define RANGES 4
struct ranges {
	uintptr_t lo[RANGES], hi[RANGES];
	int n;
};
static struct ranges self_ranges, runtime_ranges;

static void add_ranges(struct ranges *r, const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum && r->n < RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			r->lo[r->n] = info->dlpi_addr + ph->p_vaddr;
			r->hi[r->n] = r->lo[r->n] + ph->p_memsz;
			r->n++;
		}
	}
}

static int in_ranges(const struct ranges *r, uintptr_t pc)
{
	for (int i = 0; i < r->n; i++)
		if (pc >= r->lo[i] && pc < r->hi[i])
			return 1;
	return 0;
}

static int is_runtime_name(const char *path)
{
	static const char *const names[] = { "libasan.", "libtsan.", "libubsan.",
					     "liblsan.", "libhwasan." };
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(base, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* libufd's module (its load bias and name, as dl_iterate_phdr gives
 * them): the one whose code holds stack_init, found by find_ranges
 * (dladdr's answer, at 13,000 instructions in every process). */
static struct {
	uintptr_t addr;
	const char *name;
} self_module;

static int find_ranges(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	if (!info->dlpi_name)
		return 0;
	if (!self_ranges.n) {
		add_ranges(&self_ranges, info);
		if (in_ranges(&self_ranges, (uintptr_t)ctx)) {
			self_module.addr = info->dlpi_addr;
			self_module.name = info->dlpi_name;
			return 0;
		}
		self_ranges.n = 0;
	}
	if (is_runtime_name(info->dlpi_name))
		add_ranges(&runtime_ranges, info);
	return 0;
}

static int is_self(uintptr_t pc)
{
	return in_ranges(&self_ranges, pc);
}

static char exe_path[256]; /* the program's, read at start-up */
static char exe_file[256]; /* its file, links followed, if not exe_path */
static void program_path(void);
static void map_modules_once(void);

int stack_init(void)
{
	void *p, *q;

	if (depot)
		return 0;
	backtrace_fn = (int (*)(void **, int))dlsym(RTLD_DEFAULT, "backtrace");
	dladdr1_fn = (int (*)(const void *, Dl_info *, void **, int))dlsym(
		RTLD_DEFAULT, "dladdr1");
	if (!backtrace_fn || !dladdr1_fn)
		return -ENOSYS;
	p = ufd_reserve(DEPOT_ENTRIES * sizeof(struct depot_entry));
	if (ufd_sys_is_error((long)p))
		return (int)(long)p;
	q = ufd_reserve(DEPOT_SLOTS * sizeof(uint32_t));
	if (ufd_sys_is_error((long)q))
		return (int)(long)q; /* (the entries stay reserved, unused) */
	dl_iterate_phdr(find_ranges, (void *)stack_init);
	unwind_init();
	program_path();
	depot_slots = q;
	__atomic_store_n(&depot, (struct depot_entry *)p, __ATOMIC_RELEASE);
	return 0;
}

void stack_load_unwinder(void)
{
	static int loaded;
	void *one[1];

	if (!__atomic_load_n(&depot, __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&loaded, 1, __ATOMIC_RELAXED))
		return;
	map_modules_once();
	backtrace_fn(one, 1);
}

static uint32_t hash_frames(const uintptr_t *pc, int n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a over the words */

	for (int i = 0; i < n; i++) {
		h ^= pc[i];
		h *= 0x100000001b3ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

static int same(const struct depot_entry *e, uint32_t hash, const uintptr_t *pc,
		int n)
{
	if (e->hash != hash || e->n != (uint32_t)n)
		return 0;
	for (int i = 0; i < n; i++)
		if (e->pc[i] != pc[i])
			return 0;
	return 1;
}

/* Frames a capture takes, to have STACK_FRAMES left after ufd's own. */
#define CAPTURE_MAX (STACK_FRAMES + 8)

uint32_t stack_capture(void)
{
	struct depot_entry *d = __atomic_load_n(&depot, __ATOMIC_ACQUIRE);
	uintptr_t raw[CAPTURE_MAX];
	uintptr_t pc[STACK_FRAMES];
	int got, skip = 0, n;
	uint32_t hash, slot, want = 0;

	if (!d)
		return 0;
	/* The cached rules (unwind.c), or backtrace() on a frame they do
	 * not cover: the same stack either way. */
	got = unwind_capture(raw, CAPTURE_MAX);
	if (got < 0)
		got = backtrace_fn((void **)raw, CAPTURE_MAX);
	/* ufd's frames at the top, and above them those of an interceptor
	 * of backtrace itself (a sanitizer runtime's). */
	while (skip < got && skip < 3 && !is_self(raw[skip]))
		skip++;
	if (skip == got || skip == 3)
		skip = 0;
	while (skip < got && is_self(raw[skip]))
		skip++;
	while (skip < got && in_ranges(&runtime_ranges, raw[skip]))
		skip++;
	n = got - skip < STACK_FRAMES ? got - skip : STACK_FRAMES;
	for (int i = 0; i < n; i++)
		pc[i] = raw[skip + i];
	hash = hash_frames(pc, n);
	for (slot = hash & (DEPOT_SLOTS - 1);; slot = (slot + 1) & (DEPOT_SLOTS - 1)) {
		uint32_t v = __atomic_load_n(&depot_slots[slot], __ATOMIC_ACQUIRE);

		if (v == 0) {
			if (!want) {
				uint32_t i = __atomic_fetch_add(&depot_used, 1,
								__ATOMIC_RELAXED);

				if (i >= DEPOT_ENTRIES)
					return 0; /* full */
				d[i].hash = hash;
				d[i].n = (uint32_t)n;
				for (int k = 0; k < n; k++)
					d[i].pc[k] = pc[k];
				want = i + 1;
			}
			if (__atomic_compare_exchange_n(&depot_slots[slot], &v, want, 0,
							__ATOMIC_RELEASE,
							__ATOMIC_ACQUIRE))
				return want;
			/* Taken meanwhile: v is what is there now. */
		}
		if (same(&d[v - 1], hash, pc, n))
			return v; /* (our entry, if any, stays unused) */
	}
}

int stack_frames(uint32_t id, uintptr_t *pcs, int max)
{
	struct depot_entry *d = __atomic_load_n(&depot, __ATOMIC_ACQUIRE);
	int n;

	if (!d || id == 0 || id > DEPOT_ENTRIES)
		return 0;
	n = (int)d[id - 1].n < max ? (int)d[id - 1].n : max;
	memcpy(pcs, d[id - 1].pc, (size_t)n * sizeof(*pcs));
	return n;
}

/* ---- symbols ---- */

/* A module's file mapped, with its symbol table (.symtab, or .dynsym if
 * it was stripped). */
struct elf_file {
	char path[256];
	const unsigned char *map;
	size_t len;
	const ElfW(Sym) *syms;
	size_t nsyms;
	const char *strs;
	size_t strs_len;
};

#define ELF_CACHE 64
static struct elf_file elf_cache[ELF_CACHE] UFD_LATE_BSS;
static unsigned elf_next;      /* entries mapped (map_modules_once's) */
static unsigned elf_published; /* entries elf_find may read */
static int elf_parsed[ELF_CACHE];

/* The symbol table of the mapped file f, or leave f->syms NULL. */
static void elf_tables(struct elf_file *f)
{
	const ElfW(Ehdr) *eh = (const void *)f->map;
	const ElfW(Shdr) *sh;
	int found = -1;

	if (f->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shoff > f->len ||
	    (size_t)eh->e_shnum * sizeof(*sh) > f->len - eh->e_shoff)
		return;
	sh = (const void *)(f->map + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB ||
		    (sh[i].sh_type == SHT_DYNSYM && found < 0))
			found = i;
	if (found < 0 || sh[found].sh_link >= eh->e_shnum)
		return;
	{
		const ElfW(Shdr) *s = &sh[found], *str = &sh[s->sh_link];

		if (s->sh_offset > f->len || s->sh_size > f->len - s->sh_offset ||
		    str->sh_offset > f->len || str->sh_size > f->len - str->sh_offset)
			return;
		f->syms = (const void *)(f->map + s->sh_offset);
		f->nsyms = s->sh_size / sizeof(ElfW(Sym));
		f->strs = (const char *)f->map + str->sh_offset;
		f->strs_len = str->sh_size;
	}
}

/* The mapping of the file at path made at start-up, its symbol table
 * found on first use (reading it is no system call), or NULL. */
static struct elf_file *elf_find(const char *path)
{
	unsigned n = __atomic_load_n(&elf_published, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < ELF_CACHE && i < n; i++)
		if (elf_cache[i].map && !strcmp(elf_cache[i].path, path)) {
			if (!elf_parsed[i]) {
				elf_tables(&elf_cache[i]);
				elf_parsed[i] = 1;
			}
			return &elf_cache[i];
		}
	return NULL;
}

/* Map the file at path (map_modules_once). */
static void elf_open(const char *path)
{
	struct elf_file *f;
	struct stat st;
	void *map;
	int fd;

	if (elf_next >= ELF_CACHE || strlen(path) >= sizeof(f->path))
		return;
	fd = (int)ufd_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC,
			   0, 0, 0);
	if (fd < 0)
		return;
	if (ufd_sys_fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		ufd_sys_close(fd);
		return;
	}
	map = ufd_sys_mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ufd_sys_close(fd);
	if (ufd_sys_is_error((long)map))
		return;
	f = &elf_cache[elf_next];
	strcpy(f->path, path);
	f->map = map;
	f->len = (size_t)st.st_size;
	elf_next++;
}

/* Is the file mapped last the program loaded at bias, whose entry point
 * the kernel gave (AT_ENTRY)?  If not, unmapped. */
static int mapped_program(uintptr_t bias)
{
	struct elf_file *f = &elf_cache[elf_next - 1];
	const ElfW(Ehdr) *eh = (const void *)f->map;

	if (f->len >= sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	    eh->e_entry + bias == getauxval(AT_ENTRY))
		return 1;
	ufd_sys_munmap((void *)f->map, f->len);
	memset(f, 0, sizeof(*f));
	elf_next--;
	return 0;
}

/*
 * The program's path into exe_path, at start-up (a report names the
 * program by it): the path the kernel ran (AT_EXECFN, made absolute with
 * the working directory of start-up), without /proc, whose first use
 * makes the kernel build the process's entries there, and its exit tear
 * them down.  map_program checks it.
 */
static void program_path(void)
{
	const char *run = (const char *)getauxval(AT_EXECFN);
	size_t len = 0;
	long n;

	if (run && run[0] != '/') {
		n = ufd_sys6(SYS_getcwd, (long)exe_path, sizeof(exe_path), 0, 0, 0, 0);
		len = n > 1 ? (size_t)n - 1 : 0; /* (n counts the NUL) */
		if (len == 1)
			len = 0; /* "/" */
		while (run[0] == '.' && run[1] == '/')
			run += 2;
		if (len)
			exe_path[len++] = '/';
	}
	if (run && (run[0] == '/' || len) && len + strlen(run) < sizeof(exe_path))
		strcpy(exe_path + len, run);
	else
		exe_path[0] = 0;
}

/*
 * The program's file mapped: at exe_path when that file is the program
 * (a script's is its interpreter, checked by the entry point), else at
 * /proc/self/exe's link, which exe_path becomes.  In the first case
 * exe_file is that link when it differs (a program run by a link, as
 * dash as sh), which suppressions' obj: lines match too.
 */
static void map_program(uintptr_t bias)
{
	long n;

	if (exe_path[0] == '/') {
		elf_open(exe_path);
		if (elf_next && !strcmp(elf_cache[elf_next - 1].path, exe_path) &&
		    mapped_program(bias)) {
			n = ufd_sys6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe",
				     (long)exe_file, sizeof(exe_file) - 1, 0, 0);
			exe_file[n > 0 ? n : 0] = 0;
			if (!strcmp(exe_file, exe_path))
				exe_file[0] = 0;
			return;
		}
	}
	n = ufd_sys6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)exe_path,
		     sizeof(exe_path) - 1, 0, 0);
	exe_path[n > 0 ? n : 0] = 0;
	if (exe_path[0] == '/')
		elf_open(exe_path);
}

/* dl_iterate_phdr's callback: each module with a file, mapped (the
 * program, first, has no name there), but libufd, whose frames no stack
 * keeps. */
static int map_modules(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	if (!info->dlpi_name || !info->dlpi_name[0])
		map_program(info->dlpi_addr);
	else if (info->dlpi_name[0] == '/' &&
		 !(info->dlpi_addr == self_module.addr &&
		   info->dlpi_name == self_module.name))
		elf_open(info->dlpi_name);
	return 0;
}

/* Each module's file mapped, the first time only: from the first
 * stack_symbolize (under the reports' lock) or stack_load_unwinder. */
static void map_modules_once(void)
{
	static int mapped;

	if (__atomic_exchange_n(&mapped, 1, __ATOMIC_ACQ_REL))
		return;
	dl_iterate_phdr(map_modules, NULL);
	__atomic_store_n(&elf_published, elf_next, __ATOMIC_RELEASE);
}

/* The function of f nearest at or below addr (relative to the module's
 * load bias): its name into s, or nothing. */
static void elf_nearest(const struct elf_file *f, uintptr_t addr,
			struct stack_symbol *s)
{
	const ElfW(Sym) *best = NULL;

	for (size_t i = 0; i < f->nsyms; i++) {
		const ElfW(Sym) *y = &f->syms[i];

		if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_shndx == SHN_UNDEF ||
		    y->st_value > addr || y->st_name >= f->strs_len)
			continue;
		if (!best || y->st_value > best->st_value)
			best = y;
	}
	if (!best || (s->name[0] && addr - best->st_value > s->name_off))
		return; /* dladdr's is nearer (s->name_off is from addr too) */
	if (!s->name[0] || addr - best->st_value < s->name_off) {
		snprintf(s->name, sizeof(s->name), "%s", f->strs + best->st_name);
		s->name_off = addr - best->st_value;
	}
	/* Past the symbol's end: a static function the table lacks (a
	 * stripped library's .dynsym), named by the exported one below. */
	s->exact = addr - best->st_value < best->st_size;
}

int stack_symbolize(uintptr_t pc, struct stack_symbol *s)
{
	struct link_map *lm = NULL;
	struct elf_file *f;
	Dl_info info;
	uintptr_t at = pc - 1;

	memset(s, 0, sizeof(*s));
	if (dladdr1_fn)
		map_modules_once();
	if (!dladdr1_fn || !dladdr1_fn((void *)at, &info, (void **)&lm, RTLD_DL_LINKMAP) ||
	    !lm)
		return -ENOENT;
	snprintf(s->module, sizeof(s->module), "%s",
		 lm->l_name && lm->l_name[0] ? lm->l_name : exe_path);
	s->module_off = pc - lm->l_addr;
	/* Offsets from `at` first, from pc at the end (as ASan prints). */
	if (info.dli_sname && info.dli_saddr) {
		snprintf(s->name, sizeof(s->name), "%s", info.dli_sname);
		s->name_off = at - (uintptr_t)info.dli_saddr;
	}
	if (s->module[0] && (f = elf_find(s->module)) && f->syms)
		elf_nearest(f, at - lm->l_addr, s);
	if (s->name[0])
		s->name_off++;
	return 0;
}

const char *stack_program_file(const char *module)
{
	return exe_file[0] && !strcmp(module, exe_path) ? exe_file : NULL;
}
