/* SPDX-License-Identifier: MIT */
/*
 * Description: EFAULT, never a crash.  Every call whose wrapper may look
 * inside the caller's memory (a path, a pollfd array, an fd_set, a
 * msghdr and its control data, an ioctl's structure, and the calls that
 * write descriptors into the caller's memory) is made with pointers the
 * kernel cannot read: into a PROT_NONE page, a string or an array that
 * starts readable and runs on into one (a /dev/fd path among them), and
 * NULL.  Without ufd the kernel answers EFAULT (or what it checks first);
 * under ufd the answer must be the same, and no call may die.
 *
 * This program is neither linked against ufd nor preloaded: it runs
 * itself ("cases CONFIG") once bare and three times under LD_PRELOAD
 * (from UFD_TEST_PRELOAD): with no virtual descriptor (ufd looks at
 * nothing), holding one (ufd looks, without faulting) and in
 * UFD_MODE=all.  Each case runs in a child of its own, so that a crash is
 * a line of output ("killed by SIGSEGV") like any other result, and the
 * four outputs must be the same line for line.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ufd.h"
#include "ufd_test.h"

extern char **environ;

/* The calls that take a path.  Each is made on every kind of bad path. */
#define PATH_CALLS(X)                 \
	X(open)                       \
	X(open_creat)                 \
	X(openat)                     \
	X(creat)                      \
	X(syscall_openat)             \
	X(stat)                       \
	X(lstat)                      \
	X(fstatat)                    \
	X(statx)                      \
	X(access)                     \
	X(faccessat)                  \
	X(readlink)                   \
	X(name_to_handle_at)          \
	X(truncate)                   \
	X(fchmodat)                   \
	X(fchownat)                   \
	X(utimensat)                  \
	X(chdir)                      \
	X(linkat)                     \
	X(inotify_add_watch)          \
	X(fopen_r)                    \
	X(fopen_w)                    \
	X(opendir)                    \
	X(execve)                     \
	X(posix_spawn)

/* The calls that take an array, a message or a structure, each made with
 * every kind of bad memory that fits it. */
#define MEMORY_CALLS(X)               \
	X(poll)                       \
	X(ppoll)                      \
	X(select)                     \
	X(pselect)                    \
	X(sendmsg)                    \
	X(sendmsg_control)            \
	X(sendmmsg)                   \
	X(recvmsg)                    \
	X(ioctl_ficlonerange)         \
	X(pipe)                       \
	X(pipe2)                      \
	X(socketpair)                 \
	X(getrlimit)                  \
	X(setrlimit)                  \
	X(signalfd)                   \
	X(syscall_rt_sigaction)       \
	X(syscall_rt_sigaction_old)   \
	X(syscall_bpf)                \
	X(syscall_io_uring_files)     \
	X(syscall_io_uring_update)    \
	X(syscall_landlock_add_rule)

#define NAME(call) #call,
static const char *const path_calls[] = { PATH_CALLS(NAME) };
static const char *const memory_calls[] = { MEMORY_CALLS(NAME) };
#undef NAME
#define NPATH (int)(sizeof(path_calls) / sizeof(path_calls[0]))
#define NMEMORY (int)(sizeof(memory_calls) / sizeof(memory_calls[0]))

/* The kinds of bad memory. */
enum kind { NONE_PAGE, INTO_NONE, FDPATH_INTO_NONE, NULL_PTR, NKINDS };
static const char *const kinds[] = { "in a PROT_NONE page",
				     "running on into a PROT_NONE page",
				     "a /dev/fd path running on into a PROT_NONE page",
				     "NULL" };

static char *page;	  /* readable and writable; the next one PROT_NONE */
static long page_size;
static int held = -1;	  /* a virtual descriptor, in the "hold" config */

/* A pointer of the given kind, for an object of size bytes (a string for
 * the two string kinds). */
