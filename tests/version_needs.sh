#!/bin/sh
# Description: the glibc versions libufd.so needs are at most those listed
# here, each with the functions that bring it.  The loader checks every
# needed version against libc's definitions at every start-up (~240
# instructions each, callgrind of /bin/true); src/glibc_versions.h binds
# ufd to the oldest version of a function glibc exports under two.  A new
# need fails here: bind to an older version of the same function, or add
# it below with its reason.
# Usage: version_needs.sh LIBUFD
set -u
lib=$1
command -v readelf >/dev/null || { echo "SKIP: no readelf"; exit 77; }
case $(uname -m) in x86_64) ;; *) echo "SKIP: the list is x86-64's"; exit 77 ;; esac
# version: why (the functions that need it, as no older version exports them)
allowed='GLIBC_2.2.5: the baseline
GLIBC_2.3.2: __register_atfork (pthread_atfork with the object'"'"'s handle, so that the handlers go with it)
GLIBC_2.16: getauxval (AT_SECURE; AT_ENTRY, AT_EXECFN for reports)
GLIBC_2.32: __libc_single_threaded
GLIBC_ABI_DT_RELR: the link'"'"'s packed relative relocations (-z pack-relative-relocs)'
needs=$(readelf -V "$lib" | sed -n '/Version needs/,$s/.*Name: \([A-Za-z0-9_.]*\) .*/\1/p' | sort)
[ -n "$needs" ] || { echo "FAIL: no version needs read from $lib"; exit 1; }
bad=$(echo "$needs" | grep -v -x -F "$(echo "$allowed" | sed 's/:.*//')")
if [ -n "$bad" ]; then
	echo "FAIL: libufd.so needs versions not listed in $0:" $bad
	for v in $bad; do
		echo "  $v: $(nm -D --undefined-only "$lib" | grep "@$v\$" | awk '{print $2}' | tr '\n' ' ')"
	done
	exit 1
fi
echo "PASS: needs" $needs
