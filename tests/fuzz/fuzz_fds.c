/* SPDX-License-Identifier: MIT */
/*
 * fuzz_fds - a model-based differential fuzzer of descriptor operations.
 *
 * The driver turns a seed into a list of operations on *handles* (logical
 * descriptors, named after the operation that made them) and runs the list
 * in fresh child processes, one per configuration: bare (no ufd),
 * transparent (LD_PRELOAD=libufd.so) and all (also UFD_MODE=all).  Each
 * run keeps a model of its descriptors (number, file, flags, content) and
 * checks the invariants after every step; each writes a log of what every
 * operation returned, in handle terms, and the logs must agree with the
 * bare run's line by line.  See README.md here for the number bands that
 * make one list meaningful in every configuration.
 *
 * Modes:
 *   fuzz_fds [--seeds A-B] [--ops N] [--config LIST] [--without LIST] [-v]
 *   fuzz_fds --run OPSFILE LOGFILE CONFIG    (one run; internal)
 *   fuzz_fds --check REPORT EXPECTED [locks=MASK]  (exec/spawn check; internal)
 *
 * The fuzzer is not linked against ufd: nonseqfd and ufd_backing_fd are
 * found with dlsym, and the driver itself runs without ufd.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ufd.h"
/* Raw system calls, past ufd (OP_LOCK). */
#include "../../src/sys.h"

/* ASan's readlink interceptor takes strlen of the path before the call:
 * with an unreadable path the sanitizer itself dies, in every run (it is
 * loaded before ufd), so OP_BADPTR leaves readlink out there. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_BUILD 1
#endif
#endif
#ifndef ASAN_BUILD
#define ASAN_BUILD 0
#endif

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

extern char **environ;

/* ---- number bands ----
 *
 * Every run starts at soft limit S0 (the driver sets it).  In the bare run
 * the numbers that ufd would make virtual live in real bands above the
 * application's own ones, in the same order, so that a close_range over a
 * band closes the same handles in every configuration:
 *   sequence  (open, dup, ...)   bare/transparent: lowest free from 0;
 *                                all: virtual at random
 *   chosen    dup2 onto C0+k     real everywhere
 *   backing   stand-ins BK_BARE+k in bare for ufd's backing numbers:
 *                                a number the process does not have
 *   random    nonseqfd, dup2(fd, FD_UNSEQ_ALLOC), F_DUPFD(FD_UNSEQ_BASE+k)
 *                                bare: F_DUPFD from RV_BARE(+k)
 *   slots     "virtual slot k"   bare: VS_BARE + k; ufd: VS_UFD + k
 * VS_UFD sits far above the range ufd draws random numbers from, so a
 * random virtual descriptor never lands on a slot.
 */
#define S0        1024
#define C0        100
#define NCHOSEN   16
#define BK_BARE   140
#define RV_BARE   200
#define VS_BARE   400
#define VS_UFD    ((int)(FD_UNSEQ_BASE + (1U << 24)))
#define NVS       32
#define BARE_TOP  512  /* the lowest soft limit every bare band fits under */
#define MAX_SEQ   40   /* live handles, so the sequence stays below C0 */

#define MAXOPS    4096
#define MAXH      (3 + 2 * MAXOPS)
#define NFILES    4
#define MAXSIZE   4096
#define LOGSIZE   (1 << 20)

enum config { CFG_BARE, CFG_TRANSPARENT, CFG_ALL, CFG_RANDOM, CFG_CLOEXEC, NCFG };
static const char *const cfg_name[] = { "bare", "transparent", "all", "random",
					"cloexec" };
/* UFD_MODE=random draws below RANDOM_MAX (UFD_RANDOM_MAX): the sequence
 * band, under the chosen one, so that the other bands stay as they are. */
#define RANDOM_MAX C0

/* ---- operations ---- */

enum opkind {
	OP_OPEN, OP_PIPE, OP_SOCKETPAIR, OP_MEMFD, OP_DUP, OP_DUP2, OP_FDUPFD,
	OP_SETFD, OP_CLOSE, OP_CLOSE_RANGE, OP_CLOSEFROM, OP_NONSEQ, OP_PWRITE,
	OP_PREAD, OP_FORK, OP_EXEC, OP_SPAWN, OP_RLIMIT, OP_DIP, OP_BACKING,
	OP_BADNUM, OP_BADPTR, OP_PASS, OP_REOPEN, OP_RAWCLONE, OP_LOCK, OP_FILESCLONE,
	NOPKIND
};

/* Families, for --without. */
enum family {
	FAM_BASIC = 1, FAM_VIRTUAL = 2, FAM_BACKING = 4, FAM_RLIMIT = 8,
	FAM_FORK = 16, FAM_EXEC = 32, FAM_CLOSERANGE = 64, FAM_HOSTILE = 128,
	FAM_IO = 256, FAM_BADPTR = 512, FAM_LOCKS = 1024,
	/* not a family of ops but a way to run them (--signals): off unless
	 * asked, and not in families[] (it changes no list) */
	FAM_SIGNALS = 1 << 20,
};
static const struct { const char *name; unsigned bit; } families[] = {
	{ "basic", FAM_BASIC }, { "virtual", FAM_VIRTUAL },
	{ "backing", FAM_BACKING }, { "rlimit", FAM_RLIMIT },
	{ "fork", FAM_FORK }, { "exec", FAM_EXEC },
	{ "closerange", FAM_CLOSERANGE }, { "hostile", FAM_HOSTILE },
	{ "io", FAM_IO }, { "badptr", FAM_BADPTR }, { "locks", FAM_LOCKS },
};

/* dup2 targets and F_DUPFD starting points. */
enum { T_CHOSEN, T_STD, T_HANDLE, T_SLOT, T_ALLOC, T_HOSTILE, NT };
enum { F_LOW, F_SLOT, F_BASE, F_HOSTILE, NF };
/* close_range shapes. */
enum { R_ALL, R_ONE, R_SLOTS, R_CHOSEN, R_INVERTED, R_BADFLAGS, R_BACKING, NR };
/* calls tried on a number the process does not have. */
enum {
	X_CLOSE, X_FSTAT, X_PREAD, X_PWRITE, X_FTRUNCATE, X_LSEEK, X_GETFD,
	X_GETFL, X_DUP, X_DUP2FROM, X_IOCTL, X_PROCPATH, X_CLOSERANGE,
	X_DUP2ONTO, X_DUPFDFROM, NX
};
static const char *const x_name[] = {
	"close", "fstat", "pread", "pwrite", "ftruncate", "lseek",
	"fcntl(F_GETFD)", "fcntl(F_GETFL)", "dup", "dup2(n, h)", "ioctl(FIONREAD)",
	"open(/proc/self/fd/n)", "close_range(n, n)", "dup2(h, n)",
	"fcntl(h, F_DUPFD, n)",
};

/*
 * OP_BADPTR: a call with memory the kernel cannot read (R.bad, a
 * PROT_NONE page after a readable one).  Every one fails before it can
 * change the process's state, so the kernel's answer (EFAULT) is all there
 * is to compare; under ufd the same answer must come, never a crash.  a:
 * the call; b: how the memory is bad; c: a detail of b.  The path calls
 * are those whose failure leaves nothing behind.
 */
enum {
	B_OPEN, B_CREAT, B_STAT, B_ACCESS, B_READLINK, B_TRUNCATE, B_FCHMODAT,
	B_CHDIR, NBPATH = B_CHDIR + 1,
	B_POLL = NBPATH, B_PPOLL, B_SENDMSG, B_SELECT, B_PSELECT, NB
};
static const char *const b_name[] = {
	"open", "open", "stat", "access", "readlink", "truncate", "fchmodat",
	"chdir", "poll", "ppoll", "sendmsg", "select", "pselect",
};
/* Paths: in the page; a readable start (c: which, below) running on into
 * it; "/dev/fd/N" or "/proc/self/fd/N" (N a live handle's number, under
 * ufd its virtual one where it has one) with no NUL before the page ends,
 * its last c digits (0-2, never the first) in the page. */
enum { P_NONE, P_INTO, P_DEVFD, P_PROCFD, NP };
static const char *const p_start[] = { "f0", "./f1", "/tmp/", "/dev/fd/",
				       "/proc/self/fd/" };
#define NPSTART (int)(sizeof(p_start) / sizeof(p_start[0]))
/* poll: the array in the page (c + 1 entries); or c % 3 + 1 readable
 * entries naming handles h1 and h2 (h1 again if h2 is gone), and c / 3 + 1
 * more in the page. */
enum { L_NONE, L_INTO, NL };
/* sendmsg on socket h2: the msghdr in the page; a msghdr whose first
 * hdr_readable[c] bytes are readable; control data (SCM_RIGHTS, three
 * times h1's number) in the page; control data whose first
 * ctl_readable[c] bytes are readable (half its header, its header, the
 * header and two of the three numbers). */
enum { M_HDR_NONE, M_HDR_INTO, M_CTL_NONE, M_CTL_INTO, NM };
static const int hdr_readable[] = { 16, 32, 48 };
static const int ctl_readable[] = { 8, 16, 24 };
/* select, pselect: set b (read, write, except) in the page, the others
 * NULL; nfds sel_nfds[c]. */
static const int sel_nfds[] = { 1, 3, 16, 64 };

struct op {
	int kind, id;		/* id: stable across shrinking; names handles */
	int a, b, c;
	int h1, h2;		/* handle references, -1 if none */
};

/* Handle ids: 0-2 the standard streams, 3 + 2*id + sub those op id made. */
static int hid(int opid, int sub) { return 3 + 2 * opid + sub; }

static void hname(char *buf, size_t n, int h)
{
	if (h < 3)
		snprintf(buf, n, "fd%d", h);
	else
		snprintf(buf, n, "h%d%s", (h - 3) / 2, (h - 3) % 2 ? "b" : "");
}

static const int hostile[] = {
	-1, -2, INT_MIN, INT_MAX, 1 << 20, (1 << 20) - 1, FD_UNSEQ_BASE - 1,
	(int)FD_UNSEQ_LIMIT + 1, (int)(FD_UNSEQ_LIMIT + 12345),
};
#define NHOSTILE (int)(sizeof(hostile) / sizeof(hostile[0]))
static const int setfd_val[] = { 0, FD_CLOEXEC, FD_CLOFORK,
				 FD_CLOEXEC | FD_CLOFORK, 0xff };
static const unsigned range_flags[] = { 0, CLOSE_RANGE_CLOEXEC,
					CLOSE_RANGE_UNSHARE,
					CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE };

/* ---- the op list as text: one op a line, and as C-like lines ---- */

/* OP_BADPTR as a C-like line; a, b: the names of h1, h2. */
static void badptr_print(FILE *f, const struct op *o, const char *a, const char *b)
{
	static const char *const call[][2] = {
		{ "open(", ", O_RDONLY|O_CLOEXEC)" },
		{ "open(", ", O_WRONLY|O_CREAT|O_CLOEXEC, 0600)" },
		{ "stat(", ", &st)" }, { "access(", ", F_OK)" },
		{ "readlink(", ", buf, 64)" }, { "truncate(", ", 0)" },
		{ "fchmodat(AT_FDCWD, ", ", 0600, 0)" }, { "chdir(", ")" },
	};
	static const char *const set[] = { "<in PROT_NONE>, NULL, NULL",
					   "NULL, <in PROT_NONE>, NULL",
					   "NULL, NULL, <in PROT_NONE>" };
	static const char *const msgflags = "MSG_DONTWAIT|MSG_NOSIGNAL";
	char p[128], ents[64] = "";

	if (o->a < NBPATH) {
		if (o->b == P_NONE)
			snprintf(p, sizeof p, "<in PROT_NONE>");
		else if (o->b == P_INTO)
			snprintf(p, sizeof p, "<\"%s\" running into PROT_NONE>",
				 p_start[o->c]);
		else if (o->c)
			snprintf(p, sizeof p, "<\"%s\" number of %s, its last %d digit(s) "
				 "(not the first) in PROT_NONE>",
				 o->b == P_DEVFD ? "/dev/fd/" : "/proc/self/fd/", a, o->c);
		else
			snprintf(p, sizeof p, "<\"%s\" number of %s running into PROT_NONE>",
				 o->b == P_DEVFD ? "/dev/fd/" : "/proc/self/fd/", a);
		fprintf(f, "%s%s%s;", call[o->a][0], p, call[o->a][1]);
		return;
	}
	switch (o->a) {
	case B_POLL: case B_PPOLL: {
		int n = o->b == L_NONE ? o->c + 1 : o->c % 3 + 1 + o->c / 3 + 1;

		if (o->b == L_NONE) {
			snprintf(p, sizeof p, "<in PROT_NONE>");
		} else {
			for (int i = 0; i < o->c % 3 + 1; i++)
				snprintf(ents + strlen(ents), sizeof ents - strlen(ents),
					 "%s%s", i ? ", " : "", i % 2 ? b : a);
			snprintf(p, sizeof p, "<{%s} then %d in PROT_NONE>", ents,
				 o->c / 3 + 1);
		}
		if (o->a == B_POLL)
			fprintf(f, "poll(%s, %d, 0);", p, n);
		else
			fprintf(f, "ppoll(%s, %d, {0, 0}, NULL);", p, n);
		break;
	}
	case B_SENDMSG:
		switch (o->b) {
		case M_HDR_NONE:
			fprintf(f, "sendmsg(%s, <msghdr in PROT_NONE>, %s);", b, msgflags);
			break;
		case M_HDR_INTO:
			fprintf(f, "sendmsg(%s, <msghdr, its first %d bytes readable>, %s);",
				b, hdr_readable[o->c], msgflags);
			break;
		default:
			fprintf(f, "sendmsg(%s, {iov \"x\", control SCM_RIGHTS {%s, %s, %s} ", b,
				a, a, a);
			if (o->b == M_CTL_NONE)
				fprintf(f, "in PROT_NONE}, %s);", msgflags);
			else
				fprintf(f, "its first %d of %zu bytes readable}, %s);",
					ctl_readable[o->c], CMSG_SPACE(3 * sizeof(int)), msgflags);
			break;
		}
		break;
	default:
		fprintf(f, "%s(%d, %s, %s);", b_name[o->a], sel_nfds[o->c], set[o->b],
			o->a == B_SELECT ? "{0, 0}" : "{0, 0}, NULL");
		break;
	}
}

