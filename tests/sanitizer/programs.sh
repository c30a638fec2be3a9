#!/bin/sh
# Description: the sanitizer on real programs doing healthy work: bash
# with 200 process substitutions, its redirections and a script's pipelines, find and xargs,
# gcc and make -j2
# with a jobserver, git init/commit/clone/gc, python's subprocess,
# PostgreSQL with pgbench, sshd with a login, scp and sftp.  Each
# runs as a user's CI would (ufd-run -m random, reports on, leaks at exit
# reported); a correct program must give no report at all (but those
# programs.supp lists, each true but meant, with its reason).  A program
# that is not installed is skipped, and said so.
# Usage: programs.sh UFD_RUN   (UFD_TEST_PRELOAD: as in tests/lib.sh)
set -u
run=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/../lib.sh"
skip_under_emulator "$host_programs (here bash, make, git, python3, PostgreSQL, sshd)"
supp=$(cd "$(dirname "$0")" && pwd)/programs.supp # reports true but meant
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0 ran=0

# check NAME COMMAND...: COMMAND under the sanitizer, in $tmp/NAME; it
# must succeed and report nothing.
check() {
	name=$1
	shift
	mkdir -p "$tmp/$name"
	(cd "$tmp/$name" && ${as_user:+runuser -u "$as_user" --} env \
		LD_PRELOAD="$preload_extra" UFD_REPORT_LEAKS=1 UFD_SUPPRESS="$supp" \
		"$run" -m random ${exclude:+-x "$exclude"} -r "$tmp/$name.rep" -- "$@") >"$tmp/$name.out" 2>&1
	status=$?
	if [ "$status" -ne 0 ]; then
		echo "FAIL $name: status $status (output below)"
		tail -20 "$tmp/$name.out"
		failed=$((failed + 1))
	elif [ -s "$tmp/$name.rep" ]; then
		n=$(grep -c '==ERROR: ufd:' "$tmp/$name.rep")
		echo "FAIL $name: $n report(s); by kind and first frame of the program's:"
		grep -o 'ERROR: ufd: [a-z-]*' "$tmp/$name.rep" | sort | uniq -c
		grep -m 5 '^SUMMARY' "$tmp/$name.rep"
		echo "the first report:"
		sed -n '1,/^SUMMARY/p' "$tmp/$name.rep"
		failed=$((failed + 1))
	else
		echo "ok   $name"
	fi
	ran=$((ran + 1))
}
have() { command -v "$1" >/dev/null 2>&1 || { echo "SKIP $2: $1 is not installed"; return 1; }; }

subst=$(i=0; while [ $i -lt 200 ]; do printf ' <(echo %d)' $i; i=$((i + 1)); done)
have bash "bash" && {
	check bash-subst bash -c "cat $subst >/dev/null"
	check bash-redirect bash -c 'exec 3</dev/null 4>&3; exec {x}>/dev/null; echo hi >&$x; exec 3<&- 4>&- {x}>&-; ls /proc/self/fd >/dev/null; for i in 1 2 3; do (true) & done; wait'
}
have make "make -j2" && have gcc "make -j2" && {
	mkdir -p "$tmp/make"
	for i in 1 2 3 4; do
		printf 'int f%d(void) { return %d; }\n' $i $i >"$tmp/make/f$i.c"
	done
	printf 'int main(void) { return 0; }\n' >"$tmp/make/main.c"
	printf 'all: prog\nprog: main.o f1.o f2.o f3.o f4.o\n\t$(CC) -o $@ $^\nsub:\n\t+$(MAKE) -C . all\n' >"$tmp/make/Makefile"
	check make make -j2 sub
}
have git "git" && check git sh -c '
	git init -q a && cd a &&
	git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one &&
	echo x >x && git add x &&
	git -c user.name=t -c user.email=t@t commit -q -m two &&
	cd .. && git clone -q a b && cd b && git gc -q && git log --oneline >/dev/null'
