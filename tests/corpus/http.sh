# python3 -m http.server on 127.0.0.1 (an ephemeral port) in the
# background and curl as its client, both under the same run: files,
# a directory listing, a 404, HEAD, several URLs on one HTTP/1.1
# connection, and parallel transfers. Usage: http.sh PYTHON3. Run in an
# empty directory.
set -eu
python=$1
mkdir www
seq 1 20000 > www/numbers.txt
printf 'hello over http\n' > www/hello.txt
# The server runs under a subshell that waits for it, so that the shell's
# report of its death by SIGTERM ("Terminated", printed or not depending
# on when the shell notices) goes to the subshell's silenced stderr.
(
	"$python" -u -m http.server --protocol HTTP/1.1 --bind 127.0.0.1 \
		--directory www 0 > server.log 2>&1 &
	echo $! > server.pid
	wait
) 2>/dev/null &
sub=$!
trap 'kill "$(cat server.pid 2>/dev/null)" 2>/dev/null || true' EXIT
# The server prints its port once it listens.
port() { sed -n 's/^Serving HTTP on .* port \([0-9]*\) .*/\1/p' server.log 2>/dev/null; }
i=0
until [ -s server.pid ] && [ -n "$(port)" ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || { echo "server did not start"; cat server.log; exit 1; }
	sleep 0.05
done
url=http://127.0.0.1:$(port)
curl -sS "$url/hello.txt"
curl -sS -o numbers.txt "$url/numbers.txt"
cmp numbers.txt www/numbers.txt && echo "numbers.txt: same"
curl -sS "$url/" | grep -o 'href="[^"]*"'
curl -sS -o /dev/null -w '%{http_code}\n' "$url/missing"
curl -sS -I "$url/hello.txt" | grep -i -e '^HTTP' -e '^content-length' | tr -d '\r'
# Several URLs on one connection, then in parallel.
curl -sS "$url/hello.txt" "$url/hello.txt" -w '%{num_connects} ' -o /dev/null -o /dev/null; echo
curl -sS --no-progress-meter -Z --parallel-max 4 -o p1 "$url/numbers.txt" -o p2 "$url/numbers.txt" -o p3 "$url/hello.txt" -o p4 "$url/hello.txt"
cat p1 p2 p3 p4 | md5sum
kill "$(cat server.pid)"
wait $sub || true
trap - EXIT
rm server.pid
# The log holds times and client ports; keep what does not vary.
sed -n 's/.*"\(GET\|HEAD\) \(.*\)" \([0-9]*\) .*/\1 \2 \3/p' server.log | sort
rm server.log