static void op_print(FILE *f, const struct op *o)
{
	char a[16], b[16], r0[16], r1[16];
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR" };

	hname(a, sizeof a, o->h1 < 0 ? 0 : o->h1);
	hname(b, sizeof b, o->h2 < 0 ? 0 : o->h2);
	hname(r0, sizeof r0, hid(o->id, 0));
	hname(r1, sizeof r1, hid(o->id, 1));
	switch (o->kind) {
	case OP_OPEN:
		fprintf(f, "%s = open(\"f%d\", %s%s%s);", r0, o->a, acc[o->b],
			o->c & 1 ? "|O_CLOEXEC" : "", o->c & 2 ? "|O_CLOFORK" : "");
		break;
	case OP_PIPE:
		fprintf(f, "pipe2({%s, %s}, %s);", r0, r1, o->c ? "O_CLOEXEC" : "0");
		break;
	case OP_SOCKETPAIR:
		fprintf(f, "socketpair(AF_UNIX, SOCK_STREAM%s%s, 0, {%s, %s});",
			o->c & 1 ? "|SOCK_CLOEXEC" : "", o->c & 2 ? "|SOCK_CLOFORK" : "", r0, r1);
		break;
	case OP_MEMFD:
		fprintf(f, "%s = memfd_create(\"m\", %s);", r0,
			o->c ? "MFD_CLOEXEC" : "0");
		break;
	case OP_DUP:
		fprintf(f, "%s = dup(%s);", r0, a);
		break;
	case OP_DUP2: {
		static const char *const how[] = { "dup2", "dup3", "dup3", "dup3", "dup3",
						   "dup3" };
		static const char *const fl[] = { "", ", 0", ", O_CLOEXEC", ", 0x4 /* bad */",
						  ", O_CLOFORK", ", O_CLOFORK|O_CLOEXEC" };
		char t[48];

		switch (o->a) {
		case T_CHOSEN: snprintf(t, sizeof t, "%d", C0 + o->b); break;
		case T_STD: snprintf(t, sizeof t, "%d", o->b); break;
		case T_HANDLE: snprintf(t, sizeof t, "number of %s", b); break;
		case T_SLOT: snprintf(t, sizeof t, "SLOT(%d)", o->b); break;
		case T_ALLOC: snprintf(t, sizeof t, "FD_UNSEQ_ALLOC"); break;
		default: snprintf(t, sizeof t, "%d", hostile[o->b]); break;
		}
		fprintf(f, "%s = %s(%s, %s%s);", r0, how[o->c], a, t, fl[o->c]);
		break;
	}
	case OP_FDUPFD: {
		char t[48];

		switch (o->a) {
		case F_LOW: snprintf(t, sizeof t, "%d", o->b); break;
		case F_SLOT: snprintf(t, sizeof t, "SLOT(%d)", o->b); break;
		case F_BASE: snprintf(t, sizeof t, "FD_UNSEQ_BASE + %d", o->b); break;
		default: snprintf(t, sizeof t, "%d", hostile[o->b]); break;
		}
		fprintf(f, "%s = fcntl(%s, %s, %s);", r0, a,
			o->c == 2 ? "F_DUPFD_CLOFORK" : o->c ? "F_DUPFD_CLOEXEC" : "F_DUPFD", t);
		break;
	}
	case OP_SETFD:
		fprintf(f, "fcntl(%s, F_SETFD, %#x);", a, setfd_val[o->a]);
		break;
	case OP_CLOSE:
		fprintf(f, "close(%s);", a);
		break;
	case OP_CLOSE_RANGE: {
		static const char *const shape[] = {
			"3, ~0U", "number of A, number of A", "SLOT(0), SLOT(31)",
			"C0, C0 + 15", "number of A + 1, number of A",
			"3, ~0U, 0x8 /* bad */", "backing of A, backing of A",
		};
		fprintf(f, "close_range(%s, flags %#x);  /* A = %s */",
			shape[o->a], range_flags[o->b], a);
		break;
	}
	case OP_CLOSEFROM:
		fprintf(f, "closefrom(%s);", o->a ? "SLOT(0)" : "3");
		break;
	case OP_NONSEQ:
		fprintf(f, "%s = nonseqfd(%s, %#x);", r0, a, o->a);
		break;
	case OP_PWRITE:
		fprintf(f, "pwrite(%s, <%d bytes of %#x>, %d, %d);", a, o->b,
			o->c & 0xff, o->b, o->a);
		break;
	case OP_PREAD:
		fprintf(f, "pread(%s, buf, %d, %d);", a, o->b, o->a);
		break;
	case OP_FORK:
		fprintf(f, "fork();  /* the child checks its descriptors */");
		break;
	case OP_EXEC:
		fprintf(f, "fork(); execve(self --check);  /* it reports what it inherited */");
		break;
	case OP_SPAWN:
		fprintf(f, "posix_spawn(self --check);  /* it reports what it inherited */");
		break;
	case OP_RLIMIT:
		fprintf(f, "setrlimit(RLIMIT_NOFILE, soft %d);  /* then getrlimit, sysconf */",
			o->a);
		break;
	case OP_DIP: {
		static const char *const what[] = {
			"open", "dup", "F_DUPFD(3)", "pipe2", "nonseqfd",
			"dup2(FD_UNSEQ_ALLOC)", "F_DUPFD(SLOT(0))",
			"",
		};
		if (o->b == 7)
			fprintf(f, "setrlimit(soft %s); sendmsg(%s, SCM_RIGHTS {%s}); "
				"recvmsg(its peer, MSG_CMSG_CLOEXEC); setrlimit(back);",
				o->a ? "highest + 1 + r" : "0", b, a);
		else
			fprintf(f, "setrlimit(soft %s); %s(%s); setrlimit(back);",
				o->a ? "highest + 1 + r" : "0", what[o->b], a);
		break;
	}
	case OP_BACKING:
		fprintf(f, "%s on n = backing of %s %+d;", x_name[o->a], a, o->b);
		break;
	case OP_BADNUM:
		fprintf(f, "%s on n = %d;", x_name[o->a], hostile[o->b]);
		break;
	case OP_BADPTR:
		badptr_print(f, o, a, b);
		break;
	case OP_LOCK:
		if (o->a)
			fprintf(f, "child: F_GETLK on f0-f%d;", NFILES - 1);
		else
			fprintf(f, "%s(%s, F_SETLK, whole file, F_RDLCK if only "
				"readable else F_WRLCK);",
				o->id & 1 ? "syscall(SYS_fcntl, " : "fcntl", a);
		break;
	case OP_REOPEN:
		fprintf(f, "%s = open(\"%s<number of %s>\", O_RDONLY%s);", r0,
			o->a ? "/proc/self/fd/" : "/dev/fd/", a, o->c ? "|O_CLOEXEC" : "");
		break;
	case OP_RAWCLONE:
		fprintf(f, "%s(CLONE_VM | CLONE_VFORK) child: %s%s%sclose_range(3, ~0U, 0); "
			"execve(/bin/true);", o->a ? "asm clone" : "clone", o->a ? "" : "close(",
			o->a ? "" : a, o->a ? "" : "); ");
		break;
	case OP_FILESCLONE:
		fprintf(f, "fork child: fd = open(/dev/zero%s)%s; %s(CLONE_FILES) child: ",
			(o->b & 3) == 3 ? ", O_CLOEXEC" : "", o->c ? "; fd = nonseqfd(fd)" : "",
			o->a ? "syscall(SYS_clone" : "clone");
		if ((o->b & 3) == 0)
			fprintf(f, "close(fd)");
		else if ((o->b & 3) == 1)
			fprintf(f, "close_range(fd, fd, CLOSE_RANGE_CLOEXEC)");
		else
			fprintf(f, "fcntl(fd, F_SETFD, %s)", (o->b & 3) == 2 ? "FD_CLOEXEC" : "0");
		fprintf(f, "; then open(/dev/null), fcntl(fd, F_GETFD), fstat(fd);");
		break;
	case OP_PASS:
		fprintf(f, "sendmsg(%s, SCM_RIGHTS {%s%s%s}); recvmsg(its peer%s) -> {%s%s%s};",
			b, a, o->a ? ", " : "", o->a ? a : "",
			o->c ? ", MSG_CMSG_CLOEXEC" : "", r0, o->a ? ", " : "", o->a ? r1 : "");
		break;
	}
}

static int ops_save(const char *path, const struct op *ops, int n)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	for (int i = 0; i < n; i++)
		fprintf(f, "%d %d %d %d %d %d %d\n", ops[i].kind, ops[i].id,
			ops[i].a, ops[i].b, ops[i].c, ops[i].h1, ops[i].h2);
	return fclose(f) ? -EIO : 0;
}

static int ops_load(const char *path, struct op *ops)
{
	FILE *f = fopen(path, "re");
	int n = 0;

	if (!f)
		return -errno;
	while (n < MAXOPS &&
	       fscanf(f, "%d %d %d %d %d %d %d", &ops[n].kind, &ops[n].id,
		      &ops[n].a, &ops[n].b, &ops[n].c, &ops[n].h1, &ops[n].h2) == 7)
		n++;
	fclose(f);
	return n;
}

/* ---- the generator ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* splitmix64: small, and the same list for a seed on every machine */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rn(int n) { return (int)(rnd() % (uint64_t)n); }

/* The generator's guess of the live handles: what it made, less what it
 * closed by name.  Range closes are not followed; the runner skips an op
 * whose handle is gone, the same way in every configuration. */
struct gen {
	int live[MAXH], nlive;
	int virt[MAXH], nvirt;	/* made in the random or slot bands */
	char sock[MAXH];	/* made by socketpair */
};

static void gen_add(struct gen *g, int h, int virt)
{
	g->live[g->nlive++] = h;
	if (virt)
		g->virt[g->nvirt++] = h;
}

static void gen_drop(struct gen *g, int h)
{
	for (int i = 0; i < g->nlive; i++)
		if (g->live[i] == h)
			g->live[i] = g->live[--g->nlive];
}

static int gen_pick(struct gen *g)
{
	return g->nlive ? g->live[rn(g->nlive)] : 0;
}

static int gen_pick_virt(struct gen *g)
{
	return g->nvirt ? g->virt[rn(g->nvirt)] : gen_pick(g);
}

/* A live socketpair handle, or -1. */
static int gen_pick_sock(struct gen *g)
{
	int n = 0, k;

	for (int i = 0; i < g->nlive; i++)
		n += g->sock[g->live[i]];
	if (!n)
		return -1;
	k = rn(n);
	for (int i = 0; i < g->nlive; i++)
		if (g->sock[g->live[i]] && !k--)
			return g->live[i];
	return -1;
}

struct weight { int kind; unsigned fam; int w; };
static const struct weight weights[] = {
	{ OP_OPEN, FAM_BASIC, 10 }, { OP_PIPE, FAM_BASIC, 4 },
	{ OP_SOCKETPAIR, FAM_BASIC, 3 }, { OP_MEMFD, FAM_BASIC, 3 },
	{ OP_DUP, FAM_BASIC, 6 }, { OP_DUP2, FAM_BASIC, 12 },
	{ OP_FDUPFD, FAM_BASIC, 6 }, { OP_SETFD, FAM_BASIC, 5 },
	{ OP_CLOSE, FAM_BASIC, 12 }, { OP_CLOSE_RANGE, FAM_CLOSERANGE, 4 },
	{ OP_CLOSEFROM, FAM_CLOSERANGE, 1 }, { OP_NONSEQ, FAM_VIRTUAL, 8 },
	{ OP_PWRITE, FAM_IO, 6 }, { OP_PREAD, FAM_IO, 6 },
	{ OP_FORK, FAM_FORK, 2 }, { OP_EXEC, FAM_EXEC, 1 },
	{ OP_SPAWN, FAM_EXEC, 1 }, { OP_RLIMIT, FAM_RLIMIT, 2 },
	{ OP_DIP, FAM_RLIMIT, 2 }, { OP_BACKING, FAM_BACKING, 5 },
	{ OP_BADNUM, FAM_HOSTILE, 3 },
	/* about 3 in a list of 80 */
	{ OP_BADPTR, FAM_BADPTR, 4 },
	{ OP_PASS, FAM_BASIC, 3 }, { OP_REOPEN, FAM_BASIC, 3 },
	{ OP_RAWCLONE, FAM_EXEC, 1 },
	{ OP_LOCK, FAM_LOCKS, 3 },
	{ OP_FILESCLONE, FAM_FORK, 1 },
};
#define NWEIGHTS (int)(sizeof(weights) / sizeof(weights[0]))

static void gen_op(struct gen *g, struct op *o, unsigned fams)
{
	int total = 0, r;

	for (int i = 0; i < NWEIGHTS; i++)
		if (weights[i].fam & fams)
			total += weights[i].w;
	r = rn(total);
	for (int i = 0; i < NWEIGHTS; i++) {
		if (!(weights[i].fam & fams))
			continue;
		if ((r -= weights[i].w) < 0) {
			o->kind = weights[i].kind;
			break;
		}
	}
	o->h1 = gen_pick(g);
	o->h2 = -1;
	o->a = o->b = o->c = 0;
	switch (o->kind) {
	case OP_OPEN:
		/* c: bit 0 O_CLOEXEC, bit 1 O_CLOFORK (ufd's) */
		o->a = rn(NFILES); o->b = rn(3); o->c = rn(2) | (rn(4) == 0) << 1;
		gen_add(g, hid(o->id, 0), 0);
		break;
	case OP_PIPE: case OP_SOCKETPAIR:
		/* c: bit 0 close-on-exec, bit 1 SOCK_CLOFORK (ufd's) */
		o->c = rn(2);
		if (o->kind == OP_SOCKETPAIR)
			o->c |= (rn(4) == 0) << 1;
		gen_add(g, hid(o->id, 0), 0);
		gen_add(g, hid(o->id, 1), 0);
		g->sock[hid(o->id, 0)] = g->sock[hid(o->id, 1)] = o->kind == OP_SOCKETPAIR;
		break;
	case OP_MEMFD:
		o->c = rn(2);
		gen_add(g, hid(o->id, 0), 0);
		break;
	case OP_DUP:
		gen_add(g, hid(o->id, 0), 0);
		break;
	case OP_DUP2:
		do
			o->a = rn(NT);
		while ((o->a == T_SLOT || o->a == T_ALLOC) && !(fams & FAM_VIRTUAL));
		if (o->a == T_HOSTILE && !(fams & FAM_HOSTILE))
			o->a = T_CHOSEN;
		/* c: dup2, dup3 with 0, O_CLOEXEC, a bad flag, O_CLOFORK,
		 * O_CLOFORK|O_CLOEXEC */
		o->c = rn(8) < 5 ? 0 : 1 + rn(5);
		switch (o->a) {
		case T_CHOSEN: o->b = rn(NCHOSEN); break;
		case T_STD: o->b = rn(3); break;
		case T_HANDLE: o->h2 = gen_pick(g); break;
		case T_SLOT: o->b = rn(NVS); break;
		case T_HOSTILE: o->b = rn(NHOSTILE); break;
		}
		if (o->a == T_HANDLE)
			gen_drop(g, o->h2);
		gen_add(g, hid(o->id, 0), o->a == T_SLOT || o->a == T_ALLOC);
		break;
	case OP_FDUPFD:
		do
			o->a = rn(NF);
		while ((o->a == F_SLOT || o->a == F_BASE) && !(fams & FAM_VIRTUAL));
		if (o->a == F_HOSTILE && !(fams & FAM_HOSTILE))
			o->a = F_LOW;
		o->b = o->a == F_LOW ? rn(12) : o->a == F_HOSTILE ? rn(NHOSTILE) : rn(NVS);
		/* c: F_DUPFD, F_DUPFD_CLOEXEC, F_DUPFD_CLOFORK (ufd's) */
		o->c = rn(5) ? rn(2) : 2;
		gen_add(g, hid(o->id, 0), o->a == F_SLOT || o->a == F_BASE);
		break;
	case OP_SETFD:
		o->a = rn(5);
		break;
	case OP_CLOSE:
		gen_drop(g, o->h1);
		break;
	case OP_CLOSE_RANGE:
		o->a = rn(NR);
		if (o->a == R_BACKING && !(fams & FAM_BACKING))
			o->a = R_ONE;
		if (o->a == R_BACKING)
			o->h1 = gen_pick_virt(g);
		o->b = rn(4);
		if (o->a == R_ALL && !(range_flags[o->b] & CLOSE_RANGE_CLOEXEC))
			g->nlive = g->nvirt = 0;
		break;
	case OP_CLOSEFROM:
		o->a = rn(2);
		if (!o->a)
			g->nlive = g->nvirt = 0;
		break;
	case OP_NONSEQ:
		o->a = rn(10) ? rn(16) : 0x10 << rn(3);
		gen_add(g, hid(o->id, 0), 1);
		if ((o->a & NONSEQFD_CLOSE) && o->a < 16)
			gen_drop(g, o->h1);
		break;
	case OP_PWRITE:
		o->a = rn(3000); o->b = 1 + rn(200); o->c = rn(256);
		break;
	case OP_PREAD:
		o->a = rn(3500); o->b = 1 + rn(400);
		break;
	case OP_RLIMIT: {
		static const int lim[] = { BARE_TOP, 600, 800, S0, 2048, 20000 };
		o->a = lim[rn(6)];
		break;
	}
	case OP_DIP:
		o->a = rn(2);
		o->b = rn(8);
		if (o->b >= 4 && o->b < 7 && !(fams & FAM_VIRTUAL))
			o->b = 0;
		if (o->b >= 4 && o->b < 7)	/* a virtual one: only at limit 0 (see runner) */
			o->a = 0;
		if (o->b == 7 && (o->h2 = gen_pick_sock(g)) < 0)
			o->b = 0;
		break;
	case OP_BACKING:
		o->h1 = gen_pick_virt(g);
		o->a = rn(NX);
		o->b = rn(4) ? 0 : rn(5) - 2;
		break;
	case OP_BADNUM:
		o->a = rn(NX - 2);	/* not dup2 onto / F_DUPFD from: see T_ and F_HOSTILE */
		o->b = rn(NHOSTILE);
		break;
	case OP_RAWCLONE:
		/* by glibc's clone (a 0: the child closes h1 too) or by the
		 * program's own system call instruction (a 1) */
		o->a = rn(2);
		break;
	case OP_LOCK:
		/* a: 0 take a lock on h1's file, 1 look at the files' locks */
		o->a = rn(2);
		break;
	case OP_FILESCLONE:
		/* by glibc's clone (a 0) or syscall(SYS_clone) (a 1); what the
		 * child does (b); on a copy made by nonseqfd (c 1) */
		o->a = rn(2);
		o->b = rn(4);
		o->c = rn(2);
		break;
	case OP_REOPEN:
		/* through /dev/fd (a 0) or /proc/self/fd (a 1), O_CLOEXEC if c */
		o->a = rn(2);
		o->c = rn(2);
		gen_add(g, hid(o->id, 0), 0);
		break;
	case OP_PASS:
		/* h1 (twice if a) over socketpair handle h2 to its peer,
		 * received with MSG_CMSG_CLOEXEC if c; a dup without one */
		o->h2 = gen_pick_sock(g);
		o->a = rn(2);
		o->c = rn(2);
		if (o->h2 < 0) {
			o->kind = OP_DUP;
			o->a = o->c = 0;
		}
		gen_add(g, hid(o->id, 0), 0);
		if (o->kind == OP_PASS && o->a)
			gen_add(g, hid(o->id, 1), 0);
		break;
	case OP_BADPTR:
		o->a = rn(NB);
		if (o->a == B_SENDMSG && (o->h2 = gen_pick_sock(g)) < 0)
			o->a = B_POLL;
		if (o->a < NBPATH) {
			o->b = rn(NP);
			o->c = o->b == P_INTO ? rn(NPSTART) : o->b == P_NONE ? 0 : rn(3);
		} else if (o->a == B_POLL || o->a == B_PPOLL) {
			o->b = rn(NL);
			o->c = rn(6);
			o->h2 = gen_pick(g);
		} else if (o->a == B_SENDMSG) {
			o->b = rn(NM);
			o->c = rn(3);
		} else {
			o->b = rn(3);
			o->c = rn(4);
		}
		break;
	}
}

