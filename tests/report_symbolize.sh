#!/bin/sh
# Description: reports read through ufd-run carry source lines, inlined
# frames and true names (issue 24, items 1 and 2).
#  1. tests/report_inline.c, built -O2 -g, closes a descriptor twice in a
#     function inlined into its caller: the report ufd-run shows (to
#     stderr, and to a file in text and JSON) has the bug's file:line in
#     the inlined function's frame and the caller's line below it.
#  2. libc's frame under main is named __libc_start_call_main (its true
#     name, from libc6-dbg's symbol table) when libc6-dbg is installed.
#     A raw report (without ufd-symbolize) names it by the nearest
#     exported symbol and says so.
# Usage: report_symbolize.sh UFD_RUN LIBUFD PROG HAVE_LIBDW
set -u
run=$1 lib=$2 prog=$3 have_libdw=$4
. "$(dirname "$0")/lib.sh"
[ "$have_libdw" = 1 ] || { echo "SKIP: built without libdw (libdw-dev): no ufd-symbolize"; exit 77; }
# The launcher adds libufd.so; a sanitizer build's runtime comes first.
case $preload_extra in *libasan*|*libtsan*)
	# ufd-run's children here are built with the sanitizer and ufd-symbolize
	# too; the runtime refuses to run where it is not first in the
	# process's libraries ("ASan runtime does not come first").
	echo "SKIP: under $preload_extra: the sanitizer's runtime refuses the launcher's children and ufd-symbolize; the plain build checks source lines"
	exit 77 ;;
esac
[ -z "$preload_extra" ] || export LD_PRELOAD="$preload_extra"
src=$(dirname "$0")/report_inline.c
bug=$(grep -n 'BUG:' "$src" | cut -d: -f1)
second=$(grep -n 'SECOND:' "$src" | cut -d: -f1)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The text report: frame 0 the inlined release at the bug's line, frame 1
# cleanup at the line of the call.
check_text() { # FILE
	grep -Eq "^    #0 0x[0-9a-f]+ in release [^ ]*report_inline\.c:$bug \(.*, inlined\)\$" "$1" ||
		{ cat "$1"; fail "$1: frame 0 is not release at report_inline.c:$bug, inlined"; }
	grep -Eq "^    #1 0x[0-9a-f]+ in cleanup [^ ]*report_inline\.c:$second \(" "$1" ||
		{ cat "$1"; fail "$1: frame 1 is not cleanup at report_inline.c:$second"; }
	! grep -q 'no source lines' "$1" || { cat "$1"; fail "$1: the hint is left"; }
}

"$run" -r stderr -- "$prog" 2>"$tmp/e.rep" || fail "to stderr: status $?"
check_text "$tmp/e.rep"
grep -q "^SUMMARY: ufd: double-close of descriptor [0-9]* in release [^ ]*report_inline\.c:$bug\$" "$tmp/e.rep" ||
	{ cat "$tmp/e.rep"; fail "the SUMMARY line does not name the bug's line"; }
# The summary at exit names stderr, where the user asked for the reports,
# not the file the launcher passes them through.
tail -n 1 "$tmp/e.rep" | grep -q "==ERROR SUMMARY: ufd: 1 report (double-close 1), 0 suppressed; written to stderr\$" ||
	{ cat "$tmp/e.rep"; fail "the summary does not say stderr"; }
# --sanitize's exit status comes through the launcher, which waits.
"$run" --sanitize -- "$prog" 2>"$tmp/s.rep"
status=$?
[ "$status" -eq 23 ] || { cat "$tmp/s.rep"; fail "--sanitize: status $status, not 23"; }
check_text "$tmp/s.rep"
"$run" -r "$tmp/f.rep" -- "$prog" || fail "to a file: status $?"
check_text "$tmp/f.rep"
UFD_REPORT_FORMAT=json "$run" -r "$tmp/j.rep" -- "$prog" || fail "JSON: status $?"
python3 - "$tmp/j.rep" "$bug" "$second" <<'PY' || { cat "$tmp/j.rep"; fail "JSON: no inlined frame at the bug's line"; }
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
r = lines[0]
assert lines[-1]["ufd"] == "summary", lines[-1]
st = r["call"]["stack"]
assert st[0]["function"] == "release" and st[0]["inlined"], st[0]
assert st[0]["file"].endswith("report_inline.c") and st[0]["line"] == int(sys.argv[2]), st[0]
assert st[1]["function"] == "cleanup" and st[1]["line"] == int(sys.argv[3]), st[1]
assert "inlined" not in st[1], st[1]
PY

# 2. libc's frame.
if dpkg -s libc6-dbg >/dev/null 2>&1; then
	grep -Eq '^    #[0-9]+ 0x[0-9a-f]+ in __libc_start_call_main ' "$tmp/e.rep" ||
		{ cat "$tmp/e.rep"; fail "libc's frame is not named __libc_start_call_main"; }
else
	echo "note: libc6-dbg is not installed (tools/dev installs it): libc's true names not checked"
fi
env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_REPORT=stderr "$prog" 2>"$tmp/raw.rep"
libc=$(sed -n 's/.* (\(\/[^ ]*libc\.so\.6\)+0x.*/\1/p' "$tmp/raw.rep" | head -n 1)
if [ -n "$libc" ] && ! readelf -S "$libc" 2>/dev/null | grep -q ' \.symtab '; then
	grep -Eq '^    #[0-9]+ 0x[0-9a-f]+ in [a-z_0-9]+\+0x[0-9a-f]+ \(nearest exported symbol\) \(/[^ ]*libc\.so\.6\+' "$tmp/raw.rep" ||
		{ cat "$tmp/raw.rep"; fail "raw report: libc's static frame does not say it is named by the nearest exported symbol"; }
fi
echo "PASS: source lines, inlined frames and true names through ufd-run"
