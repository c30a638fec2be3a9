#!/bin/sh
# Description: the privlog example.  An application closes all descriptors
# from 3 up and opens its data file expecting descriptor 3.  A logger
# library keeping a nonseqfd() descriptor keeps logging through it and the
# application gets 3; the same library keeping an ordinary descriptor loses
# a line and then writes into the application's data file.
# Usage: closeall_test.sh CLOSEALL_APP
set -u
app=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -d /proc/self/fd ] || { echo "SKIP: no /proc/self/fd"; exit 77; }

# run NAME ARGS...: run the application with NAME.log and NAME.data.
run() {
	name=$1
	shift
	"$app" "$@" "$tmp/$name.log" "$tmp/$name.data" >"$tmp/$name.out" 2>&1 ||
		fail "$name: exit $?: $(cat "$tmp/$name.out")"
	grep -q '^application: data file got descriptor 3$' "$tmp/$name.out" ||
		fail "$name: the application did not get 3: $(cat "$tmp/$name.out")"
	echo "== $name"
	cat "$tmp/$name.out"
}
# same FILE TEXT: FILE holds exactly TEXT.
same() {
	[ "$(cat "$1")" = "$2" ] || fail "$(basename "$1"): got '$(cat "$1")', want '$2'"
}
app_only='application data 1
application data 2'

# A private descriptor: every line in the log, only the application's data
# in its file, whichever way "all" is closed: closefrom(3) names the
# virtual space too, but a hidden descriptor (NONSEQFD_HIDE) survives it.
for how in loop proc; do
	run "nonseq-$how" --close "$how"
	fd=$(sed -n 's/^logger: descriptor \([0-9]*\) (nonseqfd)$/\1/p' "$tmp/nonseq-$how.out")
	[ -n "$fd" ] && [ "$fd" -ge 268435456 ] || fail "nonseq-$how: logger descriptor '$fd' not virtual"
	grep -q '^logger: 0 lines lost$' "$tmp/nonseq-$how.out" || fail "nonseq-$how: lines lost"
	same "$tmp/nonseq-$how.log" "privlog 1: application started
privlog 2: closed all descriptors from 3 up ($how)
privlog 3: data file opened
privlog 4: exiting"
	same "$tmp/nonseq-$how.data" "$app_only"
done

# An ordinary descriptor (3): closed by the close-all, so line 2 is lost,
# and lines 3 and 4 go through the number the data file now has.
for how in loop proc; do
	run "ordinary-$how" --ordinary --close "$how"
	grep -q '^logger: descriptor 3 (ordinary)$' "$tmp/ordinary-$how.out" || fail "ordinary-$how: logger not on 3"
	grep -q '^logger: 1 lines lost$' "$tmp/ordinary-$how.out" || fail "ordinary-$how: not 1 line lost"
	same "$tmp/ordinary-$how.log" "privlog 1: application started"
	same "$tmp/ordinary-$how.data" "application data 1
privlog 3: data file opened
application data 2
privlog 4: exiting"
done

# Usage errors.
"$app" --close sometimes a b >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad --close: not exit 2"
"$app" a >/dev/null 2>&1; [ $? -eq 2 ] || fail "one file: not exit 2"
echo "PASS: a nonseqfd() descriptor survives the close-all; an ordinary one is lost and misdirected"
