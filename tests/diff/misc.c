/* SPDX-License-Identifier: MIT */
/*
 * misc.c - the differential test's families of special descriptors and
 * stdio: eventfd, timerfd, signalfd, inotify, memfd and mmap, tty calls,
 * pidfd, setns, fanotify (misc); fdopen and fdopendir (stdio).
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

/* ---- misc: eventfd, timerfd, signalfd, inotify, memfd+mmap, tty calls,
 * pidfd, setns, fanotify ---- */

static void note_inotify(struct run *r, int line, const char *buf, long n)
{
	char data[512] = "";
	size_t len = 0;

	for (long off = 0; off < n && len < sizeof(data);) {
		const struct inotify_event *ev =
			(const struct inotify_event *)(buf + off);

		len += (size_t)snprintf(data + len, sizeof(data) - len,
					"[wd=%d mask=%#x name=%s]", ev->wd,
					ev->mask, ev->len ? ev->name : "");
		off += (long)(sizeof(*ev) + ev->len);
	}
	note(r, line, "inotify events", "%s", data);
}

script_fn script_misc;

void script_misc(struct run *r)
{
	union {
		struct inotify_event ev;
		struct signalfd_siginfo si;
		struct fanotify_event_metadata fm;
		char buf[1024];
	} u;
	struct itimerspec its, cur;
	struct termios tio;
	struct stat st, ref;
	sigset_t mask, mask2;
	eventfd_t ev;
	uint64_t u64;
	char buf[128], pts[128] = "";
	const char *name;
	char *map;
	long got;
	int e, t, s, s2, in, wd, mem, f, wo, pidfd, ns, fan, d, pm, ptsfd, bad;

	make_file(r, "plain", "not a tty");
	must(r, stat("plain", &ref) == 0, "stat plain");
	f = FD_OF(r, open("plain", O_RDWR));

	/* eventfd */
	e = FD_OF(r, eventfd(3, EFD_NONBLOCK));
	ev = 0;
	LOG(r, eventfd_read(e, &ev));
	NOTE(r, "eventfd value", "%llu", (unsigned long long)ev);
	LOG(r, eventfd_read(e, &ev));
	LOG(r, eventfd_write(e, 5));
	u64 = 0;
	LOG(r, read(e, &u64, sizeof(u64)));
	NOTE(r, "eventfd value", "%llu", (unsigned long long)u64);
	u64 = 7;
	LOG(r, write(e, &u64, sizeof(u64)));
	LOG(r, read(e, buf, 4));
	LOG(r, eventfd_read(e, &ev));
	NOTE(r, "eventfd value", "%llu", (unsigned long long)ev);
	LOG(r, eventfd_write(e, UINT64_MAX));
	LOG(r, eventfd_read(f, &ev));
	LOG_FD(r, eventfd(0, 0x1234));

	/* timerfd */
	t = FD_OF(r, timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
	LOG(r, fcntl(t, F_GETFD));
	its = (struct itimerspec){ { 0, 0 }, { 100, 0 } };
	memset(&cur, 0xff, sizeof(cur));
	LOG(r, timerfd_settime(t, 0, &its, &cur));
	NOTE(r, "old", "%lld %lld", (long long)cur.it_value.tv_sec,
	     (long long)cur.it_interval.tv_sec);
	if (LOG(r, timerfd_gettime(t, &cur)) == 0)
		NOTE(r, "timerfd_gettime", "interval=%lld armed=%d",
		     (long long)cur.it_interval.tv_sec,
		     cur.it_value.tv_sec > 0 && cur.it_value.tv_sec <= 100);
	LOG(r, read(t, &u64, sizeof(u64)));
	its = (struct itimerspec){ { 0, 0 }, { 0, 1 } };
	LOG(r, timerfd_settime(t, TFD_TIMER_ABSTIME, &its, NULL));
	u64 = 0;
	LOG(r, read(t, &u64, sizeof(u64)));
	NOTE(r, "expirations", "%llu", (unsigned long long)u64);
	LOG(r, timerfd_settime(t, 0x40000000, &its, NULL));
	its.it_value.tv_nsec = -1;
	LOG(r, timerfd_settime(t, 0, &its, NULL));
	LOG(r, timerfd_settime(f, 0, &its, NULL));
	LOG(r, timerfd_gettime(f, &cur));
	LOG_FD(r, timerfd_create(12345, 0));

	/* signalfd: given a signalfd, signalfd() returns that descriptor. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	mask2 = mask;
	sigaddset(&mask2, SIGUSR2);
	must(r, sigprocmask(SIG_BLOCK, &mask2, NULL) == 0, "sigprocmask");
	s = FD_OF(r, signalfd(-1, &mask, SFD_NONBLOCK));
	s2 = LOG_FD(r, signalfd(s, &mask2, 0));
	LOG_BOOL(r, s2 == s);
	LOG(r, raise(SIGUSR2));
	if (LOG(r, read(s, &u.si, sizeof(u.si))) > 0)
		NOTE(r, "ssi_signo", "%u", u.si.ssi_signo);
	LOG(r, read(s, &u.si, sizeof(u.si)));
	LOG_FD(r, signalfd(f, &mask, 0));
	LOG_FD(r, signalfd(-1, &mask, 0x1234));

	/* inotify */
	in = FD_OF(r, inotify_init1(IN_NONBLOCK));
	wd = LOG(r, inotify_add_watch(in, ".", IN_CREATE | IN_DELETE));
	LOG(r, inotify_add_watch(in, ".", IN_CREATE | IN_MASK_ADD));
	make_file(r, "newfile", "");
	LOG(r, unlink("newfile"));
	got = LOG(r, read(in, &u, sizeof(u)));
	if (got > 0)
		note_inotify(r, __LINE__, u.buf, got);
	LOG(r, inotify_rm_watch(in, wd));
	got = LOG(r, read(in, &u, sizeof(u)));
	if (got > 0)
		note_inotify(r, __LINE__, u.buf, got);
	LOG(r, inotify_rm_watch(in, wd));
	LOG(r, inotify_rm_watch(in, 999));
	LOG(r, inotify_add_watch(in, "missing", IN_CREATE));
	LOG(r, inotify_add_watch(in, ".", 0));
	LOG(r, inotify_add_watch(f, ".", IN_CREATE));
	LOG(r, inotify_rm_watch(f, 1));
	LOG_FD(r, inotify_init1(0x1234));

	/* memfd and mmap */
	mem = FD_OF(r, memfd_create("mapped", MFD_CLOEXEC));
	LOG(r, write(mem, "mapped bytes", 12));
	LOG(r, ftruncate(mem, 4096));
	map = LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, mem, 0));
	if (map != MAP_FAILED) {
		NOTE(r, "mapped", "%.12s", map);
		munmap(map, 4096);
	}
	map = LOG_PTR(r, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			      f, 0));
	if (map != MAP_FAILED) {
		NOTE(r, "mapped", "%.9s", map);
		munmap(map, 4096);
	}
	wo = FD_OF(r, open("plain", O_WRONLY));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, wo, 0));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, e, 0));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, mem, 1));
	LOG_FD(r, memfd_create("x", 0x1234));

	/* Not a tty, and a tty. */
	LOG_ERRNO(r, isatty(f));
	LOG_PTR(r, ttyname(f));
	LOG_ERRNUM(r, ttyname_r(f, buf, sizeof(buf)));
	LOG(r, tcgetattr(f, &tio));
	LOG(r, tcgetpgrp(f));
	LOG(r, tcflush(f, TCIFLUSH));
	pm = FD_OF(r, posix_openpt(O_RDWR | O_NOCTTY));
	LOG(r, grantpt(pm));
	LOG(r, unlockpt(pm));
	LOG_ERRNUM(r, ptsname_r(pm, pts, sizeof(pts)));
	LOG_BOOL(r, strncmp(pts, "/dev/pts/", 9) == 0);
	ptsfd = FD_OF(r, open(pts, O_RDWR | O_NOCTTY));
	LOG_ERRNO(r, isatty(ptsfd));
	name = LOG_PTR(r, ttyname(ptsfd));
	LOG_BOOL(r, name && strcmp(name, pts) == 0);
	LOG_ERRNUM(r, ttyname_r(ptsfd, buf, sizeof(buf)));
	LOG_BOOL(r, strcmp(buf, pts) == 0);
	if (LOG(r, tcgetattr(ptsfd, &tio)) == 0)
		NOTE(r, "termios", "iflag=%#x oflag=%#x lflag=%#x",
		     tio.c_iflag, tio.c_oflag, tio.c_lflag);
	LOG(r, tcsetattr(ptsfd, TCSANOW, &tio));
	LOG(r, tcgetpgrp(ptsfd));

	/* pidfd */
	pidfd = FD_OF(r, pidfd_open(getpid(), 0));
	LOG(r, pidfd_send_signal(pidfd, 0, NULL, 0));
	LOG(r, pidfd_send_signal(pidfd, 0, NULL, 1));
	LOG(r, pidfd_send_signal(f, 0, NULL, 0));
	s2 = LOG_FD(r, pidfd_getfd(pidfd, f, 0));
	LOG_STAT(r, fstat(s2, &st), st, &ref);
	LOG(r, close(s2));
	LOG_FD(r, pidfd_getfd(pidfd, -1, 0));
	LOG_FD(r, pidfd_getfd(f, f, 0));
	LOG_FD(r, pidfd_open(getpid(), 0x1234));
	LOG_FD(r, pidfd_open(-1, 0));

	/* setns: joining the namespace the process is in already. */
	ns = FD_OF(r, open("/proc/self/ns/uts", O_RDONLY));
	LOG(r, setns(ns, CLONE_NEWUTS));
	LOG(r, setns(ns, CLONE_NEWNET));
	LOG(r, setns(f, 0));
	LOG(r, setns(pidfd, 0));

	/* fanotify: needs CAP_SYS_ADMIN; the rest is skipped without it. */
	fan = FD_OF(r, fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY));
	if (fan < 0) {
		NOTE(r, "fanotify", "skipped: fanotify_init: %s",
		     errname(errno));
	} else {
		must(r, mkdir("watched", 0755) == 0, "mkdir watched");
		d = FD_OF(r, open("watched", O_RDONLY | O_DIRECTORY));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, d, NULL));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, d, "x"));
		LOG(r, fanotify_mark(fan, 0x40000000, FAN_CLOSE_WRITE, d, NULL));
		LOG(r, fanotify_mark(f, FAN_MARK_ADD, FAN_CLOSE_WRITE, d, NULL));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE,
				     AT_FDCWD, "watched"));
		make_file(r, "watched/x", "");
		if (LOG(r, read(fan, &u.fm, sizeof(u))) > 0) {
			NOTE(r, "fanotify event", "len=%u vers=%u mask=%#llx "
			     "fd_valid=%d self=%d", u.fm.event_len, u.fm.vers,
			     (unsigned long long)u.fm.mask, u.fm.fd >= 0,
			     u.fm.pid == getpid());
			if (u.fm.fd >= 0)
				close(u.fm.fd);
		}
		bad = closed_fd(r);
		LOG(r, fanotify_mark(bad, FAN_MARK_ADD, FAN_CLOSE_WRITE,
				     AT_FDCWD, "."));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, bad,
				     "x"));
		LOG(r, fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE, bad,
				     NULL));
		LOG(r, close(d));
		LOG(r, close(fan));
	}

	/* A closed descriptor. */
	bad = closed_fd(r);
	LOG(r, eventfd_read(bad, &ev));
	LOG(r, eventfd_write(bad, 1));
	LOG(r, timerfd_settime(bad, 0, &its, NULL));
	LOG(r, timerfd_gettime(bad, &cur));
	LOG_FD(r, signalfd(bad, &mask, 0));
	LOG(r, inotify_add_watch(bad, ".", IN_CREATE));
	LOG(r, inotify_rm_watch(bad, 1));
	LOG_PTR(r, mmap(NULL, 4096, PROT_READ, MAP_SHARED, bad, 0));
	LOG_ERRNO(r, isatty(bad));
	LOG_PTR(r, ttyname(bad));
	LOG_ERRNUM(r, ttyname_r(bad, buf, sizeof(buf)));
	LOG(r, tcgetattr(bad, &tio));
	LOG(r, grantpt(bad));
	LOG(r, unlockpt(bad));
	LOG_ERRNUM(r, ptsname_r(bad, buf, sizeof(buf)));
	LOG(r, pidfd_send_signal(bad, 0, NULL, 0));
	LOG_FD(r, pidfd_getfd(bad, f, 0));
	LOG_FD(r, pidfd_getfd(pidfd, bad, 0));
	LOG(r, setns(bad, 0));

	/* Negative numbers. */
	LOG(r, eventfd_read(-1, &ev));
	LOG(r, timerfd_gettime(-1, &cur));
	LOG(r, inotify_add_watch(-1, ".", IN_CREATE));
	LOG_ERRNO(r, isatty(-1));
	LOG(r, tcgetattr(-1, &tio));
	LOG(r, pidfd_send_signal(-1, 0, NULL, 0));
	LOG(r, setns(-1, 0));

	LOG(r, close(e));
	LOG(r, close(t));
	LOG(r, close(s));
	LOG(r, close(in));
	LOG(r, close(mem));
	LOG(r, close(wo));
	LOG(r, close(pm));
	LOG(r, close(ptsfd));
	LOG(r, close(pidfd));
	LOG(r, close(ns));
	LOG(r, close(f));
}

