#!/bin/sh
# Description: the streams libc opens with its own calls (opendir, fopen,
# tmpfile, popen) get EMFILE at the application's RLIMIT_NOFILE as
# without ufd, in every mode, once ufd has raised the kernel's soft limit
# to make room for its backing descriptors (nonseqfd): the program
# (stream_limit.c) fills its numbers, then tries each stream with none,
# one and two numbers free; its output must be the bare run's.
# Usage: stream_limit.sh LIBUFD PROGRAM
set -u
lib=$1 prog=$2
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

env LD_PRELOAD="$preload_extra" "$prog" "$tmp" count >"$tmp/bare.out"
case $? in
0) ;;
77) cat "$tmp/bare.out"; exit 77 ;;
*) cat "$tmp/bare.out"; fail "the run without ufd failed" ;;
esac
for mode in transparent all random; do
	env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=$mode \
		"$prog" "$tmp" count >"$tmp/$mode.out" ||
		{ cat "$tmp/$mode.out"; fail "UFD_MODE=$mode: the run failed"; }
	# UFD_MODE=all's count of open()s is its own (ufd(7)): compared
	# apart.
	if [ $mode = all ]; then
		grep -v '^opened: ' "$tmp/bare.out" >"$tmp/bare.cmp"
		grep -v '^opened: ' "$tmp/$mode.out" >"$tmp/$mode.cmp"
	else
		cp "$tmp/bare.out" "$tmp/bare.cmp" && cp "$tmp/$mode.out" "$tmp/$mode.cmp"
	fi
	diff -u "$tmp/bare.cmp" "$tmp/$mode.cmp" ||
		fail "UFD_MODE=$mode: streams at the limit differ from the kernel's"
done
echo "ok: $(wc -l <"$tmp/bare.out") lines the same in each mode"
