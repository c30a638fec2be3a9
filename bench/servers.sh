#!/bin/bash
# bench/servers.sh [BUILD_DIR] - real servers without and with ufd: nginx
# with wrk (keep-alive, and a connection per request), redis with
# redis-benchmark, postgres with pgbench (select-only, and a connection per
# transaction: a server process each).  The server runs under ufd, the
# client never.  Each round runs every mode once, one after the other
# (bare first, then the default mode, UFD_MODE=all and, when the library
# implements it, UFD_MODE=random); the ratio is ufd's throughput over the
# same round's bare throughput, and the median and the range of the
# ratios over the rounds are printed.  Then the server's CPU time per
# request in each mode, coarse: utime + stime of the server and its
# children, from /proc, over the client's run, divided by the requests it
# made (a fixed number for redis, REQUESTS; for wrk and pgbench, which run
# for SECONDS_PER_RUN, the count they print).
# Then issue 27's two figures, each by a method made for a shared, noisy
# machine (paired rounds, CPU time; bench/rounds.py):
# - nginx keep-alive CPU per request in each mode over bare, and bare
#   over bare (the method's A/A check): bench/nginx_cpu.py (its comment
#   says how; NGINX_ROUNDS, 0: left out), with the system calls per
#   request in each mode;
# - the shell loop of /bin/true under ufd against the same loop under an
#   empty preloaded library (bench/empty.c: what any LD_PRELOAD costs;
#   issue 27's target is at most 1.05): bench/loop_pairs.py (LOOP_ROUNDS,
#   0: left out).
# Last, a summary of issue 27's figures and targets.
# BENCHES picks the benchmarks (e.g. BENCHES=nginx:nginx_keepalive;
# BENCHES= runs none but the two above).
# Loopback only; every server start and every client run is bounded in
# time.  Not part of the test suite: a measurement, noisy on a shared
# machine (the bench-scripts test runs it in a tiny configuration).
#
#   ROUNDS=5 SECONDS_PER_RUN=5 REQUESTS=400000 bench/servers.sh build
#
# Installs what the benchmarks chosen need (nginx, wrk, redis,
# postgresql) with apt-get when missing (as root).  Postgres runs as the
# postgres user.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -le 1 ] || { echo "usage: bench/servers.sh [BUILD_DIR]" >&2; exit 2; }
build=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "servers.sh: ${1:-build}: no such build directory" >&2; exit 2; }
for f in "$build/libufd.so" "$build/bench/libbench_empty.so"; do
	[ -e "$f" ] || { echo "servers.sh: $f missing: build first" >&2; exit 2; }
done
# number NAME DEFAULT MIN: the integer in $NAME, or exit.
number() {
	v=$(printenv "$1") || v=$2
	case $v in
	'' | *[!0-9]*) echo "servers.sh: $1=$v: an integer of at least $3 is needed" >&2; exit 2 ;;
	esac
	[ "$v" -ge "$3" ] || { echo "servers.sh: $1=$v: an integer of at least $3 is needed" >&2; exit 2; }
	echo "$v"
}
rounds=$(number ROUNDS 5 1)
secs=$(number SECONDS_PER_RUN 5 1)
requests=$(number REQUESTS 400000 2)
port=$(number PORT_BASE 18080 1024)
nginx_rounds=$(number NGINX_ROUNDS 100 0)
loop_rounds=$(number LOOP_ROUNDS 200 0)
pgbin=/usr/lib/postgresql/15/bin
benches=${BENCHES-nginx:nginx_keepalive nginx:nginx_close redis:redis postgres:pg_select postgres:pg_connect}
for b in $benches; do
	case $b in
	nginx:nginx_keepalive | nginx:nginx_close | redis:redis | postgres:pg_select | postgres:pg_connect) ;;
	*) echo "servers.sh: BENCHES: $b is none of nginx:nginx_keepalive nginx:nginx_close redis:redis postgres:pg_select postgres:pg_connect" >&2; exit 2 ;;
	esac
done

# What the benchmarks chosen need: the package and a file it installs.
need=
case " $benches" in *" nginx:"*) need="$need nginx:/usr/sbin/nginx wrk:/usr/bin/wrk" ;; esac
[ "$nginx_rounds" = 0 ] || need="$need nginx:/usr/sbin/nginx wrk:/usr/bin/wrk"
case " $benches" in *" redis:"*) need="$need redis-server:/usr/bin/redis-server redis-tools:/usr/bin/redis-benchmark" ;; esac
case " $benches" in *" postgres:"*) need="$need postgresql:$pgbin/postgres" ;; esac
missing=
for entry in $need; do
	[ -e "${entry#*:}" ] || case " $missing " in *" ${entry%%:*} "*) ;; *) missing="$missing ${entry%%:*}" ;; esac
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || { echo "servers.sh: install$missing" >&2; exit 1; }
	echo "servers.sh: installing$missing" >&2
	# Do not let the packages start their own services.
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		policy=1
	fi
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	[ -z "$policy" ] || rm -f /usr/sbin/policy-rc.d
fi

