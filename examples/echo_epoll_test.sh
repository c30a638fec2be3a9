#!/bin/sh
# Description: the echo_epoll example.  The same unmodified server runs
# without ufd and under UFD_MODE=all; several clients talk to it at once
# and every echo must come back right.  Under UFD_MODE=all every
# descriptor the server reports (listener, epoll, each connection) must be
# virtual, and without ufd none.
# Usage: UFD_TEST_PRELOAD=<LD_PRELOAD value> echo_epoll_test.sh ECHO_EPOLL
set -u
prog=$1
clients=8 messages=20
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d) || exit 1
server_pid=
trap '[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# serve NAME [VAR=VALUE...]: start the server with those variables set,
# run the clients against it, and check both.  The server's descriptors
# are left in $fds.
serve() {
	name=$1
	shift
	out=$tmp/$name.out
	env "$@" "$prog" server $clients >"$out" 2>&1 &
	server_pid=$!
	port=
	for _ in $(seq 100); do
		port=$(sed -n 's/^listening on 127.0.0.1 port \([0-9]*\):.*/\1/p' "$out")
		[ -n "$port" ] && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$port" ]; then
		wait "$server_pid"
		status=$? server_pid=
		case $(cat "$out") in
		*"listen on 127.0.0.1"*) echo "SKIP: no TCP on 127.0.0.1: $(cat "$out")"; exit 77 ;;
		esac
		fail "$name: the server did not start (exit $status): $(cat "$out")"
	fi
	result=$("$prog" client "$port" $clients $messages 2>&1) ||
		fail "$name: client exit $?: $result"
	wait "$server_pid" || fail "$name: server exit $?: $(cat "$out")"
	server_pid=
	printf '== %s\n%s\n%s\n' "$name" "$(cat "$out")" "$result"
	[ "$result" = "client: $clients connections x $messages messages, 0 echoes wrong" ] ||
		fail "$name: $result"
	[ "$(grep -c '^accepted ' "$out")" -eq $clients ] || fail "$name: not $clients accepted"
	[ "$(grep -c '^closed ' "$out")" -eq $clients ] || fail "$name: not $clients closed"
	fds=$(sed -n 's/^listening on .*: listener \([0-9]*\), epoll \([0-9]*\)$/\1 \2/p; s/^accepted \([0-9]*\)$/\1/p' "$out")
	[ "$(echo $fds | wc -w)" -eq $((clients + 2)) ] || fail "$name: descriptors not all reported: $fds"
}

serve "without ufd"
for fd in $fds; do
	[ "$fd" -lt 268435456 ] || fail "without ufd: descriptor $fd"
done

serve "under UFD_MODE=all" "LD_PRELOAD=$UFD_TEST_PRELOAD" UFD_MODE=all
for fd in $fds; do
	[ "$fd" -ge 268435456 ] || fail "under UFD_MODE=all: descriptor $fd is not virtual"
done

"$prog" client 1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "usage: not exit 2"
echo "PASS: every echo right, with ordinary and with virtual descriptors"
