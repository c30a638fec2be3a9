#!/bin/sh
# Description: every budget of issue 12 that bench/run measures holds, by
# callgrind instruction count (deterministic; no time is asserted), except
# the ones bench/known_over.txt lists, each printed with its reason; and
# a listed one that is within budget fails, so that the list shrinks as
# the code gets there.  The counts are compared only on the toolchain they
# were measured with (bench/toolchain.txt): with another compiler or C
# library the figures are printed and the test skips (77), saying why.
# Usage: bench_budgets.sh SOURCE_ROOT BUILD_DIR BUILDTYPE COMPILER
set -u
. "$(dirname "$0")/lib.sh"
if [ "$3" != debugoptimized ]; then
	echo "SKIP: the budgets hold for the default debugoptimized build (-O2); this one is $3"
	exit 77
fi
if ! same_toolchain "$1" "$4"; then
	"$1/bench/run" --quick --check "$1/bench/known_over.txt" "$2"
	[ $? -eq 77 ] && exit 77
	echo "SKIP: the budgets' figures were measured with $reference (bench/toolchain.txt);"
	echo "this build is $toolchain, whose code and instruction counts differ: the"
	echo "figures above are printed, not compared"
	exit 77
fi
exec "$1/bench/run" --quick --check "$1/bench/known_over.txt" "$2"
