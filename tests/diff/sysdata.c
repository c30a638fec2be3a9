/* SPDX-License-Identifier: MIT */
/*
 * sysdata.c - the differential test's family of descriptors inside the
 * structures of system calls made through syscall() (inside_syscall):
 * bpf (map element operations, OBJ_GET_INFO_BY_FD and PROG_TEST_RUN,
 * whose structure the kernel writes into, OBJ_PIN, PROG_ATTACH/DETACH
 * and LINK_CREATE on a cgroup), io_uring_register (an eventfd, and the
 * arrays of FILES, FILES_UPDATE, FILES2 and FILES_UPDATE2) and
 * landlock_add_rule (parent_fd).  In the VIRTUAL run the descriptors
 * inside are virtual: the kernel must find the same files as in the REAL
 * run, and the caller's structure must come back with its own numbers.
 * What the machine cannot do (no bpf, io_uring, landlock or cgroup2)
 * fails the same way in both runs, and says so in the log.
 *
 * Each script logs with the macros of diff.h.
 */
#include "diff.h"

#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/landlock.h>

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* A program of type type that returns ret, or -1. */
static int bpf_prog(int type, int ret)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = ret },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr = { 0 };

	attr.prog_type = (uint32_t)type;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uintptr_t)"GPL";
	return (int)bpf(BPF_PROG_LOAD, &attr);
}

static void script_bpf(struct run *r)
{
	struct bpf_map_info info;
	union bpf_attr a;
	uint32_t key = 0, value = 42, got = 0, next = 0;
	unsigned char packet[64] = { 0 };
	char cgpath[96];
	int map, prog, cg, link;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = a.value_size = 4;
	a.max_entries = 2;
	map = FD_OF(r, bpf(BPF_MAP_CREATE, &a));
	NOTE(r, "bpf map", "%d", map >= 0);
	if (map < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&value;
	LOG(r, bpf(BPF_MAP_UPDATE_ELEM, &a));
	a.value = (uintptr_t)&got;
	LOG(r, bpf(BPF_MAP_LOOKUP_ELEM, &a));
	NOTE(r, "looked up", "%u", got);
	a.next_key = (uintptr_t)&next;
	LOG(r, bpf(BPF_MAP_GET_NEXT_KEY, &a));
	NOTE(r, "next key", "%u", next);
	LOG(r, bpf(BPF_MAP_DELETE_ELEM, &a));
	LOG_BOOL(r, a.map_fd == (uint32_t)map);
	a.map_fd = (uint32_t)closed_fd(r);
	LOG(r, bpf(BPF_MAP_LOOKUP_ELEM, &a));
	/* The kernel writes info_len back: the copy comes back, with the
	 * caller's own number in bpf_fd. */
	memset(&a, 0, sizeof(a));
	memset(&info, 0, sizeof(info));
	a.info.bpf_fd = (uint32_t)map;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	LOG(r, bpf(BPF_OBJ_GET_INFO_BY_FD, &a));
	NOTE(r, "map info", "len=%u type=%u key=%u value=%u bpf_fd_kept=%d",
	     a.info.info_len, info.type, info.key_size, info.value_size,
	     a.info.bpf_fd == (uint32_t)map);
	/* Pinning outside a bpf file system: EPERM for the file, not EBADF
	 * for its number. */
	memset(&a, 0, sizeof(a));
	a.pathname = (uintptr_t)"pinned";
	a.bpf_fd = (uint32_t)map;
	LOG(r, bpf(BPF_OBJ_PIN, &a));
	LOG(r, bpf(BPF_MAP_FREEZE, &(union bpf_attr){ .map_fd = (uint32_t)map }));

	/* PROG_TEST_RUN writes the program's result back. */
	prog = bpf_prog(BPF_PROG_TYPE_SOCKET_FILTER, 7);
	NOTE(r, "bpf program", "%d", prog >= 0);
	if (prog >= 0) {
		prog = fd_of(r, prog);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)prog;
		a.test.data_in = (uintptr_t)packet;
		a.test.data_size_in = sizeof(packet);
		a.test.repeat = 1;
		LOG(r, bpf(BPF_PROG_TEST_RUN, &a));
		NOTE(r, "test run", "retval=%u prog_fd_kept=%d", a.test.retval,
		     a.test.prog_fd == (uint32_t)prog);
		LOG(r, close(prog));
	}

	/* A cgroup program allowing everything, attached to a new empty
	 * cgroup of cgroup2 and detached; then the same through a link. */
	prog = bpf_prog(BPF_PROG_TYPE_CGROUP_SKB, 1);
	snprintf(cgpath, sizeof(cgpath), "/sys/fs/cgroup/unified/ufd-diff-%d",
		 (int)getpid());
	if (mkdir(cgpath, 0700) != 0)
		snprintf(cgpath, sizeof(cgpath), "/sys/fs/cgroup/ufd-diff-%d",
			 (int)getpid());
	cg = open(cgpath, O_RDONLY | O_DIRECTORY);
	NOTE(r, "cgroup program", "%d", prog >= 0 && cg >= 0);
	if (prog >= 0 && cg >= 0) {
		prog = fd_of(r, prog);
		cg = fd_of(r, cg);
		memset(&a, 0, sizeof(a));
		a.target_fd = (uint32_t)cg;
		a.attach_bpf_fd = (uint32_t)prog;
		a.attach_type = BPF_CGROUP_INET_EGRESS;
		a.attach_flags = BPF_F_ALLOW_MULTI;
		if (LOG(r, bpf(BPF_PROG_ATTACH, &a)) == 0) {
			a.attach_flags = 0;
			LOG(r, bpf(BPF_PROG_DETACH, &a));
		}
		memset(&a, 0, sizeof(a));
		a.link_create.prog_fd = (uint32_t)prog;
		a.link_create.target_fd = (uint32_t)cg;
		a.link_create.attach_type = BPF_CGROUP_INET_EGRESS;
		link = FD_OF(r, bpf(BPF_LINK_CREATE, &a));
		if (link >= 0) {
			memset(&a, 0, sizeof(a));
			a.link_detach.link_fd = (uint32_t)link;
			LOG(r, bpf(BPF_LINK_DETACH, &a));
			LOG(r, close(link));
		}
	}
	if (cg >= 0)
		close(cg);
	rmdir(cgpath);
	if (prog >= 0)
		close(prog);
	LOG(r, close(map));
}

