#!/bin/sh
# Description: the timed benchmark scripts (bench/loop_pairs.py,
# bench/sanitizer.sh, bench/nginx_cpu.py, bench/servers.sh) run in a tiny
# configuration and print what their readers expect: README.md's
# sanitizer table with its columns (tools/update-readme-sanitizer),
# servers.sh's summary of issue 27's figures, every ratio with its
# quartiles; and each refuses bad input with a message (no traceback).
# No time is asserted: the figures of so small a run mean nothing.  The
# nginx parts run where nginx and wrk are installed (tools/dev installs
# them); without them they are left out, saying so.
# Usage: bench_scripts.sh SOURCE_ROOT BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
src=$1
build=$2
unset LD_PRELOAD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
empty=$build/bench/libbench_empty.so
ufd=$build/libufd.so
num='[0-9]+\.[0-9]+'
# A ratio with its spread, as bench/rounds.py's format_stats prints it.
stats="median $num \(quartiles $num-$num, range $num-$num\); sums $num \(blocks $num-$num\)"

# expect_fail WHAT CMD...: CMD exits non-zero with a message, no traceback.
expect_fail() {
	what=$1
	shift
	if "$@" >"$out/bad" 2>&1; then
		fail "$what: accepted"
	fi
	! grep -q Traceback "$out/bad" || fail "$what: a traceback: $(cat "$out/bad")"
	[ -s "$out/bad" ] || fail "$what: refused without a message"
	echo "ok: refused: $what: $(head -n 1 "$out/bad")"
}

# expect FILE REGEX: a line of FILE matches REGEX (grep -E).
expect() {
	grep -Eq -- "$2" "$1" || fail "no line matching '$2' in: $(cat "$1")"
}

# ---- loop_pairs.py
LOOP_ROUNDS=2 LOOP_ITER=2 python3 "$src/bench/loop_pairs.py" "$empty" "$ufd" default random \
	>"$out/loop" 2>&1 || fail "loop_pairs.py: $(cat "$out/loop")"
expect "$out/loop" '^== shell loop of 2 /bin/true, CPU time .*; 2 rounds'
expect "$out/loop" "^the empty library / bare +$stats\$"
expect "$out/loop" "^ufd default / the empty library +$stats   \(target <= 1.05\)\$"
expect "$out/loop" "^ufd random / the empty library +$stats\$"
expect "$out/loop" '^per /bin/true: bare [0-9]+ us [0-9.]+ faults, empty .*, random [0-9]+ us [0-9.]+ faults$'
echo "ok: loop_pairs.py"
expect_fail "loop_pairs.py without arguments" python3 "$src/bench/loop_pairs.py"
expect_fail "loop_pairs.py LOOP_ROUNDS=0" env LOOP_ROUNDS=0 python3 "$src/bench/loop_pairs.py" "$empty" "$ufd"
expect_fail "loop_pairs.py LOOP_ITER=x" env LOOP_ITER=x python3 "$src/bench/loop_pairs.py" "$empty" "$ufd"
expect_fail "loop_pairs.py, a library missing" python3 "$src/bench/loop_pairs.py" "$empty" "$out/none.so"
expect_fail "loop_pairs.py, an unknown mode" python3 "$src/bench/loop_pairs.py" "$empty" "$ufd" fast

# ---- sanitizer.sh: the table tools/update-readme-sanitizer writes
row="^\| [^|]+ \| $num s \| $num s \| $num s \| $num× \($num–$num\) \|"
SANITIZER_SMALL=1 ROUNDS=2 SPAWN_ROUNDS=2 VALGRIND=0 sh "$src/bench/sanitizer.sh" "$build" \
	>"$out/san" 2>&1 || fail "sanitizer.sh: $(cat "$out/san")"
expect "$out/san" '^== CPU seconds .*rounds: shell 2, python 2, orc 2'
# shellcheck disable=SC2016 # the backquotes are the table's
expect "$out/san" '^\| workload \| bare \| `UFD_MODE=random` \| random \+ `UFD_REPORT` \| reports / bare \(quartiles\) \|$'
for w in 'shell loop of 5 commands' 'Python, 300 descriptor calls' 'open, read, close ×1,000'; do
	expect "$out/san" "^\\| $w \\| $num s \\| $num s \\| $num s \\| $num× \\($num–$num\\) \\|\$"
done
expect "$out/san" "^  random \+ reports / bare   $stats   \(target <= 2\)\$"
expect "$out/san" "^   on / off: $stats   \(target <= 1.2\)\$"
expect "$out/san" '^   on: [0-9]+$'
echo "ok: sanitizer.sh"
# --table: the table alone, with valgrind's two columns where installed.
SANITIZER_SMALL=1 ROUNDS=1 sh "$src/bench/sanitizer.sh" --table "$build" >"$out/table" 2>&1 ||
	fail "sanitizer.sh --table: $(cat "$out/table")"
[ "$(wc -l <"$out/table")" -eq 5 ] || fail "sanitizer.sh --table: not 5 lines: $(cat "$out/table")"
if command -v valgrind >/dev/null; then
	[ "$(grep -Ec "$row $num s \| $num× \|\$" "$out/table")" -eq 3 ] ||
		fail "sanitizer.sh --table: rows with valgrind's columns: $(cat "$out/table")"
	expect "$out/table" '\| valgrind / bare \|$'
