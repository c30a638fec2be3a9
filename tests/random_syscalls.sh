#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the extra system calls of each creating call under
# UFD_MODE=random (issue 27): at most 2 per descriptor made (F_DUPFD to
# the number drawn, close of the kernel's).  Counted with strace -c -f,
# exactly, over the kinds of tests/random_syscalls.c (the made-fds
# list): the calls of a run with LOW rounds subtracted from one with HIGH
# rounds, with ufd and without, so that start-up and first use cancel.
# Exceptions (the LOCKED list): a call that may make a descriptor of an
# existing file, which the process may hold a POSIX record lock on,
# pays one more, the lock probe (F_OFD_GETLK) before the close of the
# kernel's number (issue 25 item 3, ufd(7) NOTES): at most 3.  opendir
# pays two more, glibc's own: ufd makes the stream with fdopendir on the
# moved descriptor (a DIR's descriptor is glibc's private field), which
# checks it with F_GETFL and sets FD_CLOEXEC again: at most 5.
# Usage: random_syscalls.sh PROGRAM
. "$(dirname "$0")/lib.sh"
skip_under_emulator "strace traces the emulator, whose own system calls (memory, signals, threads) vary from run to run and are counted with the program's"

prog=$1
command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
strace -f -o /dev/null /bin/true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
[ -n "$preload_extra" ] && { echo "SKIP: a sanitizer runtime makes system calls of its own"; exit 77; }

LOCKED="open open-cloexec openat creat fopen opendir dup fcntl-F_DUPFD
fcntl-F_DUPFD_CLOEXEC recvmsg recvmmsg-cloexec syscall-openat"
DIRS="opendir"
LOW=1
HIGH=41
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# calls PRELOAD KIND ROUNDS: the system calls of the run, all processes.
calls() {
	env LD_PRELOAD="$1" UFD_MODE=random UFD_SEED=1 \
		strace -f -c -o "$out" "$prog" "$2" "$3" >/dev/null || fail "$2: the program failed"
	awk '$NF == "total" { print $4 }' "$out"
}

status=0
for kind in $("$prog" list | cut -d' ' -f1); do
	fds=$("$prog" list | awk -v k="$kind" '$1 == k { print $2 }')
	bare=$(( $(calls "" "$kind" $HIGH) - $(calls "" "$kind" $LOW) ))
	ufd=$(( $(calls "$UFD_TEST_PRELOAD" "$kind" $HIGH) - $(calls "$UFD_TEST_PRELOAD" "$kind" $LOW) ))
	rounds=$((HIGH - LOW))
	extra=$((ufd - bare))
	allowed=2
	case " $(echo $LOCKED) " in *" $kind "*) allowed=3 ;; esac
	case " $DIRS " in *" $kind "*) allowed=5 ;; esac
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
