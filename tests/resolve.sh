#!/bin/sh
# Description: the start-up resolution of the real functions (symbols.c's
# walk of the objects after libufd.so, dlsym for what it cannot tell)
# gives, for every row of calls.def, what dlsym(RTLD_NEXT, name) gives.
# UFD_CHECK_RESOLVE=1 makes the library's constructor ask dlsym for every
# name as well and report each difference on stderr, then a line of
# counts; the test runs it in several lookup orders: ufd right before
# libc (after the sanitizer's runtime in a sanitizer build), bash (its own
# libraries between ufd and libc), LD_DYNAMIC_WEAK set (the walk must
# decline weak definitions), and ufd loaded after libc (late_app).
# Usage: resolve.sh LATE_APP LIBUFD BASH
set -u
app=$1 lib=$2 bash=$3
. "$(dirname "$0")/lib.sh"

# check WHAT MIN_FOUND COMMAND...: run COMMAND with the check on; no
# difference, and at least MIN_FOUND names answered by the walk.
check() {
	what=$1 min=$2
	shift 2
	err=$(UFD_CHECK_RESOLVE=1 "$@" 2>&1 >/dev/null)
	echo "$what: $err" | grep 'resolve check'
	line=$(echo "$err" | grep '^ufd: resolve check: [0-9]* names' | head -n 1)
	[ -n "$line" ] || fail "$what: no summary line: $err"
	case $line in *'; 0 differ') ;; *) fail "$what: $err" ;; esac
	[ "$(echo "$err" | grep -c 'resolve check')" -eq 1 ] || fail "$what: $err"
	found=$(echo "$line" | sed -n 's/.*: \([0-9]*\) found,.*/\1/p')
	[ "${found:-0}" -ge "$min" ] || fail "$what: the walk found only ${found:-0}: $line"
}

rows=$(grep -c '^UFD_\(WRAP\|NEW\|HAND\|HANDV\)(' "$(dirname "$0")/../src/calls.def")
# Preloaded: every name libc defines plainly comes from the walk.
check "preloaded" $((rows - 10)) env LD_PRELOAD="$preload_extra $lib" /bin/true
check "bash" $((rows - 10)) env LD_PRELOAD="$preload_extra $lib" "$bash" -c true
# glibc's weak definitions no longer end the search: the walk declines
# them and dlsym answers; nothing may differ.
# (Not under ThreadSanitizer, whose runtime dies at start-up with ufd and
# LD_DYNAMIC_WEAK, before and after the walk alike.)
case $preload_extra in *libtsan*) ;; *)
check "LD_DYNAMIC_WEAK" 0 env LD_DYNAMIC_WEAK=1 LD_PRELOAD="$preload_extra $lib" /bin/true ;;
esac
# ufd after libc: nothing after ufd defines the names (or the walk is off).
check "late" 0 env ${preload_extra:+LD_PRELOAD="$preload_extra"} "$app"
echo "resolve: all checks passed"
