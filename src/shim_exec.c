/* SPDX-License-Identifier: MIT */
/*
 * shim_exec.c - exec and spawn (and vfork, which is fork here).
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
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>

#include "exec_names.h"
#include "handoff.h"
#include "log.h"
#include "random_fd.h"
#include "report.h"
#include "sys.h"
#include "text.h"
#include "vfd_table.h"

extern char **environ;

#define HANDOFF_VAR "UFD_HANDOFF"
#define PRELOAD_VAR "LD_PRELOAD"

/* libufd.so's absolute path, for the children's LD_PRELOAD ("" if
 * unknown): the dynamic linker's own name for it, which lives as long as
 * the library, or realpath's answer in resolved_path. */
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
	for (const char *p = value; *p; p++)
		if ((p == value || p[-1] == '/' || p[-1] == ' ' || p[-1] == ':') &&
		    ufd_skip_prefix(p, "libufd.so"))
			return 1;
	return 0;
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
	else if (name && *name && UFD_REAL(realpath)(name, resolved_path))
		self_path = resolved_path;
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

/* The new environment of one exec, and what to undo if it fails. */
struct exec_env {
	struct handoff handoff;
	char **envp;	    /* the new array, in its own mapping */
	size_t envp_len;
};

/* The environment a vfork child made for an exec: in its parent's memory,
 * which a successful exec leaves to the parent to free (ufd_vfork_end). */
static struct {
	void *addr;
	size_t len;
} vfork_child_env;

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
 * up to its end.  pid: the caller's getpid(), asked once per exec. */
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

struct env_batch {
	char *e[ENV_BATCH];
	int kind[ENV_BATCH];
	size_t n; /* entries read, the NULL not counted */
	int last; /* the NULL came after them */
};

/* The kinds of b's n entries: their first bytes in one read, split at
 * page boundaries; entry by entry where that read stops short. */
