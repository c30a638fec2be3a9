#!/bin/sh
# Description: a process with reports on touches only the pages it uses
# (issue 24, item 6).  Reports on cost /bin/true, and a shell that runs
# two commands (a fork and an exec each, and records for its descriptors
# at exit and at exec), at most PAGES more minor page faults per process
# than reports off.  (Before: about 1,100 more per process, a scan of the
# 4 MB table of record chunks at each exit and exec, and of a whole
# 4,096-record chunk.)
# Usage: report_pages.sh LIBUFD   (UFD_TEST_PRELOAD: extra preloads)
set -u
lib=$1
. "$(dirname "$0")/lib.sh"
skip_under_emulator "$host_programs (here /bin/true and /bin/sh, whose page faults it counts)"
PAGES=100
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
case $preload_extra in *libasan*|*libtsan*)
	# The sanitizer's shadow memory gives each page ufd touches one more.
	echo "SKIP: under $preload_extra, whose shadow memory doubles the pages touched; the plain build counts them"
	exit 77 ;;
esac
pre="${preload_extra:+$preload_extra }$lib"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }

# faults REPORT PROCS CMD...: the fewest minor faults of 5 runs of CMD
# under ufd (with UFD_REPORT=REPORT unless it is empty), per process.
faults() {
	python3 - "$pre" "$@" <<'PY'
import os, resource, subprocess, sys
pre, report, procs, cmd = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
env = dict(os.environ, LD_PRELOAD=pre)
env.pop("UFD_REPORT", None)
if report:
    env["UFD_REPORT"] = report
best = None
for _ in range(5):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    n = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before
    best = n if best is None else min(best, n)
print(best // procs)
PY
}

for case in "1 /bin/true" "3 /bin/sh -c /bin/true;/bin/true"; do
	procs=${case%% *}
	cmd=${case#* }
	# shellcheck disable=SC2086
	off=$(faults "" $procs $cmd) || fail "$cmd"
	# shellcheck disable=SC2086
	on=$(faults "$tmp/reports" $procs $cmd) || fail "$cmd"
	echo "$cmd: $off minor faults a process with reports off, $on on"
	[ $((on - off)) -le $PAGES ] ||
		fail "$cmd: reports on touch $((on - off)) more pages a process (at most $PAGES)"
done
echo "PASS"
