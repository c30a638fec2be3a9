/* SPDX-License-Identifier: MIT */
/*
 * Description: a stand-in for a newer glibc's libc.so.6 in the audit's
 * test (tests/audit_glibc.sh): it exports the names that glibc 2.39-2.41
 * added and that take or return a descriptor, for nm -D to list.
 */
int pidfd_spawn(void);
int pidfd_spawnp(void);
int pidfd_getpid(void);
int posix_spawnattr_getcgroup_np(void);
int posix_spawnattr_setcgroup_np(void);

int pidfd_spawn(void) { return 0; }
int pidfd_spawnp(void) { return 0; }
int pidfd_getpid(void) { return 0; }
int posix_spawnattr_getcgroup_np(void) { return 0; }
int posix_spawnattr_setcgroup_np(void) { return 0; }