/* ---- stdio: fdopen and fdopendir on a virtual descriptor ---- */

script_fn script_stdio;

void script_stdio(struct run *r)
{
	struct dirent *de;
	char buf[64] = "", names[16][64], *list[16];
	FILE *fp;
	DIR *dir;
	struct dirent **ents;
	int fd, ro, d, p[2], bad, n;

	make_file(r, "s", "");
	make_file(r, "ro", "read only");
	must(r, mkdir("d", 0755) == 0, "mkdir d");
	make_file(r, "d/a", "");
	make_file(r, "d/b", "");
	make_file(r, "d/c", "");

	/* fdopen */
	fd = FD_OF(r, open("s", O_RDWR));
	fp = LOG_PTR(r, fdopen(fd, "r+"));
	if (fp) {
		LOG_BOOL(r, fileno(fp) == fd);
		LOG(r, fwrite("hello stdio", 1, 11, fp));
		LOG(r, fflush(fp));
		LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);
		LOG(r, fseek(fp, 6, SEEK_SET));
		LOG(r, ftell(fp));
		LOG_BUF(r, fread(buf, 1, 5, fp), buf);
		LOG(r, ftell(fp));
		LOG(r, lseek(fd, 0, SEEK_CUR));
		rewind(fp);
		LOG_PTR(r, fgets(buf, sizeof(buf), fp));
		NOTE(r, "fgets", "%s", buf);
		LOG(r, fprintf(fp, "+%d", 42));
		LOG(r, fseeko(fp, 0, SEEK_END));
		LOG(r, ftello(fp));
		LOG(r, fputs("!", fp));
		LOG(r, fflush(fp));
		LOG_BUF(r, pread(fd, buf, sizeof(buf), 0), buf);
		LOG(r, ferror(fp));
		LOG(r, fclose(fp));
		LOG(r, fcntl(fd, F_GETFD));
	}
	ro = FD_OF(r, open("ro", O_RDONLY));
	LOG_PTR(r, fdopen(ro, "w"));
	LOG_PTR(r, fdopen(ro, "q"));
	fp = LOG_PTR(r, fdopen(ro, "r"));
	if (fp) {
		LOG_BUF(r, fread(buf, 1, sizeof(buf), fp), buf);
		LOG(r, feof(fp));
		LOG(r, fputc('x', fp));
		LOG(r, ferror(fp) != 0);
		LOG(r, fclose(fp));
		LOG(r, fcntl(ro, F_GETFD));
	}
	LOG(r, pipe(p));
	fd_of_pair(r, p);
	fp = LOG_PTR(r, fdopen(p[1], "w"));
	if (fp) {
		LOG(r, fputs("through a pipe", fp));
		LOG(r, fclose(fp));
	}
	fp = LOG_PTR(r, fdopen(p[0], "r"));
	if (fp) {
		LOG_BUF(r, fread(buf, 1, sizeof(buf), fp), buf);
		LOG(r, fseek(fp, 0, SEEK_SET));
		LOG(r, fclose(fp));
	}

	/* fdopendir */
	d = FD_OF(r, open("d", O_RDONLY | O_DIRECTORY));
	dir = LOG_PTR(r, fdopendir(d));
	if (dir) {
		LOG_BOOL(r, dirfd(dir) == d);
		n = 0;
		while ((de = readdir(dir)) && n < 16) {
			snprintf(names[n], sizeof(names[n]), "%.60s", de->d_name);
			list[n] = names[n];
			n++;
		}
		note_names(r, __LINE__, "readdir", list, n);
		LOG_VOID(r, rewinddir(dir));
		n = 0;
		while ((de = readdir(dir)))
			n++;
		NOTE(r, "readdir again", "%d", n);
		n = LOG(r, scandirat(d, ".", &ents, NULL, alphasort));
		for (int i = 0; i < n; i++) {
			list[i < 16 ? i : 15] = ents[i]->d_name;
		}
		if (n > 0 && n <= 16)
			note_names(r, __LINE__, "scandirat", list, n);
		for (int i = 0; i < n; i++)
			free(ents[i]);
		if (n >= 0)
			free(ents);
		LOG(r, closedir(dir));
		LOG(r, fcntl(d, F_GETFD));
	}
	fd = FD_OF(r, open("s", O_RDONLY));
	LOG_PTR(r, fdopendir(fd));
	LOG(r, close(fd));

	/* A closed descriptor, a negative one. */
	bad = closed_fd(r);
	LOG_PTR(r, fdopen(bad, "r"));
	LOG_PTR(r, fdopendir(bad));
	LOG(r, scandirat(bad, ".", &ents, NULL, alphasort));
	LOG_PTR(r, fdopen(-1, "r"));
	LOG_PTR(r, fdopendir(-1));
}