static int generate(uint64_t seed, int nops, unsigned fams, struct op *ops)
{
	static struct gen g;

	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	memset(&g, 0, sizeof g);
	g.nlive = 3;
	for (int i = 0; i < 3; i++)
		g.live[i] = i;
	for (int i = 0; i < nops; i++) {
		ops[i].id = i;
		gen_op(&g, &ops[i], fams);
	}
	return nops;
}

/* ======================================================================
 * The runner: one configuration, one list, a model, a log.
 * ====================================================================== */

enum okind { K_FILE, K_PIPE_R, K_PIPE_W, K_SOCK, K_MEMFD, K_STD };

struct object {
	int kind, accmode, content;	/* content: index in contents, -1 none */
	dev_t dev;
	ino_t ino;
	int locks_unknown;	/* a NONSEQFD_HIDE handle of it was closed by a
				 * range in the bare run, and not under ufd
				 * (OP_LOCK's check leaves its file out) */
};

struct content {
	unsigned char data[MAXSIZE];
	int size;
};

struct handle {
	int live, num, obj;
	int cloexec, clofork, hidden;
	int asked_hide;		/* made by nonseqfd with NONSEQFD_HIDE, in any config */
	int bare_gone;		/* hidden, and closed in the bare run by a range */
	int last;		/* its number when it was closed, -1 if never open */
};

static struct run {
	enum config cfg;
	int ufd;		/* ufd loaded */
	char *log;
	size_t len;
	int step;
	int soft;		/* the soft limit the program set */
	struct handle h[MAXH];
	struct object obj[MAXH];
	int nobj;
	struct content cont[NFILES + MAXOPS];
	int ncont;
	char self[PATH_MAX];
	int (*nonseqfd)(int, int);
	int (*backing_fd)(int);
	int nh;			/* handles below this index have been used */
	char *forkpage;		/* shared with fork children */
	int in_fork_child;	/* violations go to forkpage */
	char *bad;		/* the first byte of a PROT_NONE page; the page
				 * before it is readable and writable */
	int locks_taken;	/* an OP_LOCK took a lock */
} R;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (R.len >= LOGSIZE - 512)
		return;
	va_start(ap, fmt);
	n = vsnprintf(R.log + R.len, LOGSIZE - 512 - R.len, fmt, ap);
	va_end(ap);
	if (n > 0)
		R.len += (size_t)n < LOGSIZE - 512 - R.len ? (size_t)n : 0;
}

/* A result as the log shows it: the value and, on failure, errno's name. */
static const char *res(long r, int err)
{
	static char buf[64];
	const char *e = strerrorname_np(err);

	if (r >= 0)
		snprintf(buf, sizeof buf, "%ld", r);
	else
		snprintf(buf, sizeof buf, "-1 %s", e ? e : "?");
	return buf;
}

/* An invariant failed: one line, then the run stops (what follows would
 * only be consequences). */
static _Noreturn void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void violation(const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (R.in_fork_child) {
		snprintf(R.forkpage, 4096, "%s", buf);
		_exit(3);
	}
	logf_("! step %d: %s\n", R.step, buf);
	_exit(3);
}

/* ---- the model's view of numbers ---- */

static int is_virtual_num(int n)
{
	return (unsigned)n >= FD_UNSEQ_BASE && (unsigned)n < FD_UNSEQ_LIMIT;
}

/* The live handle at number n, or -1. */
static int holder(int n)
{
	for (int i = 0; i < R.nh; i++)
		if (R.h[i].live && R.h[i].num == n)
			return i;
	return -1;
}

/* The lowest number >= from that no live handle holds (the kernel's rule,
 * as far as the application can see). */
static int lowest_free(int from)
{
	for (int n = from < 0 ? 0 : from;; n++)
		if (holder(n) < 0)
			return n;
}

/* The live handles, less those nonseqfd made with NONSEQFD_HIDE: under
 * ufd those outlive a close_range that closes them in the bare run (see
 * model_close_range), so counting them would make the runs disagree. */
static int nlive_seq(void)
{
	int n = 0;

	for (int i = 3; i < R.nh; i++)
		n += R.h[i].live && !R.h[i].asked_hide;
	return n;
}

static int new_object(int kind, int fd, int accmode, int content)
{
	struct stat st;
	struct object *o = &R.obj[R.nobj];

	if (fstat(fd, &st) != 0)
		violation("fstat of a new descriptor %d: %s", fd, strerror(errno));
	o->kind = kind;
	o->accmode = accmode;
	o->content = content;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	o->locks_unknown = 0;
	return R.nobj++;
}

static void set_handle(int h, int num, int obj, int cloexec)
{
	struct handle *x = &R.h[h];

	if (holder(num) >= 0)
		violation("new descriptor %d is already held by another handle", num);
	x->live = 1;
	if (h >= R.nh)
		R.nh = h + 1;
	x->num = num;
	x->obj = obj;
	/* UFD_CLOEXEC: every new descriptor but 0, 1 and 2 */
	x->cloexec = cloexec || (R.cfg == CFG_CLOEXEC && num > 2);
	x->clofork = x->hidden = x->asked_hide = x->bare_gone = 0;
}

static void kill_handle(int h)
{
	R.h[h].live = 0;
	R.h[h].last = R.h[h].num;
}

/*
 * Where a descriptor made by a sequence call (open, pipe, dup, F_DUPFD
 * from a low number) must be: the lowest free number from `from` in bare
 * and transparent runs; under UFD_MODE=all a virtual number, unless the
 * kernel's number is 0, 1 or 2 (those stay real); under UFD_MODE=random a
 * free number from `from` (at least 3) below the soft limit and
 * RANDOM_MAX, or the kernel's own when none is free there.  Checks fd
 * against it.
 */
static void check_seq_number(int fd, int from)
{
	int want = lowest_free(from);

	if (R.cfg == CFG_ALL && want > 2) {
		if (!is_virtual_num(fd))
			violation("UFD_MODE=all gave %d, not a virtual descriptor", fd);
		return;
	}
	if (R.cfg == CFG_RANDOM && want > 2 && fd != want) {
		int top = R.soft < RANDOM_MAX ? R.soft : RANDOM_MAX;

		if (fd < (from > 3 ? from : 3) || fd >= top || holder(fd) >= 0)
			violation("UFD_MODE=random gave %d, not a free number in [%d, %d)",
				  fd, from > 3 ? from : 3, top);
		return;
	}
	if (fd != want)
		violation("got descriptor %d, the lowest available is %d", fd, want);
}

/* A descriptor from a random-band call: virtual under ufd, lowest free
 * from RV_BARE + off in the bare run. */
static void check_random_number(int fd, int off, int lowest)
{
	if (R.ufd) {
		if (!is_virtual_num(fd))
			violation("got %d, not a virtual descriptor", fd);
		if (lowest && fd != lowest_free(FD_UNSEQ_BASE + off))
			violation("F_DUPFD from FD_UNSEQ_BASE+%d gave %d, the lowest free is %d",
				  off, fd, lowest_free(FD_UNSEQ_BASE + off));
		return;
	}
	if (fd != lowest_free(RV_BARE + off))
		violation("got %d, the lowest free from %d is %d", fd, RV_BARE + off,
			  lowest_free(RV_BARE + off));
}

static int slot_num(int k) { return R.ufd ? VS_UFD + k : VS_BARE + k; }

/* ---- invariants ---- */

static void check_handle(int h)
{
	struct handle *x = &R.h[h];
	struct object *o = &R.obj[x->obj];
	struct stat st;
	int fl, fdfl;
	char name[16];

	hname(name, sizeof name, h);
	if (fstat(x->num, &st) != 0)
		violation("fstat(%s = %d): %s", name, x->num, strerror(errno));
	if (st.st_dev != o->dev || st.st_ino != o->ino)
		violation("%s = %d is another file (inode %lu, not %lu)", name, x->num,
			  (unsigned long)st.st_ino, (unsigned long)o->ino);
	fl = fcntl(x->num, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != o->accmode)
		violation("%s = %d: F_GETFL gives %d (%s), access mode should be %d",
			  name, x->num, fl, fl < 0 ? strerror(errno) : "", o->accmode);
	fdfl = fcntl(x->num, F_GETFD);
	if (fdfl < 0 || !!(fdfl & FD_CLOEXEC) != x->cloexec ||
	    (R.ufd && !!(fdfl & FD_CLOFORK) != x->clofork))
		violation("%s = %d: F_GETFD gives %d, the model has cloexec %d clofork %d",
			  name, x->num, fdfl, x->cloexec, x->clofork);
}

/* Content of each regular file and memfd, read through one readable
 * handle, against the model. */
static void check_contents(void)
{
	static unsigned char buf[MAXSIZE + 1];

	for (int c = 0; c < R.ncont; c++) {
		for (int i = 0; i < R.nh; i++) {
			struct handle *x = &R.h[i];
			ssize_t n;

			if (!x->live || R.obj[x->obj].content != c ||
			    R.obj[x->obj].accmode == O_WRONLY)
				continue;
			n = pread(x->num, buf, sizeof buf, 0);
			if (n != R.cont[c].size ||
			    memcmp(buf, R.cont[c].data, (size_t)n) != 0)
				violation("content of file %d through %d: %zd bytes, model %d%s",
					  c, x->num, n, R.cont[c].size,
					  n == R.cont[c].size ? " (bytes differ)" : "");
			break;
		}
	}
}

/* The numbers readdir shows in /proc/self/fd (ufd filters it), less the
 * directory's own descriptor.  Returns how many, in out[]. */
static int list_fds(int *out, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		violation("opendir(/proc/self/fd): %s", strerror(errno));
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.')
			continue;
		if (atoi(e->d_name) != dirfd(d))
			out[n++] = atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/* The kernel's own count of the process's descriptors, past ufd: raw
 * openat and getdents64, which ufd does not filter.  The directory's own
 * descriptor is counted. */
static char raw_names[1024];

static int raw_fd_count(void)
{
	char buf[8192];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd",
			      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int count = 0;
	long n;

	raw_names[0] = '\0';
	if (fd < 0)
		violation("raw openat(/proc/self/fd): %s", strerror(errno));
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n;) {
			struct { uint64_t ino; int64_t off; unsigned short reclen;
				 unsigned char type; char name[]; } *e = (void *)(buf + off);
			if (e->name[0] != '.') {
				count++;
				if (strlen(raw_names) + strlen(e->name) + 2 < sizeof raw_names) {
					strcat(raw_names, " ");
					strcat(raw_names, e->name);
				}
			}
			off += e->reclen;
		}
	}
	syscall(SYS_close, fd);
	return count;
}

static void check_listing(void)
{
	static int seen[MAXH + 64];
	int n = list_fds(seen, MAXH + 64), want = 0, nvirt = 0, nreal = 0;

	for (int i = 0; i < R.nh; i++) {
		if (!R.h[i].live)
			continue;
		if (is_virtual_num(R.h[i].num))
			nvirt++;
		else
			nreal++;
		if (R.ufd && R.h[i].hidden)
			continue;
		want++;
		int found = 0;
		for (int j = 0; j < n; j++)
			found |= seen[j] == R.h[i].num;
		if (!found)
			violation("/proc/self/fd does not list %d", R.h[i].num);
	}
	if (n != want) {
		for (int j = 0; j < n; j++)
			if (holder(seen[j]) < 0)
				violation("/proc/self/fd lists %d, which the program does not have",
					  seen[j]);
		violation("/proc/self/fd lists %d descriptors, the model %d", n, want);
	}
	n = raw_fd_count();
	if (n != nreal + nvirt + 1)
		violation("the kernel has %d descriptors (%s); the model: %d real + %d backing "
			  "(one per virtual) + the listing's own", n, raw_names, nreal, nvirt);
}