static void *bad(enum kind kind, size_t size)
{
	char number[16];
	size_t len;

	switch (kind) {
	case NONE_PAGE:
		return page + page_size;
	case INTO_NONE:
		/* The first half readable, the rest not. */
		if (size <= 1) {
			memset(page + page_size - 32, 'x', 32);
			memcpy(page + page_size - 32, "/tmp/", 5);
			return page + page_size - 32;
		}
		memset(page + page_size - size / 2, 0, size / 2);
		return page + page_size - size / 2;
	case FDPATH_INTO_NONE:
		/* "/dev/fd/<a virtual number>" with no NUL before the page
		 * ends: the number of the descriptor held, where there is
		 * one, so that it would be rewritten if it could be read. */
		snprintf(number, sizeof(number), "%d",
			 held >= 0 ? held : (int)FD_UNSEQ_BASE);
		len = strlen("/dev/fd/") + strlen(number);
		memcpy(page + page_size - len, "/dev/fd/", 8);
		memcpy(page + page_size - len + 8, number, strlen(number));
		return page + page_size - len;
	default:
		return NULL;
	}
}

static long path_call(int call, const char *path)
{
	char buf[64], *argv[] = { "true", NULL };
	struct stat st;
	struct statx stx;
	struct file_handle *fh = (struct file_handle *)buf;
	int mount, fd;
	pid_t pid;
	FILE *fp;
	DIR *dir;

	fh->handle_bytes = sizeof(buf) - sizeof(*fh);
	switch (call) {
	case 0: return open(path, O_RDONLY);
	case 1: return open(path, O_WRONLY | O_CREAT, 0600);
	case 2: return openat(AT_FDCWD, path, O_RDONLY);
	case 3: return creat(path, 0600);
	case 4: return syscall(SYS_openat, AT_FDCWD, path, O_RDONLY, 0);
	case 5: return stat(path, &st);
	case 6: return lstat(path, &st);
	case 7: return fstatat(AT_FDCWD, path, &st, 0);
	case 8: return statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx);
	case 9: return access(path, F_OK);
	case 10: return faccessat(AT_FDCWD, path, F_OK, 0);
	case 11: return readlink(path, buf, sizeof(buf));
	case 12: return name_to_handle_at(AT_FDCWD, path, fh, &mount, 0);
	case 13: return truncate(path, 0);
	case 14: return fchmodat(AT_FDCWD, path, 0600, 0);
	case 15: return fchownat(AT_FDCWD, path, getuid(), getgid(), 0);
	case 16: return utimensat(AT_FDCWD, path, NULL, 0);
	case 17: return chdir(path);
	case 18: return linkat(AT_FDCWD, path, AT_FDCWD, "/tmp/ufd-efault-link", 0);
	case 19:
		fd = inotify_init1(IN_CLOEXEC);
		return inotify_add_watch(fd, path, IN_ALL_EVENTS);
	case 20:
	case 21:
		fp = fopen(path, call == 20 ? "r" : "w");
		return fp ? 0 : -1;
	case 22:
		dir = opendir(path);
		return dir ? 0 : -1;
	case 23: return execve(path, argv, environ);
	default:
		/* posix_spawn returns the error number. */
		errno = posix_spawn(&pid, path, NULL, NULL, argv, environ);
		return errno ? -1 : waitpid(pid, NULL, 0) == pid ? 0 : -2;
	}
}

/* A connected pair of sockets, the second one's descriptor in *other. */
static int sockets(int *other)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	*other = sv[1];
	return sv[0];
}

