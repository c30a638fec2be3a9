#!/bin/sh
# Description: the stale-stream bug under UFD_MODE=all (issue 23 item
# 12): a stream whose descriptor the program closed under it, by close,
# close_range or closefrom.  Without ufd the next open gets the number and
# the stream's late write lands in that file (checked, so that the test
# shows the bug is there).  Under UFD_MODE=all with reports it must not:
# the new file gets nothing, and the one report is the stream's fclose as
# a double close of the stream's descriptor, first closed by the call that
# closed it -- the report close gives, with that call's name -- and never
# one about the new file's descriptor.
# Usage: stale_stream.sh LIBUFD PROGRAM
set -u
lib=$1 prog=$2
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The report with what differs between runs taken out: pids, numbers,
# addresses, the closing call's name.
normal() {
	sed -E -e 's/==[0-9]+==/==PID==/; s/thread [0-9]+/thread T/' \
		-e 's/0x[0-9a-f]+/0xX/g; s/descriptor [0-9]+/descriptor N/' \
		-e "s/ by $2 in / by CLOSER in /; s/written to .*/written to FILE/" "$1"
}

for how in close close_range closefrom; do
	out=$(env LD_PRELOAD="$preload_extra" "$prog" $how "$tmp") || fail "$how: bare run failed"
	[ "$out" = "victim got 10 bytes" ] ||
		fail "$how: without ufd the victim should get the late write: $out"

	rm -f "$tmp/$how.rep"
	out=$(env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=all \
		UFD_REPORT="$tmp/$how.rep" "$prog" $how "$tmp") || fail "$how: run under ufd failed"
	[ "$out" = "victim got 0 bytes" ] ||
		{ cat "$tmp/$how.rep"; fail "$how: under UFD_MODE=all the stale stream wrote into the new file: $out"; }
	[ "$(grep -c ': ERROR: ufd: \|^==[0-9]*==ERROR: ufd: [a-z-]*: ' "$tmp/$how.rep")" -eq 1 ] ||
		{ cat "$tmp/$how.rep"; fail "$how: not one report"; }
	grep -Eq '^==[0-9]+==ERROR: ufd: double-close: double close of descriptor 26[0-9]{7} \(not open, was .*/log\)$' "$tmp/$how.rep" ||
		{ cat "$tmp/$how.rep"; fail "$how: no double close of the stream's descriptor"; }
	grep -q "^  first closed by $how in thread" "$tmp/$how.rep" ||
		{ cat "$tmp/$how.rep"; fail "$how: the first close is not named $how"; }
	grep -q 'victim' "$tmp/$how.rep" &&
		{ cat "$tmp/$how.rep"; fail "$how: a report names the new file"; }
	# The frames: the fclose in finish_log, the close in close_under.
	grep -Eq '^SUMMARY: ufd: double-close of descriptor [0-9]+ in finish_log$' "$tmp/$how.rep" ||
		{ cat "$tmp/$how.rep"; fail "$how: the summary does not name finish_log"; }
	normal "$tmp/$how.rep" "$how" >"$tmp/$how.norm"
done
for how in close_range closefrom; do
	diff -u "$tmp/close.norm" "$tmp/$how.norm" ||
		fail "$how: the report differs from close's but for the call"
done
echo "ok"