work=$(mktemp -d /tmp/ufd-servers.XXXXXX)
chmod 755 "$work"
# A copy every server user can read; the empty library's, at a path of
# the same length (the loader's work depends on it).
cp "$build/libufd.so" "$work/libufd.so"
cp "$build/bench/libbench_empty.so" "$work/libemp.so"
chmod 644 "$work/libufd.so" "$work/libemp.so"
server_pid=
cleanup() {
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

modes="bare default all"
# Random mode draws numbers up to the descriptor limit: eight opens would
# not all stay below 64.
probe='import os; print(int(max(os.open("/dev/null", 0) for _ in range(8)) > 64))'
if [ "$(LD_PRELOAD=$work/libufd.so UFD_MODE=random python3 -c "$probe" 2>/dev/null)" = 1 ]; then
	modes="$modes random"
fi

# mode_env MODE: the environment a server runs with, as env(1) arguments.
mode_env() {
	case $1 in
	bare) ;;
	default) echo "LD_PRELOAD=$work/libufd.so" ;;
	all) echo "LD_PRELOAD=$work/libufd.so UFD_MODE=all" ;;
	random) echo "LD_PRELOAD=$work/libufd.so UFD_MODE=random" ;;
	esac
}

# wait_port PORT: until something listens there (at most 10 s).
wait_port() {
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		kill -0 "$server_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_server() {
	kill -INT "$server_pid" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=
}

# tree_cpu PID: the CPU time, in clock ticks, of PID and every process
# under it: utime and stime, and those of its reaped children (a postgres
# backend that has exited counts in the postmaster's).
tree_cpu() {
	# A process may exit between the glob and its read: cat goes on.
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
		{
			# comm may hold spaces: the fields after its ")".
			pid = $1; line = $0; sub(/^.*\) /, "", line); split(line, f, " ")
			parent[pid] = f[2]; cpu[pid] = f[12] + f[13] + f[14] + f[15]
		}
		END {
			for (p in cpu) {
				for (q = p; q != "" && q != root && q + 0 > 1; q = parent[q])
					;
				if (q == root)
					total += cpu[p]
			}
			print total + 0
		}'
}

# ---- the servers: start_NAME MODE and the client run_NAME, which prints
# a throughput and the number of requests it made ----

for p in $port $((port + 1)) $((port + 2)); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		echo "servers.sh: port $p is taken; set PORT_BASE" >&2
		exit 1
	fi
done

mkdir -p "$work/nginx/html" "$work/nginx/logs"
head -c 4096 /dev/zero | tr '\0' x >"$work/nginx/html/index.html"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
error_log $work/nginx/logs/error.log;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
	access_log off;
	server {
		listen 127.0.0.1:$port;
		root $work/nginx/html;
	}
}
EOF
chmod -R a+rX "$work/nginx"

start_nginx() {
	# shellcheck disable=SC2046
	env $(mode_env "$1") nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
	server_pid=$!
	wait_port "$port"
}

wrk_rps() {
	timeout $((secs + 30)) wrk -t1 -c16 -d"${secs}s" "$@" "http://127.0.0.1:$port/" |
		awk '/ requests in / { n = $1 } /^Requests\/sec:/ { r = $2 } END { print r, n }'
}
run_nginx_keepalive() { wrk_rps; }
run_nginx_close() { wrk_rps -H "Connection: close"; }

start_redis() {
	# shellcheck disable=SC2046
	env $(mode_env "$1") redis-server --port $((port + 1)) --bind 127.0.0.1 \
		--save '' --appendonly no --dir "$work" >/dev/null &
	server_pid=$!
	wait_port $((port + 1))
}

# SET and GET, 16 commands a round trip; the mean of their rates.
run_redis() {
	timeout $((secs + 60)) redis-benchmark -p $((port + 1)) -P 16 -n $((requests / 2)) \
		-t set,get --csv 2>/dev/null |
		awk -F'"' -v half=$((requests / 2)) '$2 == "SET" || $2 == "GET" { s += $4; n++ }
			END { if (n) printf "%.0f %d\n", s / n, half * n }'
}

pg() {
	runuser -u postgres -- "$@"
}

start_postgres() {
	# shellcheck disable=SC2046
	# setpriv execs (runuser would fork, and its pid is not the server's).
	setpriv --reuid=postgres --regid=postgres --init-groups \
		env $(mode_env "$1") "$pgbin/postgres" -D "$work/pg/data" \
		-k "$work/pg" -c listen_addresses=127.0.0.1 -p $((port + 2)) \
		-c fsync=off -c max_connections=40 >"$work/pg/log" 2>&1 &
	server_pid=$!
	wait_port $((port + 2))
}