/* Numbers the program closed and does not hold again give EBADF; under
 * ufd, so do the backing descriptors of its virtual ones. */
/*
 * Is every number in [from, to) a backing descriptor of ours?  Where the
 * hard limit leaves no room above the soft one, backing descriptors live
 * below it (README "Where backing descriptors live"), and the lowest free
 * number from n up may skip them: the one difference from the kernel that
 * placement allows.
 */
static int skips_backing(int from, int to)
{
	for (int k = from; k < to; k++) {
		int found = 0;

		for (int i = 0; i < R.nh && !found; i++)
			found = R.h[i].live && is_virtual_num(R.h[i].num) &&
				R.backing_fd(R.h[i].num) == k;
		if (!found)
			return 0;
	}
	return 1;
}

static void check_closed(int backing)
{
	struct stat st;
	struct rlimit rl;

	for (int i = 0; i < R.nh; i++) {
		int n = R.h[i].last;

		if (R.h[i].live || n < 0 || holder(n) >= 0)
			continue;
		if (fcntl(n, F_GETFD) != -1 || errno != EBADF)
			violation("closed number %d: F_GETFD does not give EBADF", n);
	}
	if (!backing || !R.ufd)
		return;
	for (int i = 0; i < R.nh; i++) {
		int b;

		if (!R.h[i].live || !is_virtual_num(R.h[i].num))
			continue;
		b = R.backing_fd(R.h[i].num);
		if (b < 3)
			violation("virtual %d is backed by %d, a standard stream", R.h[i].num, b);
		if (holder(b) >= 0)
			violation("virtual %d is backed by %d, which the program holds",
				  R.h[i].num, b);
		/* Where the hard limit leaves room for them all, above the
		 * application's limit (README "Where backing descriptors
		 * live"), but under UFD_MODE=all, where they are below it so
		 * that the kernel counts them; once the process has taken
		 * record locks, a regular file's descriptor (a memfd's too)
		 * stays where the kernel made it (ufd(7), POSIX record
		 * locks), and a dup2 onto its virtual descriptor replaces it
		 * there. */
		if (b < R.soft && !R.locks_taken && R.cfg != CFG_ALL &&
		    getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_max >= 2 * (rlim_t)R.soft)
			violation("backing %d is below the soft limit %d", b, R.soft);
		if (fstat(b, &st) == 0 || errno != EBADF)
			violation("fstat on backing number %d (of %d) does not give EBADF",
				  b, R.h[i].num);
	}
}

static unsigned run_fams;

static void signals_hold(int hold);

static void check_invariants(void)
{
	/* a check sees the process as the ops left it: no handler's
	 * descriptors in the listing (see --signals) */
	signals_hold(1);
	for (int i = 0; i < R.nh; i++)
		if (R.h[i].live)
			check_handle(i);
	check_contents();
	check_listing();
	check_closed(run_fams & FAM_BACKING);
	signals_hold(0);
}

/* ---- --signals: a handler that makes and closes descriptors ----
 *
 * A POSIX timer (not inherited by fork, gone at exec) sends SIGURG (whose
 * default is to ignore it, should one be pending at an exec) every 50 us
 * during the ops; its handler opens /dev/null, makes a virtual copy of it
 * (under ufd), dup3s it onto a spare number, close_ranges the spare band
 * and closes everything again.  It leaves nothing behind, so the ops' logs
 * stay the same with it, but it interrupts ufd anywhere: making or closing
 * a backing descriptor, inside the table lock, between an exec's
 * preparation and the exec.  It checks its own results: success, or the
 * errors the kernel has there (EMFILE during a dip; EBADF for a number
 * past the limit) and ufd's documented EBUSY (ufd(7), "Signals").  The
 * spare band, SPARE_LO-SPARE_HI, is a number no op makes in the bare run
 * (between the chosen band and the backing stand-ins).
 */
#define SPARE_LO  (C0 + NCHOSEN)
#define SPARE_HI  (BK_BARE - 1)
#define SIG_USEC  50

static dev_t null_rdev;
static volatile sig_atomic_t sig_failed, limit_changing;
static char sig_why[200];
static unsigned sig_runs;

static void sig_note(const char *what, int r, int e)
{
	if (sig_failed)
		return;
	snprintf(sig_why, sizeof sig_why, "in the signal handler: %s gave %d (%s)",
		 what, r, strerrorname_np(e) ? strerrorname_np(e) : "?");
	sig_failed = 1;
}

static int sig_is_null(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == null_rdev;
}

/* ufd's EBUSY from a handler that interrupted it (ufd(7), "Signals"). */
static int sig_busy(int e)
{
	return R.ufd && e == EBUSY;
}

/* Every SIG_FORK_EVERY-th handler forks, every other time with glibc's
 * _Fork (no atfork handler of the program's; ufd runs its own): the child,
 * still in the handler, makes and closes a descriptor (a virtual one under
 * ufd) and exits; it must neither fail nor hang (ufd's fork handlers from a
 * signal handler that interrupted ufd; see "fork_in_blocker" in
 * tests/test_fuzz_found.c). */
#define SIG_FORK_EVERY 16

pid_t _Fork(void);

static void sig_fork(void)
{
	pid_t pid = sig_runs / SIG_FORK_EVERY % 2 ? _Fork() : fork();
	int st, fd, ok;

	if (pid == 0) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		ok = fd >= 0 ? sig_is_null(fd) && close(fd) == 0
			     : errno == EMFILE || sig_busy(errno);
		if (ok && R.ufd) {
			fd = R.nonseqfd(0, 0);
			ok = fd >= 0 ? close(fd) == 0
				     : errno == EMFILE || errno == EBADF || sig_busy(errno);
		}
		_exit(ok ? 0 : 1);
	}
	if (pid < 0) {
		if (errno != EAGAIN)
			sig_note("fork", -1, errno);
		return;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		sig_note("a fork child's open, nonseqfd and close", -1, 0);
}

static void on_timer(int sig)
{
	int saved = errno, fd, v, t, r, e;
	struct rlimit rl;

	(void)sig;
	sig_runs++;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != EMFILE && !sig_busy(errno))
			sig_note("open(\"/dev/null\")", fd, errno);
		goto out;
	}
	if (!sig_is_null(fd))
		sig_note("fstat of open's descriptor", fd, errno);
	if (R.ufd) {
		v = R.nonseqfd(fd, NONSEQFD_CLOEXEC);
		if (v >= 0 && (!is_virtual_num(v) || !sig_is_null(v) || close(v) != 0))
			sig_note("nonseqfd, then fstat and close of it", v, errno);
		if (v < 0 && errno != EMFILE && !sig_busy(errno))
			sig_note("nonseqfd", v, errno);
	}
	t = SPARE_LO + (int)(sig_runs % (SPARE_HI - SPARE_LO + 1));
	r = dup3(fd, t, O_CLOEXEC);
	e = errno;
	if (r >= 0) {
		if (r != t || !sig_is_null(t) || close(t) != 0)
			sig_note("dup3 onto a spare number, then fstat and close", r, errno);
	} else if (!sig_busy(e) &&
		   !(e == EBADF && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		     (rlim_t)t >= rl.rlim_cur) &&
		   /* ufd's setrlimit sets the kernel's limit, then its own
		    * view (placement_set_nofile): a handler in between sees
		    * the old limit and gets the new one's EBADF */
		   !(R.ufd && e == EBADF && limit_changing)) {
		sig_note("dup3 onto a spare number", r, e);
	}
	r = close_range(SPARE_LO, SPARE_HI, 0);
	if (r != 0 && !sig_busy(errno))
		sig_note("close_range over the spare band", r, errno);
	if (close(fd) != 0)
		sig_note("close of open's descriptor", -1, errno);
	/* not under ASan, whose fork takes its allocator's lock: a
	 * handler that interrupted a malloc would wait for itself */
	if (!ASAN_BUILD && sig_runs % SIG_FORK_EVERY == 0)
		sig_fork();
out:
	errno = saved;
}

static timer_t sig_timer;
static int sig_on;

static void signals_start(void)
{
	struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGURG };
	struct itimerspec it = { { 0, SIG_USEC * 1000 }, { 0, SIG_USEC * 1000 } };
	struct stat st;

	if (stat("/dev/null", &st) != 0)
		violation("stat /dev/null: %s", strerror(errno));
	null_rdev = st.st_rdev;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGURG, &sa, NULL) != 0 ||
	    timer_create(CLOCK_MONOTONIC, &ev, &sig_timer) != 0 ||
	    timer_settime(sig_timer, 0, &it, NULL) != 0)
		violation("the timer of --signals: %s", strerror(errno));
	sig_on = 1;
}

static void signals_stop(void)
{
	if (!sig_on)
		return;
	signals_hold(1);
	timer_delete(sig_timer);
	sig_on = 0;

	signals_hold(0);
	if (sig_failed)
		violation("%s", sig_why);
}

static void signals_hold(int hold)
{
	sigset_t set;

	if (!sig_on)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGURG);
	sigprocmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
	if (!hold && sig_failed)
		violation("%s", sig_why);
}

/* ---- operations ---- */

/* Live as the bare run sees it: what decides whether an op runs. */
static int live(int h)
{
	return h >= 0 && h < MAXH && R.h[h].live && !R.h[h].bare_gone;
}

/* A new handle h from a duplicating call that returned fd. */
static void dup_handle(int h, int src, int fd, int cloexec)
{
	set_handle(h, fd, R.h[src].obj, cloexec);
}

static void op_open(const struct op *o)
{
	static const int acc[] = { O_RDONLY, O_WRONLY, O_RDWR };
	char path[8];
	int fd;

	snprintf(path, sizeof path, "f%d", o->a);
	/* close-on-fork is ufd's: the bare run has no such flag */
	fd = open(path, acc[o->b] | (o->c & 1 ? O_CLOEXEC : 0) |
			(o->c & 2 && R.ufd ? O_CLOFORK : 0));
	logf_("open -> %s\n", res(fd < 0 ? -1 : 0, errno));
	if (fd < 0)
		return;
	check_seq_number(fd, 0);
	set_handle(hid(o->id, 0), fd, new_object(K_FILE, fd, acc[o->b], o->a), o->c & 1);
	R.h[hid(o->id, 0)].clofork = R.ufd && (o->c & 2);
}

static void op_pair(const struct op *o)
{
	int fds[2], r;

	if (o->kind == OP_PIPE)
		r = pipe2(fds, o->c & 1 ? O_CLOEXEC : 0);
	else
		r = socketpair(AF_UNIX, SOCK_STREAM | (o->c & 1 ? SOCK_CLOEXEC : 0) |
					(o->c & 2 && R.ufd ? SOCK_CLOFORK : 0), 0, fds);
	logf_("-> %s\n", res(r, errno));
	if (r < 0)
		return;
	check_seq_number(fds[0], 0);
	set_handle(hid(o->id, 0), fds[0],
		   new_object(o->kind == OP_PIPE ? K_PIPE_R : K_SOCK, fds[0],
			      o->kind == OP_PIPE ? O_RDONLY : O_RDWR, -1), o->c & 1);
	R.h[hid(o->id, 0)].clofork = R.ufd && (o->c & 2);
	check_seq_number(fds[1], 0);
	set_handle(hid(o->id, 1), fds[1],
		   new_object(o->kind == OP_PIPE ? K_PIPE_W : K_SOCK, fds[1],
			      o->kind == OP_PIPE ? O_WRONLY : O_RDWR, -1), o->c & 1);
	R.h[hid(o->id, 1)].clofork = R.ufd && (o->c & 2);
}

static void op_memfd(const struct op *o)
{
	int fd = memfd_create("fuzz", o->c ? MFD_CLOEXEC : 0);

	logf_("memfd_create -> %s\n", res(fd < 0 ? -1 : 0, errno));
	if (fd < 0)
		return;
	check_seq_number(fd, 0);
	R.cont[R.ncont].size = 0;
	set_handle(hid(o->id, 0), fd, new_object(K_MEMFD, fd, O_RDWR, R.ncont++), o->c);
}

static void op_dup(const struct op *o)
{
	int fd = dup(R.h[o->h1].num);

	logf_("dup -> %s\n", res(fd < 0 ? -1 : 0, errno));
	if (fd < 0)
		return;
	check_seq_number(fd, 0);
	dup_handle(hid(o->id, 0), o->h1, fd, 0);
}

/* dup2/dup3 of h1 onto a target; the new handle replaces what the target
 * held. */
static void op_dup2(const struct op *o)
{
	int src = R.h[o->h1].num, target, fd, victim, cloexec = o->c == 2 || o->c == 5;
	/* close-on-fork is ufd's: the bare run has no such flag */
	int clofork = R.ufd ? O_CLOFORK : 0;
	const int fl[] = { 0, 0, O_CLOEXEC, 0x4, clofork, clofork | O_CLOEXEC };

	switch (o->a) {
	case T_CHOSEN: target = C0 + o->b; break;
	case T_STD: target = o->b; break;
	case T_HANDLE:
		if (!live(o->h2)) {
			logf_("skip: target gone\n");
			return;
		}
		target = R.h[o->h2].num;
		break;
	case T_SLOT: target = slot_num(o->b); break;
	case T_ALLOC: target = R.ufd ? (int)FD_UNSEQ_ALLOC : -1; break;
	default: target = hostile[o->b]; break;
	}
	if (o->a == T_ALLOC && !R.ufd) {
		/* the bare stand-in for a random virtual descriptor */
		if (o->c == 3) {
			fd = -1;
			errno = EINVAL;
		} else {
			fd = fcntl(src, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, RV_BARE);
		}
	} else if (o->c == 0) {
		fd = dup2(src, target);
	} else {
		fd = dup3(src, target, fl[o->c]);
	}
	if (o->a == T_CHOSEN || o->a == T_STD)
		logf_("-> %s\n", res(fd, errno));
	else
		logf_("-> %s\n", res(fd < 0 ? -1 : 0, errno));
	if (fd < 0)
		return;
	if (o->a == T_ALLOC)
		check_random_number(fd, 0, 0);
	else if (fd != target)
		violation("dup2 onto %d returned %d", target, fd);
	victim = holder(fd);
	if (victim >= 0 && victim != o->h1)
		kill_handle(victim);
	if (victim == o->h1) {
		/* dup2(fd, fd): nothing changes, no new handle */
		logf_("same\n");
		return;
	}
	dup_handle(hid(o->id, 0), o->h1, fd, cloexec);
	/* UFD_CLOEXEC leaves a dup2 onto a chosen number as it is */
	if (o->a != T_ALLOC)
		R.h[hid(o->id, 0)].cloexec = cloexec;
	R.h[hid(o->id, 0)].clofork = R.ufd && o->c >= 4;
}

static void op_fdupfd(const struct op *o)
{
	int from, fd, cmd = o->c == 1 ? F_DUPFD_CLOEXEC
			    : o->c == 2 && R.ufd ? F_DUPFD_CLOFORK : F_DUPFD;

	switch (o->a) {
	case F_LOW: from = o->b; break;
	case F_SLOT: from = slot_num(o->b); break;
	case F_BASE: from = R.ufd ? (int)FD_UNSEQ_BASE + o->b : RV_BARE + o->b; break;
	default: from = hostile[o->b]; break;
	}
	fd = fcntl(R.h[o->h1].num, cmd, from);
	logf_("-> %s\n", res(fd < 0 ? -1 : 0, errno));
	if (fd < 0)
		return;
	if (o->a == F_LOW)
		check_seq_number(fd, from);
	else if (o->a == F_BASE)
		check_random_number(fd, o->b, 1);
	else if (fd != lowest_free(from))
		violation("F_DUPFD from %d gave %d, the lowest free is %d", from, fd,
			  lowest_free(from));
	dup_handle(hid(o->id, 0), o->h1, fd, o->c == 1);
	R.h[hid(o->id, 0)].clofork = R.ufd && o->c == 2;
}

