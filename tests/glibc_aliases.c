/* SPDX-License-Identifier: MIT */
/*
 * glibc_aliases.c - glibc's exported second names of descriptor calls
 * (__fcntl, __open, __read, _IO_fdopen, __vfork ...), each called through
 * its own name on the descriptors the program made, for glibc_aliases.sh:
 * it runs this without ufd and under UFD_MODE=all (every descriptor
 * virtual) and compares the output, line by line.  Prints one line a call:
 * its name, its result (a new descriptor as "fd") and errno's name when
 * it failed.  With "virtual" as argv[2], also fails (exit 1) when a
 * descriptor made is not virtual (below 1 << 28), so that an alias that
 * makes descriptors behind ufd's back shows.
 * Usage: glibc_aliases DIR [virtual]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* The names, which glibc exports but no header declares. */
int __open(const char *path, int flags, ...);
int __open64(const char *path, int flags, ...);
int __close(int fd);
ssize_t __read(int fd, void *buf, size_t n);
ssize_t __write(int fd, const void *buf, size_t n);
off_t __lseek(int fd, off_t off, int whence);
ssize_t __pread64(int fd, void *buf, size_t n, off64_t off);
ssize_t __pwrite64(int fd, const void *buf, size_t n, off64_t off);
int __fcntl(int fd, int cmd, ...);
int __dup2(int fd, int to);
int __pipe(int fds[2]);
int __poll(struct pollfd *fds, nfds_t n, int timeout);
int __select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t);
int __connect(int fd, const struct sockaddr *addr, socklen_t len);
void __backtrace_symbols_fd(void *const *buffer, int size, int fd);
long __sysconf(int name);
mqd_t __mq_open_2(const char *name, int oflag);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);
int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
pid_t __vfork(void);
FILE *_IO_fopen(const char *path, const char *mode);
FILE *_IO_fdopen(int fd, const char *mode);
FILE *_IO_popen(const char *command, const char *mode);
int _IO_fclose(FILE *fp);
/* llseek, and on aarch64 __send, which glibc keeps for old programs only
 * (no default version): referred to as they do, by their first
 * version. */
#ifdef __aarch64__
#define FIRST_GLIBC "GLIBC_2.17"
#else
#define FIRST_GLIBC "GLIBC_2.2.5"
#endif
off64_t llseek_old(int fd, off64_t off, int whence);
__asm__(".symver llseek_old, llseek@" FIRST_GLIBC);
ssize_t send_old(int fd, const void *buf, size_t n, int flags);
__asm__(".symver send_old, __send@" FIRST_GLIBC);

static int want_virtual, failed;

/* One line: name, result, errno's name on failure. */
static long show(const char *name, long r)
{
	int e = errno;

	if (r < 0)
		printf("%s: %ld %s\n", name, r, strerrorname_np(e));
	else
		printf("%s: %ld\n", name, r);
	errno = e;
	return r;
}

/* A new descriptor: "fd", checked to be virtual when it should be. */
static int show_fd(const char *name, int fd)
{
	if (fd < 0) {
		show(name, fd);
		return fd;
	}
	printf("%s: fd\n", name);
	if (want_virtual && fd < (1 << 28)) {
		fprintf(stderr, "%s made %d, not a virtual descriptor\n", name, fd);
		failed = 1;
	}
	return fd;
}

#define SHOW(expr) show(#expr, (errno = 0, (long)(expr)))
#define SHOW_FD(expr) show_fd(#expr, (errno = 0, (int)(expr)))

/* The clone child: closes the descriptor it shares with its parent by
 * number only (its own table is a copy). */
static int clone_child(void *arg)
{
	close(*(int *)arg);
	return 0;
}

/* Is a write lock on path held by another process (this one)?  Asked
 * from a child. */
