#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the extra system calls of each creating call under
# UFD_MODE=random (issue 27): at most 2 per descriptor made (F_DUPFD to
# the number drawn, close of the kernel's), for every kind, those that
# may open a file the process holds POSIX record locks on included: the
# process's record-lock state (src/posix_locks.h) is settled once, so no
# per-call lock probe is left, and opendir's stream is libc's own.
# Counted with strace -f, exactly, over the kinds of
# tests/random_syscalls.c (the made-fds list): the calls of a run with
# LOW rounds subtracted from one with HIGH rounds, with ufd and without,
# so that start-up and first use cancel.  Each difference is the least of
# three, each of a LOW and a HIGH run back to back.  The one-time read of
# /proc/locks is not counted: it takes one read more while any process on
# the machine holds a lock, which may change between the two runs of a
# pair (a test holding locks beside this one failed it, 1 to 4 times in 10).
# Usage: random_syscalls.sh PROGRAM
. "$(dirname "$0")/lib.sh"
skip_under_emulator "strace traces the emulator, whose own system calls (memory, signals, threads) vary from run to run and are counted with the program's"

prog=$1
command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
strace -f -o /dev/null /bin/true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
[ -n "$preload_extra" ] && { echo "SKIP: a sanitizer runtime makes system calls of its own"; exit 77; }

LOW=1
HIGH=41
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# calls PRELOAD KIND ROUNDS: the system calls of the run, all processes,
# one line each (strace -y names each descriptor's file; a call another
# process's interrupted is one).  Not the reads of /proc/locks (posix_locks.c,
# once a process): their count follows the size of the file, that is the
# locks other processes hold at the time, and one more read made the test
# fail whenever a concurrent test held some.
calls() {
	env LD_PRELOAD="$1" UFD_MODE=random UFD_SEED=1 \
		strace -f -qq -y -e signal=none -o "$out" "$prog" "$2" "$3" >/dev/null ||
		fail "$2: the program failed"
	grep -v -e 'read([0-9]*</proc/locks>' -e '<\.\.\. .* resumed>' "$out" | wc -l
}

# rounds PRELOAD KIND: the calls of HIGH rounds less those of LOW, the
# least of three pairs, each pair run back to back.
rounds() {
	least=
	for run in 1 2 3; do
		n=$(( $(calls "$1" "$2" $HIGH) - $(calls "$1" "$2" $LOW) ))
		if [ -z "$least" ] || [ "$n" -lt "$least" ]; then least=$n; fi
	done
	echo "$least"
}

status=0
for kind in $("$prog" list | cut -d' ' -f1); do
	fds=$("$prog" list | awk -v k="$kind" '$1 == k { print $2 }')
	bare=$(rounds "" "$kind")
	ufd=$(rounds "$UFD_TEST_PRELOAD" "$kind")
	rounds=$((HIGH - LOW))
	extra=$((ufd - bare))
	allowed=2
	# Per descriptor, to two decimals: exact counts divide evenly.
	per=$(awk -v e=$extra -v r=$rounds -v f=$fds 'BEGIN { printf "%.2f", e / r / f }')
	verdict=ok
	if [ $extra -gt $((allowed * rounds * fds)) ]; then
		verdict="FAIL (more than $allowed)"
		status=1
	fi
	printf '%-22s %s extra system calls per descriptor (bare %d, ufd %d over %d rounds): %s\n' \
		"$kind" "$per" "$bare" "$ufd" "$rounds" "$verdict"
done
exit $status