static int env_kinds(long pid, struct env_batch *b)
{
	char head[ENV_BATCH][ENV_HEAD];
	struct ufd_iovec mine[2 * ENV_BATCH], theirs[2 * ENV_BATCH];
	size_t k = 0, j;
	long want = 0;

	for (j = 0; j < b->n; j++) {
		uintptr_t at = (uintptr_t)b->e[j];
		size_t first = 4096 - (at & 4095);

		if (first > ENV_HEAD)
			first = ENV_HEAD;
		mine[k] = (struct ufd_iovec){ head[j], first };
		theirs[k++] = (struct ufd_iovec){ b->e[j], first };
		if (first < ENV_HEAD) {
			mine[k] = (struct ufd_iovec){ head[j] + first, ENV_HEAD - first };
			theirs[k++] = (struct ufd_iovec){ b->e[j] + first,
							  ENV_HEAD - first };
		}
		want += (long)ENV_HEAD;
	}
	if (k && ufd_sys_read_self_pieces(pid, mine, theirs, k) == want) {
		for (j = 0; j < b->n; j++)
			b->kind[j] = head_kind(head[j], ENV_HEAD);
		return 0;
	}
	/* An entry near the end of readable memory, or no
	 * process_vm_readv: each by itself. */
	for (j = 0; j < b->n; j++)
		if ((b->kind[j] = env_kind(pid, b->e[j])) < 0)
			return -EFAULT;
	return 0;
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
	got = ufd_sys_read_self_pid(pid, b->e, &envp[from], ask);
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

/* Bytes of an LD_PRELOAD value read with its length: most values whole. */
#define VALUE_HEAD 256

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
static int exec_env_make(struct exec_env *x, char *const envp[], int spawn,
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
	 * the call. */
	long pid = envp ? ufd_sys_getpid() : 0;

	memset(x, 0, sizeof(*x));
	*out = (char **)envp;
	/* Read first, before anything is locked or made inheritable. */
	for (n = 0; envp; n += b.n) {
		if (env_read_batch(pid, envp, n, &b) < 0)
			return 0;
		for (j = 0; j < b.n; j++) {
			if (b.kind[j] == ENV_PRELOAD)
				preload = b.e[j];
			stale |= b.kind[j] == ENV_HANDOFF;
		}
		if (b.last) {
			n += b.n;
			break;
		}
	}
	if (preload) {
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
static void exec_env_done(struct exec_env *x)
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

/* ---- vfork ---- */

/*
 * A real vfork where the child may share the parent's memory
 * (vfd_vfork_begin: nothing of ufd's in play, one thread); fork otherwise,
 * which POSIX allows, since a vfork child that closes or dup2s through ufd
 * (CPython's subprocess does, between vfork and exec) would change the
 * parent's table.  Shells run every command with vfork: fork there costs
 * each command its page tables and copy-on-write faults.
 *
 * In assembly, because the child returns from vfork on its parent's stack
 * and then calls on it, overwriting whatever a C wrapper's frame held
 * there: the parent's way back must not be in memory.  As glibc's own
 * vfork does, the return address is held in a register across the system
 * call (x86_64: popped into rdi, which the kernel keeps; aarch64: x30).
 * The child returns at once; the parent, whose stack is its own again
 * once the child has exec'd or exited, tail-calls vfork_end.
 * (posix_spawn's internal vfork-style child runs only glibc's internal
 * calls, which ufd does not see.)
 *
 * The application's signals are blocked from the decision to the system
 * call, as glibc's posix_spawn blocks its own: a handler run in between
 * could make a virtual descriptor, which the child would then share.  The
 * child restores the caller's mask before it returns, the parent in
 * ufd_vfork_end, once the vfork is over for ufd; neither when the caller
 * had them all blocked already (dash does, around each command's vfork).
 * glibc's two internal signals stay as they were: their handlers make no
 * descriptor, and in a process of one thread (vfd_vfork_begin) nothing of
 * glibc's sends them.
 */

/* The signals vfork blocks, as the kernel's 8-byte mask: all but SIGKILL
 * and SIGSTOP (which cannot be) and glibc's 32 and 33 (SIGCANCEL,
 * SIGSETXID). */
#define VFORK_BLOCKED                                                        \
	(~0UL & ~(1UL << (SIGKILL - 1)) & ~(1UL << (SIGSTOP - 1)) &          \
	 ~(1UL << 31) & ~(1UL << 32))

/* The caller's signal mask (the kernel's 8 bytes) while vfork blocks the
 * application's, and whether the block changed it (then the child and the
 * parent restore it).  Read by the wrapper's child path. */
__attribute__((visibility("hidden"), used)) unsigned long ufd_vfork_mask;
__attribute__((visibility("hidden"), used)) int ufd_vfork_restore;

static void vfork_unblock(void)
{
	ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&ufd_vfork_mask, 0,
		 sizeof(ufd_vfork_mask), 0, 0);
}

/* Before the system call, in the parent: 1 for a real vfork (the
 * application's signals blocked), 0 to fork. */
__attribute__((used)) int ufd_vfork_begin(void);
__attribute__((used)) int ufd_vfork_begin(void)
{
	unsigned long block = VFORK_BLOCKED, mask;
	int changed;

	/* A vfork that will be a fork pays for no block. */
	if (!vfd_vfork_allowed())
		return 0;
	ufd_sys6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&block, (long)&mask,
		 sizeof(mask), 0, 0);
	changed = (mask & block) != block;
	/* Kept only for a real vfork: a vfork child's own (a fork) must
	 * leave its parent's alone. */
	if (vfd_vfork_begin()) {
		ufd_vfork_mask = mask;
		ufd_vfork_restore = changed;
		return 1;
	}
	if (changed)
		ufd_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0,
			 sizeof(mask), 0, 0);
	return 0;
}

/* In the parent, once the child has exec'd or exited (ret its pid), or the
 * system call failed (-errno): vfork's return value. */
__attribute__((used)) pid_t ufd_vfork_end(long ret);
__attribute__((used)) pid_t ufd_vfork_end(long ret)
{
	if (vfork_child_env.addr) {
		ufd_sys_munmap(vfork_child_env.addr, vfork_child_env.len);
		vfork_child_env.addr = NULL;
	}
	vfd_vfork_end();
	ufd_signal_vfork_end();
	if (ufd_vfork_restore)
		vfork_unblock();
	return ufd_ret(ret);
}

