#!/bin/sh
# Description: ufd cross-built for aarch64 and run under qemu-user:
# tools/dev test-aarch64 --quick (the descriptor semantics, the process
# tests with the vfork stub, made-fds in every mode, 20 fuzzer seeds).
# The full run (tools/dev test-aarch64, all 200 seeds) is too slow for CI.
# Skips, saying why, when the cross toolchain is not installed.
# Usage: aarch64.sh SOURCE_ROOT
set -u
for f in /usr/bin/aarch64-linux-gnu-gcc /usr/aarch64-linux-gnu/include/stdio.h \
	 /usr/bin/qemu-aarch64-static /usr/lib/aarch64-linux-gnu/pkgconfig/check.pc; do
	if [ ! -e "$f" ]; then
		echo "SKIP: no $f: the aarch64 cross toolchain is not installed" \
		     "(tools/dev test-aarch64 installs it)"
		exit 77
	fi
done
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && [ "$(id -u)" != 0 ]; then
	echo "SKIP: qemu-aarch64 is not registered with binfmt_misc, and only root can"
	exit 77
fi
exec "$1/tools/dev" test-aarch64 --quick
