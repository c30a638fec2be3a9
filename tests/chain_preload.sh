#!/bin/sh
# SPDX-License-Identifier: MIT
# Another descriptor-tracking preload next to ufd (count_preload.c) sees as
# many descriptors closed as made, the same counts as without ufd, with
# ufd before it in LD_PRELOAD and after it, in every mode.  Before ufd
# closed backing descriptors only with raw system calls: a preload after
# it saw them made but never closed.
#
# usage: chain_preload.sh CHAIN_APP COUNT_PRELOAD.so
set -u
. "$(dirname "$0")/lib.sh"

app=$1
count=$2
extra=${preload_extra:+$preload_extra:}
ufd=${UFD_TEST_PRELOAD##*:}

counts() {
	LD_PRELOAD=$1 "$app" 2>&1 >/dev/null | grep '^count:' ||
		fail "no count line under LD_PRELOAD=$1"
}

bare=$(counts "$extra$count")
case $bare in
"count: made 9 closed 9") ;;
*) fail "without ufd: $bare" ;;
esac
status=0
for order in after before; do
	if [ $order = after ]; then
		preload=$extra$ufd:$count
	else
		preload=$extra$count:$ufd
	fi
	for mode in transparent all random; do
		got=$(UFD_MODE=$mode counts "$preload")
		if [ "$got" = "$bare" ]; then
			echo "ok   tracker $order ufd, UFD_MODE=$mode: $got"
		else
			echo "FAIL tracker $order ufd, UFD_MODE=$mode: $got (without ufd: $bare)"
			status=1
		fi
	done
done
exit $status
