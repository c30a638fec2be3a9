#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: what reading an exec's environment costs (issue 27, the
# shell loop).  ufd reads the envp array and the first bytes of every
# entry with process_vm_readv (fault-free: shim_exec.c), and the kernel
# pins the pages of each remote piece apart: one piece per entry cost
# ~40-80 us an exec on a virtual machine.  The strings mostly lie close
# together, so they are read as a few spans: with an environment of 40
# variables, at most 2 process_vm_readv an exec (the pointers; the
# entries, whose LD_PRELOAD value comes with them) and at most 6 remote
# pieces in all.  Before: 3 calls and 41 pieces.  And a shell's next
# command finds its environment where the last one did: its first read
# brings the entries with the pointers (shim_exec.c's hint), one
# process_vm_readv an exec after the first.  Counted with strace on the
# execs of a shell (its vfork children's and the shell's own).  The vfork
# children ask no getpid for those reads.
# Usage: exec_env_reads.sh
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
strace -f -o /dev/null /bin/true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
[ -n "$preload_extra" ] && { echo "SKIP: a sanitizer runtime comes first in LD_PRELOAD"; exit 77; }
for true in /usr/bin/true /bin/true; do [ -x "$true" ] && break; done

out=$(mktemp)
trap 'rm -f "$out"' EXIT
vars=
for i in $(seq 40); do
	vars="$vars UFD_TEST_VAR_$i=value-$i"
done
# shellcheck disable=SC2086
env -i PATH=/usr/bin:/bin $vars LD_PRELOAD="$UFD_TEST_PRELOAD" \
	strace -f -qq -e trace=execve,process_vm_readv,getpid -o "$out" \
	/bin/sh -c "for i in 1 2 3; do $true; done; $true" || fail "the shell failed"
# The shell's own exec is strace's: not under ufd.
execs=$(grep -c "execve(\"$true\"" "$out")
calls=$(grep -c 'process_vm_readv(' "$out")
# process_vm_readv(pid, local, n, remote, m, 0): m, the remote pieces.
pieces=$(sed -n 's/.*process_vm_readv(.*, \([0-9][0-9]*\), 0) *= .*/\1/p' "$out" |
	awk '{ s += $1 } END { print s + 0 }')
echo "$execs execs of $true: $calls process_vm_readv, $pieces remote pieces"
[ "$execs" -eq 4 ] || fail "expected 4 execs of $true, saw $execs"
[ "$calls" -le $((execs + 1)) ] ||
	fail "$calls process_vm_readv for $execs execs: more than 2 for the first, 1 for each next"
[ "$pieces" -le $((6 * execs)) ] || fail "more than 6 remote pieces an exec"
# The vfork child (the first command's) has its pid from the vfork itself
# (shim_vfork.c, CLONE_PARENT_SETTID): no getpid before its exec.
shell=$(awk 'NR == 1 { print $1 }' "$out")
child_getpid=$(awk -v s="$shell" '$1 != s && /getpid\(/' "$out" | wc -l)
echo "getpid in the vfork child: $child_getpid"
[ "$child_getpid" -eq 0 ] || fail "the vfork child asked getpid $child_getpid times"
exit 0