else
	[ "$(grep -Ec "$row\$" "$out/table")" -eq 3 ] || fail "sanitizer.sh --table: rows: $(cat "$out/table")"
fi
echo "ok: sanitizer.sh --table"
expect_fail "sanitizer.sh ROUNDS=0" env ROUNDS=0 sh "$src/bench/sanitizer.sh" "$build"
expect_fail "sanitizer.sh SPAWN_ROUNDS=x" env SPAWN_ROUNDS=x sh "$src/bench/sanitizer.sh" "$build"
expect_fail "sanitizer.sh, no build there" sh "$src/bench/sanitizer.sh" "$out/nothing"
expect_fail "sanitizer.sh, an unknown option" sh "$src/bench/sanitizer.sh" --tabel "$build"

# ---- nginx_cpu.py and servers.sh
expect_fail "nginx_cpu.py, an unknown mode" python3 "$src/bench/nginx_cpu.py" "$ufd" fast
expect_fail "nginx_cpu.py, a library missing" python3 "$src/bench/nginx_cpu.py" "$out/none.so"
expect_fail "nginx_cpu.py NGINX_ROUNDS=0" env NGINX_ROUNDS=0 python3 "$src/bench/nginx_cpu.py" "$ufd"
expect_fail "nginx_cpu.py PIN=yes" env PIN=yes python3 "$src/bench/nginx_cpu.py" "$ufd"
expect_fail "servers.sh ROUNDS=0" env ROUNDS=0 bash "$src/bench/servers.sh" "$build"
expect_fail "servers.sh BENCHES=nginx:fast" env BENCHES=nginx:fast bash "$src/bench/servers.sh" "$build"
expect_fail "servers.sh, no build there" bash "$src/bench/servers.sh" "$out/nothing"
if ! command -v nginx >/dev/null || ! command -v wrk >/dev/null; then
	echo "nginx_cpu.py and servers.sh not run: nginx or wrk is not installed (tools/dev installs them)"
	exit 0
fi
# Ports of our own, away from servers.sh's default 18080 and up.
ports=$((28000 + $$ % 100 * 10))
strace_n=0
command -v strace >/dev/null && strace_n=20
cg_n=0
command -v valgrind >/dev/null && cg_n=20
PORT_BASE=$ports NGINX_ROUNDS=2 NGINX_REQUESTS=100 NGINX_STRACE_REQUESTS=$strace_n \
	NGINX_CALLGRIND_REQUESTS=$cg_n \
	python3 "$src/bench/nginx_cpu.py" "$ufd" default random >"$out/nginx" 2>&1 ||
	fail "nginx_cpu.py: $(cat "$out/nginx")"
expect "$out/nginx" '^== nginx keep-alive \(wrk: 1 thread, 16 connections, 100 requests a run\)'
expect "$out/nginx" "^CPU per request, median \(quartiles\): bare $num us \($num-$num\), bare again .*, random $num us \($num-$num\)\$"
expect "$out/nginx" "^bare again / bare \(A/A\) +$stats\$"
expect "$out/nginx" "^ufd default / bare +$stats\$"
expect "$out/nginx" "^ufd random / bare +$stats   \(target <= 1.15\)\$"
if [ $strace_n != 0 ]; then
	expect "$out/nginx" '^system calls per request \(strace -c -f on the worker, 1 connection, 20 requests\):$'
	expect "$out/nginx" "^  random +$num: [a-z0-9_]+ $num"
fi
[ $cg_n = 0 ] || expect "$out/nginx" '^user-space instructions per request \(callgrind, the worker, 1 connection, 60 requests minus 20\): bare [0-9]+, default [0-9]+ \([-+][0-9]+\), random [0-9]+ \([-+][0-9]+\)$'

echo "ok: nginx_cpu.py"
BENCHES=nginx:nginx_keepalive ROUNDS=1 SECONDS_PER_RUN=1 PORT_BASE=$ports NGINX_ROUNDS=2 \
	NGINX_REQUESTS=100 NGINX_STRACE_REQUESTS=$strace_n NGINX_CALLGRIND_REQUESTS=0 LOOP_ROUNDS=2 LOOP_ITER=2 \
	bash "$src/bench/servers.sh" "$build" >"$out/servers" 2>&1 || fail "servers.sh: $(cat "$out/servers")"
expect "$out/servers" '^== summary \(issue 27\)'
sed -n '/^== summary/,$p' "$out/servers" >"$out/summary"
for m in default all random; do
	expect "$out/summary" "^nginx keep-alive throughput, $m / bare +$num \(range $num-$num over 1 rounds\)"
	expect "$out/summary" "^nginx keep-alive CPU per request, $m / bare +$num \($num-$num; blocks $num-$num\)"
	expect "$out/summary" "^shell loop, ufd $m / the empty library +$num \($num-$num; blocks $num-$num\)"
done
expect "$out/summary" "^nginx keep-alive CPU per request, bare again / bare +$num .*\(A/A: the method\)\$"
expect "$out/summary" "^nginx keep-alive CPU per request, random / bare .*\(target <= 1.15\)\$"
expect "$out/summary" "^shell loop, ufd default / the empty library .*\(target <= 1.05\)\$"
[ $strace_n = 0 ] || expect "$out/summary" "^nginx system calls per request \(strace\) +bare $num, default $num, all $num, random $num\$"
echo "ok: servers.sh"