/* vfork where the child may not share the memory. */
__attribute__((used)) pid_t ufd_vfork_fork(void);
__attribute__((used)) pid_t ufd_vfork_fork(void)
{
	return fork();
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
	".cfi_startproc\n"
#ifdef __CET__
	"endbr64\n"
#endif
	"subq $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"call ufd_vfork_begin\n"
	"addq $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"testl %eax, %eax\n"
	"jz ufd_vfork_fork\n"
	"popq %rdi\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_register %rip, %rdi\n"
	"movl $58, %eax\n" /* SYS_vfork */
	"syscall\n"
	"pushq %rdi\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rip, 0\n"
	"testq %rax, %rax\n"
	"jz 1f\n"
	"movq %rax, %rdi\n"
	"jmp ufd_vfork_end\n"
	/* The child: vfd_vfork_child = 1, then, if ufd_vfork_restore,
	 * rt_sigprocmask(SIG_SETMASK, &ufd_vfork_mask, NULL, 8). */
	"1: movl $1, vfd_vfork_child(%rip)\n"
	"cmpl $0, ufd_vfork_restore(%rip)\n"
	"je 2f\n"
	"movl $14, %eax\n"
	"movl $2, %edi\n"
	"leaq ufd_vfork_mask(%rip), %rsi\n"
	"xorl %edx, %edx\n"
	"movl $8, %r10d\n"
	"syscall\n"
	"2: xorl %eax, %eax\n"
	"ret\n"
	".cfi_endproc\n"
	".size vfork, .-vfork\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, %function\n"
	".p2align 2\n"
	"vfork:\n"
	".cfi_startproc\n"
#ifdef __ARM_FEATURE_BTI_DEFAULT
	"bti c\n"
#endif
	"stp x29, x30, [sp, #-16]!\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset x29, -16\n"
	".cfi_offset x30, -8\n"
	"mov x29, sp\n"
	"bl ufd_vfork_begin\n"
	"ldp x29, x30, [sp], #16\n"
	".cfi_restore x30\n"
	".cfi_restore x29\n"
	".cfi_def_cfa_offset 0\n"
	"cbz w0, 2f\n"
	"mov x0, #0x4111\n" /* CLONE_VM | CLONE_VFORK | SIGCHLD */
	"mov x1, #0\n"
	"mov x2, #0\n"
	"mov x3, #0\n"
	"mov x4, #0\n"
	"mov x8, #220\n" /* SYS_clone */
	"svc #0\n"
	"cbz x0, 1f\n"
	"b ufd_vfork_end\n"
	/* The child: vfd_vfork_child = 1, then, if ufd_vfork_restore,
	 * rt_sigprocmask(SIG_SETMASK, &ufd_vfork_mask, NULL, 8). */
	"1: adrp x1, vfd_vfork_child\n"
	"mov w2, #1\n"
	"str w2, [x1, :lo12:vfd_vfork_child]\n"
	"adrp x1, ufd_vfork_restore\n"
	"ldr w2, [x1, :lo12:ufd_vfork_restore]\n"
	"cbz w2, 3f\n"
	"mov x0, #2\n"
	"adrp x1, ufd_vfork_mask\n"
	"add x1, x1, :lo12:ufd_vfork_mask\n"
	"mov x2, #0\n"
	"mov x3, #8\n"
	"mov x8, #135\n"
	"svc #0\n"
	"3: mov x0, #0\n"
	"ret\n"
	"2: b ufd_vfork_fork\n"
	".cfi_endproc\n"
	".size vfork, .-vfork\n");
#else
#error "ufd: vfork is written for x86_64 and aarch64 only"
#endif

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

/* ---- posix_spawn ---- */

/*
 * glibc's struct __spawn_action (its spawn_int.h): the entries of the
 * array a posix_spawn_file_actions_t holds.  Mirrored only to see whether
 * the actions close from a number up (closefrom), and trusted only once
 * a probe has found glibc's own laid out so (spawn_layout_ok).
 */
struct glibc_spawn_action {
	int tag;
	union {
		struct { int fd; } one; /* close, fchdir, closefrom, tcsetpgrp */
		struct { int fd, newfd; } dup2;
		struct { int fd; char *path; int oflag; mode_t mode; } open;
		struct { char *path; } chdir;
	} action;
};
#define GLIBC_SPAWN_DO_CLOSE 0
#define GLIBC_SPAWN_DO_DUP2 1
#define GLIBC_SPAWN_DO_CLOSEFROM 5

/* 1 if glibc's actions are laid out as the mirror says, 0 if not (or
 * glibc has no closefrom action), -1 not yet probed. */
static int spawn_layout = -1;

static int spawn_layout_ok(void)
{
	int ok = __atomic_load_n(&spawn_layout, __ATOMIC_RELAXED);
	posix_spawn_file_actions_t fa;
	const struct glibc_spawn_action *a;

	if (ok >= 0)
		return ok;
	ok = 0;
	if (posix_spawn_file_actions_init(&fa) == 0) {
		if (UFD_REAL(posix_spawn_file_actions_addclose)(&fa, 2) == 0 &&
		    UFD_REAL(posix_spawn_file_actions_addclosefrom_np)(&fa, 1) == 0 &&
		    (a = (const struct glibc_spawn_action *)fa.__actions) &&
		    fa.__used == 2 && a[0].tag == GLIBC_SPAWN_DO_CLOSE &&
		    a[0].action.one.fd == 2 && a[1].tag == GLIBC_SPAWN_DO_CLOSEFROM &&
		    a[1].action.one.fd == 1)
			ok = 1;
		posix_spawn_file_actions_destroy(&fa);
	}
	__atomic_store_n(&spawn_layout, ok, __ATOMIC_RELAXED);
	return ok;
}

