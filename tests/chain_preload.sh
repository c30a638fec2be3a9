#!/bin/sh
# SPDX-License-Identifier: MIT
# Another descriptor-tracking preload next to ufd (count_preload.c) sees as
# many descriptors closed as made, the same counts as without ufd, with
# ufd before it in LD_PRELOAD and after it, in every mode, with close
# and with close_range (chain_app.c).  Before ufd
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

# counts PRELOAD [range]: the tracker's line, the app run with what follows
counts() {
	preload=$1
	shift
	LD_PRELOAD=$preload "$app" "$@" 2>&1 >/dev/null | grep '^count:' ||
		fail "no count line under LD_PRELOAD=$preload"
}

status=0
for how in close range; do
	args=
	[ $how = range ] && args=range
	bare=$(counts "$extra$count" $args)
	case $how:$bare in
	"close:count: made 9 closed 9" | "range:count: made 4 closed 4") ;;
	*) fail "$how, without ufd: $bare" ;;
	esac
	for order in after before; do
		if [ $order = after ]; then
			preload=$extra$ufd:$count
		else
			preload=$extra$count:$ufd
		fi
		for mode in transparent all random; do
			# The app dup2s onto 200, 201, 300 and 301, numbers the
			# kernel would not give it first: random numbers stay below
			# 128, so that none of its own descriptors is there already
			# (one in about 150 runs without the bound).
			got=$(UFD_MODE=$mode UFD_RANDOM_MAX=128 counts "$preload" $args)
			if [ "$got" = "$bare" ]; then
				echo "ok   $how, tracker $order ufd, UFD_MODE=$mode: $got"
			else
				echo "FAIL $how, tracker $order ufd, UFD_MODE=$mode: $got (without ufd: $bare)"
				status=1
			fi
		done
	done
done
exit $status
