#!/bin/sh
# Description: glibc's exported second names of descriptor calls
# (__fcntl, __open, __read, __close, _IO_fdopen, __vfork ...), which
# programs and libraries built against older headers call, are ufd's
# calls too: the program (glibc_aliases.c) calls each through its own
# name, without ufd and under UFD_MODE=all, where every descriptor it
# makes must be virtual, and the two outputs must be the same (a record
# lock taken through __fcntl included: another open of the file must not
# drop it).
# Usage: glibc_aliases.sh LIBUFD PROGRAM
set -u
lib=$1 prog=$2
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bare" "$tmp/ufd" || exit 1

env LD_PRELOAD="$preload_extra" "$prog" "$tmp/bare" >"$tmp/bare.out" ||
	{ cat "$tmp/bare.out"; fail "the run without ufd failed"; }
env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=all \
	"$prog" "$tmp/ufd" virtual >"$tmp/ufd.out" ||
	{ cat "$tmp/ufd.out"; fail "the run under UFD_MODE=all failed"; }
diff -u "$tmp/bare.out" "$tmp/ufd.out" ||
	fail "under UFD_MODE=all the calls do not do what they do without ufd"
# __sysconf, where ufd holds the kernel's limit above the application's.
bare=$(env LD_PRELOAD="$preload_extra" "$prog" "$tmp/bare" limit) ||
	fail "limit: the run without ufd failed"
ufd=$(env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" "$prog" "$tmp/ufd" limit) ||
	fail "limit: the run under ufd failed"
[ "$bare" = "$ufd" ] || fail "limit: without ufd '$bare', under ufd '$ufd'"
echo "ok: $(wc -l <"$tmp/bare.out") lines the same"
