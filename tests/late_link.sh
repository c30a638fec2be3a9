#!/bin/sh
# Description: a program that does not link libufd.so, using a library that
# does: nonseqfd() fails with ENOSYS and one clear message, instead of
# giving a descriptor the program's own calls cannot use; the same program
# under LD_PRELOAD (ufd first) gets virtual descriptors.
# Usage: late_link.sh LATE_APP LIBUFD
set -u
app=$1 lib=$2
. "$(dirname "$0")/lib.sh"
err=$("$app" 2>&1 >/dev/null)
[ $? -eq 0 ] || fail "late_app: $("$app" 2>&1)"
[ "$(echo "$err" | grep -c '^ufd: nonseqfd: ')" -eq 1 ] || fail "want one message, got: '$err'"
case $err in *'LD_PRELOAD=libufd.so'*) ;; *) fail "message gives no way out: '$err'" ;; esac
# Preloaded, ufd comes first: nonseqfd works, so late_app reports it.
out=$(LD_PRELOAD="$preload_extra $lib" "$app" 2>&1)
[ $? -eq 1 ] || fail "under LD_PRELOAD nonseqfd still refused: $out"
case $out in *'nonseqfd gave 26'*'no error'*) ;; *) fail "under LD_PRELOAD: $out" ;; esac
echo "late_link: all checks passed"