static const char *lock_held(const char *path)
{
	int st, fd;
	pid_t pid = fork();

	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		fd = open(path, O_RDWR);
		if (fd < 0 || fcntl(fd, F_GETLK, &fl) < 0)
			_exit(2);
		_exit(fl.l_type == F_WRLCK ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return "?";
	return WEXITSTATUS(st) == 1 ? "held" : WEXITSTATUS(st) == 0 ? "dropped" : "?";
}

int main(int argc, char **argv)
{
	char buf[64] = "", mq[64];
	int fd, fd2, dir, p[2], s[2], lsn;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct pollfd pfd;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { 0, 0 };
	fd_set wset;
	void *frames[1] = { (void *)main };
	dev_t dev = 0;
	FILE *f;
	pid_t pid;
	int st;
	static char stack[64 * 1024] __attribute__((aligned(16)));

	if (argc < 2 || argc > 3)
		return 2;
	want_virtual = argc == 3 && !strcmp(argv[2], "virtual");
	if (chdir(argv[1]) < 0)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	/* "limit": only __sysconf, after a soft limit below the hard one
	 * and, under ufd, a virtual descriptor: ufd then holds the kernel's
	 * limit above the application's (not under UFD_MODE=all), and
	 * __sysconf must give the application's. */
	if (argc == 3 && !strcmp(argv[2], "limit")) {
		int (*nonseqfd)(int, unsigned) =
			(int (*)(int, unsigned))dlsym(RTLD_DEFAULT, "nonseqfd");
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max >= 128) {
			rl.rlim_cur = 64;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (nonseqfd && nonseqfd(0, 0) < 0)
			return 1;
		printf("__sysconf(_SC_OPEN_MAX): %ld\n", __sysconf(_SC_OPEN_MAX));
		return 0;
	}

	/* Files: made, read, written, moved in. */
	fd2 = SHOW_FD(__open("data", O_RDWR | O_CREAT | O_TRUNC, 0600));
	SHOW(close(fd2));
	fd = SHOW_FD(open("data", O_RDWR));
	SHOW(__write(fd, "0123456789", 10));
	SHOW(__lseek(fd, 2, SEEK_SET));
	SHOW(__read(fd, buf, 3));
	printf("read: %.3s\n", buf);
	SHOW(__pwrite64(fd, "AB", 2, 8));
	SHOW(__pread64(fd, buf, 4, 6));
	printf("pread: %.4s\n", buf);
	SHOW(llseek_old(fd, 1, SEEK_SET));
	fd2 = SHOW_FD(__open64("data", O_RDONLY));
	SHOW(__close(fd2));
	SHOW(__close(fd2));

	/* fcntl: flags, a duplicate, and a record lock, which a later
	 * descriptor for the file must not drop. */
	SHOW(__fcntl(fd, F_GETFL) & O_ACCMODE);
	SHOW(__fcntl(fd, F_SETFD, FD_CLOEXEC));
	SHOW(__fcntl(fd, F_GETFD));
	fd2 = SHOW_FD(__fcntl(fd, F_DUPFD, 3));
	SHOW(close(fd2));
	SHOW(__fcntl(fd, F_SETLK, &fl));
	fd2 = SHOW_FD(open("data", O_RDONLY));
	printf("lock after another open: %s\n", lock_held("data"));
	SHOW(close(fd2));

	/* Pipes, dup2, poll, select. */
	SHOW(__pipe(p));
	show_fd("__pipe[0]", p[0]);
	show_fd("__pipe[1]", p[1]);
	SHOW(close(p[0]));
	SHOW(close(p[1]));
	SHOW(pipe(p));
	SHOW(__write(p[1], "x", 1));
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	SHOW(__poll(&pfd, 1, 0));
	printf("revents: %#x\n", pfd.revents);
	SHOW(__dup2(p[1], 7));
	FD_ZERO(&wset);
	FD_SET(7, &wset);
	SHOW(__select(8, NULL, &wset, NULL, &tv));
	SHOW(close(7));

	/* Sockets. */
	lsn = SHOW_FD(socket(AF_UNIX, SOCK_DGRAM, 0));
	snprintf(sun.sun_path, sizeof(sun.sun_path), "sock");
	SHOW(bind(lsn, (struct sockaddr *)&sun, sizeof(sun)));
	s[0] = SHOW_FD(socket(AF_UNIX, SOCK_DGRAM, 0));
	SHOW(__connect(s[0], (struct sockaddr *)&sun, sizeof(sun)));
	SHOW(send_old(s[0], "dgram", 5, 0)); /* __send */
	SHOW(recv(lsn, buf, sizeof(buf), MSG_DONTWAIT));

	/* Stack symbols written to a descriptor. */
	fd2 = SHOW_FD(open("frames", O_RDWR | O_CREAT | O_TRUNC, 0600));
	__backtrace_symbols_fd(frames, 1, fd2);
	printf("frames written: %d\n", lseek(fd2, 0, SEEK_END) > 0);
	SHOW(close(fd2));

	/* A directory descriptor. */
	dir = SHOW_FD(open(".", O_RDONLY | O_DIRECTORY));
	SHOW(__xmknodat(0, dir, "fifo", S_IFIFO | 0600, &dev));

	/* Message queues (fortify's __mq_open_2, without O_CREAT). */
	snprintf(mq, sizeof(mq), "/ufd-aliases-%d", (int)getpid());
	fd2 = mq_open(mq, O_RDWR | O_CREAT, 0600, NULL);
	if (fd2 >= 0) {
		int q = SHOW_FD(__mq_open_2(mq, O_RDWR));

		SHOW(mq_close(q));
		mq_close(fd2);
		mq_unlink(mq);
	} else {
		printf("mq_open: %s\n", strerrorname_np(errno));
	}

	/* Streams. */
	f = _IO_fopen("data", "r");
	printf("_IO_fopen: %s\n", f ? "stream" : strerrorname_np(errno));
	if (f) {
		show_fd("fileno(_IO_fopen)", fileno(f));
		SHOW(_IO_fclose(f));
	}
	fd2 = SHOW_FD(open("data", O_RDONLY));
	f = _IO_fdopen(fd2, "r");
	printf("_IO_fdopen: %s\n", f ? "stream" : strerrorname_np(errno));
	if (f) {
		printf("fileno is the descriptor: %d\n", fileno(f) == fd2);
		printf("fgets: %s\n", fgets(buf, 4, f) ? buf : "NULL");
		SHOW(_IO_fclose(f));
		SHOW(close(fd2)); /* closed with the stream */
	}
	f = _IO_popen("echo popen", "r");
	printf("_IO_popen: %s\n", f ? "stream" : strerrorname_np(errno));
	if (f) {
		show_fd("fileno(_IO_popen)", fileno(f));
		printf("fgets: %s", fgets(buf, sizeof(buf), f) ? buf : "NULL\n");
		SHOW(pclose(f));
	}

	/* Children sharing the memory: a close in the child must not close
	 * the parent's descriptor. */
	fd2 = SHOW_FD(open("data", O_RDONLY));
	pid = __clone(clone_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
		      &fd2);
	printf("__clone: %s\n", pid > 0 ? "child" : strerrorname_np(errno));
	if (pid > 0)
		waitpid(pid, &st, 0);
	SHOW(__pread64(fd2, buf, 2, 0));
	pid = __vfork();
	if (pid == 0) {
		close(fd2);
		_exit(0);
	}
	printf("__vfork: %s\n", pid > 0 ? "child" : strerrorname_np(errno));
	if (pid > 0)
		waitpid(pid, &st, 0);
	SHOW(__pread64(fd2, buf, 2, 0));
	SHOW(close(fd2));

	SHOW(__close(fd));
	return failed;
}