static void op_setfd(const struct op *o)
{
	int v = setfd_val[o->a], r = fcntl(R.h[o->h1].num, F_SETFD, v);

	logf_("-> %s\n", res(r, errno));
	if (r == 0) {
		R.h[o->h1].cloexec = !!(v & FD_CLOEXEC);
		/* the kernel has no close-on-fork; ufd keeps FD_CLOFORK */
		R.h[o->h1].clofork = R.ufd && (v & FD_CLOFORK);
	}
}

static void op_close(const struct op *o)
{
	int r = close(R.h[o->h1].num);

	logf_("-> %s\n", res(r, errno));
	kill_handle(o->h1);
}

/* What close_range(first, last, flags) does to the model.  A hidden
 * descriptor (NONSEQFD_HIDE, under ufd) is a library's: only a close of
 * its own number closes it, close_range steps around it. */
static void model_close_range(unsigned first, unsigned last, unsigned flags)
{
	for (int i = 0; i < R.nh; i++) {
		unsigned n = (unsigned)R.h[i].num;

		if (!R.h[i].live || n < first || n > last)
			continue;
		/* The bare run's stand-in closes and drops the process's
		 * record locks on the file; ufd's hidden one stays open, and
		 * its locks with it (unless another of the file's descriptors
		 * closes): from here on the runs may disagree on them. */
		if (R.h[i].asked_hide && !(flags & CLOSE_RANGE_CLOEXEC))
			R.obj[R.h[i].obj].locks_unknown = 1;
		if (R.ufd && R.h[i].hidden) {
			/* still open, but no op may use it: in the bare run
			 * it is gone (or close-on-exec, which no op tells) */
			if (!(flags & CLOSE_RANGE_CLOEXEC))
				R.h[i].bare_gone = 1;
			continue;
		}
		if (flags & CLOSE_RANGE_CLOEXEC)
			R.h[i].cloexec = 1;
		else
			kill_handle(i);
	}
}

static void op_close_range(const struct op *o)
{
	unsigned first, last, flags = range_flags[o->b];
	int r;

	switch (o->a) {
	case R_ALL: first = 3; last = ~0U; break;
	case R_ONE: first = last = (unsigned)R.h[o->h1].num; break;
	case R_SLOTS: first = (unsigned)slot_num(0); last = (unsigned)slot_num(NVS - 1); break;
	case R_CHOSEN: first = C0; last = C0 + NCHOSEN - 1; break;
	case R_INVERTED: first = (unsigned)R.h[o->h1].num + 1; last = first - 1; break;
	case R_BADFLAGS: first = 3; last = ~0U; flags = 0x8; break;
	default:
		first = last = R.ufd && is_virtual_num(R.h[o->h1].num)
				       ? (unsigned)R.backing_fd(R.h[o->h1].num)
				       : BK_BARE;
		break;
	}
	r = close_range(first, last, flags);
	logf_("-> %s\n", res(r, errno));
	if (r == 0)
		model_close_range(first, last, flags);
}

static void op_closefrom(const struct op *o)
{
	int from = o->a ? slot_num(0) : 3;

	closefrom(from);
	logf_("done\n");
	model_close_range((unsigned)from, ~0U, 0);
}

/* nonseqfd, or in the bare run its stand-in: F_DUPFD from the random
 * band, with the flags' effects the kernel can give. */
static void op_nonseq(const struct op *o)
{
	int src = R.h[o->h1].num, fd, f = o->a;

	if (R.ufd) {
		fd = R.nonseqfd(src, f);
	} else if (f & ~0xf) {
		fd = -1;
		errno = EINVAL;
	} else {
		fd = fcntl(src, f & NONSEQFD_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD, RV_BARE);
		if (fd >= 0 && (f & NONSEQFD_CLOSE))
			close(src);
	}
	logf_("-> %s\n", res(fd < 0 ? -1 : 0, errno));
	if (fd < 0)
		return;
	check_random_number(fd, 0, 0);
	dup_handle(hid(o->id, 0), o->h1, fd, !!(f & NONSEQFD_CLOEXEC));
	R.h[hid(o->id, 0)].clofork = R.ufd && (f & NONSEQFD_CLOFORK);
	R.h[hid(o->id, 0)].hidden = R.ufd && (f & NONSEQFD_HIDE);
	R.h[hid(o->id, 0)].asked_hide = !!(f & NONSEQFD_HIDE);
	if (f & NONSEQFD_CLOSE)
		kill_handle(o->h1);
}

static void op_pwrite(const struct op *o)
{
	struct object *ob = &R.obj[R.h[o->h1].obj];
	unsigned char buf[256];
	ssize_t r;

	if (ob->kind == K_STD) {
		/* the run's stderr is the driver's: not the model's to write */
		logf_("skip: standard stream\n");
		return;
	}
	memset(buf, o->c, sizeof buf);
	for (int i = 0; i < o->b; i++)
		buf[i] = (unsigned char)(o->c + i);
	r = pwrite(R.h[o->h1].num, buf, (size_t)o->b, o->a);
	logf_("-> %s\n", res(r, errno));
	if (r > 0 && ob->content >= 0) {
		struct content *c = &R.cont[ob->content];

		if (o->a > c->size)
			memset(c->data + c->size, 0, (size_t)(o->a - c->size));
		memcpy(c->data + o->a, buf, (size_t)r);
		if (o->a + r > c->size)
			c->size = o->a + (int)r;
	}
}

static void op_pread(const struct op *o)
{
	struct object *ob = &R.obj[R.h[o->h1].obj];
	unsigned char buf[512];
	ssize_t r = pread(R.h[o->h1].num, buf, (size_t)o->b, o->a);

	logf_("-> %s\n", res(r, errno));
	if (r >= 0 && ob->content >= 0) {
		struct content *c = &R.cont[ob->content];
		int want = o->a >= c->size ? 0 : c->size - o->a < o->b ? c->size - o->a : o->b;

		if (r != want || memcmp(buf, c->data + o->a, (size_t)r) != 0)
			violation("pread gave %zd bytes, the model %d%s", r, want,
				  r == want ? " (bytes differ)" : "");
	}
}

/* fork: the child drops its close-on-fork handles from the model, checks
 * every invariant and reports in the shared page. */
static void op_fork(void)
{
	pid_t pid;
	int st;

	strcpy(R.forkpage, "no report");
	pid = fork();
	if (pid < 0) {
		logf_("fork failed: %s\n", strerror(errno));
		return;
	}
	if (pid == 0) {
		R.in_fork_child = 1;
		for (int i = 0; i < R.nh; i++)
			if (R.h[i].live && R.h[i].clofork)
				kill_handle(i);
		check_invariants();	/* a violation reports and _exit(3)s */
		strcpy(R.forkpage, "ok");
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (strcmp(R.forkpage, "ok") != 0)
		violation("fork child: %s (status %#x)", R.forkpage, st);
	logf_("fork: child agrees\n");
}

/* The expected inheritance for an exec: "num:dev:ino:listed," for each
 * handle that survives (no close-on-exec; for spawn or fork+exec, no
 * close-on-fork either). */
static void exec_expect(char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < R.nh && len + 64 < n; i++) {
		struct handle *x = &R.h[i];

		if (!x->live || x->cloexec || x->clofork)
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%d:%lu:%lu:%d,", x->num,
					(unsigned long)R.obj[x->obj].dev,
					(unsigned long)R.obj[x->obj].ino,
					!(R.ufd && x->hidden));
	}
}

/* Locks across exec (family locks, fork+exec, no lock of the run's
 * own): the fork child takes a POSIX write lock over each file through a
 * new descriptor without close-on-exec (by fcntl, which ufd sees), which
 * the exec'd check must find too; the check then opens each file again,
 * an open that ufd may move under UFD_MODE=all or random, and which must
 * not drop the locks the new image holds (a close of any descriptor of
 * the file would).  Returns the mask of the files locked; appends to
 * expect. */
/* Will the exec itself drop the locks on st's file: a close-on-exec
 * handle of it, closed by the exec (the kernel's rule), or one whose
 * lock state the runs do not share (locks_unknown)? */
static int dropped_at_exec(const struct stat *st)
{
	for (int i = 0; i < R.nh; i++) {
		const struct handle *x = &R.h[i];
		const struct object *ob = &R.obj[x->obj];

		if (x->live && ob->dev == st->st_dev && ob->ino == st->st_ino &&
		    (x->cloexec || ob->locks_unknown))
			return 1;
	}
	return 0;
}

static int exec_lock_files(char *expect, size_t n)
{
	size_t len = strlen(expect);
	int mask = 0;

	for (int i = 0; i < NFILES; i++) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		struct stat st;
		char path[8];
		int fd;

		snprintf(path, sizeof path, "f%d", i);
		fd = open(path, O_RDWR);
		if (fd < 0)
			continue;
		if (fcntl(fd, F_SETFD, 0) != 0 || fcntl(fd, F_SETLK, &fl) != 0 ||
		    fstat(fd, &st) != 0 || len + 64 >= n) {
			close(fd);
			continue;
		}
		len += (size_t)snprintf(expect + len, n - len, "%d:%lu:%lu:1,", fd,
					(unsigned long)st.st_dev, (unsigned long)st.st_ino);
		if (!dropped_at_exec(&st))
			mask |= 1 << i;
	}
	return mask;
}

static void op_exec(int spawn)
{
	static char expect[MAXH * 48];
	char report[64], got[512] = "", locks[24];
	char *argv[] = { R.self, "--check", report, expect, NULL, NULL };
	pid_t pid;
	int st, fd;
	ssize_t n;

	snprintf(report, sizeof report, "report.%d", R.step);
	exec_expect(expect, sizeof expect);
	if (spawn) {
		int e = posix_spawn(&pid, R.self, NULL, NULL, argv, environ);

		if (e) {
			logf_("posix_spawn failed: %s\n", strerror(e));
			return;
		}
	} else {
		pid = fork();
		if (pid == 0) {
			if ((run_fams & FAM_LOCKS) && !R.locks_taken) {
				snprintf(locks, sizeof locks, "locks=%d",
					 exec_lock_files(expect, sizeof expect));
				argv[4] = locks;
			}
			execve(R.self, argv, environ);
			_exit(127);
		}
	}
	waitpid(pid, &st, 0);
	fd = open(report, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, got, sizeof got - 1) : -1;
	if (fd >= 0)
		close(fd);
	unlink(report);
	got[n > 0 ? n : 0] = '\0';
	if (strcmp(got, "ok") != 0)
		violation("%s child: %s (status %#x)", spawn ? "posix_spawn" : "exec",
			  got[0] ? got : "no report", st);
	logf_("%s: child inherited what the model says\n", spawn ? "spawn" : "exec");
}

/* The soft limit to soft; limit_changing (--signals) says it is under
 * way. */
static int set_soft(int soft)
{
	struct rlimit rl;
	int r;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -errno;
	rl.rlim_cur = (rlim_t)soft;
	limit_changing = 1;
	r = setrlimit(RLIMIT_NOFILE, &rl) ? -errno : 0;
	limit_changing = 0;
	return r;
}

static void op_rlimit(const struct op *o)
{
	struct rlimit rl;
	int r = set_soft(o->a);

	logf_("-> %s\n", res(r, -r));
	if (r == 0)
		R.soft = o->a;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur != (rlim_t)R.soft)
		violation("getrlimit gives soft %ld, the program set %d",
			  (long)rl.rlim_cur, R.soft);
	if (sysconf(_SC_OPEN_MAX) != R.soft)
		violation("sysconf(_SC_OPEN_MAX) gives %ld, the soft limit is %d",
			  sysconf(_SC_OPEN_MAX), R.soft);
}

/* The other handle of the socketpair that made socket handle h. */
static int peer_of(int h)
{
	return h - (h - 3) % 2 + !((h - 3) % 2);
}

/* Is socket handle h there with its peer, as the bare run sees them? */
static int pair_live(int h)
{
	return live(h) && live(peer_of(h)) && R.obj[R.h[h].obj].kind == K_SOCK;
}

/*
 * SCM_RIGHTS: descriptor fd (n times, 1 or 2) sent with one byte over
 * socket handle h, received on its peer with rflags.  The results go to
 * the log if log; the descriptors received to got[].  Returns how many
 * arrived, or -1 if the message did not.
 */
static int pass_rights(int fd, int h, int n, int rflags, int got[2], int log)
{
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(2 * sizeof(int))];
	} control;
	char byte = 'p';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.bytes };
	struct cmsghdr *cm;
	int fds[2] = { fd, fd };
	ssize_t r;

	memset(&control, 0, sizeof control);
	msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	r = sendmsg(R.h[h].num, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (log)
		logf_("sendmsg -> %s", res(r, errno));
	if (r != 1)
		return -1;
	memset(&control, 0, sizeof control);
	msg.msg_controllen = sizeof control.bytes;
	msg.msg_flags = 0;
	r = recvmsg(R.h[peer_of(h)].num, &msg, MSG_DONTWAIT | rflags);
	if (log)
		logf_(", recvmsg -> %s, flags %#x", res(r, errno),
		      r >= 0 ? msg.msg_flags : 0);
	if (r != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm)
		return 0;
	if (cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(n * sizeof(int)))
		violation("recvmsg: control data of type %d, %zu bytes, not %d descriptors",
			  cm->cmsg_type, (size_t)cm->cmsg_len, n);
	memcpy(got, CMSG_DATA(cm), n * sizeof(int));
	return n;
}

/* A brief dip of the soft limit: to 0 or to just above the highest real
 * number the program holds; one creating call; back.  A virtual one is
 * tried at 0 only, where ufd promises EMFILE (at a small non-zero limit
 * the virtual space has no kernel answer to agree with). */
