#!/bin/sh
# Description: leaks at exec of descriptors a program was given by name
# (issue 25, item 7; src/report_given.h).  Under UFD_REPORT_LEAKS=1, sh is
# started with descriptor 5 open and named in its arguments (--fd 5):
# sh's exec of a program that is not told about it is an exec-leak report
# of sh's; an exec that names it again, one after sh closed it, one of a
# descriptor sh was given without a name (its parent's leak, not sh's),
# and the same run without UFD_REPORT_LEAKS give none.  Modes: default
# and all.  Full paths: dash tries each directory of PATH with its own
# execve, and each attempt is an exec that reports.
# Usage: report_given.sh LIBUFD   (UFD_TEST_PRELOAD: extra preloads)
set -u
lib=$1
. "$(dirname "$0")/lib.sh"
skip_under_emulator "$host_programs (here sh)"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run NAME SCRIPT [ARG...]: sh -c SCRIPT sh ARG... under ufd, fd 5 open
# on /dev/null, reports to $tmp/NAME.rep; the number of exec-leak reports
# in $n.
run() {
	name=$1 script=$2
	shift 2
	rm -f "$tmp/$name.rep"
	env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_REPORT="$tmp/$name.rep" \
		UFD_MODE=$mode $leaks sh -c "$script" sh "$@" 5</dev/null >/dev/null 2>&1 ||
		fail "$name: sh failed"
	touch "$tmp/$name.rep"
	n=$(grep -Ec "^==[0-9]+==ERROR: ufd: exec-leak: .*descriptor 5 " "$tmp/$name.rep")
}

for mode in default all; do
	leaks=UFD_REPORT_LEAKS=1
	run named 'exec /bin/true' --fd 5
	[ "$n" -eq 1 ] || { cat "$tmp/named.rep"; fail "$mode: given by name, passed on unnamed: $n reports, not 1"; }
	grep -q "crossing by execv" "$tmp/named.rep" || { cat "$tmp/named.rep"; fail "$mode: no crossing stack"; }
	run renamed 'exec /bin/true --fd 5' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/renamed.rep"; fail "$mode: named again: reported"; }
	run devfd 'exec /bin/cat /dev/fd/5' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/devfd.rep"; fail "$mode: named again as /dev/fd/5: reported"; }
	run closed 'exec 5<&-; exec /bin/true' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/closed.rep"; fail "$mode: closed first: reported"; }
	run unnamed 'exec /bin/true'
	[ "$n" -eq 0 ] || { cat "$tmp/unnamed.rep"; fail "$mode: given without a name (the parent's leak): reported"; }
	leaks=
	run noleaks 'exec /bin/true' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/noleaks.rep"; fail "$mode: reported without UFD_REPORT_LEAKS"; }
done
echo "ok"
