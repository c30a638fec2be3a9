/* SPDX-License-Identifier: MIT */
/*
 * c07: a directory descriptor leaked across exec -- runc CVE-2024-21626:
 * runc opened /sys/fs/cgroup without O_CLOEXEC, and the container's first
 * process inherited it, a handle on the host's file system
 * (/proc/self/fd/N as a working directory escaped the container).
 *
 * expect: exec-leak in open_cgroup_dir
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "bug.h"

static NOINLINE int open_cgroup_dir(void)
{
	int fd = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		fd = open("/", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die("open");
	return fd;
}

static NOINLINE void start_container(void)
{
	char *argv[] = { "true", NULL };

	execv("/bin/true", argv);
	die("execv");
}

int main(void)
{
	open_cgroup_dir();
	start_container();
	return 0;
}
