/* SPDX-License-Identifier: MIT */
/*
 * Description: exec and spawn with an environment the kernel cannot read.
 * Each call ufd wraps (execve, execle, execvpe, fexecve, execveat,
 * posix_spawn, posix_spawnp, and execv, popen, system through environ) is
 * made with each kind of bad environment: the array in the first page, an
 * entry in the first page, the array or an entry in a PROT_NONE page, a
 * string that runs on into a PROT_NONE page, an array whose terminating
 * NULL would be in one, a bad entry after the first 64; and, to show that
 * the harness works, good ones (a short string that ends just before a
 * PROT_NONE page, an array that does).
 * The kernel answers EFAULT (posix_spawn returns it); ufd used to crash.
 *
 * The good ones again where a seccomp filter refuses process_vm_readv and
 * process_vm_writev (EPERM, as some sandboxes do): ufd then reads the
 * caller's memory directly, and must read no further than the kernel
 * does.  It read 64 pointers of the array at once and the first 13 bytes
 * of an entry, past the ends of both, and died of SIGSEGV.
 *
 * This program is neither linked against ufd nor preloaded: for each case
 * it runs itself ("case N") once bare and once under LD_PRELOAD (from
 * UFD_TEST_PRELOAD), and the two must agree: the same line (return value
 * and errno) and the same exit status.  Under ufd the case also holds a
 * virtual descriptor, which must come back intact from the failed exec
 * (still open, its backing close-on-exec again for the kernel).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_test.h"

extern char **environ;

static const char *const calls[] = { "execve",	    "execle",	"execvpe",
				     "fexecve",	    "execveat", "posix_spawn",
				     "posix_spawnp", "execv",	"popen",
				     "system" };
#define NCALLS (int)(sizeof(calls) / sizeof(calls[0]))
/* From "execv" on, the environment is environ. */
#define FIRST_ENVIRON 7

static const char *const kinds[] = {
	"good",		   "array in page 0",	"entry in page 0",
	"array PROT_NONE", "entry PROT_NONE",	"string into PROT_NONE",
	"array into PROT_NONE", "short entry up to PROT_NONE",
	"entry 70 of 80 PROT_NONE", "array up to PROT_NONE",
};
#define NKINDS (int)(sizeof(kinds) / sizeof(kinds[0]))
/* The good kinds, run again without process_vm_readv (cases from
 * NCALLS * NKINDS on: call, then one of these).  Not in an ASan build:
 * reading directly, ufd's reads of a path (shim_path.c) and of the
 * environment take whole pieces of a page, past the string's end but not
 * its page's, which harms nothing but ASan reports. */
static const int good_kinds[] = { 0, 7, 9 };
#if defined(__SANITIZE_ADDRESS__)
#define NGOOD 0
#else
#define NGOOD (int)(sizeof(good_kinds) / sizeof(good_kinds[0]))
#endif

/* The environment of the given kind; static storage, built once. */
static char **make_env(int kind)
{
	static char *good[4], *entries[96];
	static char preload[4096];
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char **tail;
	int n = 0;

	if (m == MAP_FAILED || mprotect(m + page, (size_t)page, PROT_NONE) != 0) {
		perror("mmap");
		exit(2);
	}
	/* Under ufd, the test's own LD_PRELOAD (an ASan runtime must stay
	 * first in the program exec'd). */
	if (getenv("LD_PRELOAD")) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", getenv("LD_PRELOAD"));
		good[n] = entries[n] = preload;
		n++;
	}
	good[n] = entries[n] = "A=1";
	n++;
	good[n] = NULL;
	switch (kind) {
	case 0:
		return good;
	case 1:
		return (char **)16;
	case 2:
		entries[n] = (char *)16;
		break;
	case 3:
		return (char **)(m + page);
	case 4:
		entries[n] = m + page;
		break;
	case 5:
		memset(m, 'x', (size_t)page);
		memcpy(m + page - 8, "X=", 2);
		entries[n] = m + page - 8;
		break;
	case 7:
		/* Good, but its first bytes cannot all be read: ufd reads
		 * the start of many entries at once, then this one alone. */
		memcpy(m + page - 4, "B=1", 4);
		entries[n] = m + page - 4;
		break;
	case 8:
		/* Past the first 64 entries ufd reads at once. */
		for (int i = 0; i < 80; i++)
			entries[n + i] = i == 69 ? m + page : "A=1";
		entries[n + 80] = NULL;
		return entries;
	case 9:
		/* Good: the NULL is the page's last pointer. */
		tail = (char **)(m + page) - (n + 1);
		memcpy(tail, good, (size_t)(n + 1) * sizeof(*tail));
		return tail;
	case 6:
		/* Two good entries at the very end of the page, no NULL. */
		tail = (char **)(m + page) - 2;
		tail[0] = tail[1] = "A=1";
		return tail;
	}
	entries[n + 1] = NULL;
	return entries;
}