static void op_dip(const struct op *o)
{
	int hi = -1, low, fd = -1, fds[2], src = R.h[o->h1].num, e;

	/* the highest of the sequence band (below C0): the same handles in
	 * every configuration but UFD_MODE=all, where they are virtual and
	 * the kernel's table below the limit is all the standard streams' */
	for (int i = 0; i < R.nh; i++)
		if (R.h[i].live && R.h[i].num < C0 && R.h[i].num > hi)
			hi = R.h[i].num;
	low = o->a ? hi + 1 : 0;
	if (set_soft(low) != 0)
		violation("setrlimit(%d): %s", low, strerror(errno));
	switch (o->b) {
	case 0: fd = open("f0", O_RDONLY | O_CLOEXEC); break;
	case 1: fd = dup(src); break;
	case 2: fd = fcntl(src, F_DUPFD_CLOEXEC, 3); break;
	case 3: fd = pipe2(fds, O_CLOEXEC); break;
	case 4:
		if (R.ufd)
			fd = R.nonseqfd(src, NONSEQFD_CLOEXEC);
		else
			fd = -1, errno = EMFILE;
		break;
	case 5:
		if (R.ufd)
			fd = dup3(src, (int)FD_UNSEQ_ALLOC, O_CLOEXEC);
		else
			fd = -1, errno = EMFILE;
		break;
	case 6: fd = fcntl(src, F_DUPFD_CLOEXEC, slot_num(0)); break;
	case 7:
		/* received: the descriptor, or nothing (the kernel's
		 * MSG_CTRUNC at its limit) */
		if (!pair_live(o->h2)) {
			fd = -1;
			errno = ESRCH;	/* no socket: the model says so too */
			break;
		}
		/* the log says only "as model": where the model decides,
		 * the configurations' answers differ */
		fd = pass_rights(src, o->h2, 1, MSG_CMSG_CLOEXEC, fds, 0) == 1 ? fds[0] : -1;
		errno = EMFILE;
		break;
	}
	e = errno;
	/* What the kernel's rule gives at limit `low`: a free number below it,
	 * or EMFILE; F_DUPFD from a slot (at or past the limit) EINVAL;
	 * a virtual one at limit 0 EMFILE.  In UFD_MODE=all the real handles
	 * below C0 are fewer, so the limit and the answer differ from the
	 * bare run's: the model decides and the log says "as model". */
	int want_err = 0;

	if (o->b == 7 && !pair_live(o->h2))
		want_err = ESRCH;
	else if (o->b == 6)
		want_err = R.ufd ? 0 : EINVAL;
	else if (o->b >= 4 && o->b < 7)
		want_err = EMFILE;
	else if (o->b == 2 && low <= 3)
		want_err = EINVAL;	/* F_DUPFD from at or past the limit */
	else if (lowest_free(o->b == 2 ? 3 : 0) >= low ||
		 (o->b == 3 && lowest_free(lowest_free(0) + 1) >= low))
		want_err = EMFILE;
	if (o->b == 6 && R.ufd) {
		/* a virtual slot is not bounded by the soft limit, except at 0 */
		want_err = low == 0 ? EMFILE : 0;
	}
	if (fd >= 0) {
		if (o->b == 3) {
			close(fds[0]);
			close(fds[1]);
		} else {
			close(fd);
		}
	}
	if (set_soft(R.soft) != 0)
		violation("setrlimit back to %d: %s", R.soft, strerror(errno));
	if (want_err ? (fd >= 0 || e != want_err) : fd < 0)
		violation("at soft limit %d: %s, the model %s", low, res(fd, e),
			  want_err ? strerrorname_np(want_err) : "success");
	logf_("-> as model\n");
}

/* The number under test of OP_BACKING / OP_BADNUM: under ufd a backing
 * descriptor's (+d), in the bare run a number in the band nobody holds. */
static int backing_target(const struct op *o)
{
	if (o->kind == OP_BADNUM)
		return hostile[o->b];
	if (R.ufd && is_virtual_num(R.h[o->h1].num))
		return R.backing_fd(R.h[o->h1].num) + o->b;
	return BK_BARE + 2 + o->b;
}

/* A call on a number the program does not have: EBADF (ENOENT for the
 * /proc path), except dup2 onto it and F_DUPFD from it, which make a
 * descriptor there (or at the next free number), checked and closed at
 * once so that the model is as before whatever the limit said. */
static void op_notmine(const struct op *o)
{
	int n = backing_target(o), src = R.h[o->h1].num, r = -1, e;
	struct stat st;
	char buf[16], path[64];
	off_t off;

	if (holder(n) >= 0) {
		/* cannot happen in the bare run, so this is ufd's doing */
		violation("number %d, a backing number %+d, is the program's", n, o->b);
	}
	errno = 0;
	switch (o->a) {
	case X_CLOSE: r = close(n); break;
	case X_FSTAT: r = fstat(n, &st); break;
	case X_PREAD: r = (int)pread(n, buf, sizeof buf, 0); break;
	case X_PWRITE: r = (int)pwrite(n, "stale", 5, 0); break;
	case X_FTRUNCATE: r = ftruncate(n, 0); break;
	case X_LSEEK: off = lseek(n, 0, SEEK_END); r = off < 0 ? -1 : 0; break;
	case X_GETFD: r = fcntl(n, F_GETFD); break;
	case X_GETFL: r = fcntl(n, F_GETFL); break;
	case X_DUP: r = dup(n); break;
	case X_DUP2FROM: r = dup2(n, C0 + NCHOSEN - 1); break;
	case X_IOCTL: { int v; r = ioctl(n, FIONREAD, &v); break; }
	case X_PROCPATH:
		snprintf(path, sizeof path, "/proc/self/fd/%d", n);
		r = open(path, O_RDONLY | O_CLOEXEC);
		break;
	case X_CLOSERANGE:
		r = (n < 0) ? (errno = EINVAL, -1) : close_range((unsigned)n, (unsigned)n, 0);
		break;
	case X_DUP2ONTO: r = dup2(src, n); break;
	case X_DUPFDFROM: r = fcntl(src, F_DUPFD_CLOEXEC, n); break;
	}
	e = errno;
	if (o->a == X_DUP2ONTO || o->a == X_DUPFDFROM) {
		/* whether it fits under the limit differs between a bare stand-in
		 * and a backing number: the model decides, the log says "as model" */
		int want = o->a == X_DUP2ONTO ? n : lowest_free(n);
		int fits = n >= 0 && want < R.soft;

		if (fits && o->a == X_DUPFDFROM && R.cfg == CFG_ALL) {
			/* F_DUPFD makes a descriptor, virtual under UFD_MODE=all */
			if (r < 0 || !is_virtual_num(r))
				violation("F_DUPFD from %d under UFD_MODE=all gave %s", n,
					  res(r, e));
		} else if (fits && r != want &&
			   !(o->a == X_DUPFDFROM && r > want && skips_backing(want, r)))
			violation("%s with n = %d gave %s, the model %d", x_name[o->a], n,
				  res(r, e), want);
		if (!fits && (r >= 0 || e != (o->a == X_DUP2ONTO ? EBADF : EINVAL)))
			violation("%s with n = %d (limit %d) gave %s", x_name[o->a], n,
				  R.soft, res(r, e));
		if (r >= 0) {
			struct stat a, b;

			if (fstat(r, &a) || fstat(src, &b) || a.st_ino != b.st_ino)
				violation("the descriptor made at %d is not the source's file", r);
			close(r);
		}
		logf_("-> as model\n");
		return;
	}
	if (r >= 0 && (o->a == X_DUP || o->a == X_PROCPATH))
		close(r);
	if (o->a == X_DUP2FROM && r >= 0)
		close(r);
	if (o->a == X_CLOSERANGE) {
		logf_("-> %s\n", res(r, e));
		return;
	}
	logf_("-> %s\n", res(r < 0 ? -1 : 0, e));
}

/* The number of h, or of h1 if h is gone (the same way in every
 * configuration whose model agrees). */
static int num_or_h1(const struct op *o, int h)
{
	return live(h) ? R.h[h].num : R.h[o->h1].num;
}

/* OP_BADPTR's path: see P_ and p_start. */
static const char *bad_path(const struct op *o)
{
	char s[64];
	size_t len;

	switch (o->b) {
	case P_NONE:
		return R.bad;
	case P_INTO:
		snprintf(s, sizeof s, "%s", p_start[o->c]);
		len = strlen(s);
		break;
	default: {
		int d;

		len = (size_t)snprintf(s, sizeof s, "%s",
				       o->b == P_DEVFD ? "/dev/fd/" : "/proc/self/fd/");
		d = snprintf(s + len, sizeof s - len, "%d", R.h[o->h1].num);
		/* the last c digits are left to the PROT_NONE page, the
		 * first always readable */
		len += (size_t)(d - (o->c < d ? o->c : d - 1));
		break;
	}
	}
	/* no NUL: the string runs on into the PROT_NONE page */
	memcpy(R.bad - len, s, len);
	return R.bad - len;
}

static long badptr_path(const struct op *o)
{
	const char *p = bad_path(o);
	struct stat st;
	char buf[64];
	long r = -1;

	switch (o->a) {
	case B_OPEN: r = open(p, O_RDONLY | O_CLOEXEC); break;
	case B_CREAT: r = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600); break;
	case B_STAT: r = stat(p, &st); break;
	case B_ACCESS: r = access(p, F_OK); break;
	case B_READLINK: r = readlink(p, buf, sizeof buf); break;
	case B_TRUNCATE: r = truncate(p, 0); break;
	case B_FCHMODAT: r = fchmodat(AT_FDCWD, p, 0600, 0); break;
	case B_CHDIR: r = chdir(p); break;
	}
	if (r >= 0 && (o->a == B_OPEN || o->a == B_CREAT)) {
		/* a descriptor, had the kernel read the path: "ok" is enough
		 * for the log (it differs from bare's EFAULT anyway) */
		close((int)r);
		r = 0;
	}
	return r;
}

static long badptr_poll(const struct op *o)
{
	struct timespec zero = { 0, 0 };
	struct pollfd *fds;
	nfds_t n;

	if (o->b == L_NONE) {
		fds = (struct pollfd *)(void *)R.bad;
		n = (nfds_t)o->c + 1;
	} else {
		int readable = o->c % 3 + 1;

		fds = (struct pollfd *)(void *)(R.bad - readable * (int)sizeof *fds);
		for (int i = 0; i < readable; i++) {
			fds[i].fd = num_or_h1(o, i % 2 ? o->h2 : o->h1);
			fds[i].events = POLLIN | POLLOUT;
			fds[i].revents = 0;
		}
		n = (nfds_t)(readable + o->c / 3 + 1);
	}
	return o->a == B_POLL ? poll(fds, n, 0) : ppoll(fds, n, &zero, NULL);
}

static long badptr_sendmsg(const struct op *o)
{
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(3 * sizeof(int))];
	} control;
	struct iovec iov = { "x", 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.bytes,
			      .msg_controllen = sizeof control.bytes };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int fds[3], k, s = R.h[o->h2].num;
	const struct msghdr *m = &msg;

	memset(&control, 0, sizeof control);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof fds);
	fds[0] = fds[1] = fds[2] = R.h[o->h1].num;
	memcpy(CMSG_DATA(cm), fds, sizeof fds);
	switch (o->b) {
	case M_HDR_NONE:
		m = (const struct msghdr *)(void *)R.bad;
		break;
	case M_HDR_INTO:
		/* the fields that fit before the page, the rest (msg_flags
		 * at least) in it; 8-aligned as a msghdr must be */
		k = hdr_readable[o->c];
		memcpy(R.bad - k, &msg, (size_t)k);
		m = (const struct msghdr *)(void *)(R.bad - k);
		break;
	case M_CTL_NONE:
		msg.msg_control = R.bad;
		break;
	default:
		k = ctl_readable[o->c];
		memcpy(R.bad - k, control.bytes, (size_t)k);
		msg.msg_control = R.bad - k;
		break;
	}
	return sendmsg(s, m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static long badptr_select(const struct op *o)
{
	struct timeval tv = { 0, 0 };
	struct timespec zero = { 0, 0 };
	fd_set *set[3] = { NULL, NULL, NULL };

	set[o->b] = (fd_set *)(void *)R.bad;
	if (o->a == B_SELECT)
		return select(sel_nfds[o->c], set[0], set[1], set[2], &tv);
	return pselect(sel_nfds[o->c], set[0], set[1], set[2], &zero, NULL);
}

/* A call with memory the kernel cannot read: its answer in the log, the
 * same in every configuration (a crash is the run's death, a failure). */
static void op_badptr(const struct op *o)
{
	int needs_h1 = (o->a < NBPATH && o->b >= P_DEVFD) ||
		       ((o->a == B_POLL || o->a == B_PPOLL) && o->b == L_INTO) ||
		       (o->a == B_SENDMSG && (o->b == M_HDR_INTO || o->b == M_CTL_INTO));
	long r;

	if (needs_h1 && !live(o->h1)) {
		logf_("skip: handle gone\n");
		return;
	}
	if (o->a == B_READLINK && ASAN_BUILD) {
		logf_("skip: readlink under ASan\n");
		return;
	}
	if (o->a == B_SENDMSG &&
	    (!live(o->h2) || R.obj[R.h[o->h2].obj].kind != K_SOCK)) {
		logf_("skip: socket gone\n");
		return;
	}
	errno = 0;
	if (o->a < NBPATH)
		r = badptr_path(o);
	else if (o->a == B_POLL || o->a == B_PPOLL)
		r = badptr_poll(o);
	else if (o->a == B_SENDMSG)
		r = badptr_sendmsg(o);
	else
		r = badptr_select(o);
	logf_("%s -> %s\n", b_name[o->a], res(r, errno));
}

/* SCM_RIGHTS: h1's number (twice if a) sent over socket handle h2,
 * received on its peer with MSG_CMSG_CLOEXEC if c.  What arrives are new
 * descriptors of h1's file, numbered as any new one (the sequence rule;
 * virtual under UFD_MODE=all, random under UFD_MODE=random, close-on-exec
 * under UFD_CLOEXEC). */
static void op_pass(const struct op *o)
{
	int n = o->a ? 2 : 1, got[2], k;

	if (!pair_live(o->h2)) {
		logf_("skip: socket gone\n");
		return;
	}
	k = pass_rights(R.h[o->h1].num, o->h2, n, o->c ? MSG_CMSG_CLOEXEC : 0, got, 1);
	logf_(", %d descriptors\n", k);
	for (int i = 0; i < k; i++) {
		check_seq_number(got[i], 0);
		dup_handle(hid(o->id, i), o->h1, got[i], o->c);
	}
}

/* A regular file or memfd handle opened again, read-only, through its
 * /dev/fd or /proc/self/fd path (under ufd its virtual number's, which ufd
 * rewrites): a new open file of the same inode and content.  Pipes and
 * sockets are left out (an open of a pipe's path may block). */
static void op_reopen(const struct op *o)
{
	struct object *ob = &R.obj[R.h[o->h1].obj];
	char path[64];
	int fd;

	if (ob->kind != K_FILE && ob->kind != K_MEMFD) {
		logf_("skip: not a file\n");
		return;
	}
	snprintf(path, sizeof path, "%s%d", o->a ? "/proc/self/fd/" : "/dev/fd/",
		 R.h[o->h1].num);
	fd = open(path, O_RDONLY | (o->c ? O_CLOEXEC : 0));
	logf_("-> %s\n", res(fd < 0 ? -1 : 0, errno));
	if (fd < 0)
		return;
	check_seq_number(fd, 0);
	set_handle(hid(o->id, 0), fd, new_object(ob->kind, fd, O_RDONLY, ob->content), o->c);
}

/* ---- a raw clone sharing the memory (issue 25) ---- */

/* The number the clone child closes (-1: none). */
static int rawclone_close = -1;
static char *const rawclone_argv[] = { "true", NULL };

/* The child: closes its copy of a handle and everything from 3, as a
 * spawner's child does, then libc's execve.  Its closes are of its own
 * table: the parent's model stays. */
static int rawclone_child(void *arg)
{
	(void)arg;
	if (rawclone_close >= 0)
		close(rawclone_close);
	close_range(3, ~0U, 0);
	/* Under qemu-user /bin/true is the host's, whose loader would say on
	 * descriptor 2 that it cannot load the aarch64 libufd.so: this
	 * program as true instead. */
	if (getenv("UFD_TEST_EMULATOR"))
		execve(R.self, (char *[]){ "fuzz_fds", "--true", NULL }, environ);
	execve("/bin/true", rawclone_argv, environ);
	syscall(SYS_exit, 127);
	return 127;
}

static void rawclone_child_noreturn(void)
{
	rawclone_child(NULL);
	for (;;)
		;
}

/* clone(2) with flags and the child on stack_top, made with the system
 * call instruction (as a runtime does, which ufd does not see): the
 * child calls fn.  The kernel's pid or -errno; -ENOSYS elsewhere than
 * x86_64 and arm64. */
static long asm_clone(long flags, char *stack_top, void (*fn)(void))
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "and $-16, %%rsp\n\t"
			 "call *%%rbx\n\t"
			 "hlt\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)SYS_clone), "D"(flags), "S"(stack_top), "d"(0L),
			   "r"(r10), "r"(r8), "b"(fn)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_clone;
	register long x0 __asm__("x0") = flags;
	register long x1 __asm__("x1") = (long)stack_top;
	register long x2 __asm__("x2") = 0;
	register long x3 __asm__("x3") = 0;
	register long x4 __asm__("x4") = 0;
	register void (*x9)(void) __asm__("x9") = fn;

	__asm__ volatile("svc #0\n\t"
			 "cbnz x0, 1f\n\t"
			 "mov x29, xzr\n\t"
			 "blr x9\n\t"
			 "brk #0\n"
			 "1:"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x9)
			 : "x30", "memory");
	return x0;
