#!/bin/sh
# Description: a program started with a relative name for libufd.so in
# LD_PRELOAD (./libufd.so), which changes directory and then execs with an
# environment without LD_PRELOAD: the new program runs under ufd too,
# from the library's absolute path, which ufd made at start-up from the
# working directory of then (shim_exec.c's absolute_of: one getcwd, no
# realpath, issue 27).  The LD_PRELOAD the new program gets names the
# same file as the relative name did.
# Usage: relative_preload.sh LIBUFD   (UFD_TEST_PRELOAD: extra preloads,
#        e.g. the ASan runtime, which go in front)
set -u
lib=$1
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/libdir" "$tmp/elsewhere" || exit 1
cp "$lib" "$tmp/libdir/libufd.so" || exit 1

# /bin/sh under ufd, loaded from the working directory; it leaves it,
# drops ufd from LD_PRELOAD (keeps only a sanitizer runtime, if any) and
# execs cat, which prints its own environment and mappings.
out=$(cd "$tmp/libdir" && EXTRA=$preload_extra \
	LD_PRELOAD="${preload_extra:+$preload_extra }./libufd.so" /bin/sh -c '
		cd ../elsewhere || exit 1
		if [ -n "$EXTRA" ]; then export LD_PRELOAD="$EXTRA"; else unset LD_PRELOAD; fi
		exec /bin/cat /proc/self/environ /proc/self/maps' | tr '\0' '\n') ||
	fail "the shell or cat failed"
value=$(printf '%s\n' "$out" | sed -n 's/^LD_PRELOAD=//p')
[ -n "$value" ] || fail "ufd did not put itself back in the new program's LD_PRELOAD"
self=${value##* } # after the extra preloads
case $self in
/*) ;;
*) fail "ufd's name in the new LD_PRELOAD is not absolute: $self" ;;
esac
[ "$self" -ef "$tmp/libdir/libufd.so" ] ||
	fail "ufd's name in the new LD_PRELOAD ($self) is not the library"
printf '%s\n' "$out" | grep -q "/libdir/libufd.so$" ||
	fail "libufd.so is not mapped in the new program (LD_PRELOAD=$value)"
echo "the new program's LD_PRELOAD: $value"
