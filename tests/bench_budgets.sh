#!/bin/sh
# Description: every budget of issue 12 that bench/run measures holds, by
# callgrind instruction count (deterministic; no time is asserted), except
# the ones bench/known_over.txt lists, each printed with its reason; and
# a listed one that is within budget fails, so that the list shrinks as
# the code gets there.
# Usage: bench_budgets.sh SOURCE_ROOT BUILD_DIR BUILDTYPE
set -u
if [ "$3" != debugoptimized ]; then
	echo "SKIP: the budgets hold for the default debugoptimized build (-O2); this one is $3"
	exit 77
fi
exec "$1/bench/run" --quick --check "$1/bench/known_over.txt" "$2"
