#!/bin/sh
# Description: the README's coverage table is exactly what
# tools/coverage-table prints from src/calls.def, so that the table users
# read is the list the wrappers are generated from.
# Usage: readme_coverage.sh COVERAGE_TABLE_PROGRAM README
set -u
generated=$("$1")
in_readme=$(sed -n '/^<!-- coverage:begin -->$/,/^<!-- coverage:end -->$/p' "$2" | sed '1d;$d')
if [ "$generated" != "$in_readme" ]; then
	echo "FAIL: README.md's coverage table differs from calls.def; regenerate it with:"
	echo "  tools/update-readme-coverage"
	exit 1
fi
echo "PASS: $(echo "$generated" | tail -n +3 | wc -l) rows match calls.def"
