#!/bin/sh
# Description: the manual pages are clean: no message at all from
# `mandoc -T lint` (every level, style included), or, without mandoc, no
# warning from `man --warnings` (groff's) while formatting them.  Exit 77
# (skip) where neither checker is installed.
# Usage: lint.sh PAGE...
set -u
[ $# -gt 0 ] || { echo "usage: lint.sh PAGE..."; exit 2; }
if command -v mandoc >/dev/null 2>&1; then
	checker="mandoc -T lint"
	out=$(mandoc -T lint -W all "$@" 2>&1)
elif command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
	checker="man --warnings"
	out=
	for page in "$@"; do
		out=$out$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	done
else
	echo "SKIP: neither mandoc nor man with groff is installed (apt-get install mandoc)"
	exit 77
fi
if [ -n "$out" ]; then
	echo "FAIL: $checker:"
	echo "$out"
	exit 1
fi
echo "PASS: $checker: $# pages, no message"