/*
 * Do the file actions close from a number up (addclosefrom_np)?  Its
 * bound is below the application's limit (the wrapper's EBADF), so below
 * every virtual number: the child would have none of them, and the spawn
 * hands none off.  Their backing descriptors stay close-on-exec, which
 * closes the ones below the bound too (ufd(7), "Where backing descriptors
 * live"); the others, and ufd's hand-off memfd, are closed by the action
 * itself as the kernel's close_range reaches them.  0 when the layout is
 * not glibc's known one: the spawn is then as if the action were a plain
 * close_range.
 */
static int spawn_closes_from(const posix_spawn_file_actions_t *actions)
{
	const struct glibc_spawn_action *a;

	if (!actions || !vfd_any() || !spawn_layout_ok())
		return 0;
	a = (const struct glibc_spawn_action *)actions->__actions;
	for (int i = 0; a && i < actions->__used; i++)
		if (a[i].tag == GLIBC_SPAWN_DO_CLOSEFROM)
			return 1;
	return 0;
}

/* posix_spawn returns an error number, not -1 and errno. */
#define WITH_SPAWN_ENV(envp_expr, actions, call)                       \
	do {                                                           \
		struct exec_env x_;                                    \
		char **env_;                                           \
		int r_ = exec_env_make(&x_, (envp_expr), 1,            \
				       ufd_settings.inherit &&         \
				       !spawn_closes_from(actions), &env_); \
		if (r_ < 0)                                            \
			return -r_;                                    \
		r_ = (call);                                           \
		exec_env_done(&x_);                                    \
		return r_;                                             \
	} while (0)

/* posix_spawn's body, also system's: called directly, not through the
 * exported symbol, which another interposer (a sanitizer's, which reads
 * envp itself) may have taken, as glibc's system calls its own. */
static int spawn(pid_t *pid, const char *path,
		 const posix_spawn_file_actions_t *actions,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	UFD_PATH_BEFORE(path);

	WITH_SPAWN_ENV(envp, actions, UFD_REAL(posix_spawn)(pid, path, actions, attr,
						   argv, env_));
}

/*
 * The sanitizer, at a spawn by call: the descriptors that leak into the
 * child.  Those the file actions name as dup2 sources are passed on on
 * purpose; those they close, or close from a number up, do not cross.
 * Without glibc's known layout of the actions, none is looked at.
 */
static void spawn_report(const posix_spawn_file_actions_t *actions,
			 enum ufd_call call, char *const argv[], char *const envp[])
{
	int named[64], closed[64], n_named = 0, n_closed = 0, from = -1;
	const struct glibc_spawn_action *a;

	if (actions && spawn_layout_ok() &&
	    (a = (const struct glibc_spawn_action *)actions->__actions)) {
		for (int i = 0; i < actions->__used; i++) {
			if (a[i].tag == GLIBC_SPAWN_DO_DUP2 && n_named < 64)
				named[n_named++] = a[i].action.dup2.fd;
			else if (a[i].tag == GLIBC_SPAWN_DO_CLOSE && n_closed < 64)
				closed[n_closed++] = a[i].action.one.fd;
			else if (a[i].tag == GLIBC_SPAWN_DO_CLOSEFROM &&
				 (from < 0 || a[i].action.one.fd < from))
				from = a[i].action.one.fd;
		}
	}
	report_exec_named(call, argv, envp, 0, named, n_named, closed, n_closed, from);
}

UFD_PUBLIC int posix_spawn(pid_t *pid, const char *path,
			   const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attr, char *const argv[],
			   char *const envp[])
{
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		spawn_report(actions, UFD_CALL_posix_spawn, argv, envp);
	return spawn(pid, path, actions, attr, argv, envp);
}

UFD_PUBLIC int posix_spawnp(pid_t *pid, const char *file,
			    const posix_spawn_file_actions_t *actions,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	if (__builtin_expect(ufd_settings.report != NULL, 0))
		spawn_report(actions, UFD_CALL_posix_spawnp, argv, envp);
	WITH_SPAWN_ENV(envp, actions, UFD_REAL(posix_spawnp)(pid, file, actions, attr,
						    argv, env_));
}

/*
 * glibc checks the bound against the kernel's limit, which ufd holds above
 * the application's (placement.h): the application's is the one, as
 * getdtablesize() says.  Virtual numbers are past it too.
 */
