#!/bin/sh
# Description: the Debian packages (debian/): dpkg-buildpackage -us -uc -b
# builds libufd0, libufd-dev and ufd-tools from a clean copy of the tree
# (its files as git sees them: no build directory), lintian finds no error
# and no warning in them (when lintian is installed), and, installed with
# dpkg -i into a fresh root, they work there: ufd-run -m random -r stderr
# reports python's double close, the library ufd-run loads is the
# installed one (its path in /proc/PID/maps), a program built with
# pkg-config --cflags --libs ufd gets a virtual descriptor from nonseqfd,
# and man ufd renders.
#
# The fresh root is an overlay of this system's / (read-only below, the
# changes in a temporary directory), with any ufd outside the packages
# (a meson install in /usr/local) removed from it, entered with chroot:
# dpkg -i installs the packages as on a user's machine (dependencies
# checked, ldconfig run, /usr/bin/ufd-run as installed), with the
# compiler, pkg-config, python3 and man of this system and no network,
# and nothing of it is left on the system.  dpkg -x into a directory would
# need LD_LIBRARY_PATH or UFD_LIB to find the library, the very thing the
# test must not supply.
#
# The build runs with DEB_BUILD_OPTIONS=nocheck: the build-time tests are
# this tree's suite, which CI runs already.  Skips (77), saying why,
# without dpkg-buildpackage or debhelper, without root (mount, chroot,
# dpkg -i) or without overlayfs.
# Usage: package.sh SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
src=$1

skip() {
	echo "skipped: $*"
	exit 77
}
command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage (package dpkg-dev)"
command -v dh >/dev/null || skip "no dh (package debhelper)"
command -v git >/dev/null || skip "no git, to list the tree's files"
[ "$(id -u)" = 0 ] || skip "not root: the packages are installed with dpkg -i in a chroot"

work=$(mktemp -d /var/tmp/ufd-package.XXXXXX)
root=$work/root
cleanup() {
	if mountpoint -q "$root" 2>/dev/null; then
		umount -R "$root/dev" 2>/dev/null
		umount "$root/proc" "$root/tmp" 2>/dev/null
		umount "$root"
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# A clean checkout: the tracked files and the new ones git does not ignore.
mkdir "$work/ufd"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp -P --parents -t "$work/ufd" 2>/dev/null) || true
[ -f "$work/ufd/debian/control" ] || fail "no debian/control in the copy of $src"
start=$(date +%s)
if ! (cd "$work/ufd" && DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -30 "$work/build.log"
	fail "dpkg-buildpackage -us -uc -b failed"
fi
echo "dpkg-buildpackage: $(($(date +%s) - start)) s"
for p in libufd0 libufd-dev ufd-tools; do
	set -- "$work"/${p}_*.deb
	[ -f "$1" ] || fail "no package $p built"
	echo "built $(basename "$1")"
done

if command -v lintian >/dev/null; then
	lintian --fail-on error,warning \
		"$work"/ufd_*.changes >"$work/lintian.log" 2>&1
	rc=$?
	cat "$work/lintian.log"
	[ $rc -eq 0 ] || fail "lintian: errors or warnings (above)"
	echo "lintian: no error, no warning"
else
	echo "lintian not installed: not run"
fi

# The fresh root.
mkdir "$root" "$work/upper" "$work/overlay-work"
mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/overlay-work" \
	"$root" 2>"$work/mount.log" || skip "no overlayfs here: $(cat "$work/mount.log")"
mount -t proc proc "$root/proc"
mount -t tmpfs tmpfs "$root/tmp"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
for f in "$root"/usr/local/lib/libufd* "$root"/usr/local/lib/*/libufd* \
	"$root"/usr/local/bin/ufd-run "$root"/usr/local/bin/ufd-compare \
	"$root"/usr/local/lib/*/pkgconfig/ufd.pc "$root"/usr/local/include/ufd.h; do
	[ -e "$f" ] || [ -L "$f" ] && rm -f "$f"
done
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 "$@"
}
in_root dpkg -s libufd0 >/dev/null 2>&1 && fail "libufd0 is installed on this system already: the root is not fresh"
mkdir "$root/tmp/debs"
cp "$work"/*.deb "$root/tmp/debs/"
in_root sh -c 'dpkg -i /tmp/debs/*.deb' >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "dpkg -i of the three packages failed"; }
echo "installed with dpkg -i in the fresh root"

# 1. The sanitizer through the installed launcher: python's double close.
out=$(in_root ufd-run -m random -r stderr python3 -c 'import os
r, w = os.pipe()
os.close(r)
try:
    os.close(r)
except OSError:
    pass' 2>&1)
echo "$out" | grep -Eq '^==[0-9]+==ERROR: ufd: double-close: double close of descriptor [0-9]+' ||
	{ echo "$out"; fail "ufd-run -m random -r stderr python3: no double close reported"; }
echo "ufd-run -m random -r stderr python3: $(echo "$out" | grep -E 'ERROR: ufd: double-close' | head -1)"

# 2. The library the launcher loads is the installed one.
lib=$(in_root ufd-run sh -c 'grep -o "/[^ ]*libufd[^ ]*" /proc/$$/maps | sort -u')
case $lib in
/usr/lib/*/libufd.so.0*) echo "ufd-run loads $lib" ;;
*) fail "ufd-run loads \"$lib\", not the installed /usr/lib/<triplet>/libufd.so.0" ;;
esac

# 3. A program built with pkg-config against the installed package.
cat >"$root/tmp/prog.c" <<'C'
#include <stdio.h>
#include <ufd.h>
int main(void)
{
	int v = nonseqfd(1, NONSEQFD_CLOEXEC);

	printf("%d\n", v);
	return v >= (int)FD_UNSEQ_BASE && ufd_is_virtual(v) == 1 ? 0 : 1;
}
C
in_root sh -c 'cc -o /tmp/prog /tmp/prog.c $(pkg-config --cflags --libs ufd)' ||
	fail "cc \$(pkg-config --cflags --libs ufd) failed"
out=$(in_root /tmp/prog) || fail "the program built with pkg-config: nonseqfd gave $out"
echo "built with pkg-config --cflags --libs ufd: nonseqfd -> $out (virtual)"

# 4. The manual.
out=$(in_root man -P cat ufd 2>&1) || { echo "$out"; fail "man ufd failed"; }
echo "$out" | grep -q 'UFD_MODE' || { echo "$out" | head; fail "man ufd: no UFD_MODE in it"; }
echo "man ufd: $(echo "$out" | wc -l) lines"
echo "PASS: the packages build, are lintian clean and work installed"