# find and xargs poll every number at start-up to learn which are open
# (findutils' fdleak.c), their /proc/self/fd listing's closed among them.
have find "find" && have xargs "xargs" && check findutils sh -c '
	mkdir d && touch d/a d/b && find d -type f -exec cat {} + &&
	find d -name a -execdir true {} \; && printf "%s\n" 1 2 3 4 | xargs -P2 -n1 true'
have /usr/bin/python3 "python" && check python /usr/bin/python3 -c '
import subprocess, os, tempfile
for i in range(20):
    subprocess.run(["true"], check=True)
r, w = os.pipe()
p = subprocess.Popen(["cat", "/dev/fd/%d" % r], pass_fds=[r], stdout=subprocess.DEVNULL)
os.close(r); os.write(w, b"x"); os.close(w); p.wait()
with tempfile.TemporaryFile() as f:
    f.write(b"y")'

# dash reading a script: its descriptor is moved high with close-on-exec
# only when below 10, so a random or virtual number crosses every
# command's exec.  ufd's default suppressions (report_suppress.c) hold
# the rule; without them (UFD_SUPPRESS_DEFAULT=0) the reports come.  Run
# as dash and, where /bin/sh is dash (Debian), as sh: the rule's obj:*/dash
# matches the program's file, not only the name it was run by.
have dash "dash script" && {
	printf 'for i in 1 2 3; do true; done\nls /proc/self/fd >/dev/null\ncat /dev/null\n' >"$tmp/script.sh"
	check dash-script dash "$tmp/script.sh"
	shells=dash
	case $(readlink -f /bin/sh) in */dash) shells="dash /bin/sh" ;; esac
	for sh in $shells; do
		for d in 0 1; do
			rm -f "$tmp/dash$d.rep"
			LD_PRELOAD=$preload_extra UFD_SUPPRESS_DEFAULT=$d UFD_REPORT_LEAKS=1 \
				"$run" -m all -r "$tmp/dash$d.rep" -- $sh "$tmp/script.sh" >/dev/null 2>&1
			touch "$tmp/dash$d.rep"
		done
		if ! grep -q "ERROR: ufd: exec-leak: .*($tmp/script.sh)\$" "$tmp/dash0.rep"; then
			echo "FAIL dash-script as $sh: UFD_SUPPRESS_DEFAULT=0, mode all: the script's descriptor not reported"
			failed=$((failed + 1))
		elif [ -s "$tmp/dash1.rep" ]; then
			echo "FAIL dash-script as $sh: mode all, default suppressions: reported"
			cat "$tmp/dash1.rep"
			failed=$((failed + 1))
		else
			echo "ok   dash-script as $sh, mode all: reported only without the default suppressions"
		fi
	done
}

# bash 5.2 closes each end of a pipeline's pipe twice (execute_cmd.c), the
# second close failing at once: a true double close that ufd's default
# suppressions hold (report_suppress.c).  Without them the reports come.
have bash "bash pipelines" && {
	printf 'echo a | cat >/dev/null\nx=$(echo b | cat)\n' >"$tmp/pipes.sh"
	check bash-pipelines bash "$tmp/pipes.sh"
	rm -f "$tmp/bashpipe0.rep"
	LD_PRELOAD=$preload_extra UFD_SUPPRESS_DEFAULT=0 \
		"$run" -r "$tmp/bashpipe0.rep" -- bash "$tmp/pipes.sh" >/dev/null 2>&1
	touch "$tmp/bashpipe0.rep"
	if grep -q "ERROR: ufd: double-close: .*pipe" "$tmp/bashpipe0.rep"; then
		echo "ok   bash-pipelines: reported only without the default suppressions"
	else
		echo "FAIL bash-pipelines: UFD_SUPPRESS_DEFAULT=0: bash's second close not reported"
		failed=$((failed + 1))
	fi
}

# PostgreSQL: initdb, a server, pgbench's set-up and 200 transactions on 4
# connections, a fast shutdown: forks, signalfd, epoll, latches, a WAL.
# As the postgres user, which the package makes (postgres refuses root).
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n 1)
if [ -n "$preload_extra" ]; then
	echo "SKIP pgbench: not under $preload_extra (a server's dozens of processes each load the sanitizer runtime; checked in the plain build)"
