#!/bin/sh
# Description: the README's table of instruction counts (Performance) is
# exactly what bench/run prints for this tree, so that the figures users
# read are the code's.  Only the callgrind counts: they are deterministic,
# except the start-up row's, which moves with the machine's dynamic-linker
# cache (installing any library changes it): that row is left out.  The
# table is compared only on the toolchain it was measured with
# (bench/toolchain.txt); with another compiler or C library this build's
# table is printed and the test skips (77), saying why.
# Usage: readme_perf.sh SOURCE_ROOT BUILD_DIR BUILDTYPE COMPILER
set -u
. "$(dirname "$0")/lib.sh"
if [ "$3" != debugoptimized ]; then
	echo "SKIP: the README's counts are those of the default debugoptimized build (-O2); this one is $3"
	exit 77
fi
if ! command -v valgrind >/dev/null; then
	echo "SKIP: valgrind is not installed (tools/dev test installs it)"
	exit 77
fi
machine_dependent='process start-up'
generated=$("$1/bench/run" --table "$2") || exit 1
generated=$(printf '%s\n' "$generated" | grep -v "$machine_dependent")
if ! same_toolchain "$1" "$4"; then
	printf '%s\n' "$generated"
	echo "SKIP: README.md's table was measured with $reference (bench/toolchain.txt);"
	echo "this build is $toolchain, whose code and instruction counts differ: its"
	echo "table is printed above, not compared"
	exit 77
fi
in_readme=$(sed -n '/^<!-- perf:begin -->$/,/^<!-- perf:end -->$/p' "$1/README.md" | sed '1d;$d' |
	grep -v "$machine_dependent")
if [ "$generated" != "$in_readme" ]; then
	echo "FAIL: README.md's Performance table differs from bench/run's; regenerate it with:"
	echo "  tools/update-readme-perf"
	echo "--- README.md"
	echo "+++ bench/run --table"
	printf '%s\n' "$in_readme" >"${TMPDIR:-/tmp}/readme_perf.$$.a"
	printf '%s\n' "$generated" >"${TMPDIR:-/tmp}/readme_perf.$$.b"
	diff "${TMPDIR:-/tmp}/readme_perf.$$.a" "${TMPDIR:-/tmp}/readme_perf.$$.b" | grep '^[<>]'
	rm -f "${TMPDIR:-/tmp}/readme_perf.$$.a" "${TMPDIR:-/tmp}/readme_perf.$$.b"
	exit 1
fi
echo "PASS: $(echo "$generated" | tail -n +3 | wc -l) rows match bench/run"
