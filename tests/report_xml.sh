#!/bin/sh
# Description: UFD_REPORT_FORMAT=xml is Valgrind's XML (issue 24, item 8).
# tests/valgrind/sample.c (a double close, a use after close, a leak at
# exit) under ufd, read through ufd-run, parsed with xml.etree and
# compared with what Valgrind 3.27.1 wrote for it
# (tests/valgrind/track-fds-yes.xml): the same protocol version and
# top-level elements, the same error kinds in order, the same elements in
# each error and the same number of stacks (with the same <auxwhat>), the
# frames' elements among Valgrind's, and, with ufd-symbolize, the
# program's frames down to main with Valgrind's functions and lines.
# Two processes writing to one file: one document each (FILE, FILE.PID).
# Usage: report_xml.sh UFD_RUN LIBUFD SAMPLE HAVE_LIBDW
set -u
run=$1 lib=$2 prog=$3 have_libdw=$4
. "$(dirname "$0")/lib.sh"
want=$(dirname "$0")/valgrind/track-fds-yes.xml
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
case $preload_extra in *libasan*|*libtsan*)
	# ufd-run's children here are built with the sanitizer and ufd-symbolize
	# too; the runtime refuses to run where it is not first in the
	# process's libraries ("ASan runtime does not come first").
	echo "SKIP: under $preload_extra: the sanitizer's runtime refuses the launcher's children and ufd-symbolize; the plain build checks the XML through ufd-run"
	exit 77 ;;
esac
[ -z "$preload_extra" ] || export LD_PRELOAD="$preload_extra"
export UFD_REPORT_FORMAT=xml UFD_REPORT_LEAKS=1

compare() { # FILE SYMBOLIZED
	python3 - "$want" "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
want, got = (ET.parse(p).getroot() for p in sys.argv[1:3])
symbolized = sys.argv[3] == "1"
assert got.tag == want.tag == "valgrindoutput", got.tag
assert got.findtext("protocolversion") == want.findtext("protocolversion"), got.findtext("protocolversion")
top = lambda r: sorted({c.tag for c in r})
assert top(got) == top(want), (top(got), top(want))
gerr, werr = got.findall("error"), want.findall("error")
assert [e.findtext("kind") for e in gerr] == [e.findtext("kind") for e in werr], \
    [e.findtext("kind") for e in gerr]
frame_tags = {"ip", "obj", "fn", "dir", "file", "line"}
for g, w in zip(gerr, werr):
    assert [c.tag for c in g] == [c.tag for c in w], ([c.tag for c in g], [c.tag for c in w])
    assert [a.text for a in g.findall("auxwhat")] == [a.text for a in w.findall("auxwhat")]
    assert g.findtext("fd").isdigit() and g.findtext("path") == w.findtext("path")
    for gs, ws in zip(g.findall("stack"), w.findall("stack")):
        for f in gs.findall("frame"):
            tags = [c.tag for c in f]
            assert set(tags) <= frame_tags and tags[:2] == ["ip", "obj"], tags
        if not symbolized:
            continue
        # The program's frames down to main (Valgrind's start at libc's
        # call, ufd's at the program's): the same functions and lines.
        def mine(s):
            out = []
            for f in s.findall("frame"):
                if f.findtext("file", "").endswith("sample.c"):
                    out.append((f.findtext("fn"), f.findtext("line")))
                    if f.findtext("fn") == "main":
                        break
            return out
        assert mine(gs) == mine(ws), (mine(gs), mine(ws))
pairs = got.find("errorcounts").findall("pair")
assert len(pairs) == len(gerr), len(pairs)
PY
}

# Raw (the process's own output, before symbolizing): a document by itself.
env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_REPORT="$tmp/raw.xml" "$prog" ||
	fail "raw: status $?"
compare "$tmp/raw.xml" 0 || { cat "$tmp/raw.xml"; fail "raw XML differs from Valgrind's"; }
grep -q '(nearest exported symbol)</fn>' "$tmp/raw.xml" ||
	{ cat "$tmp/raw.xml"; fail "raw XML: no frame says it is named by the nearest exported symbol"; }

[ "$have_libdw" = 1 ] || { echo "SKIP: built without libdw (libdw-dev): no ufd-symbolize"; exit 77; }
"$run" -r "$tmp/u.xml" -- "$prog" || fail "ufd-run: status $?"
compare "$tmp/u.xml" 1 || { cat "$tmp/u.xml"; fail "XML through ufd-run differs from Valgrind's"; }

# Two processes, one destination: one document each.
"$run" -r "$tmp/two.xml" -- sh -c '"$1"; "$1"' sh "$prog" || fail "two processes: status $?"
set -- "$tmp"/two.xml.*
[ $# -eq 1 ] && [ -f "$1" ] || { ls -l "$tmp"; fail "two processes: not two documents"; }
compare "$tmp/two.xml" 1 && compare "$1" 1 ||
	{ cat "$tmp/two.xml" "$1"; fail "two processes: a document differs from Valgrind's"; }
echo "PASS: Valgrind's XML, compared with Valgrind 3.27.1's"
