#!/bin/bash
# bench/servers.sh [BUILD_DIR] - real servers without and with ufd: nginx
# with wrk (keep-alive, and a connection per request), redis with
# redis-benchmark, postgres with pgbench (select-only, and a connection per
# transaction: a server process each).  The server runs under ufd, the
# client never.  Each round runs every mode once, one after the other
# (bare first, then the default mode, UFD_MODE=all and, when the library
# implements it, UFD_MODE=random); the ratio is ufd's throughput over the
# same round's bare throughput, and the median and the range of the
# ratios over the rounds are printed.  Loopback only; every server start
# and every client run is bounded in time.  Not part of the test suite: a
# measurement, noisy on a shared machine.
#
#   ROUNDS=5 SECONDS_PER_RUN=5 bench/servers.sh build
#
# Installs nginx, wrk, redis and postgresql with apt-get when missing
# (as root).  Postgres runs as the postgres user.
set -eu
build=$(cd "${1:-build}" && pwd)
rounds=${ROUNDS:-5}
secs=${SECONDS_PER_RUN:-5}
port=${PORT_BASE:-18080}
pgbin=/usr/lib/postgresql/15/bin

need="nginx:/usr/sbin/nginx wrk:/usr/bin/wrk redis-server:/usr/bin/redis-server
redis-tools:/usr/bin/redis-benchmark postgresql:$pgbin/postgres"
missing=
for entry in $need; do
	[ -e "${entry#*:}" ] || missing="$missing ${entry%%:*}"
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
# A copy every server user can read.
cp "$build/libufd.so" "$work/libufd.so"
chmod 644 "$work/libufd.so"
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

# ---- the servers: start_NAME MODE and the client run_NAME, which prints
# a throughput ----

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
		awk '/^Requests\/sec:/ { print $2 }'
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
	timeout $((secs + 60)) redis-benchmark -p $((port + 1)) -P 16 -n 200000 \
		-t set,get --csv 2>/dev/null |
		awk -F'"' '$2 == "SET" || $2 == "GET" { s += $4; n++ } END { if (n) printf "%.0f\n", s / n }'
}

pg() {
	runuser -u postgres -- "$@"
}
mkdir -p "$work/pg"
chown postgres "$work/pg"
pg "$pgbin/initdb" -D "$work/pg/data" -A trust >/dev/null

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
		awk '/^tps = / { print $3; exit }'
}
run_pg_select() { pgbench_tps; }
run_pg_connect() { pgbench_tps -C; }

# The database pgbench uses, made once.
start_postgres bare
pg "$pgbin/createdb" -h 127.0.0.1 -p $((port + 2)) bench
pg "$pgbin/pgbench" -h 127.0.0.1 -p $((port + 2)) -i -s 2 -q bench >/dev/null 2>&1
stop_server

benches="nginx:nginx_keepalive nginx:nginx_close redis:redis postgres:pg_select postgres:pg_connect"
results=$work/results
: >"$results"
echo "servers.sh: $rounds rounds of ${secs} s runs, modes: $modes" >&2
for round in $(seq "$rounds"); do
	for b in $benches; do
		server=${b%%:*}
		bench=${b#*:}
		for mode in $modes; do
			# A server that does not start in a mode (or dies) counts 0.
			if "start_$server" "$mode"; then
				rate=$("run_$bench" || true)
			else
				rate=
				echo "servers.sh: $server does not start in mode $mode" >&2
			fi
			stop_server
			echo "$round $bench $mode ${rate:-0}" >>"$results"
		done
	done
	echo "servers.sh: round $round done" >&2
done

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
