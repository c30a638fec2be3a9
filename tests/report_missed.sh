#!/bin/sh
# Description: issue 23's missed and misleading reports
# (tests/report_missed.c says which case is which item): select, pselect,
# poll and ppoll on a closed descriptor are uses after close; FD_SET past
# FD_SETSIZE is reported with the descriptor that overflowed the set and
# its making stack, not select's nfds; FD_SET on a virtual descriptor is
# reported before the crash, saying UFD_MODE=random keeps select working;
# a descriptor the exec names to the new program (arguments, make's
# jobserver, LISTEN_FDS, UFD_INHERIT_OK) is no exec leak, with bash's
# process substitution and make -j2's jobserver as the real programs.
# Usage: report_missed.sh LIBUFD UNFORTIFIED FORTIFIED
#   (UFD_TEST_PRELOAD: extra preloads)
set -u
lib=$1 plain=$2 fortified=$3
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pre="${preload_extra:+$preload_extra }$lib"

# run NAME PROGRAM CASE [FORM] -- [VAR=VALUE...]: the case under ufd,
# reports to $tmp/NAME.rep, output in $tmp/NAME.out, status in $status.
run() {
	name=$1 prog=$2 case=$3 form=
	shift 3
	[ "$1" = -- ] || { form=$1; shift; }
	shift
	rm -f "$tmp/$name.rep" "$tmp/scratch"
	env LD_PRELOAD="$pre" UFD_REPORT="$tmp/$name.rep" "$@" \
		"$prog" "$case" "$tmp/scratch" $form >"$tmp/$name.out" 2>"$tmp/$name.err"
	status=$?
	touch "$tmp/$name.rep"
}
show() { cat "$tmp/$1.rep" "$tmp/$1.out" "$tmp/$1.err"; }
has() {
	grep -Eq -- "$2" "$tmp/$1.rep" || { show "$1"; fail "$1: no line matching '$2'"; }
}
count() {
	grep -Ec "^==[0-9]+==ERROR: ufd: $2: " "$tmp/$1.rep"
}
# section NAME TITLE FUNCTION: the part titled TITLE names FUNCTION.
section() {
	awk -v t="  $2 by " -v f=" in $3\\\\+" '
		index($0, t) == 1 { on = 1; next }
		/^  [a-z]/ || /^SUMMARY/ { on = 0 }
		on && $0 ~ f { found = 1 }
		END { exit !found }' "$tmp/$1.rep" ||
		{ cat "$tmp/$1.rep"; fail "$1: '$2' stack does not name $3"; }
}
vfd='2[6-9][0-9]{7}'
uac='^==[0-9]+==ERROR: ufd: use-after-close: use after close of descriptor'

# Item 9: select and pselect on a set naming a closed descriptor.
for call in select pselect; do
	for mode in transparent random; do
		n=$call-$mode
		run "$n" "$plain" "$call-closed" -- UFD_MODE=$mode UFD_SEED=5
		grep -q "^$call: Bad file descriptor$" "$tmp/$n.out" || { show "$n"; fail "$n: not EBADF"; }
		[ "$(count "$n" use-after-close)" -eq 1 ] || { show "$n"; fail "$n: not one use-after-close report"; }
		has "$n" "$uac [0-9]+ \\(not open(, was .*)?\\)$"
		has "$n" "^  call by $call in thread"
		section "$n" call select_on
		section "$n" closed close_early
		section "$n" made open_file
	done
done

# Item 10: poll and ppoll, POLLNVAL for the closed one, not the open one;
# under mode all, the wrapper's call on a translated copy is not a
# second report.
for call in poll ppoll; do
	for mode in transparent random all; do
		n=$call-$mode
		run "$n" "$plain" "$call-closed" -- UFD_MODE=$mode UFD_SEED=5
		grep -q "^$call: both, revents POLLNVAL other$" "$tmp/$n.out" || { show "$n"; fail "$n: no POLLNVAL"; }
		[ "$(count "$n" use-after-close)" -eq 1 ] || { show "$n"; fail "$n: not one use-after-close report"; }
		has "$n" "^  call by $call in thread"
		section "$n" call poll_on
		section "$n" closed close_early
	done
done

# Item 11: FD_SET(1024), select(1025): descriptor 1024, open, made by
# dup2 in make_wide; not 1025.
run wide "$plain" fd-set-wide --
if [ "$status" -eq 77 ]; then
	echo "SKIP fd-set-wide: $(cat "$tmp/wide.out")"
else
	[ "$(count wide fd-set-overflow)" -eq 1 ] || { show wide; fail "fd-set-wide: not one report"; }
	has wide '^==[0-9]+==ERROR: ufd: fd-set-overflow: descriptor past FD_SETSIZE \(1024\), in no fd_set: 1024 \(/'
	has wide '^  call by select in thread'
	has wide '^  made by dup2 in thread'
	section wide call select_wide_set
	section wide made make_wide
fi

