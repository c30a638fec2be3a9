#!/bin/sh
# Description: UFD_LOG and UFD_EXCLUDE through ufd-run: each event the log
# promises appears as one line (a virtual descriptor made and closed, a
# close of a backing descriptor refused, a select() refused, an exec
# hand-off and its receipt), UFD_EXCLUDE keeps the named calls' and
# numbers' descriptors real in mode all, and bad values get a message.
# Usage: ufd_settings.sh UFD_RUN SETTINGS_PROBE
#        (UFD_TEST_PRELOAD: extra preloads, e.g. the ASan runtime)
set -u
run=$1 probe=$2
. "$(dirname "$0")/lib.sh"
under() { LD_PRELOAD=$preload_extra "$run" "$@"; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo data >"$tmp/file"

# ---- UFD_LOG ----
# A relative name is the working directory's file: the probe's exec'd
# child (same directory here) appends to the same log.
(cd "$tmp" && under --log events.log -- "$probe" events "$tmp/file") ||
	fail "probe events: exit $?"
log=$tmp/events.log
[ -s "$log" ] || fail "no log written"
cat "$log"
expect() {
	grep -Eq "$1" "$log" || fail "no log line matching '$1'"
}
vfd='26[0-9]{7}'
expect "^ufd\[[0-9]+\] new $vfd \(backing [0-9]+\)$"
expect "^ufd\[[0-9]+\] refused to close [0-9]+: it backs $vfd$"
expect "^ufd\[[0-9]+\] refused select with nfds $vfd: "
expect "^ufd\[[0-9]+\] close $vfd$"
expect "^ufd\[[0-9]+\] exec: handing off 1 virtual descriptors and 0 close-on-fork marks$"
expect "^ufd\[[0-9]+\] hand-off: took 1 descriptors$"
# Every line is whole and names a process.
bad=$(grep -Ecv '^ufd\[[0-9]+\] [a-z]' "$log")
[ "$bad" -eq 0 ] || fail "$bad malformed log lines"
# The pid is the process's: the probe and its exec'd self share one.
[ "$(sed 's/ .*//' "$log" | sort -u | wc -l)" -eq 1 ] || fail "more than one pid for one process"

expect "^ufd\[[0-9]+\] moved the backing of $vfd from [0-9]+ to [0-9]+: the application replaces [0-9]+$"

# No line is written with the table lock held: the line about a moved
# backing descriptor, made under the lock, is written after the dup3
# that ends the locked change (strace shows the order).
if command -v strace >/dev/null; then
	rm -f "$tmp/events.log"
	(cd "$tmp" && LD_PRELOAD=$preload_extra strace -qq -o "$tmp/trace" -e trace=dup3,write \
		-s 300 "$run" --log events.log -- "$probe" events "$tmp/file") ||
		fail "probe events under strace: exit $?"
	moved=$(sed -n 's/.*moved the backing of [0-9]* from \([0-9]*\) to.*/\1/p' "$tmp/events.log")
	[ -n "$moved" ] || fail "no moved-backing line under strace"
	dup_at=$(grep -n "^dup3([0-9]*, $moved, " "$tmp/trace" | head -1 | cut -d: -f1)
	line_at=$(grep -n 'write(.*moved the backing' "$tmp/trace" | head -1 | cut -d: -f1)
	[ -n "$dup_at" ] && [ -n "$line_at" ] && [ "$line_at" -gt "$dup_at" ] ||
		fail "the moved-backing line was written with the table lock held (dup3 at line ${dup_at:-?}, write at ${line_at:-?} of the trace)"
else
	echo "(strace missing: the lock-held ordering check is skipped)"
fi

# A FIFO, with or without a reader, a symbolic link: refused with one
# message, no hang (O_NONBLOCK), no SIGPIPE, the program runs.
mkfifo "$tmp/fifo" || fail mkfifo
ln -s "$tmp/file.log" "$tmp/link"
refused() { # NAME WHAT
	msg=$(UFD_LOG=$1 LD_PRELOAD=$preload_extra timeout 20 "$run" -- "$probe" numbers "$tmp/file" 2>&1 >/dev/null)
	status=$?
	[ $status -eq 0 ] || fail "UFD_LOG=$1: exit $status (124: it hung)"
	case $msg in
	*"ufd: UFD_LOG=\"$1\": not a regular file ($2); ignored"*) ;;
	*) fail "UFD_LOG=$1: '$msg'" ;;
	esac
}
refused "$tmp/fifo" "a FIFO"
exec 3<>"$tmp/fifo" # a reader (and a writer), for as long as the test runs
refused "$tmp/fifo" "a FIFO"
exec 3<&-
refused "$tmp/link" "a symbolic link, not followed"
[ ! -e "$tmp/file.log" ] || fail "UFD_LOG followed a symbolic link"

