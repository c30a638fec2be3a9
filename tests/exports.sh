#!/bin/sh
# Description: libufd.so exports exactly the interposed calls listed in
# src/calls.def and the public API of include/ufd.h; everything else is
# hidden, so no internal name can clash with a program's.
# Usage: exports.sh LIBUFD SOURCE_ROOT
set -u
lib=$1 root=$2
expected=$( {
	sed -n 's/^UFD_\(WRAP\|NEW\|HAND\|HANDV\|ALIAS\|ALIASV\)(\([A-Za-z0-9_]*\),.*/\2/p' "$root/src/calls.def"
	sed -n 's/^int \([a-z_]*\)(.*);$/\1/p' "$root/include/ufd.h"
} | sort)
actual=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWi]$/ {print $3}' | sort)
if [ "$expected" != "$actual" ]; then
	echo "FAIL: exported symbols differ from calls.def + ufd.h"
	diff -u /dev/fd/3 /dev/fd/4 3<<E1 4<<E2
$expected
E1
$actual
E2
	exit 1
fi
echo "PASS: $(echo "$actual" | wc -l) symbols, as listed"
