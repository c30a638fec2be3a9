#!/bin/sh
# bench/shim.sh [BUILD_DIR] - what the shim adds to read(): nanoseconds side
# by side (noisy), and instructions per call from callgrind (stable).
set -eu
build=${1:-build}
prog=$build/bench/bench_shim
lib=$(cd "$build" && pwd)/libufd.so
calls=100000

echo "== time, best of 3 loops of 1,000,000 read(fd, buf, 0), in one run"
echo "-- without ufd"
"$prog"
echo "-- with LD_PRELOAD=libufd.so"
LD_PRELOAD=$lib "$prog"

# ir_per_call PRELOAD WHICH: user-space instructions per call inside
# bench_loop (the loop, glibc's read wrapper, the shim when preloaded; the
# kernel is not counted).
ir_per_call() {
	out=$(mktemp)
	LD_PRELOAD=$1 valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect=bench_loop "$prog" "$calls" "$2" >/dev/null 2>&1
	callgrind_annotate "$out" 2>/dev/null |
		awk -v n="$calls" '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.2f", $1 / (3 * n) }'
	rm -f "$out"
}
plain=$(ir_per_call "" real)
real=$(ir_per_call "$lib" real)
virt=$(ir_per_call "$lib" virtual)
echo "== instructions per read() call (callgrind, user space)"
awk -v p="$plain" -v r="$real" -v v="$virt" 'BEGIN {
	printf "without ufd, real descriptor   %6.2f\n", p
	printf "with ufd, real descriptor      %6.2f  (+%.2f)\n", r, r - p
	printf "with ufd, virtual descriptor   %6.2f  (+%.2f)\n", v, v - p
}'
