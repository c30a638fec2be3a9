#!/bin/sh
# bench/calls.sh [BUILD_DIR] - user-space instructions per operation
# (callgrind: a run of 2N minus a run of N, so that start-up cancels), for
# creating and closing real descriptors without ufd and under it, and the
# instructions of a whole /bin/true start-up.  Stable on a noisy machine.
set -eu
build=${1:-build}
prog=$build/bench/bench_calls
lib=$(cd "$build" && pwd)/libufd.so
n=1000

# total PRELOAD ARGS...: callgrind's count for the whole program, or for
# bench_calls_loop alone when ARGS are bench_calls's.
total() {
	preload=$1
	shift
	out=$(mktemp)
	case $1 in
	*bench_calls) toggle=--toggle-collect=bench_calls_loop ;;
	*) toggle= ;;
	esac
	# shellcheck disable=SC2086
	LD_PRELOAD=$preload valgrind --tool=callgrind --callgrind-out-file="$out" \
		$toggle "$@" >/dev/null 2>&1
	callgrind_annotate "$out" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
	rm -f "$out"
}

per_op() {
	a=$(total "$1" "$prog" $n "$2")
	b=$(total "$1" "$prog" $((2 * n)) "$2")
	echo $(((b - a) / n))
}

echo "== instructions per operation (callgrind, user space)"
printf '%-24s %8s %8s %8s\n' operation "no ufd" "ufd" added
for op in open pipe socket dup; do
	plain=$(per_op "" $op)
	under=$(per_op "$lib" $op)
	printf '%-24s %8d %8d %+8d\n' "$op + close" "$plain" "$under" $((under - plain))
done
plain=$(per_op "" poll)
under=$(per_op "$lib" poll)
printf '%-24s %8d %8d %+8d\n' "poll, 64 real" "$plain" "$under" $((under - plain))
under=$(per_op "$lib" vpoll)
printf '%-24s %8s %8d %+8d\n' "poll, 64 virtual" "" "$under" $((under - plain))
plain=$(per_op "" dup)
under=$(per_op "$lib" vdup)
printf '%-24s %8s %8d %+8d\n' "dup2(ALLOC) + close" "" "$under" $((under - plain))
plain=$(per_op "" open)
under=$(UFD_MODE=all per_op "$lib" open)
printf '%-24s %8s %8d %+8d\n' "open + close, mode all" "" "$under" $((under - plain))
# The sanitizer on (UFD_REPORT): each creation and close captures its
# stack (backtrace) and looks it up in the depot.
reports=$(mktemp)
under=$(UFD_REPORT=$reports per_op "$lib" open)
printf '%-24s %8s %8d %+8d\n' "open + close, reports" "" "$under" $((under - plain))
under=$(UFD_REPORT=$reports UFD_MODE=all per_op "$lib" open)
printf '%-24s %8s %8d %+8d\n' "  the same, mode all" "" "$under" $((under - plain))
rm -f "$reports"
plain=$(total "" /bin/true)
under=$(total "$lib" /bin/true)
printf '%-24s %8d %8d %+8d\n' "start-up (/bin/true)" "$plain" "$under" $((under - plain))