# Item 13: FD_SET on a virtual descriptor under UFD_MODE=all.  Fortified:
# the report at __fdelt_chk, before glibc's abort.  Unfortified (the set
# mapped that far): at select.  Both with the making stack and the way
# out.
random_hint='virtual descriptor \(UFD_MODE=all; UFD_MODE=random keeps select\(\) working\)'
run virt-fort "$fortified" fd-set-virtual -- UFD_MODE=all
[ "$status" -eq 134 ] || { show virt-fort; fail "fd-set-virtual, fortified: status $status, not glibc's abort"; }
[ "$(count virt-fort fd-set-overflow)" -eq 1 ] || { show virt-fort; fail "fd-set-virtual, fortified: not one report"; }
has virt-fort "^==[0-9]+==ERROR: ufd: fd-set-overflow: descriptor past FD_SETSIZE \\(1024\\), in no fd_set: $random_hint $vfd \\(/"
has virt-fort '^  call by __fdelt_chk in thread'
section virt-fort call select_virtual
section virt-fort made open_virtual
run virt "$plain" fd-set-virtual -- UFD_MODE=all
[ "$status" -eq 0 ] && grep -q '^select: -1$' "$tmp/virt.out" || { show virt; fail "fd-set-virtual: status $status"; }
[ "$(count virt fd-set-overflow)" -eq 1 ] || { show virt; fail "fd-set-virtual: not one report"; }
has virt "^==[0-9]+==ERROR: ufd: fd-set-overflow: descriptor past FD_SETSIZE \\(1024\\), in no fd_set: $random_hint $vfd \\(/"
has virt '^  call by select in thread'
section virt call select_virtual
section virt made open_virtual

# Item 7: a descriptor named to the new program is no leak; the unnamed
# one beside it is.
for form in devfd procfd fd-eq fd-space status-fd fds-list makeflags \
	jobserver-fds listen inherit-ok spawn-devfd none; do
	n=exec-$form
	run "$n" "$plain" exec-named "$form" --
	[ "$status" -eq 0 ] || { show "$n"; fail "$n: status $status"; }
	want=1
	[ "$form" = none ] && want=2
	[ "$(count "$n" exec-leak)" -eq "$want" ] || { show "$n"; fail "$n: not $want exec-leak reports"; }
	section "$n" made open_unnamed
done

# bash's process substitution: each <(...) is a pipe end without
# close-on-exec that cat gets as /dev/fd/N.  70 of them: 0 exec-leak
# reports (142 for 200 before exec_names.c), by default and in mode
# random.
subst=$(i=0; while [ $i -lt 70 ]; do printf ' <(echo %d)' $i; i=$((i + 1)); done)
for mode in transparent random; do
	rm -f "$tmp/bash.rep"
	env LD_PRELOAD="$pre" UFD_REPORT="$tmp/bash.rep" UFD_MODE=$mode \
		bash -c "cat $subst" >"$tmp/bash.out" 2>"$tmp/bash.err" ||
		{ cat "$tmp/bash.err"; fail "bash, mode $mode: status $?"; }
	touch "$tmp/bash.rep"
	[ "$(wc -l <"$tmp/bash.out")" -eq 70 ] || fail "bash, mode $mode: not 70 lines out"
	[ "$(count bash exec-leak)" -eq 0 ] || { head -50 "$tmp/bash.rep"; fail "bash process substitution, mode $mode: $(count bash exec-leak) exec-leak reports"; }
done

# make -j2 with a jobserver: a recursive make gets the jobserver's pipe
# (MAKEFLAGS --jobserver-auth=R,W), without close-on-exec.
if command -v make >/dev/null 2>&1; then
	mkdir "$tmp/mk"
	printf 'all: a b\na b:\n\t@echo $@\n' >"$tmp/mk/sub.mk"
	printf 'all: one two\none two:\n\t+@$(MAKE) -s -f sub.mk\n' >"$tmp/mk/Makefile"
	rm -f "$tmp/make.rep"
	(cd "$tmp/mk" && env LD_PRELOAD="$pre" UFD_REPORT="$tmp/make.rep" \
		make -s -j2 >"$tmp/make.out" 2>"$tmp/make.err") ||
		{ cat "$tmp/make.err"; fail "make -j2: status $?"; }
	touch "$tmp/make.rep"
	grep -q jobserver "$tmp/make.err" && { cat "$tmp/make.err"; fail "make -j2: jobserver warning"; }
	[ "$(grep -c '^[ab]$' "$tmp/make.out")" -eq 4 ] || { cat "$tmp/make.out"; fail "make -j2: not 4 lines"; }
	[ "$(count make exec-leak)" -eq 0 ] || { head -50 "$tmp/make.rep"; fail "make -j2: $(count make exec-leak) exec-leak reports"; }
else
	echo "SKIP make -j2: no make"
fi

echo "PASS: select, poll, FD_SET and exec names reported as issue 23 asks"