#else
	(void)flags, (void)stack_top, (void)fn;
	return -ENOSYS;
#endif
}

/*
 * A child that shares the memory (CLONE_VM | CLONE_VFORK) and execs
 * through libc: under ufd it must leave nothing held or changed in the
 * parent (the table lock: later execs, forks and creations would hang or
 * fail; the table: the model's checks after the step).  The same in
 * every configuration: the child's exit is logged.
 */
static void op_rawclone(const struct op *o)
{
	enum { STACK = 256 * 1024 };
	long flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
	char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long pid;
	int st = 0;

	if (stack == MAP_FAILED) {
		logf_("mmap failed: %s\n", strerror(errno));
		return;
	}
	rawclone_close = !o->a && live(o->h1) ? R.h[o->h1].num : -1;
	if (o->a)
		pid = asm_clone(flags, stack + STACK, rawclone_child_noreturn);
	if (!o->a || pid == -ENOSYS)
		pid = clone(rawclone_child, stack + STACK, (int)flags, NULL);
	else if (pid < 0)
		errno = (int)-pid, pid = -1;
	if (pid > 0 && waitpid((pid_t)pid, &st, 0) != pid)
		pid = -1;
	munmap(stack, STACK);
	if (pid < 0) {
		logf_("clone failed: %s\n", strerror(errno));
		return;
	}
	logf_("clone: child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * OP_FILESCLONE: a kernel descriptor table shared without the memory
 * (clone with CLONE_FILES: one kernel table, two of ufd's; issue 25,
 * item 2).  In a fork child F, so that the run's own table stays its
 * own: F opens /dev/zero (close-on-exec for b 3), and with c makes a
 * virtual copy of it (nonseqfd; the bare run's stand-in, F_DUPFD from
 * the random band); F makes a child G with CLONE_FILES (glibc's clone(),
 * a 0, or syscall(SYS_clone), a 1), which acts on it (b: 0 close, 1
 * close_range with CLOSE_RANGE_CLOEXEC, 2 F_SETFD FD_CLOEXEC, 3 F_SETFD
 * 0) and exits; then F opens /dev/null (a number G's close may have
 * freed) and says what the descriptor is for it, as the kernel's table
 * has it: closed (EBADF, or the kernel gave /dev/null that very number),
 * or open on /dev/zero with the close-on-exec flag G left.  Under ufd a
 * virtual one must not still look open, nor refer to another file, nor
 * keep the flag it had.  F's own descriptor, not a handle: a fork closes
 * the close-on-fork ones under ufd only.
 */
static int filesclone_act;
static int filesclone_fd;

static int filesclone_child(void *arg)
{
	(void)arg;
	switch (filesclone_act) {
	case 0: return close(filesclone_fd) == 0 ? 0 : 1;
	case 1: return close_range((unsigned)filesclone_fd, (unsigned)filesclone_fd,
				   CLOSE_RANGE_CLOEXEC) == 0 ? 0 : 1;
	case 2: return fcntl(filesclone_fd, F_SETFD, FD_CLOEXEC) == 0 ? 0 : 1;
	default: return fcntl(filesclone_fd, F_SETFD, 0) == 0 ? 0 : 1;
	}
}

/* In F: the answer, as a small number (op_filesclone's exit status). */
static int filesclone_run(const struct op *o)
{
	enum { STACK = 256 * 1024 };
	struct stat st, null, zero;
	int status, fd, flags, cloexec;
	long pid;

	filesclone_act = o->b & 3;
	cloexec = filesclone_act == 3;
	fd = open("/dev/zero", O_RDONLY | (cloexec ? O_CLOEXEC : 0));
	if (fd < 0 || stat("/dev/zero", &zero) != 0 || stat("/dev/null", &null) != 0)
		return 89;
	if (o->c) {
		int v = R.ufd ? R.nonseqfd(fd, cloexec ? NONSEQFD_CLOEXEC : 0)
			      : fcntl(fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, RV_BARE);

		if (v < 0)
			return 88;
		close(fd);
		fd = v;
	}
	filesclone_fd = fd;
	if (o->a) {
		pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
		if (pid == 0)
			_exit(filesclone_child(NULL));
	} else {
		char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (stack == MAP_FAILED)
			return 90;
		pid = clone(filesclone_child, stack + STACK, CLONE_FILES | SIGCHLD, NULL);
	}
	if (pid < 0 || waitpid((pid_t)pid, &status, 0) != pid || !WIFEXITED(status))
		return 91;
	if (WEXITSTATUS(status))
		return 92; /* the child's call failed */
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0)
		return 93;
	flags = fcntl(filesclone_fd, F_GETFD);
	if (flags < 0)
		return errno == EBADF && fstat(filesclone_fd, &st) < 0 && errno == EBADF ? 0 : 94;
	if (fstat(filesclone_fd, &st) != 0)
		return 95;
	if (fd == filesclone_fd)
		return st.st_rdev == null.st_rdev ? 0 : 96; /* the kernel's reuse */
	if (st.st_rdev != zero.st_rdev)
		return 97; /* another file behind it */
	return 1 + (flags & FD_CLOEXEC ? 1 : 0);
}

static void op_filesclone(const struct op *o)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		R.in_fork_child = 1;
		_exit(filesclone_run(o));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		logf_("filesclone: fork failed\n");
		return;
	}
	status = WEXITSTATUS(status);
	if (status > 2)
		logf_("filesclone: error %d\n", status);
	else
		logf_("filesclone: %s\n", status == 0 ? "closed" : status == 1 ? "open"
						     : "open, close-on-exec");
}

/*
 * OP_LOCK: record locks.  a 0: a POSIX lock over h1's whole file, taken
 * with fcntl, or (odd op ids) glibc's syscall(SYS_fcntl), which ufd
 * must see as a lock taken too; a 1: which of the files a child process
 * sees locked (F_GETLK: a process never sees its own).  Any close of a
 * descriptor of a file by the process drops its locks on it, so ufd's
 * moves (a copy, then the kernel's first number closed) must leave a
 * locked file's descriptors alone: the bare run says which locks the
 * later checks must see.  (A lock taken with the system call instruction
 * itself after the process's first move is not seen, ufd(7): not
 * generated.  tests/test_locks.c covers one taken before.)
 */
static void op_lock(const struct op *o)
{
	struct object *ob;
	struct flock fl = { .l_whence = SEEK_SET };
	int lfd, status, mask = 0;
	long r;
	pid_t pid;

	if (!o->a) {
		ob = &R.obj[R.h[o->h1].obj];
		if (ob->kind != K_FILE) {
			logf_("lock: not a file\n");
			return;
		}
		lfd = R.h[o->h1].num;
		fl.l_type = ob->accmode == O_RDONLY ? F_RDLCK : F_WRLCK;
		r = o->id & 1 ? syscall(SYS_fcntl, lfd, F_SETLK, &fl)
			      : fcntl(lfd, F_SETLK, &fl);
		R.locks_taken |= r == 0;
		logf_("lock -> %s\n", res((int)r, r < 0 ? errno : 0));
		return;
	}
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < NFILES; i++) {
			struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
			char path[8];
			int fd;

			snprintf(path, sizeof path, "f%d", i);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || fcntl(fd, F_GETLK, &probe) != 0)
				_exit(255);
			mask |= (probe.l_type != F_UNLCK) << i;
		}
		_exit(mask);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255) {
		violation("the lock check's child failed");
		return;
	}
	mask = WEXITSTATUS(status);
	/* Files whose locks a hidden handle may keep under ufd only
	 * (model_close_range): left out. */
	for (int i = 0; i < NFILES; i++) {
		char path[8];
		struct stat st;

		snprintf(path, sizeof path, "f%d", i);
		if (stat(path, &st) != 0)
			continue;
		for (int j = 0; j < R.nobj; j++)
			if (R.obj[j].locks_unknown && R.obj[j].dev == st.st_dev &&
			    R.obj[j].ino == st.st_ino)
				mask &= ~(1 << i);
	}
	logf_("locked:");
	for (int i = 0; i < NFILES; i++)
		if (mask & (1 << i))
			logf_(" f%d", i);
	logf_("\n");
}

static void run_op(const struct op *o)
{
	/* an op on a handle that is gone is skipped, the same way in every
	 * configuration whose model agrees */
	int uses_h1 = o->kind >= OP_DUP && o->kind != OP_CLOSEFROM &&
		      o->kind != OP_FORK && o->kind != OP_EXEC &&
		      o->kind != OP_SPAWN && o->kind != OP_RLIMIT &&
		      o->kind != OP_BADPTR && o->kind != OP_RAWCLONE &&
		      !(o->kind == OP_LOCK && o->a) &&
		      !(o->kind == OP_CLOSE_RANGE && o->a != R_ONE &&
			o->a != R_INVERTED && o->a != R_BACKING);
	int creates = o->kind <= OP_FDUPFD || o->kind == OP_NONSEQ || o->kind == OP_PASS ||
		      o->kind == OP_REOPEN;

	logf_("%d: ", o->id);
	if (uses_h1 && !live(o->h1)) {
		logf_("skip: handle gone\n");
		return;
	}
	if (creates && nlive_seq() >= MAX_SEQ) {
		logf_("skip: enough handles\n");
		return;
	}
	switch (o->kind) {
	case OP_OPEN: op_open(o); break;
	case OP_PIPE: case OP_SOCKETPAIR: op_pair(o); break;
	case OP_MEMFD: op_memfd(o); break;
	case OP_DUP: op_dup(o); break;
	case OP_DUP2: op_dup2(o); break;
	case OP_FDUPFD: op_fdupfd(o); break;
	case OP_SETFD: op_setfd(o); break;
	case OP_CLOSE: op_close(o); break;
	case OP_CLOSE_RANGE: op_close_range(o); break;
	case OP_CLOSEFROM: op_closefrom(o); break;
	case OP_NONSEQ: op_nonseq(o); break;
	case OP_PWRITE: op_pwrite(o); break;
	case OP_PREAD: op_pread(o); break;
	case OP_FORK: op_fork(); break;
	case OP_EXEC: op_exec(0); break;
	case OP_SPAWN: op_exec(1); break;
	case OP_RLIMIT: op_rlimit(o); break;
	case OP_DIP: op_dip(o); break;
	case OP_BACKING: case OP_BADNUM: op_notmine(o); break;
	case OP_BADPTR: op_badptr(o); break;
	case OP_PASS: op_pass(o); break;
	case OP_REOPEN: op_reopen(o); break;
	case OP_RAWCLONE: op_rawclone(o); break;
	case OP_FILESCLONE: op_filesclone(o); break;
	case OP_LOCK: op_lock(o); break;
	}
}

/* The files the list opens, with content the model knows. */
static void make_files(void)
{
	for (int i = 0; i < NFILES; i++) {
		char path[sizeof "f-2147483648"]; /* any int: no truncation */
		int fd;

		snprintf(path, sizeof path, "f%d", i);
		R.cont[i].size = 64 * (i + 1);
		for (int j = 0; j < R.cont[i].size; j++)
			R.cont[i].data[j] = (unsigned char)('a' + (i * 7 + j) % 26);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, R.cont[i].data, (size_t)R.cont[i].size) !=
				      R.cont[i].size)
			violation("making %s: %s", path, strerror(errno));
		close(fd);
	}
	R.ncont = NFILES;
}

static int run_main(const char *opsfile, const char *logfile, const char *cfg,
		    const char *fams)
{
	static struct op ops[MAXOPS];
	long page = sysconf(_SC_PAGESIZE);
	int n, fd;

	fd = open(logfile, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, LOGSIZE) != 0)
		return 2;
	/* the log is a shared mapping of a file: no descriptor to keep out
	 * of the way, and what was written survives a crash */
	R.log = mmap(NULL, LOGSIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	R.forkpage = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* OP_BADPTR's memory: a page to write in, then one nobody can read */
	R.bad = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (R.log == MAP_FAILED || R.forkpage == MAP_FAILED || R.bad == MAP_FAILED ||
	    mprotect(R.bad + page, (size_t)page, PROT_NONE) != 0)
		return 2;
	R.bad += page;
	R.cfg = CFG_BARE;
	for (int c = 0; c < NCFG; c++)
		if (!strcmp(cfg, cfg_name[c]))
			R.cfg = c;
	run_fams = (unsigned)strtoul(fams, NULL, 0);
	R.nonseqfd = (int (*)(int, int))dlsym(RTLD_DEFAULT, "nonseqfd");
	R.backing_fd = (int (*)(int))dlsym(RTLD_DEFAULT, "ufd_backing_fd");
	R.ufd = R.nonseqfd && R.backing_fd;
	if (R.ufd != (R.cfg != CFG_BARE))
		violation("ufd %s loaded in the %s run", R.ufd ? "is" : "is not", cfg);
	if (readlink("/proc/self/exe", R.self, sizeof R.self - 1) < 0)
		violation("readlink /proc/self/exe: %s", strerror(errno));
	R.soft = (int)sysconf(_SC_OPEN_MAX);
	for (int i = 0; i < MAXH; i++)
		R.h[i].last = -1;
	R.nh = 3;
	for (int i = 0; i < 3; i++) {
		R.h[i].live = 1;
		R.h[i].num = i;
		R.h[i].obj = new_object(K_STD, i, fcntl(i, F_GETFL) & O_ACCMODE, -1);
	}
	make_files();
	n = ops_load(opsfile, ops);
	if (run_fams & FAM_SIGNALS) {
		/* a hang (a deadlock in ufd under a handler) ends the run:
		 * SIGALRM's default, reported as how the run died */
		alarm(300);
		signals_start();
	}
	check_invariants();
	for (int i = 0; i < n; i++) {
		R.step = ops[i].id;
		run_op(&ops[i]);
		check_invariants();
	}
	signals_stop();
	/* nothing left: close every handle; only the listing's own
	 * descriptor may remain */
	R.step = -1;
	for (int i = 3; i < R.nh; i++)
		if (R.h[i].live) {
			close(R.h[i].num);
			kill_handle(i);
		}
	check_invariants();
	logf_("end\n");
	return 0;
}

/* ---- --check: the exec'd child ---- */

/* The exec'd check of exec_lock_files: a new descriptor of each file
 * (kept open), then a child asks which files this process still holds
 * locked.  msg says what was lost. */