msg=$(UFD_LOG=/nonexistent-dir/x.log under -- "$probe" numbers "$tmp/file" 2>&1 >/dev/null)
case $msg in
*'ufd: UFD_LOG="/nonexistent-dir/x.log": cannot open for appending (No such file or directory); ignored'*) ;;
*) fail "unwritable UFD_LOG: '$msg'" ;;
esac

# ---- UFD_EXCLUDE ----
small() { [ "$1" -lt 1000 ]; }
big() { [ "$1" -ge 268435456 ]; }
# shellcheck disable=SC2046
set -- $(under -m all -- "$probe" numbers "$tmp/file")
[ "$1" = pipe ] || fail "numbers: '$*'"
big "$2" && big "$3" && big "$5" && big "$7" || fail "mode all left some real: $*"

set -- $(under -m all -x pipe -- "$probe" numbers "$tmp/file")
small "$2" && small "$3" && big "$5" && big "$7" || fail "-x pipe: $*"
# "open" names the whole family (open64, __open_2 ...), whichever the
# probe's libc calls.
set -- $(under -m all -x open,dup -- "$probe" numbers "$tmp/file")
big "$2" && big "$3" && small "$5" && small "$7" || fail "-x open,dup: $*"
# A second name of glibc's (calls.def's UFD_ALIAS rows) means its first:
# __pipe is pipe, __open open.  Each is accepted, without a message.
set -- $(under -m all -x __pipe,__open -- "$probe" numbers "$tmp/file")
small "$2" && small "$3" && small "$5" && big "$7" || fail "-x __pipe,__open: $*"
aliases=$(sed -n 's/^UFD_ALIASV\{0,1\}(\([A-Za-z0-9_]*\),.*/\1/p' \
	"$(dirname "$0")/../src/calls.def")
[ -n "$aliases" ] || fail "no UFD_ALIAS rows found in calls.def"
for name in $aliases; do
	UFD_EXCLUDE=$name under -m all -- "$probe" numbers "$tmp/file" \
		>/dev/null 2>"$tmp/err" || fail "UFD_EXCLUDE=$name: exit $?"
	[ ! -s "$tmp/err" ] || fail "UFD_EXCLUDE=$name: '$(cat "$tmp/err")'"
done
# By number: the kernel gives pipe 3 and 4, open 5, which stay; dup then
# gets 6, which becomes virtual.
set -- $(under -m all -x 3-4,5 -- "$probe" numbers "$tmp/file")
[ "$2 $3 $5" = "3 4 5" ] && big "$7" || fail "-x 3-4,5: $*"

for bad in 'pipe,opn:"opn" is not a call ufd intercepts' \
	'3-x:"3-x" is not a descriptor number or range N-M' \
	'9-3:"9-3" is not a descriptor number or range N-M' \
	'pipe,,dup:"" is an empty item'; do
	value=${bad%%:*} want=${bad#*:}
	out=$(UFD_EXCLUDE=$value under -m all -- "$probe" numbers "$tmp/file" 2>"$tmp/err")
	grep -qF "ufd: UFD_EXCLUDE=\"$value\": $want" "$tmp/err" ||
		fail "UFD_EXCLUDE=$value: '$(cat "$tmp/err")'"
	# The whole setting is ignored: everything virtual.
	set -- $out
	big "$2" && big "$7" || fail "UFD_EXCLUDE=$value not ignored: $out"
done
msg=$(UFD_EXCLUDE=pipe under -- "$probe" numbers "$tmp/file" 2>&1 >/dev/null)
case $msg in
*'ufd: UFD_EXCLUDE is set but has no effect without UFD_MODE=all'*) ;;
*) fail "UFD_EXCLUDE without mode all: '$msg'" ;;
esac
under -x 2>/dev/null true; [ $? -eq 2 ] || fail "-x without a value: not exit 2"
under -L '' true 2>/dev/null; [ $? -eq 2 ] || fail "-L '': not exit 2"
"$run" --help | grep -q -- "--exclude LIST" || fail "--help lacks --exclude"
"$run" --help | grep -q -- "--log FILE" || fail "--help lacks --log"
echo "ufd_settings: all checks passed"
