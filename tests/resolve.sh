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
# Where the walk's answer for close is dlsym's, the tables of the objects
# up to libc's are kept and every row but close waits for its first call,
# which looks it up there, without the loader (async-signal-safe: a
# program may call the signal-safe functions (signal_safe.txt) from a
# signal handler or a vfork child, where dlsym must not run): each
# signal-safe row is one the kept tables answer, and a program's first
# calls (ls: opendir, fopen...) ask the loader for no row.  Where the walk
# is not used (ufd after libc), every row is resolved at start-up but the
# UFD_LAZY ones (the check reports any row resolved, or not, against the
# list), none of which is async-signal-safe.  A function put in front of a real one before ufd's
# constructor (the read check of a signalfd made by an earlier
# constructor, MANY_VFDS's) calls on to libc's function, not to the stub
# that would look it up on every call.
# Usage: resolve.sh LATE_APP LIBUFD BASH MANY_VFDS
set -u
app=$1 lib=$2 bash=$3 many=$4
. "$(dirname "$0")/lib.sh"
skip_under_emulator "$host_programs"

# check WHAT MIN_FOUND LAZY COMMAND...: run COMMAND with the check on; no
# difference, at least MIN_FOUND names answered by the walk, and LAZY
# rows left to their first use (+LAZY: at least LAZY), no signal-safe
# row left to dlsym.
check() {
	what=$1 min=$2 want=$3
	shift 3
	err=$(UFD_CHECK_RESOLVE=1 "$@" 2>&1 >/dev/null)
	echo "$what: $err" | grep 'resolve check'
	to_dlsym=$(echo "$err" | sed -n 's/^ufd: resolve dlsym: //p')
	unsafe=$(echo "$to_dlsym" | grep -x -F "$safe_names")
	[ -z "$unsafe" ] || fail "$what: signal-safe rows left to dlsym:" $unsafe
	line=$(echo "$err" | grep '^ufd: resolve check: [0-9]* names' | head -n 1)
	[ -n "$line" ] || fail "$what: no summary line: $err"
	case $line in *'; 0 differ') ;; *) fail "$what: $err" ;; esac
	[ "$(echo "$err" | grep -c 'resolve check')" -eq 1 ] || fail "$what: $err"
	found=$(echo "$line" | sed -n 's/.*: \([0-9]*\) found,.*/\1/p')
	[ "${found:-0}" -ge "$min" ] || fail "$what: the walk found only ${found:-0}: $line"
	case $want in
	+*)
		waiting=$(echo "$line" | sed -n 's/.*; \([0-9]*\) left to first use;.*/\1/p')
		[ "${waiting:-0}" -ge "${want#+}" ] ||
			fail "$what: want at least ${want#+} left to first use: $line" ;;
	*)
		case $line in *"; $want left to first use;"*) ;; *) fail "$what: want $want left to first use: $line" ;; esac ;;
	esac
}

def=$(dirname "$0")/../src/calls.def
rows=$(grep -c '^UFD_\(WRAP\|NEW\|HAND\|HANDV\)(' "$def")
lazy_names=$(sed -n 's/^UFD_LAZY(\([A-Za-z0-9_]*\),.*/\1/p' "$def")
lazy=$(echo "$lazy_names" | grep -c .)
[ "$lazy" -gt 0 ] || fail "no UFD_LAZY row in $def"
safe_names=$(grep -v '^#' "$(dirname "$0")/signal_safe.txt")
both=$(echo "$safe_names" | grep -x -F "$lazy_names")
[ -z "$both" ] || fail "UFD_LAZY rows POSIX requires to be async-signal-safe:" $both
# Preloaded: every name libc defines plainly comes from the kept tables,
# and only close is resolved at start-up (a sanitizer's runtime before
# ufd may call a few rows first).
check "preloaded" $((rows - 10)) +$((rows - 10)) env LD_PRELOAD="$preload_extra $lib" /bin/true
check "bash" $((rows - 10)) +$((rows - 10)) env LD_PRELOAD="$preload_extra $lib" "$bash" -c true
# glibc's weak definitions no longer end the search: the walk declines
# them and dlsym answers, at start-up (nothing is kept); nothing may
# differ.
# (Not under ThreadSanitizer, whose runtime dies at start-up with ufd and
# LD_DYNAMIC_WEAK, before and after the walk alike.)
case $preload_extra in *libtsan*) ;; *)
check "LD_DYNAMIC_WEAK" 0 "$lazy" env LD_DYNAMIC_WEAK=1 LD_PRELOAD="$preload_extra $lib" /bin/true ;;
esac
# ufd after libc: nothing after ufd defines the names (or the walk is off).
check "late" 0 "$lazy" env ${preload_extra:+LD_PRELOAD="$preload_extra"} "$app"
# ufd loaded by dlopen (with room made for its initial-exec TLS, which
# glibc's default reserve lacks): the loader binds ufd's dl_iterate_phdr
# to libc, listed before ufd, so the walk's answer is checked against
# dlsym's; it differs (nothing after ufd defines close) and dlsym answers.
[ -n "$preload_extra" ] || check "dlopen" 0 "$lazy" \
	env GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536 \
	python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$lib"
# UFD_MODE (and UFD_REPORT), whose features put functions in front of
# real ones, look those up in the kept tables as well.
check "mode all" $((rows - 10)) +$((rows - 10)) env UFD_MODE=all LD_PRELOAD="$preload_extra $lib" /bin/true

# First calls ask the loader for nothing: bash's glob reads a directory
# (opendir, readdir, closedir: UFD_LAZY rows, which dlsym looked up on
# first use before the tables were kept).  LD_DEBUG=bindings prints each
# look-up.  Preloaded, ufd asks for none, not even close at start-up: the
# loader's binding of ufd's dl_iterate_phdr to libc, after ufd, says that
# the walk's order is RTLD_NEXT's (shim.c), with no dlsym to check it.
# (Not ls: its libselinux's constructor runs before ufd's, whose stubs
# then have no tables yet and ask dlsym.)
dbg=$(LD_DEBUG=bindings LD_PRELOAD="$preload_extra $lib" "$bash" -c 'echo /*' 2>&1 >/dev/null)
asked=$(echo "$dbg" | sed -n "s|.*binding file $lib .*symbol \`\([a-z0-9_]*\)'.*|\1|p" |
	sort -u | grep -x -F "$(sed -n 's/^UFD_\(WRAP\|NEW\|HAND\|HANDV\)(\([a-z0-9_]*\),.*/\2/p' "$def")")
echo "first calls (opendir...): ufd asked the loader for: ${asked:-nothing}"
echo "$dbg" | grep -q "binding file $lib .*symbol \`dl_iterate_phdr'" ||
	fail "first calls: LD_DEBUG=bindings shows no binding of ufd's dl_iterate_phdr: $dbg"
# Under a sanitizer runtime preloaded first (ASan), the walk's answer
# differs from dlsym's for a few names (those the runtime intercepts,
# mmap and sigaction, and sysconf), which ufd then leaves to dlsym by
# design: the check's "left to dlsym" above; the plain build checks that
# nothing is asked.
if [ -n "$preload_extra" ]; then
	echo "first calls under $preload_extra: not checked (the names left to dlsym by design)"
else
	[ -z "$asked" ] || fail "first calls looked up through the loader:" $asked
fi

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
