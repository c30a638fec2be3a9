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
# The rows calls.def lists as UFD_LAZY are left to their first use (the
# check reports any row resolved, or not, against the list), all rows are
# resolved under UFD_MODE=all, and none of the lazy ones is a function
# POSIX requires to be async-signal-safe (signal_safe.txt): a program may
# call those from a signal handler or a vfork child, where no look-up
# may run.  A function put in front of a real one before ufd's
# constructor (the read check of a signalfd made by an earlier
# constructor, MANY_VFDS's) calls on to libc's function, not to the stub
# that would look it up on every call.
# Usage: resolve.sh LATE_APP LIBUFD BASH MANY_VFDS
set -u
app=$1 lib=$2 bash=$3 many=$4
. "$(dirname "$0")/lib.sh"
skip_under_emulator "the host's programs (bash, sh, coreutils) run under ufd here, and on this machine they are x86-64: the aarch64 libufd.so cannot be loaded into them"

# check WHAT MIN_FOUND LAZY COMMAND...: run COMMAND with the check on; no
# difference, at least MIN_FOUND names answered by the walk, and LAZY
# rows left to their first use.
check() {
	what=$1 min=$2 lazy=$3
	shift 3
	err=$(UFD_CHECK_RESOLVE=1 "$@" 2>&1 >/dev/null)
	echo "$what: $err" | grep 'resolve check'
	line=$(echo "$err" | grep '^ufd: resolve check: [0-9]* names' | head -n 1)
	[ -n "$line" ] || fail "$what: no summary line: $err"
	case $line in *'; 0 differ') ;; *) fail "$what: $err" ;; esac
	[ "$(echo "$err" | grep -c 'resolve check')" -eq 1 ] || fail "$what: $err"
	found=$(echo "$line" | sed -n 's/.*: \([0-9]*\) found,.*/\1/p')
	[ "${found:-0}" -ge "$min" ] || fail "$what: the walk found only ${found:-0}: $line"
	case $line in *"; $lazy left to first use;"*) ;; *) fail "$what: want $lazy left to first use: $line" ;; esac
}

def=$(dirname "$0")/../src/calls.def
rows=$(grep -c '^UFD_\(WRAP\|NEW\|HAND\|HANDV\)(' "$def")
lazy_names=$(sed -n 's/^UFD_LAZY(\([a-z0-9_]*\),.*/\1/p' "$def")
lazy=$(echo "$lazy_names" | grep -c .)
[ "$lazy" -gt 0 ] || fail "no UFD_LAZY row in $def"
both=$(grep -v '^#' "$(dirname "$0")/signal_safe.txt" | grep -x -F "$lazy_names")
[ -z "$both" ] || fail "UFD_LAZY rows POSIX requires to be async-signal-safe:" $both
# Preloaded: every name libc defines plainly comes from the walk.
check "preloaded" $((rows - lazy - 10)) "$lazy" env LD_PRELOAD="$preload_extra $lib" /bin/true
check "bash" $((rows - lazy - 10)) "$lazy" env LD_PRELOAD="$preload_extra $lib" "$bash" -c true
# glibc's weak definitions no longer end the search: the walk declines
# them and dlsym answers; nothing may differ.
# (Not under ThreadSanitizer, whose runtime dies at start-up with ufd and
# LD_DYNAMIC_WEAK, before and after the walk alike.)
case $preload_extra in *libtsan*) ;; *)
check "LD_DYNAMIC_WEAK" 0 "$lazy" env LD_DYNAMIC_WEAK=1 LD_PRELOAD="$preload_extra $lib" /bin/true ;;
esac
# ufd after libc: nothing after ufd defines the names (or the walk is off).
check "late" 0 "$lazy" env ${preload_extra:+LD_PRELOAD="$preload_extra"} "$app"
# UFD_MODE (and UFD_REPORT), whose features may put functions in front
# of real ones, find every row resolved.
check "mode all" $((rows - 10)) 0 env UFD_MODE=all LD_PRELOAD="$preload_extra $lib" /bin/true

# The read check put in before ufd's constructor: many_vfds's constructor
# runs first (LD_DEBUG=libs says so) and makes a signalfd; then dd's 100
# reads must not each have ufd ask the loader for read (LD_DEBUG=bindings
# prints every look-up; before ufd_shim_resolve, each read did one).
dbg=$(LD_DEBUG=libs,bindings UFD_TEST_MANY_SIGNALFD=1 \
	LD_PRELOAD="$preload_extra $lib $many" \
	dd if=/dev/zero of=/dev/null bs=1 count=100 2>&1)
inits=$(echo "$dbg" | sed -n 's/.*calling init: //p')
first=$(echo "$inits" | grep -n -F -x -e "$lib" -e "$many" | head -n 1)
case $first in *"$many") ;; *) fail "early read check: many_vfds was not initialised before ufd: $inits" ;; esac
echo "$dbg" | grep -q "binding file $many .*symbol \`signalfd'" ||
	fail "early read check: many_vfds made no signalfd through ufd"
looks=$(echo "$dbg" | grep -c "binding file $lib .*symbol \`read'")
echo "early read check: ufd looked read up $looks times for 100 reads"
[ "$looks" -le 2 ] || fail "early read check: ufd looked read up $looks times for 100 reads"
echo "resolve: all checks passed"
