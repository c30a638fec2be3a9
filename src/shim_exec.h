/* SPDX-License-Identifier: MIT */
/*
 * shim_exec.h - what the process family's shim files share
 * (shim_exec.c, shim_spawn.c, shim_vfork.c): the new environment of an
 * exec, made by shim_exec.c for every way to exec.
 */
#ifndef UFD_SHIM_EXEC_H
#define UFD_SHIM_EXEC_H

#include <stddef.h>

#include "handoff.h"

/* The new environment of one exec, and what to undo if it fails. */
struct exec_env {
	struct handoff handoff;
	char **envp;	    /* the new array, in its own mapping */
	size_t envp_len;
};

/* The environment a vfork child made for an exec: in its parent's memory,
 * which a successful exec leaves to the parent to free (ufd_vfork_end). */
extern struct vfork_child_env {
	void *addr;
	size_t len;
} vfork_child_env __attribute__((visibility("hidden")));

/* A real vfork child's pid, which the kernel writes here before the child
 * runs (shim_vfork.c's clone, CLONE_PARENT_SETTID): the child's exec reads
 * its own memory with it, without a getpid.  0 when no vfork child runs
 * (the parent clears it once the child is gone), and in a child where it
 * was not written (qemu-user's vfork is a fork): then getpid. */
extern int ufd_vfork_pid __attribute__((visibility("hidden")));

/*
 * The new environment of an exec (spawn: of a new child) from envp: the
 * hand-off, LD_PRELOAD with ufd; *out is envp itself when nothing
 * changes.  Returns 0 or -errno; on success exec_env_done must follow,
 * after the exec returned (failed) or the spawn.  See shim_exec.c.
 */
int exec_env_make(struct exec_env *x, char *const envp[], int spawn,
		  int keep, char ***out);
void exec_env_done(struct exec_env *x);

#endif /* UFD_SHIM_EXEC_H */
