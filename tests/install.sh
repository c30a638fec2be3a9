#!/bin/sh
# Description: `meson install` puts libufd.so, ufd.h and ufd.pc where a
# program can build against them with pkg-config alone, and the program so
# built gets virtual descriptors from nonseqfd(); each manual page named
# is installed in its section's directory, and reads as a manual page.
# Usage: install.sh BUILD_DIR CC [MAN_PAGE...]
set -eu
build=$1 cc=$2
shift 2
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
pc=$(find "$dest" -name ufd.pc)
[ -n "$pc" ] || { echo "FAIL: no ufd.pc installed"; exit 1; }
[ -n "$(find "$dest" -name ufd.h)" ] || { echo "FAIL: no ufd.h installed"; exit 1; }
# Each page under .../man/manN/ (a link page too, followed), with a title.
for page in "$@"; do
	found=$(find "$dest" -path "*/man/man${page##*.}/$page")
	[ -n "$found" ] || { echo "FAIL: no man page $page installed"; exit 1; }
	grep -q '^\.TH ' "$found" || { echo "FAIL: $found is not a man page"; exit 1; }
done

cat >"$dest/prog.c" <<'C'
#include <stdio.h>
#include <ufd.h>
int main(void)
{
	int v = nonseqfd(1, NONSEQFD_CLOEXEC);

	printf("%d\n", v);
	return v >= (int)FD_UNSEQ_BASE && ufd_is_virtual(v) == 1 ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$dest"
# shellcheck disable=SC2046
"$cc" -o "$dest/prog" "$dest/prog.c" $(pkg-config --cflags --libs ufd)
libdir=$(pkg-config --variable=libdir ufd)
# libdir already carries the sysroot prefix when read through the variable
# on some pkg-config versions, and not on others.
[ -d "$libdir" ] || libdir=$dest$libdir
if ! out=$(LD_LIBRARY_PATH=$libdir "$dest/prog"); then
	echo "FAIL: the installed library gave $out"
	exit 1
fi
echo "PASS: built with pkg-config against the installed ufd; nonseqfd() -> $out; $# man pages installed"
