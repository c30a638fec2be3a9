/* SPDX-License-Identifier: MIT */
/*
 * handoff.h - the hand-off of virtual descriptors across exec: what the
 * exec and spawn wrappers call before and after the exec, and what the
 * new program's constructor calls to take the descriptors over.
 *
 * Functions return >= 0 or -errno and never touch errno.
 */
#ifndef UFD_HANDOFF_H
#define UFD_HANDOFF_H

#include <stddef.h>

/*
 * handoff_prepare: before an exec, make every virtual descriptor without
 * close-on-exec inheritable (its backing descriptor loses the kernel's
 * close-on-exec flag) and write, into a new mapping h->entry (h->len
 * bytes), the environment entry "UFD_HANDOFF=..." that tells ufd in the
 * new program which inherited descriptor backs which virtual one, and the
 * close-on-fork marks of real descriptors; h->entry is NULL where there is
 * nothing to list.  With spawn (posix_spawn, system, popen: a fork child
 * that execs), close-on-fork descriptors, virtual or real, are not passed
 * on at all.  The table stays locked (h->held) until handoff_done, so
 * that nothing changes under the exec, and the kernel's soft
 * RLIMIT_NOFILE is the application's (placement_exec).  Not held, and
 * nothing listed, in a child sharing its parent's memory (a vfork child,
 * a raw clone with CLONE_VM: vfd_shared.h) or a signal handler that
 * interrupted a change to the table.  Without keep (UFD_INHERIT=0), no
 * virtual descriptor survives: the hand-off lists close-on-fork marks
 * only.  A list too long for one environment string goes in an inherited
 * memfd (see handoff.c).  Returns 0, or -ENOMEM, -EMFILE or -EIO, with the
 * table unlocked and nothing changed.
 *
 * handoff_done: after the exec failed, or the spawn: back to how things
 * were (every backing descriptor close-on-exec again, as it is at all
 * times outside an exec), the mapping freed, the table unlocked.  Does
 * nothing for a hand-off that does not hold the table.
 *
 * handoff_inherit: in the new program (from the library constructor),
 * take over what the hand-off in environment entry `value` describes.  The
 * value is untrusted: anything malformed or not matching this process is
 * reported once on stderr and ignored as a whole.  Returns the number of
 * virtual descriptors taken over, or -EINVAL.
 */
struct handoff {
	char *entry; /* "UFD_HANDOFF=...", or NULL */
	size_t len;  /* of entry's mapping */
	int held;    /* the table is locked until handoff_done */
};

int handoff_prepare(struct handoff *h, int spawn, int keep);
void handoff_done(struct handoff *h);
int handoff_inherit(const char *value);

#endif /* UFD_HANDOFF_H */