static void script_io_uring(struct run *r)
{
	struct io_uring_params params;
	struct io_uring_files_update update;
	struct io_uring_rsrc_register reg;
	struct io_uring_rsrc_update2 update2;
	int ring, ev, f, g, fds[3], one[1], bad;

	memset(&params, 0, sizeof(params));
	ring = FD_OF(r, syscall(SYS_io_uring_setup, 4, &params));
	NOTE(r, "io_uring", "%d", ring >= 0);
	if (ring < 0)
		return;
	ev = FD_OF(r, eventfd(0, 0));
	make_file(r, "f", "f");
	f = FD_OF(r, open("f", O_RDONLY));
	g = FD_OF(r, open("f", O_RDONLY));
	bad = closed_fd(r);

	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_EVENTFD, &ev, 1));
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_UNREGISTER_EVENTFD, NULL, 0));
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_EVENTFD_ASYNC, &ev, 1));
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_UNREGISTER_EVENTFD, NULL, 0));
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_EVENTFD, &bad, 1));

	fds[0] = f, fds[1] = -1, fds[2] = bad;
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES, fds, 3));
	fds[2] = g;
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES, fds, 3));
	LOG_BOOL(r, fds[0] == f && fds[2] == g);
	one[0] = g;
	memset(&update, 0, sizeof(update));
	update.offset = 1;
	update.fds = (uintptr_t)one;
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES_UPDATE,
		       &update, 1));
	LOG_BOOL(r, update.fds == (uintptr_t)one && one[0] == g);
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_UNREGISTER_FILES, NULL, 0));

	memset(&reg, 0, sizeof(reg));
	reg.nr = 2;
	reg.data = (uintptr_t)fds;
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES2, &reg,
		       sizeof(reg)));
	memset(&update2, 0, sizeof(update2));
	update2.data = (uintptr_t)one;
	update2.nr = 1;
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES_UPDATE2,
		       &update2, sizeof(update2)));
	one[0] = bad;
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES_UPDATE2,
		       &update2, sizeof(update2)));
	LOG(r, syscall(SYS_io_uring_register, ring, IORING_UNREGISTER_FILES, NULL, 0));

	LOG(r, close(f));
	LOG(r, close(g));
	LOG(r, close(ev));
	LOG(r, close(ring));
}

static void script_landlock(struct run *r)
{
	struct landlock_ruleset_attr rs = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE,
	};
	struct landlock_path_beneath_attr pb = {
		.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
	};
	int ruleset, dir;

	ruleset = FD_OF(r, syscall(SYS_landlock_create_ruleset, &rs, sizeof(rs), 0));
	NOTE(r, "landlock", "%d", ruleset >= 0);
	if (ruleset < 0)
		return;
	dir = FD_OF(r, open(".", O_PATH | O_DIRECTORY));
	pb.parent_fd = dir;
	LOG(r, syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0));
	LOG_BOOL(r, pb.parent_fd == dir);
	pb.parent_fd = closed_fd(r);
	LOG(r, syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0));
	LOG(r, syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
		       null_ptr, 0));
	LOG(r, close(dir));
	LOG(r, close(ruleset));
}

script_fn script_inside_syscall;

void script_inside_syscall(struct run *r)
{
	script_bpf(r);
	script_io_uring(r);
	script_landlock(r);
}
