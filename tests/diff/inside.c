/* SPDX-License-Identifier: MIT */
/*
 * inside.c - the differential test's family of descriptors inside data
 * (inside_data): the ioctls whose argument is, holds or makes a
 * descriptor (loop devices, FICLONE/FICLONERANGE/FIDEDUPERANGE,
 * PERF_EVENT_IOC_SET_OUTPUT, TIOCGPTPEER, NS_GET_USERNS, SIOCGSKNS) and
 * the socket options that do (SO_ATTACH_BPF, SO_PEERPIDFD).  In the
 * VIRTUAL run every descriptor the script names is virtual, so each call
 * must find the file behind it as the REAL run's does.  What the machine
 * cannot do (no loop device, no perf events, no BPF) fails the same way
 * in both runs.
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

#include <linux/bpf.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <linux/nsfs.h>
#include <linux/perf_event.h>
#include <linux/sockios.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* A socket filter that accepts nothing ("r0 = 0; exit"), or -1. */
static int bpf_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr = { 0 };

	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uintptr_t)"GPL";
	return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

/* A software perf event counting this process's CPU clock, or -1. */
static int perf_event(void)
{
	struct perf_event_attr attr = { 0 };

	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The kind of file a descriptor the call made is: the same in both runs
 * (its number is not). */
static void note_kind(struct run *r, int line, const char *label, int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0)
		return;
	note(r, line, label, "type=%o", (unsigned)(st.st_mode & S_IFMT));
	close(fd);
}

script_fn script_inside_data;

void script_inside_data(struct run *r)
{
	struct file_clone_range range = { 0 };
	struct loop_config config = { 0 };
	union {
		struct file_dedupe_range head;
		char bytes[sizeof(struct file_dedupe_range) +
			   2 * sizeof(struct file_dedupe_range_info)];
	} dedupe;
	struct stat st;
	socklen_t len;
	char name[64];
	int f, g, ctl, loop, loop2, n, ev1, ev2, prog, s, sv[2], pidfd, master, ns, made;

	make_file(r, "image", "");
	must(r, truncate("image", 1 << 20) == 0, "truncate image");
	make_file(r, "src", "clone me");
	f = FD_OF(r, open("image", O_RDWR));
	g = FD_OF(r, open("src", O_RDWR));

	/* FICLONE, FICLONERANGE and FIDEDUPERANGE name a source or
	 * destination descriptor (ext4 and tmpfs refuse them all: the
	 * same refusal in both runs, for the descriptor's file, not
	 * EBADF for its number). */
	LOG(r, ioctl(f, FICLONE, g));
	range.src_fd = g;
	range.src_length = 4;
	LOG(r, ioctl(f, FICLONERANGE, &range));
	memset(&dedupe, 0, sizeof(dedupe));
	dedupe.head.src_length = 4;
	dedupe.head.dest_count = 2;
	dedupe.head.info[0].dest_fd = f;
	dedupe.head.info[1].dest_fd = closed_fd(r);
	if (LOG(r, ioctl(g, FIDEDUPERANGE, &dedupe)) == 0)
		NOTE(r, "dedupe status", "%d %d", dedupe.head.info[0].status,
		     dedupe.head.info[1].status);
	NOTE(r, "dedupe dest_fd kept", "%d",
	     dedupe.head.info[0].dest_fd == f);

	/* Loop devices on the file: LOOP_SET_FD takes the descriptor as its
	 * argument, LOOP_CONFIGURE in a structure (on a second device: a
	 * cleared one stays busy a while). */
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	n = ctl >= 0 ? ioctl(ctl, LOOP_CTL_GET_FREE) : -1;
	NOTE(r, "loop control", "%d", n >= 0);
	if (n >= 0) {
		snprintf(name, sizeof(name), "/dev/loop%d", n);
		loop = FD_OF(r, open(name, O_RDWR));
		LOG(r, ioctl(loop, LOOP_SET_FD, closed_fd(r)));
		if (LOG(r, ioctl(loop, LOOP_SET_FD, f)) == 0) {
			n = ioctl(ctl, LOOP_CTL_GET_FREE);
			snprintf(name, sizeof(name), "/dev/loop%d", n);
			loop2 = FD_OF(r, open(name, O_RDWR));
			config.fd = (uint32_t)g;
			if (LOG(r, ioctl(loop2, LOOP_CONFIGURE, &config)) == 0)
				LOG(r, ioctl(loop2, LOOP_CLR_FD));
			close(loop2);
			LOG(r, ioctl(loop, LOOP_CLR_FD));
		}
		close(loop);
	}
	if (ctl >= 0)
		close(ctl);

	/* PERF_EVENT_IOC_SET_OUTPUT names another event's descriptor. */
	ev1 = perf_event();
	ev2 = perf_event();
	NOTE(r, "perf events", "%d", ev1 >= 0 && ev2 >= 0);
	if (ev1 >= 0 && ev2 >= 0) {
		ev1 = fd_of(r, ev1);
		ev2 = fd_of(r, ev2);
		LOG(r, ioctl(ev2, PERF_EVENT_IOC_SET_OUTPUT, ev1));
		LOG(r, ioctl(ev2, PERF_EVENT_IOC_SET_OUTPUT, -1));
		LOG(r, ioctl(ev2, PERF_EVENT_IOC_SET_OUTPUT, closed_fd(r)));
	}

	/* SO_ATTACH_BPF names a BPF program's descriptor. */
	s = FD_OF(r, socket(AF_INET, SOCK_DGRAM, 0));
	prog = bpf_prog();
	NOTE(r, "bpf program", "%d", prog >= 0);
	if (prog >= 0) {
		prog = fd_of(r, prog);
		LOG(r, setsockopt(s, SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)));
		LOG(r, setsockopt(s, SOL_SOCKET, SO_DETACH_BPF, &prog, sizeof(prog)));
	}

	/* Descriptors the call makes: a pty's peer, a namespace's owner, a
	 * socket's network namespace, a socket peer's pidfd. */
	master = FD_OF(r, posix_openpt(O_RDWR | O_NOCTTY));
	LOG(r, grantpt(master));
	LOG(r, unlockpt(master));
	made = LOG_FD(r, ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY));
	note_kind(r, __LINE__, "pty peer", made);
	ns = FD_OF(r, open("/proc/self/ns/net", O_RDONLY));
	made = LOG_FD(r, ioctl(ns, NS_GET_USERNS));
	note_kind(r, __LINE__, "user namespace", made);
	made = LOG_FD(r, ioctl(s, SIOCGSKNS));
	note_kind(r, __LINE__, "socket's namespace", made);
	must(r, socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	fd_of_pair(r, sv);
	len = sizeof(pidfd);
	if (LOG(r, getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len)) == 0) {
		NOTE(r, "pidfd length", "%u", (unsigned)len);
		NOTE(r, "pidfd is this process", "%d",
		     fstat(pidfd, &st) == 0 && pidfd_send_signal(pidfd, 0, NULL, 0) == 0);
		close(pidfd);
	}
}