static long memory_call(int call, enum kind kind)
{
	struct pollfd *pfd = bad(kind, 2 * sizeof(struct pollfd));
	struct timespec zero = { 0, 0 };
	struct timeval tv = { 0, 0 };
	struct msghdr msg = { 0 };
	struct iovec iov = { "x", 1 };
	int other = -1, s, fd;

	switch (call) {
	case 0: return poll(pfd, 2, 0);
	case 1: return ppoll(pfd, 2, &zero, NULL);
	case 2: return select(1, bad(kind, sizeof(fd_set)), NULL, NULL, &tv);
	case 3: return pselect(1, bad(kind, sizeof(fd_set)), NULL, NULL, &zero, NULL);
	case 4:
		s = sockets(&other);
		return sendmsg(s, bad(kind, sizeof(struct msghdr)), 0);
	case 5:
		s = sockets(&other);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = bad(kind, CMSG_SPACE(sizeof(int)));
		msg.msg_controllen = CMSG_SPACE(sizeof(int));
		return sendmsg(s, &msg, 0);
	case 6:
		s = sockets(&other);
		return sendmmsg(s, bad(kind, 2 * sizeof(struct mmsghdr)), 2, 0);
	case 7:
		s = sockets(&other);
		send(other, "x", 1, 0);
		return recvmsg(s, bad(kind, sizeof(struct msghdr)), MSG_DONTWAIT);
	case 8:
		fd = open("/tmp", O_RDONLY | O_DIRECTORY);
		return ioctl(fd, FICLONERANGE, bad(kind, sizeof(struct file_clone_range)));
	case 9: return pipe(bad(kind, 2 * sizeof(int)));
	case 10: return pipe2(bad(kind, 2 * sizeof(int)), O_CLOEXEC);
	case 11: return socketpair(AF_UNIX, SOCK_STREAM, 0, bad(kind, 2 * sizeof(int)));
	case 12: return getrlimit(RLIMIT_NOFILE, bad(kind, sizeof(struct rlimit)));
	case 13: return setrlimit(RLIMIT_NOFILE, bad(kind, sizeof(struct rlimit)));
	case 14: return signalfd(-1, bad(kind, sizeof(sigset_t)), SFD_CLOEXEC);
	/* the kernel's struct sigaction: handler, flags, restorer, mask */
	case 15: return syscall(SYS_rt_sigaction, SIGUSR2, bad(kind, 4 * sizeof(long)),
				NULL, 8);
	case 16: return syscall(SYS_rt_sigaction, SIGUSR2, NULL,
				bad(kind, 4 * sizeof(long)), 8);
	case 17: /* BPF_MAP_LOOKUP_ELEM's union bpf_attr */
		return syscall(SYS_bpf, 1, bad(kind, 32), 32);
	case 18: /* IORING_REGISTER_FILES */
		fd = (int)syscall(SYS_io_uring_setup, 2, (char[120]){ 0 });
		return fd < 0 ? -2 : syscall(SYS_io_uring_register, fd, 2,
					      bad(kind, 4 * sizeof(int)), 4);
	case 19: /* IORING_REGISTER_FILES_UPDATE */
		fd = (int)syscall(SYS_io_uring_setup, 2, (char[120]){ 0 });
		return fd < 0 ? -2 : syscall(SYS_io_uring_register, fd, 6,
					      bad(kind, 16), 1);
	default: /* LANDLOCK_RULE_PATH_BENEATH */
		fd = (int)syscall(SYS_landlock_create_ruleset,
				  (unsigned long long[]){ 1 }, 8, 0);
		return fd < 0 ? -2 : syscall(SYS_landlock_add_rule, fd, 1,
					      bad(kind, 12), 0);
	}
}