UFD_PUBLIC int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions,
							int from)
{
	if (from >= 0 && (unsigned)from >= __atomic_load_n(&ufd_app_nofile, __ATOMIC_RELAXED))
		return EBADF;
	return UFD_REAL(posix_spawn_file_actions_addclosefrom_np)(actions, from);
}

/* ---- popen, system ---- */

/*
 * popen spawns /bin/sh with environ: run it with the new environment as
 * environ (a pointer swap; a thread reading environ meanwhile sees one
 * complete array or the other).  glibc's popen returns once the child has
 * exec'd, so the table is locked only that long.
 */
UFD_PUBLIC FILE *popen(const char *command, const char *mode)
{
	struct exec_env x;
	char **env, **saved = environ;
	FILE *fp;
	int r = exec_env_make(&x, environ, 1, ufd_settings.inherit, &env);

	if (r < 0) {
		errno = -r;
		return NULL;
	}
	environ = env;
	fp = UFD_REAL(popen)(command, mode);
	environ = saved;
	exec_env_done(&x);
	ufd_stream_made(fp, UFD_CALL_popen);
	return fp;
}

/*
 * system(3) as POSIX describes it: /bin/sh -c command, with SIGCHLD
 * blocked and SIGINT and SIGQUIT ignored in the caller while it waits, and
 * the child starting with the caller's signal mask and those two at their
 * default (unless the caller ignores them).  The exit status, or that of a
 * shell that exited 127 if the shell could not run.
 *
 * Threads calling it at once share the ignoring, as in glibc: the first in
 * saves the caller's dispositions and ignores the two, the last out puts
 * them back.  Each saving and restoring on its own, a second call that
 * began while a first ignored them saved "ignored", restored it after the
 * first had restored the caller's, and left the process ignoring SIGINT
 * and SIGQUIT for good (found by the stress test).
 */
static pthread_mutex_t system_lock = PTHREAD_MUTEX_INITIALIZER;
static int system_callers;                      /* system_lock held */
static struct sigaction system_intr, system_quit; /* the caller's */

UFD_PUBLIC int system(const char *command)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, intr, quit;
	sigset_t chld, omask, dflt;
	posix_spawnattr_t attr;
	char *argv[] = { "sh", "-c", (char *)command, NULL };
	int status = 0, r;
	pid_t pid;

	if (!command) /* is a shell there? */
		return system("exit 0") == 0;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);
	pthread_mutex_lock(&system_lock);
	if (system_callers++ == 0) {
		sigaction(SIGINT, &ignore, &system_intr);
		sigaction(SIGQUIT, &ignore, &system_quit);
	}
	intr = system_intr;
	quit = system_quit;
	pthread_mutex_unlock(&system_lock);

	sigemptyset(&dflt);
	if (intr.sa_handler != SIG_IGN)
		sigaddset(&dflt, SIGINT);
	if (quit.sa_handler != SIG_IGN)
		sigaddset(&dflt, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	posix_spawnattr_setsigmask(&attr, &omask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	r = spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);

	if (r == 0) {
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
	} else {
		status = W_EXITCODE(127, 0);
	}
	r = errno;
	pthread_mutex_lock(&system_lock);
	if (--system_callers == 0) {
		sigaction(SIGINT, &system_intr, NULL);
		sigaction(SIGQUIT, &system_quit, NULL);
	}
	pthread_mutex_unlock(&system_lock);
	sigprocmask(SIG_SETMASK, &omask, NULL);
	errno = r;
	return status;
}

/*
 * glibc's _Fork: fork without the atfork handlers.  The program's, that
 * is: ufd's are part of fork itself (the child has no close-on-fork
 * descriptor, and no lock of the table held by a thread it does not have),
 * so they run here, in glibc's order: prepare in the reverse order of
 * their registration (api.c's constructor), parent and child in it.  Not
 * the listings' (shim_stream.c): their lock is a mutex, which a signal
 * handler calling _Fork (async-signal-safe, as POSIX wants it) would wait
 * for forever if it interrupted its holder, and what takes it, readdir,
 * is not a function a _Fork child of a threaded process may call.
 */
UFD_PUBLIC pid_t _Fork(void)
{
	pid_t pid;
	int err;

	ufd_signal_fork_prepare();
	vfd_fork_prepare();
	pid = UFD_REAL(_Fork)();
	err = errno;
	if (pid == 0) {
		if (ufd_settings.mode_random)
			random_fd_fork_child();
		if (ufd_settings.report)
			report_fork_child();
		vfd_fork_child();
	} else {
		vfd_fork_parent();
	}
	ufd_signal_fork_release();
	errno = err;
	return pid;
}
