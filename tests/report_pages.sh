#!/bin/sh
# Description: a process with reports on touches only the pages it uses
# (issue 24, item 6).  Reports on cost /bin/true at most PAGES_TRUE more
# minor page faults than reports off, and a shell that runs two commands
# (a fork and an exec each, and records for its descriptors at exit and
# at exec) PAGES_SH more per process; /bin/true makes at most SYSCALLS
# more system calls; the descriptor table stays at the size a process
# starts with, libgcc_s is not loaded, and an exec that leaks nothing
# reads nothing of its arguments.  (Before: about 1,100 more per process,
# a scan of the 4 MB table of record chunks at each exit and exec, and of
# a whole 4,096-record chunk; then, with one budget of 100, the shell's
# processes took 74 more each, and 49 after the start-up work of issue 24
# item 6's second round, /bin/true 25, with 47 more system calls; then
# 10, 35 and 13, after its third: rows resolved on first use, the
# modules' files mapped and the given descriptors' names read at the first
# report, one reserved mapping, the large arrays after .bss; then 11
# system calls: no mapping for a copy of UFD_REPORT's value, one gettid
# for getpid and gettid.)
# Usage: report_pages.sh LIBUFD   (UFD_TEST_PRELOAD: extra preloads)
set -u
lib=$1
. "$(dirname "$0")/lib.sh"
skip_under_emulator "$host_programs (here /bin/true and /bin/sh, whose page faults it counts)"
PAGES_TRUE=12
PAGES_SH=38
SYSCALLS=12
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

for case in "1 $PAGES_TRUE /bin/true" "3 $PAGES_SH /bin/sh -c /bin/true;/bin/true"; do
	procs=${case%% *}
	cmd=${case#* }
	pages=${cmd%% *}
	cmd=${cmd#* }
	# shellcheck disable=SC2086
	off=$(faults "" $procs $cmd) || fail "$cmd"
	# shellcheck disable=SC2086
	on=$(faults "$tmp/reports" $procs $cmd) || fail "$cmd"
	echo "$cmd: $off minor faults a process with reports off, $on on"
	[ $((on - off)) -le "$pages" ] ||
		fail "$cmd: reports on touch $((on - off)) more pages a process (at most $pages)"
done
# The destination's descriptor keeps the kernel's descriptor table within
# 1,024 numbers, even where the soft limit is the hard one (then it used
# to sit at the top of the limit, and every process had a table that
# large for fork to copy), and within the limit where that is lower.
hard=$(ulimit -Hn)
top=4096
[ "$hard" = unlimited ] || [ "$hard" -ge $top ] || top=$hard
for limit in $top 32; do
	for report in "" "$tmp/reports"; do
		size=$(ulimit -n $limit && env LD_PRELOAD="$pre" ${report:+UFD_REPORT="$report"} \
			cat /proc/self/status | sed -n 's/^FDSize:[[:space:]]*//p') ||
			fail "FDSize with a limit of $limit"
		echo "limit $limit, reports $([ -n "$report" ] && echo on || echo off): FDSize $size"
		[ -n "$report" ] || off=$size
	done
	max=1024
	[ $limit -ge $max ] || max=$off
	[ "$size" -le "$max" ] || fail "reports on: a descriptor table of $size numbers with a limit of $limit (at most $max)"
done
# Nor does it load libgcc_s (glibc's backtrace() does, on its first call:
# once at start-up in every process, it was a third of what reports added
# to a fork + exec); a stack that needs it loads it then (tests/report.sh,
# big-frame).
for report in "" "$tmp/reports"; do
	n=$(env LD_PRELOAD="$pre" ${report:+UFD_REPORT="$report"} cat /proc/self/maps |
		grep -c 'libgcc_s') || true
	[ -n "$report" ] || { off=$n; continue; }
	echo "libgcc_s mappings at start: $off with reports off, $n on"
	[ "$n" -le "$off" ] || fail "reports on load libgcc_s at start-up"
done
# An exec that passes on none of the program's own descriptors reads
# nothing of its arguments and environment (exec_names.h: where they name
# a descriptor, it is passed on on purpose): as many process_vm_readv as
# with reports off, in a shell running two commands.
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null /bin/true 2>/dev/null; then
	# The system calls of /bin/true: start-up's, with reports on.
	for report in "" "$tmp/reports"; do
		env LD_PRELOAD="$pre" ${report:+UFD_REPORT="$report"} strace -f -c -o "$tmp/strace" \
			/bin/true </dev/null >/dev/null 2>&1 || fail "strace /bin/true"
		n=$(awk '$NF == "total" { print $4 }' "$tmp/strace")
		[ -n "$report" ] || { off=$n; continue; }
		echo "system calls of /bin/true: $off with reports off, $n on"
		[ $((n - off)) -le $SYSCALLS ] ||
			fail "reports on make $((n - off)) more system calls at start-up (at most $SYSCALLS)"
	done
	for report in "" "$tmp/reports"; do
		env LD_PRELOAD="$pre" ${report:+UFD_REPORT="$report"} strace -f -c -o "$tmp/strace" \
			-e trace=process_vm_readv /bin/sh -c '/bin/true; /bin/true' ||
			fail "strace"
		n=$(awk '$NF == "process_vm_readv" { print $4 }' "$tmp/strace")
		[ -n "$report" ] || { off=${n:-0}; continue; }
		echo "process_vm_readv in sh -c 'true; true': $off with reports off, ${n:-0} on"
		[ "${n:-0}" -le "$off" ] || fail "reports on read the arguments and environment of execs that leak nothing"
	done
else
	echo "no strace (or it cannot trace here): the exec's reads not counted"
fi
echo "PASS"
