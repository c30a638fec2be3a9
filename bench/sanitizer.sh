#!/bin/sh
# bench/sanitizer.sh [BUILD_DIR] - the descriptor sanitizer (UFD_REPORT) on
# real workloads, against valgrind's descriptor tracking on the same
# workloads: wall-clock time of each, side by side in one run (noisy on a
# shared machine: the ratios are the point), and the instructions of the
# ufd runs (callgrind, user space, stable).
#
# Workloads: `sort` of a 200,000-line file, and `git status` in a small
# repository (a few hundred files).  valgrind --track-fds=bad (3.25 and
# later) reports what UFD_REPORT reports; older valgrinds have only
# --track-fds=yes (descriptors open at exit), used then, and said so.
set -eu
build=${1:-build}
lib=$(cd "$build" && pwd)/libufd.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 77; }
vg_version=$(valgrind --version)
if valgrind --tool=none --track-fds=bad true >/dev/null 2>&1; then
	track=bad
else
	track=yes
fi

seq 200000 | awk '{ print ($1 * 7919) % 200003 }' >"$tmp/lines"
mkdir "$tmp/repo"
(
	cd "$tmp/repo"
	git init -q .
	for i in $(seq 300); do echo "file $i" >"f$i.txt"; done
	git add . && git -c user.name=b -c user.email=b@b commit -qm init
	echo changed >>f7.txt
)

# secs CMD...: wall seconds of one run, output discarded.
secs() {
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.3f", $2 - $1 }'
}

# ir CMD...: user-space instructions of one run under callgrind.
ir() {
	out=$(mktemp)
	valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1 || true
	callgrind_annotate "$out" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
	rm -f "$out"
}

echo "== $vg_version, --track-fds=$track$( [ $track = yes ] && echo ' (no --track-fds=bad before 3.25)')"
printf '%-12s %9s %9s %9s %9s %9s\n' workload "bare s" "ufd s" "reports s" "valgrind s" "vg/reports"
for w in sort git; do
	case $w in
	sort) set -- sort "$tmp/lines" ;;
	git) set -- git -C "$tmp/repo" status ;;
	esac
	bare=$(secs "$@")
	off=$(LD_PRELOAD=$lib secs "$@")
	on=$(LD_PRELOAD=$lib UFD_REPORT="$tmp/reports" secs "$@")
	vg=$(secs valgrind --tool=none --track-fds=$track "$@")
	printf '%-12s %9s %9s %9s %9s %9s\n' "$w" "$bare" "$off" "$on" "$vg" \
		"$(echo "$vg $on" | awk '{ printf "%.1f", $1 / $2 }')"
done

echo "== instructions (callgrind, user space): ufd without and with reports"
printf '%-12s %12s %12s %12s\n' workload "ufd" "reports" added
for w in sort git; do
	case $w in
	sort) set -- sort "$tmp/lines" ;;
	git) set -- git -C "$tmp/repo" status ;;
	esac
	off=$(LD_PRELOAD=$lib ir "$@")
	on=$(LD_PRELOAD=$lib UFD_REPORT="$tmp/reports" ir "$@")
	printf '%-12s %12d %12d %+12d\n' "$w" "$off" "$on" $((on - off))
done
echo "reports written: $(grep -c "ERROR: ufd" "$tmp/reports" 2>/dev/null || true)"
