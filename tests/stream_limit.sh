#!/bin/sh
# Description: the streams libc opens with its own calls (opendir, fopen,
# tmpfile, popen, and inside scandir, scandirat and glob) get EMFILE at the application's RLIMIT_NOFILE as
# without ufd, in every mode, once ufd has raised the kernel's soft limit
# to make room for its backing descriptors (nonseqfd): the program
# (stream_limit.c) fills its numbers, then tries each stream with none,
# one and two numbers free; its output must be the bare run's.  The count
# of open()s too: under UFD_MODE=all the program holds as many
# descriptors, real and virtual, as its soft limit allows, as without
# ufd (its backing descriptors are below the limit: ufd(7)).
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
	diff -u "$tmp/bare.out" "$tmp/$mode.out" ||
		fail "UFD_MODE=$mode: streams at the limit differ from the kernel's"
done
echo "ok: $(wc -l <"$tmp/bare.out") lines the same in each mode"