/* Refuse process_vm_readv and process_vm_writev with EPERM from now on. */
static void refuse_vm_calls(void)
{
	struct sock_filter insns[] = {
		/* only the number is looked at, on every architecture */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		perror("seccomp");
		exit(2);
	}
}

static int run_case(int c)
{
	int call, kind, vfd = -1, backing = -1, r, e, novm = c >= NCALLS * NKINDS;
	int (*backing_fd)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "ufd_backing_fd");
	char *argv[] = { "true", NULL };
	char **env, **saved = environ;
	long ret = 0;
	pid_t pid;

	if (novm) {
		c -= NCALLS * NKINDS;
		call = c / (int)(sizeof(good_kinds) / sizeof(good_kinds[0]));
		kind = good_kinds[c % (int)(sizeof(good_kinds) / sizeof(good_kinds[0]))];
		refuse_vm_calls();
	} else {
		call = c / NKINDS;
		kind = c % NKINDS;
	}
	env = make_env(kind);
	if (backing_fd) {
		int fd = open("/dev/null", O_RDONLY);

		vfd = dup2(fd, (int)FD_UNSEQ_ALLOC);
		close(fd);
		backing = backing_fd(vfd);
	}
	printf("%s, %s%s: ", calls[call], kinds[kind],
	       novm ? ", no process_vm_readv" : "");
	fflush(stdout);
	errno = 0;
	if (call >= FIRST_ENVIRON)
		environ = env;
	switch (call) {
	case 0:
		ret = execve("/bin/true", argv, env);
		break;
	case 1:
		ret = execle("/bin/true", "true", (char *)NULL, env);
		break;
	case 2:
		ret = execvpe("/bin/true", argv, env);
		break;
	case 3: {
		int fd = open("/bin/true", O_RDONLY | O_CLOEXEC);

		ret = fexecve(fd, argv, env);
		break;
	}
	case 4:
		ret = execveat(AT_FDCWD, "/bin/true", argv, env, 0);
		break;
	case 5:
	case 6:
		ret = (call == 5 ? posix_spawn : posix_spawnp)(
			&pid, call == 5 ? "/bin/true" : "true", NULL, NULL, argv, env);
		if (ret == 0)
			ret = waitpid(pid, &r, 0) == pid ? r : -2;
		break;
	case 7:
		ret = execv("/bin/true", argv);
		break;
	case 8: {
		FILE *fp = popen("true", "r");

		ret = fp ? 0 : -1;
		if (fp)
			ret = pclose(fp);
		break;
	}
	default:
		ret = system("true");
		break;
	}
	e = errno;
	environ = saved;
	printf("ret %ld errno %s\n", ret, e ? strerrorname_np(e) : "0");
	if (vfd >= 0 && (fcntl(vfd, F_GETFD) != 0 || backing_fd(vfd) != backing ||
			 kernel_cloexec(backing) != 1))
		printf("the virtual descriptor did not come back intact\n");
	return 0;
}

/* Run "self case c" with envp; its stdout into out, its status back. */
static int run(const char *self, int c, char **envp, char *out, size_t size)
{
	char arg[16];

	snprintf(arg, sizeof(arg), "%d", c);
	return run_capture((char *[]){ (char *)self, "case", arg, NULL }, envp, out,
			   size);
}

int main(int argc, char **argv)
{
	const char *preload = getenv("UFD_TEST_PRELOAD");
	char pre[8192], *bare_env[] = { "PATH=/usr/bin:/bin", "ASAN_OPTIONS=detect_leaks=0", NULL };
	char *ufd_env[] = { bare_env[0], bare_env[1], pre, NULL };
	int failed = 0;

	if (argc == 3 && !strcmp(argv[1], "case"))
		return run_case(atoi(argv[2]));
	if (skip_under_emulator("every case", "qemu-user has no process_vm_readv, so ufd reads the caller's "
				"memory itself (as under a sandbox refusing it): memory "
				"the kernel cannot read faults there"))
		return 77;
	if (!preload) {
		fprintf(stderr, "UFD_TEST_PRELOAD must be set (tests/meson.build)\n");
		return 1;
	}
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", preload);
	for (int c = 0; c < NCALLS * (NKINDS + NGOOD); c++) {
		char bare[512], under[512];
		int sb = run("/proc/self/exe", c, bare_env, bare, sizeof(bare));
		int su = run("/proc/self/exe", c, ufd_env, under, sizeof(under));

		if (sb != su || strcmp(bare, under)) {
			printf("FAIL: case %d: without ufd: status %#x, %s"
			       "       under ufd:   status %#x, %s\n",
			       c, sb, bare, su, under);
			failed++;
		} else {
			printf("ok: status %#x, %s", sb, bare);
		}
	}
	if (!NGOOD)
		printf("skipped: the cases without process_vm_readv, in an ASan build "
		       "(see good_kinds)\n");
	printf("%d of %d cases differ\n", failed, NCALLS * (NKINDS + NGOOD));
	return failed ? 1 : 0;
}
