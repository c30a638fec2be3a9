#!/bin/sh
# bench/sanitizer.sh [--table] [BUILD_DIR] - the descriptor sanitizer
# (UFD_REPORT) on whole programs (issue 24, items 6 and 7): CPU time (user
# + system, of the program and its children, /usr/bin/time) bare, under
# UFD_MODE=random, under UFD_MODE=random with reports on, and under
# valgrind --tool=none --track-fds=yes --trace-children=yes where valgrind
# is installed.  The median of RUNS runs (default 3; valgrind: 1).  Then
# what a new process costs: fork + execve + waitpid 100 times with reports
# off and on, paired alternating runs, and the minor page faults of 10.
#
# Workloads:
#   shell    a shell loop of 200 commands (/bin/true)
#   python   a Python script making 225,000 descriptor calls (75,000 times
#            os.open, os.fstat, os.close)
#   orc      open, read 1 byte, close, 1,000,000 times (bench_calls loop)
#
# --table prints only README.md's table (tools/update-readme-sanitizer).
# The machine is shared: only the ratios mean much.  Targets (issue 24):
# random + reports at most 2x bare; fork + exec with reports at most 1.2x
# without.
set -eu
table_only=
if [ "${1:-}" = --table ]; then table_only=1; shift; fi
build=$(cd "${1:-build}" && pwd)
lib=$build/libufd.so
calls=$build/bench/bench_calls
runs=${RUNS:-3}
for f in "$lib" "$calls"; do
	[ -e "$f" ] || { echo "bench/sanitizer.sh: $f missing: build first" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not installed (apt-get install time)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/calls.py" <<'EOF'
import os
for _ in range(75000):
    fd = os.open("/dev/null", os.O_RDONLY)
    os.fstat(fd)
    os.close(fd)
EOF

# workload NAME: set "$@" to its command.
workload() {
	case $1 in
	shell) set -- /bin/sh -c 'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done' ;;
	python) set -- python3 "$tmp/calls.py" ;;
	orc) set -- "$calls" loop 1000000 orc ;;
	esac
	cmd="$*"
	argv=$(for a in "$@"; do printf '%s\n' "$a"; done)
}

# cpu MODE CMD...: "seconds faults" of one run (user + system, children
# included) in MODE: bare, random, reports, valgrind.
cpu() {
	mode=$1
	shift
	case $mode in
	bare) env /usr/bin/time -f '%U %S %R' -o "$tmp/t" "$@" >/dev/null 2>&1 ;;
	random) env LD_PRELOAD="$lib" UFD_MODE=random /usr/bin/time -f '%U %S %R' -o "$tmp/t" "$@" >/dev/null 2>&1 ;;
	reports) env LD_PRELOAD="$lib" UFD_MODE=random UFD_REPORT="$tmp/reports" \
		/usr/bin/time -f '%U %S %R' -o "$tmp/t" "$@" >/dev/null 2>&1 ;;
	off) env LD_PRELOAD="$lib" /usr/bin/time -f '%U %S %R' -o "$tmp/t" "$@" >/dev/null 2>&1 ;;
	on) env LD_PRELOAD="$lib" UFD_REPORT="$tmp/reports" \
		/usr/bin/time -f '%U %S %R' -o "$tmp/t" "$@" >/dev/null 2>&1 ;;
	valgrind) /usr/bin/time -f '%U %S %R' -o "$tmp/t" valgrind --tool=none \
		--track-fds=yes --trace-children=yes "$@" >/dev/null 2>&1 ;;
	esac || true
	tail -n 1 "$tmp/t" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }'
}

# median N MODE CMD...: the median CPU seconds of N runs.
median() {
	n=$1
	shift
	i=0
	while [ $i -lt "$n" ]; do
		cpu "$@"
		i=$((i + 1))
	done | sort -n | awk '{ s[NR] = $1 } END { printf "%.2f", s[int((NR + 1) / 2)] }'
}

has_vg=
command -v valgrind >/dev/null && has_vg=1
vg_version=$( [ -n "$has_vg" ] && valgrind --version || echo "valgrind (not installed)")

header="| workload | bare | \`UFD_MODE=random\` | random + \`UFD_REPORT\` | reports / bare |"
rule="| --- | --- | --- | --- | --- |"
if [ -n "$has_vg" ]; then
	header="$header $vg_version \`--tool=none --track-fds=yes\` | valgrind / bare |"
	rule="$rule --- | --- |"
fi
[ -n "$table_only" ] || echo "== CPU seconds (user + system), median of $runs runs; valgrind one run"
echo "$header"
echo "$rule"
for w in shell python orc; do
	workload $w
	IFS='
'
	# shellcheck disable=SC2086
	set -- $argv
	unset IFS
	case $w in
	shell) label="shell loop of 200 commands" ;;
	python) label="Python, 225,000 descriptor calls" ;;
	orc) label="open, read, close ×1,000,000" ;;
	esac
	bare=$(median "$runs" bare "$@")
	random=$(median "$runs" random "$@")
	reports=$(median "$runs" reports "$@")
	line="| $label | $bare s | $random s | $reports s | $(echo "$reports $bare" | awk '{ printf "%.2f×", $1 / $2 }') |"
	if [ -n "$has_vg" ]; then
		vg=$(median 1 valgrind "$@")
		line="$line $vg s | $(echo "$vg $bare" | awk '{ printf "%.1f×", $1 / $2 }') |"
	fi
	echo "$line"
done
[ -z "$table_only" ] || exit 0

echo
echo "== a new process: fork + execve + waitpid ×100 (bench_calls spawn), CPU seconds"
echo "   reports off / on, paired alternating runs; ratio on / off"
ratios=
i=0
while [ $i -lt 10 ]; do
	if [ $((i % 2)) -eq 0 ]; then
		off=$(cpu off "$calls" spawn 100)
		on=$(cpu on "$calls" spawn 100)
	else
		on=$(cpu on "$calls" spawn 100)
		off=$(cpu off "$calls" spawn 100)
	fi
	ratios="$ratios $(echo "${on% *} ${off% *}" | awk '{ printf "%.3f", ($2 > 0 ? $1 / $2 : 0) }')"
	echo "   off ${off% *} s, on ${on% *} s"
	i=$((i + 1))
done
echo "$ratios" | tr ' ' '\n' | grep . | sort -n |
	awk '{ r[NR] = $1 } END { printf "   on / off: median %.2f (%.2f-%.2f, %d pairs)\n", r[int((NR + 1) / 2)], r[1], r[NR], NR }'
echo "== minor page faults, fork + execve + waitpid ×10 (11 processes, /usr/bin/time)"
for m in bare off on; do
	f=$(cpu $m "$calls" spawn 10)
	echo "   $m: ${f#* }"
done