elif [ ! -x "$pgbin/postgres" ] || [ ! -x "$pgbin/pgbench" ]; then
	echo "SKIP pgbench: postgresql is not installed"
elif [ "$(id -u)" -ne 0 ] || ! id postgres >/dev/null 2>&1; then
	echo "SKIP pgbench: needs root and a postgres user"
else
	chmod 755 "$tmp"
	mkdir -p "$tmp/pgbench"
	: >"$tmp/pgbench.rep"
	chown postgres "$tmp/pgbench" "$tmp/pgbench.rep"
	# PostgreSQL's count_usable_fds dups stderr up to 1,000 times and
	# takes the highest number less the count for the descriptors already
	# open: with random numbers it counts far too many, and the server
	# refuses to start about one time in three ("System allows -12, we
	# need at least 58"), its own reliance on the lowest number.  dup stays
	# real (UFD_EXCLUDE), as a user running PostgreSQL under random mode
	# would set it.
	exclude=dup as_user=postgres check pgbench sh -c '
		set -e
		'"$pgbin"'/initdb -D db -A trust -U postgres >/dev/null
		'"$pgbin"'/pg_ctl -D db -l log -w -o "-k $PWD -c listen_addresses= -p 5433" start >/dev/null
		'"$pgbin"'/pgbench -h "$PWD" -p 5433 -U postgres -i -s 1 -q postgres 2>/dev/null
		'"$pgbin"'/pgbench -h "$PWD" -p 5433 -U postgres -c 4 -j 2 -t 50 postgres >/dev/null
		'"$pgbin"'/pg_ctl -D db -m fast -w stop >/dev/null'
fi

# OpenSSH: sshd on loopback (privilege separation, the sandboxed
# pre-authentication child, its re-exec), a key login running a command,
# scp and sftp through it.
if [ -n "$preload_extra" ]; then
	echo "SKIP sshd: not under $preload_extra (sshd's seccomp sandbox refuses the sanitizer runtime's own system calls; checked in the plain build)"
elif ! [ -x /usr/sbin/sshd ] || ! have ssh "sshd"; then
	echo "SKIP sshd: openssh-server or openssh-client is not installed"
elif [ "$(id -u)" -ne 0 ]; then
	echo "SKIP sshd: needs root (sshd's privilege separation)"
else
	mkdir -p /run/sshd "$tmp/sshd"
	d=$tmp/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$d/host" && ssh-keygen -q -t ed25519 -N '' -f "$d/id" &&
		cp "$d/id.pub" "$d/authorized_keys"
	port=$((20000 + $$ % 20000))
	printf '%s\n' "Port $port" "ListenAddress 127.0.0.1" "HostKey $d/host" \
		"AuthorizedKeysFile $d/authorized_keys" "PidFile $d/sshd.pid" \
		"StrictModes no" "UsePAM no" "PermitRootLogin prohibit-password" \
		"Subsystem sftp internal-sftp" >"$d/sshd_config"
	check sshd sh -c '
		d=$1 port=$2
		/usr/sbin/sshd -D -e -f "$d/sshd_config" 2>"$d/sshd.log" &
		pid=$!
		i=0
		while ! [ -s "$d/sshd.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		o="-F /dev/null -i $d/id -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
		echo data >"$d/f"
		ssh $o -p "$port" root@127.0.0.1 "cat $d/f" | grep -q data &&
			scp -q $o -P "$port" "$d/f" root@127.0.0.1:"$d/g" && cmp "$d/f" "$d/g" &&
			echo "get $d/g $d/h" | sftp -q $o -P "$port" root@127.0.0.1 >/dev/null &&
			cmp "$d/f" "$d/h"
		status=$?
		kill "$pid"
		wait "$pid"
		exit $status' sh "$d" "$port"
fi

echo "$((ran - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