static void check_locks_kept(int want, char *msg, size_t n)
{
	struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	pid_t me = getpid(), pid;
	char path[8];
	int st;

	for (int i = 0; i < NFILES; i++) {
		snprintf(path, sizeof path, "f%d", i);
		(void)open(path, O_RDONLY);
	}
	pid = fork();
	if (pid == 0) {
		int held = 0;

		for (int i = 0; i < NFILES; i++) {
			int fd;

			snprintf(path, sizeof path, "f%d", i);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			probe.l_type = F_WRLCK;
			if (fd >= 0 && fcntl(fd, F_GETLK, &probe) == 0 &&
			    probe.l_type != F_UNLCK && probe.l_pid == me)
				held |= 1 << i;
		}
		_exit(held);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) {
		snprintf(msg, n, "the lock check's child failed");
		return;
	}
	if ((WEXITSTATUS(st) & want) != want)
		snprintf(msg, n, "locks taken before exec lost after a new open: files %#x of %#x",
			 want & ~WEXITSTATUS(st), want);
}

static int check_main(const char *report, const char *expect, int locks)
{
	static int seen[4096];
	char msg[256] = "ok";
	int n = list_fds(seen, 4096), nlisted = 0;
	const char *p = expect;
	FILE *f;

	while (*p) {
		int num, listed, found = 0;
		unsigned long dev, ino;
		struct stat st;

		if (sscanf(p, "%d:%lu:%lu:%d", &num, &dev, &ino, &listed) != 4)
			break;
		p = strchr(p, ',');
		p = p ? p + 1 : "";
		for (int j = 0; j < n; j++)
			found |= seen[j] == num;
		nlisted += listed;
		if (found != listed && listed) {
			snprintf(msg, sizeof msg, "%d not inherited (or not listed)", num);
			break;
		}
		if (fstat(num, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
			snprintf(msg, sizeof msg, "%d is not the parent's file", num);
			break;
		}
	}
	if (!strcmp(msg, "ok") && n != nlisted)
		snprintf(msg, sizeof msg, "lists %d descriptors, %d expected", n, nlisted);
	if (!strcmp(msg, "ok") && locks)
		check_locks_kept(locks, msg, sizeof msg);
	f = fopen(report, "we");
	if (!f)
		return 2;
	fputs(msg, f);
	return fclose(f) ? 2 : 0;
}

/* ======================================================================
 * The driver.
 * ====================================================================== */

static const char *preload;	/* what LD_PRELOAD must hold to load ufd */
static const char *preload_after; /* another preload after ufd, or NULL */
static int verbose;
static char self_path[PATH_MAX];

/* Run ops in configuration cfg; the log comes back in *out (malloc'd).
 * Returns 0 if the run ended, 1 if an invariant failed or it crashed. */
static int run_config(const struct op *ops, int n, int cfg, unsigned fams, char **out)
{
	char dir[] = "/tmp/ufd-fuzz-XXXXXX", opsf[64], logf[64], famstr[16];
	pid_t pid;
	int st, fd, bad = 0;
	char *buf;
	struct stat sb;

	if (!mkdtemp(dir))
		return -1;
	snprintf(opsf, sizeof opsf, "%s/ops", dir);
	snprintf(logf, sizeof logf, "%s/log", dir);
	snprintf(famstr, sizeof famstr, "%u", fams);
	if (ops_save(opsf, ops, n))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { self_path, "--run", opsf, logf, (char *)cfg_name[cfg],
				 famstr, NULL };
		int devnull = open("/dev/null", O_RDWR);

		if (chdir(dir) || devnull < 0)
			_exit(126);
		dup2(devnull, 0);
		dup2(devnull, 1);
		/* the run's model starts from 0, 1 and 2 alone */
		closefrom(3);
		unsetenv("LD_PRELOAD");
		unsetenv("UFD_MODE");
		unsetenv("UFD_RANDOM_MAX");
		unsetenv("UFD_CLOEXEC");
		if (cfg != CFG_BARE) {
			char both[2 * PATH_MAX + 2];

			/* a second preload sees ufd's calls through RTLD_NEXT
			 * (shim_chain.c); the bare run stays bare */
			snprintf(both, sizeof both, "%s%s%s", preload,
				 preload_after ? ":" : "", preload_after ? preload_after : "");
			setenv("LD_PRELOAD", both, 1);
		}
		if (cfg == CFG_ALL)
			setenv("UFD_MODE", "all", 1);
		if (cfg == CFG_RANDOM) {
			char max[16];

			snprintf(max, sizeof max, "%d", RANDOM_MAX);
			setenv("UFD_MODE", "random", 1);
			setenv("UFD_RANDOM_MAX", max, 1);
		}
		if (cfg == CFG_CLOEXEC)
			setenv("UFD_CLOEXEC", "1", 1);
		/* the soft limit the bands are laid out for; the hard limit
		 * is left as it is (room above, for the backing descriptors) */
		if (set_soft(S0) != 0)
			_exit(126);
		execv(self_path, argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	fd = open(logf, O_RDONLY | O_CLOEXEC);
	buf = NULL;
	if (fd >= 0 && fstat(fd, &sb) == 0) {
		buf = calloc(1, LOGSIZE + 64);
		if (read(fd, buf, LOGSIZE) < 0)
			buf[0] = '\0';
		buf[LOGSIZE] = '\0';
	}
	if (fd >= 0)
		close(fd);
	if (!buf)
		buf = calloc(1, 128);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		bad = 1;
		if (!strstr(buf, "\n! ") && strncmp(buf, "! ", 2)) {
			/* no violation reported: a crash (or an exit no check
			 * made).  Say which signal, and in which op: the log's
			 * last line, "N: " with no result, if it died in one. */
			size_t l = strlen(buf);
			const char *last = strrchr(buf, '\n');
			char what[48], where[32] = "";
			int op;

			last = last ? last + 1 : buf;
			if (*last && sscanf(last, "%d:", &op) == 1)
				snprintf(where, sizeof where, " during op %d", op);
			if (WIFSIGNALED(st))
				snprintf(what, sizeof what, "died of %s (signal %d)",
					 sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?",
					 WTERMSIG(st));
			else
				snprintf(what, sizeof what, "exited %d", WEXITSTATUS(st));
			snprintf(buf + l, 128, "\n! the run %s%s\n", what, where);
		}
	}
	unlink(opsf);
	unlink(logf);
	/* the exec checks' reports and the files */
	for (int i = 0; i < NFILES; i++) {
		char p[64];

		snprintf(p, sizeof p, "%s/f%d", dir, i);
		unlink(p);
	}
	rmdir(dir);
	*out = buf;
	return bad;
}

/* The first line where a and b differ, in *line (a copy, from a). */
static int first_diff(const char *a, const char *b, char *line, size_t n, char *other, size_t m)
{
	for (;;) {
		const char *ea = strchrnul(a, '\n'), *eb = strchrnul(b, '\n');

		if (ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) {
			snprintf(line, n, "%.*s", (int)(ea - a), a);
			snprintf(other, m, "%.*s", (int)(eb - b), b);
			return 1;
		}
		if (!*ea || !*eb)
			return *ea != *eb;
		a = ea + 1;
		b = eb + 1;
	}
}

/* A line of a run's log as a failure quotes it: longer ones are cut. */
#define QUOTE 300
/* The line saying why a list fails: a few words, a config's name and at
 * most two quoted lines, each shorter than QUOTE. */
#define WHY_SIZE (2 * QUOTE + 100)

/* The first line of log that says what went wrong ("! "), at most
 * QUOTE - 1 bytes of it; n gets its length. */
static const char *violation_line(const char *log, int *n)
{
	const char *v = strstr(log, "! ");
	size_t len = v ? strcspn(v, "\n") : 1;

	*n = len < QUOTE ? (int)len : QUOTE - 1;
	return v ? v : "?";
}

/* Does the list fail in cfg (an invariant, a crash, or a log that is not
 * the bare run's)?  why (WHY_SIZE bytes) gets one line saying how. */
static int fails(const struct op *ops, int n, int cfg, unsigned fams,
		 char why[static WHY_SIZE])
{
	char *bare = NULL, *log = NULL, l1[QUOTE], l2[QUOTE];
	const char *v;
	int bad, vn;

	bad = run_config(ops, n, CFG_BARE, fams, &bare);
	if (bad) {
		v = violation_line(bare, &vn);
		snprintf(why, WHY_SIZE, "bare run (the fuzzer's model): %.*s", vn, v);
		free(bare);
		return 1;
	}
	if (cfg == CFG_BARE) {
		free(bare);
		return 0;
	}
	bad = run_config(ops, n, cfg, fams, &log);
	if (bad) {
		v = violation_line(log, &vn);
		snprintf(why, WHY_SIZE, "%s: %.*s", cfg_name[cfg], vn, v);
	} else if (first_diff(log, bare, l1, sizeof l1, l2, sizeof l2)) {
		bad = 1;
		snprintf(why, WHY_SIZE, "%s differs from bare: op %s / bare: %s",
			 cfg_name[cfg], l1, l2);
	}
	free(bare);
	free(log);
	return bad;
}

/* Delete operations while the list still fails in cfg: halves, quarters,
 * ... down to single operations, until nothing more can go. */
static int shrink(struct op *ops, int n, int cfg, unsigned fams)
{
	static struct op trial[MAXOPS];
	char why[WHY_SIZE];

	for (int chunk = n / 2; chunk >= 1; chunk /= 2) {
		int changed;

		do {
			changed = 0;
			for (int at = 0; at + chunk <= n;) {
				int m = 0;

				for (int i = 0; i < n; i++)
					if (i < at || i >= at + chunk)
						trial[m++] = ops[i];
				if (fails(trial, m, cfg, fams, why)) {
					memcpy(ops, trial, sizeof(*ops) * (size_t)m);
					n = m;
					changed = 1;
				} else {
					at += chunk;
				}
			}
		} while (changed && chunk == 1);
	}
	return n;
}

static unsigned parse_without(const char *s)
{
	unsigned fams = ~0U;

	while (s && *s) {
		size_t l = strcspn(s, ",");
		int found = 0;

		for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
			if (strlen(families[i].name) == l && !strncmp(s, families[i].name, l)) {
				fams &= ~families[i].bit;
				found = 1;
			}
		if (!found) {
			fprintf(stderr, "fuzz_fds: unknown family '%.*s'\n", (int)l, s);
			exit(2);
		}
		s += l + (s[l] == ',');
	}
	return fams | FAM_BASIC;
}

/* A comma-separated list of configuration names, as a bit set (0 if a
 * name is unknown). */
static int parse_configs(const char *s)
{
	int cfgs = 0;

	while (*s) {
		size_t l = strcspn(s, ",");
		int found = 0;

		for (int c = 0; c < NCFG; c++)
			if (strlen(cfg_name[c]) == l && !strncmp(s, cfg_name[c], l)) {
				cfgs |= 1 << c;
				found = 1;
			}
		if (!found)
			return 0;
		s += l + (s[l] == ',');
	}
	return cfgs;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fuzz_fds [--seeds A-B] [--ops N]\n"
		"                [--config bare,transparent,all,random,cloexec|all-configs]\n"
		"                [--without FAMILY,...] [--signals] [--no-shrink] [--list] [-v]\n"
		"families: basic virtual backing rlimit fork exec closerange hostile io badptr\n"
		"                [--preload-after LIB.so]\n"
		"LD_PRELOAD for ufd from --preload PATH or UFD_TEST_PRELOAD\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct op ops[MAXOPS];
	unsigned long long first = 1, last = 20;
	int nops = 80, cfgs = 1 << CFG_TRANSPARENT | 1 << CFG_ALL, doshrink = 1, list = 0;
	unsigned fams = ~0U & ~FAM_SIGNALS, signals = 0;
	int nfail = 0;
	time_t t0 = time(NULL);

	if (argc == 2 && !strcmp(argv[1], "--true"))
		return 0;
	if (argc >= 6 && !strcmp(argv[1], "--run"))
		return run_main(argv[2], argv[3], argv[4], argv[5]);
	if (argc >= 4 && !strcmp(argv[1], "--check"))
		return check_main(argv[2], argv[3],
				  argc >= 5 && !strncmp(argv[4], "locks=", 6) ? atoi(argv[4] + 6) : 0);
	preload = getenv("UFD_TEST_PRELOAD");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if (sscanf(argv[++i], "%llu-%llu", &first, &last) == 1)
				last = first;
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			nops = atoi(argv[++i]);
			if (nops < 1 || nops > MAXOPS)
				usage();
		} else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			const char *c = argv[++i];

			cfgs = 0;
			if (!strcmp(c, "all-configs"))
				cfgs = ((1 << NCFG) - 1) & ~(1 << CFG_BARE);
			else
				cfgs = parse_configs(c);
			if (!cfgs)
				usage();
		} else if (!strcmp(argv[i], "--without") && i + 1 < argc) {
			fams = parse_without(argv[++i]) & ~FAM_SIGNALS;
		} else if (!strcmp(argv[i], "--signals")) {
			signals = FAM_SIGNALS;
		} else if (!strcmp(argv[i], "--preload") && i + 1 < argc) {
			preload = argv[++i];
		} else if (!strcmp(argv[i], "--preload-after") && i + 1 < argc) {
			preload_after = argv[++i];
		} else if (!strcmp(argv[i], "--list")) {
			list = 1;
		} else if (!strcmp(argv[i], "--no-shrink")) {
			doshrink = 0;
		} else if (!strcmp(argv[i], "-v")) {
			verbose = 1;
		} else {
			usage();
		}
	}
	if (!preload || !*preload) {
		fprintf(stderr, "fuzz_fds: no LD_PRELOAD for ufd: set UFD_TEST_PRELOAD or --preload\n");
		return 2;
	}
	if (readlink("/proc/self/exe", self_path, sizeof self_path - 1) < 0)
		return 2;
	fams |= signals;
	if (list) {
		/* the lists alone, as C-like lines, one op id each */
		for (unsigned long long seed = first; seed <= last; seed++) {
			int n = generate(seed, nops, fams, ops);

			printf("seed %llu:\n", seed);
			for (int i = 0; i < n; i++) {
				printf("  %d: ", ops[i].id);
				op_print(stdout, &ops[i]);
				printf("\n");
			}
		}
		return 0;
	}
	for (unsigned long long seed = first; seed <= last; seed++) {
		for (int cfg = 0; cfg < NCFG; cfg++) {
			char why[WHY_SIZE];
			int n;

			if (!(cfgs & 1 << cfg))
				continue;
			n = generate(seed, nops, fams, ops);
			if (!fails(ops, n, cfg, fams, why)) {
				if (verbose)
					printf("seed %llu %s: ok\n", seed, cfg_name[cfg]);
				continue;
			}
			nfail++;
			printf("FAIL seed %llu, config %s: %s\n", seed, cfg_name[cfg], why);
			if (doshrink) {
				n = shrink(ops, n, cfg, fams);
				fails(ops, n, cfg, fams, why);
				printf("  shrunk to %d ops: %s\n", n, why);
				for (int i = 0; i < n; i++) {
					printf("    ");
					op_print(stdout, &ops[i]);
					printf("\n");
				}
			}
			fflush(stdout);
		}
	}
	printf("fuzz_fds: seeds %llu-%llu, %d ops each%s,", first, last, nops,
	       signals ? ", with signals" : "");
	for (int cfg = 0; cfg < NCFG; cfg++)
		if (cfgs & 1 << cfg)
			printf(" %s", cfg_name[cfg]);
	printf(": %d failing, %lds\n", nfail, (long)(time(NULL) - t0));
	return nfail ? 1 : 0;
}
