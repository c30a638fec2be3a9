#!/bin/sh
# Description: the cloexec_race example.  A file opened in one thread and
# marked close-on-exec only after another thread has forked and executed a
# program leaks into that program; under ufd with UFD_CLOEXEC=1 it does
# not, nor does a virtual descriptor opened with O_UNSEQFD | O_CLOEXEC.
# Usage: UFD_TEST_PRELOAD=<LD_PRELOAD value> cloexec_race_test.sh CLOEXEC_RACE
set -u
prog=$1
fail() { echo "FAIL: $*"; exit 1; }
[ -d /proc/self/fd ] || { echo "SKIP: no /proc/self/fd"; exit 77; }
secret=$(mktemp) || exit 1
trap 'rm -f "$secret"' EXIT

# run NAME [VAR=VALUE...]: run the example in $mode on the secret file,
# with those variables set (LD_PRELOAD for ufd); keep its output in $out.
run() {
	name=$1
	shift
	out=$(env "$@" "$prog" "$mode" "$secret" 2>&1) || fail "$name: exit $?: $out"
	printf '== %s\n%s\n' "$name" "$out"
}
leaked() {
	case $out in
	*"LEAK: the program another thread executed inherited $secret"*) ;;
	*) fail "$name: no leak seen" ;;
	esac
	printf '%s\n' "$out" | grep -q "^  child: inherited descriptor [0-9]*: $secret\$" ||
		fail "$name: the child did not list the file"
}
no_leak() {
	case $out in
	*"no leak: "*) ;;
	*) fail "$name: leaked" ;;
	esac
	if printf '%s\n' "$out" | grep -q "^  child: inherited descriptor [0-9]*: "; then
		fail "$name: the child listed the file"
	fi
}
ufd="LD_PRELOAD=$UFD_TEST_PRELOAD"

mode=racy
run "racy, without ufd"
leaked
# ufd alone changes nothing for real descriptors: it is transparent.
run "racy, under ufd" "$ufd"
leaked
run "racy, under ufd with UFD_CLOEXEC=1" "$ufd" UFD_CLOEXEC=1
no_leak

mode=virtual
run "virtual, O_UNSEQFD | O_CLOEXEC under ufd" "$ufd"
no_leak
case $out in *"(virtual)"*) ;; *) fail "not a virtual descriptor" ;; esac

# The control: a virtual descriptor without close-on-exec is handed on, and
# the child sees it, under the same number.
mode=virtual-inherit
run "virtual-inherit, O_UNSEQFD under ufd" "$ufd"
leaked
vfd=$(printf '%s\n' "$out" | sed -n 's/.* as descriptor \([0-9]*\) (virtual)$/\1/p')
[ -n "$vfd" ] || fail "virtual-inherit: not a virtual descriptor"
printf '%s\n' "$out" | grep -q "^  child: inherited descriptor $vfd: " ||
	fail "virtual-inherit: the child has it under another number"

"$prog" sometimes >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad mode: not exit 2"
echo "PASS: the race leaks without ufd's emulation and not with it"
