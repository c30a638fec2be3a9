#!/bin/sh
# Description: an unmodified program (bash) under LD_PRELOAD=libufd.so uses
# virtual descriptors through plain redirections.  bash opens the file and
# dup2()s it onto the number in the script; a number past FD_UNSEQ_BASE is
# a virtual descriptor under ufd and an error without it.
# Usage: UFD_TEST_PRELOAD=<LD_PRELOAD value> preload_bash.sh BASH
set -u
if [ -n "${UFD_TEST_EMULATOR:-}" ]; then
	echo "SKIP under $UFD_TEST_EMULATOR: the host's programs (bash, sh, coreutils) run under ufd here, and on this machine they are x86-64: the aarch64 libufd.so cannot be loaded into them"
	exit 77
fi
bash=$1
# Only bash runs under the shim, not this script's own tools.  In the
# sanitizer build the preload holds the ASan runtime; leaks of bash itself
# are not ours to report.
ufd_bash() { LD_PRELOAD=$UFD_TEST_PRELOAD ASAN_OPTIONS=detect_leaks=0 "$bash" "$@"; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
vfd=268435461   # FD_UNSEQ_BASE + 5

fail() { echo "FAIL: $*"; exit 1; }

# Without the shim, the kernel refuses the number.
if "$bash" -c "exec $vfd>'$tmp/plain'" 2>/dev/null; then
	fail "bash accepted descriptor $vfd without ufd"
fi

# With it: write through the virtual descriptor, read back through another.
out=$(ufd_bash -c "
	exec $vfd>'$tmp/file' || exit 3
	echo 'written through a virtual descriptor' >&$vfd
	exec $vfd>&-
	exec $((vfd + 1))<'$tmp/file' || exit 4
	cat <&$((vfd + 1))
") || fail "bash under ufd exited with $?"
[ "$out" = "written through a virtual descriptor" ] || fail "read back: '$out'"

# Closing it twice: the second close fails as for a real descriptor.
err=$(ufd_bash -c "exec $vfd>'$tmp/x'; exec $vfd>&-; echo x >&$vfd" 2>&1) &&
	fail "writing to a closed virtual descriptor succeeded"
case $err in
*"Bad file descriptor"*) ;;
*) fail "closed virtual descriptor: '$err'" ;;
esac
echo "PASS: bash redirections through virtual descriptors"