pgbench_tps() {
	timeout $((secs + 60)) runuser -u postgres -- "$pgbin/pgbench" -h 127.0.0.1 \
		-p $((port + 2)) -S -T "$secs" -c 4 -j 2 "$@" bench 2>/dev/null |
		awk '/^number of transactions actually processed: / { n = $6 }
			/^tps = / && !r { r = $3 } END { print r, n }'
}
run_pg_select() { pgbench_tps; }
run_pg_connect() { pgbench_tps -C; }

case " $benches" in
*" postgres:"*)
	# The database pgbench uses, made once.
	mkdir -p "$work/pg"
	chown postgres "$work/pg"
	pg "$pgbin/initdb" -D "$work/pg/data" -A trust >/dev/null
	start_postgres bare
	pg "$pgbin/createdb" -h 127.0.0.1 -p $((port + 2)) bench
	pg "$pgbin/pgbench" -h 127.0.0.1 -p $((port + 2)) -i -s 2 -q bench >/dev/null 2>&1
	stop_server
	;;
esac
results=$work/results
: >"$results"
summary=$work/summary
: >"$summary"
if [ -n "$benches" ]; then
echo "servers.sh: $rounds rounds of ${secs} s runs, modes: $modes" >&2
for round in $(seq "$rounds"); do
	for b in $benches; do
		server=${b%%:*}
		bench=${b#*:}
		for mode in $modes; do
			# A server that does not start in a mode (or dies) counts 0.
			out= cpu0=0 cpu1=0
			if "start_$server" "$mode"; then
				cpu0=$(tree_cpu "$server_pid")
				out=$("run_$bench" || true)
				cpu1=$(tree_cpu "$server_pid")
			else
				echo "servers.sh: $server does not start in mode $mode" >&2
			fi
			stop_server
			rate=${out%% *} made=${out#* }
			# Microseconds of the server's CPU per request.
			per=$(awk -v c=$((cpu1 - cpu0)) -v n="${made:-0}" -v hz="$(getconf CLK_TCK)" \
				'BEGIN { if (n > 0) printf "%.2f", c / hz * 1e6 / n; else print 0 }')
			echo "$round $bench $mode ${rate:-0} $per" >>"$results"
		done
	done
	echo "servers.sh: round $round done" >&2
done
# RESULTS=FILE keeps the raw figures: round, benchmark, mode, throughput,
# CPU microseconds per request.
[ -z "${RESULTS:-}" ] || cp "$results" "$RESULTS"

# Per benchmark and mode: each round's ratio to that round's bare run; the
# median and range of the ratios, and the median bare throughput.
echo "== throughput under ufd / without (median and range of $rounds paired rounds; ${secs} s runs)"
printf '%-34s %12s' benchmark "bare median"
for mode in $modes; do
	[ "$mode" = bare ] || printf ' %22s' "$mode"
done
echo
for b in $benches; do
	bench=${b#*:}
	printf '%-34s' "$bench"
	awk -v b="$bench" '$2 == b && $3 == "bare" { print $4 }' "$results" | sort -g |
		awk '{ v[NR] = $1 } END { printf " %12.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	for mode in $modes; do
		[ "$mode" != bare ] || continue
		awk -v b="$bench" -v m="$mode" '
			$2 == b && $3 == "bare" { base[$1] = $4 }
			$2 == b && $3 == m { rate[$1] = $4 }
			END { for (r in rate) if (base[r] > 0) print rate[r] / base[r] }' "$results" |
			sort -g |
			awk '{ v[NR] = $1 } END {
				if (!NR || v[NR] == 0) { printf " %22s", "fails"; exit }
				med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf " %6.3f (%.2f-%.2f)    ", med, v[1], v[NR] }'
	done
	echo
done

# CPU per request: per benchmark and mode, the median and range over the
# rounds, in microseconds, and the median over bare's median.
echo
echo "== server CPU time per request, microseconds: utime + stime of the server over the client's run / its requests (redis: $requests; wrk, pgbench: those of ${secs} s); median (range) of $rounds rounds, and xN: over bare's median"
printf '%-20s' benchmark
for mode in $modes; do
	w=50
	[ "$mode" != bare ] || w=26
	printf " %${w}s" "$mode"
done
echo
for b in $benches; do
	bench=${b#*:}
	printf '%-20s' "$bench"
	bare_med=
	for mode in $modes; do
		cell=$(awk -v b="$bench" -v m="$mode" '$2 == b && $3 == m && $5 > 0 { print $5 }' "$results" |
			sort -g | awk -v base="${bare_med:-0}" '{ v[NR] = $1 } END {
				if (!NR) { printf "-"; exit }
				med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%.1f (%.1f-%.1f)", med, v[1], v[NR]
				if (base > 0) printf " x%.2f", med / base }')
		[ "$mode" != bare ] || bare_med=${cell%% *}
		# Each round's CPU per request over that round's bare run:
		# the median and range, steadier than the medians' ratio.
		[ "$mode" = bare ] || cell="$cell $(awk -v b="$bench" -v m="$mode" '
			$2 == b && $3 == "bare" && $5 > 0 { base[$1] = $5 }
			$2 == b && $3 == m && $5 > 0 { per[$1] = $5 }
			END { for (r in per) if (base[r] > 0) print per[r] / base[r] }' "$results" |
			sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit
				med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "paired x%.2f (%.2f-%.2f)", med, v[1], v[NR] }')"
		w=50
		[ "$mode" != bare ] || w=26
		printf " %${w}s" "$cell"
	done
	echo
done

fi

ufd_modes=
for mode in $modes; do
	[ "$mode" = bare ] || ufd_modes="$ufd_modes $mode"
done

# nginx keep-alive CPU per request, paired rounds, with the A/A check and
# the system calls per request (bench/nginx_cpu.py; its servers on the
# ports after the three above).  NGINX_ROUNDS=0 leaves it out.
if [ "$nginx_rounds" != 0 ]; then
	echo
	# shellcheck disable=SC2086
	SUMMARY=$summary NGINX_ROUNDS=$nginx_rounds PORT_BASE=$((port + 3)) \
		python3 "$here/nginx_cpu.py" "$work/libufd.so" $ufd_modes
fi

# The shell loop under the empty library, without any, and under ufd in
# each mode (bench/loop_pairs.py: rounds of one run each, CPU time, the
# median of each round's ratio to the empty library's; issue 27's target
# is at most 1.05).  LOOP_ROUNDS=0 leaves it out.
if [ "$loop_rounds" != 0 ]; then
	echo
	# shellcheck disable=SC2086
	SUMMARY=$summary LOOP_ROUNDS=$loop_rounds \
		python3 "$here/loop_pairs.py" "$work/libemp.so" "$work/libufd.so" $ufd_modes
fi

# Issue 27's figures in one place: each is the median of the rounds'
# ratios, with its quartiles and the range over blocks of rounds.
# Nothing of issue 27's measured (other benchmarks alone): no summary.
[ -s "$summary" ] || grep -q " nginx_keepalive " "$results" || exit 0
echo
echo "== summary (issue 27): median of paired rounds' ratios (quartiles; range over blocks)"
# The throughput of nginx keep-alive over bare's (the rounds above).
if [ -s "$results" ]; then
	for mode in $ufd_modes; do
		awk -v m="$mode" '
			$2 == "nginx_keepalive" && $3 == "bare" { base[$1] = $4 }
			$2 == "nginx_keepalive" && $3 == m { rate[$1] = $4 }
			END { for (r in rate) if (base[r] > 0) print rate[r] / base[r] }' "$results" |
			sort -g | awk -v m="$mode" -v t="$([ "$mode" = all ] && echo "   (target >= 0.92)")" '
				{ v[NR] = $1 } END { if (!NR) exit
				printf "%-52s %.3f (range %.2f-%.2f over %d rounds)%s\n",
					"nginx keep-alive throughput, " m " / bare", v[int((NR + 1) / 2)], v[1], v[NR], NR, t }'
	done
fi
awk '
	function line(label, target) {
		printf "%-52s %.3f (%.3f-%.3f; blocks %.3f-%.3f)%s\n", label, $2, $3, $4, $5, $6, target
	}
	$1 == "nginx_aa" { line("nginx keep-alive CPU per request, bare again / bare", "   (A/A: the method)") }
	$1 ~ /^nginx_(default|all|random)$/ {
		m = substr($1, 7)
		line("nginx keep-alive CPU per request, " m " / bare", m == "random" ? "   (target <= 1.15)" : "")
	}
	$1 ~ /^nginx_syscalls_/ { calls = calls sep substr($1, 16) " " $2; sep = ", " }
	$1 ~ /^nginx_instructions_/ {
		m = substr($1, 20)
		if (m == "bare") base = $2
		ins = ins isep m " " $2 (m == "bare" ? "" : sprintf(" (%+d)", $2 - base)); isep = ", "
	}
	$1 == "loop_bare" { line("shell loop, the empty library / bare", "") }
	$1 ~ /^loop_(default|all|random)$/ {
		m = substr($1, 6)
		line("shell loop, ufd " m " / the empty library", m == "default" ? "   (target <= 1.05)" : "")
	}
	END {
		if (calls != "") printf "%-52s %s\n", "nginx system calls per request (strace)", calls
		if (ins != "") printf "%-52s %s\n", "nginx user-space instructions per request", ins
	}
' "$summary"