/* Run one case in a child; print its line. */
static void run_case(const char *name, int call, enum kind kind, int path)
{
	int status, p[2];
	char line[128] = { 0 };
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		exit(2);
	pid = fork();
	if (pid == 0) {
		long r;
		int e;

		errno = 0;
		r = path ? path_call(call, bad(kind, 1)) : memory_call(call, kind);
		e = errno;
		n = snprintf(line, sizeof(line), "ret %ld errno %s", r < 0 ? r : 0,
			     r < 0 && e ? strerrorname_np(e) : "0");
		if (write(p[1], line, (size_t)n) != n)
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		snprintf(line, sizeof(line), "killed by %s", sigabbrev_np(WTERMSIG(status)));
	else if (n <= 0)
		snprintf(line, sizeof(line), "no result, status %#x", status);
	printf("%s, %s: %s\n", name, kinds[kind], line);
}

static int cases(int hold)
{
	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, (size_t)page_size * 2, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || mprotect(page + page_size, (size_t)page_size, PROT_NONE))
		return 2;
	if (hold) {
		/* Under ufd, a virtual descriptor; without, EBADF. */
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		held = dup2(fd, (int)FD_UNSEQ_ALLOC);
	}
	if (chdir("/tmp") != 0)
		return 2;
	for (int c = 0; c < NPATH; c++)
		for (int k = 0; k < NKINDS; k++)
			run_case(path_calls[c], c, (enum kind)k, 1);
	for (int c = 0; c < NMEMORY; c++)
		for (int k = 0; k < NKINDS; k++)
			if (k != FDPATH_INTO_NONE)
				run_case(memory_calls[c], c, (enum kind)k, 0);
	return 0;
}

/* Run "self cases hold|none" with envp; its output into out. */
static int run(const char *self, const char *config, char **envp, char *out,
	       size_t size)
{
	return run_capture((char *[]){ (char *)self, "cases", (char *)config, NULL },
			   envp, out, size);
}

/* Compare two outputs line by line; print the lines that differ. */
static int compare(const char *config, const char *bare, const char *under)
{
	int differ = 0, lines = 0;

	while (*bare || *under) {
		size_t lb = strcspn(bare, "\n"), lu = strcspn(under, "\n");

		lines++;
		if (lb != lu || strncmp(bare, under, lb)) {
			printf("FAIL %s: without ufd: %.*s\n%*s under ufd:   %.*s\n",
			       config, (int)lb, bare, (int)strlen(config) + 5, "",
			       (int)lu, under);
			differ++;
		}
		bare += lb + (bare[lb] == '\n');
		under += lu + (under[lu] == '\n');
	}
	printf("%s: %d of %d cases as without ufd\n", config, lines - differ, lines);
	return differ;
}

int main(int argc, char **argv)
{
	static char bare[65536], under[65536];
	const char *preload = getenv("UFD_TEST_PRELOAD");
	char pre[8192], *bare_env[] = { "PATH=/usr/bin:/bin", "ASAN_OPTIONS=detect_leaks=0", NULL };
	char *ufd_env[] = { bare_env[0], bare_env[1], pre, NULL, NULL };
	static const char *const configs[][2] = {
		{ "ufd, no virtual descriptor", "none" },
		{ "ufd, holding a virtual descriptor", "hold" },
		{ "ufd, UFD_MODE=all", "hold" },
	};
	int failed = 0, sb;

	if (argc == 3 && !strcmp(argv[1], "cases"))
		return cases(!strcmp(argv[2], "hold"));
	if (skip_under_emulator("every case", "qemu-user has no process_vm_readv, so ufd reads the caller's "
				"memory itself (as under a sandbox refusing it): memory "
				"the kernel cannot read faults there"))
		return 77;
	if (!preload) {
		fprintf(stderr, "UFD_TEST_PRELOAD must be set (tests/meson.build)\n");
		return 1;
	}
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", preload);
	sb = run("/proc/self/exe", "hold", bare_env, bare, sizeof(bare));
	if (sb != 0 || !*bare) {
		printf("FAIL: the cases did not run without ufd (status %#x)\n", sb);
		return 1;
	}
	for (int c = 0; c < 3; c++) {
		int su;

		ufd_env[3] = c == 2 ? "UFD_MODE=all" : NULL;
		su = run("/proc/self/exe", configs[c][1], ufd_env, under, sizeof(under));
		if (su != sb) {
			printf("FAIL %s: exit status %#x, without ufd %#x\n", configs[c][0],
			       su, sb);
			failed++;
		}
		failed += compare(configs[c][0], bare, under);
	}
	printf("%s\n", failed ? "FAIL" : "ok");
	return failed ? 1 : 0;
}
