#!/bin/sh
# Description: the real-program corpus. Programs from Debian packages
# (coreutils, bash, dash, find/xargs, tar/gzip, sqlite3, git, python3,
# python3's http.server with curl, make, perl, rsync, busybox), each run through
# ufd-compare in UFD_MODE=all: without ufd and with it, in fresh empty
# directories, comparing exit status, output and the files written with
# descriptor numbers masked. Most entries must agree (exit 0). The few
# that differ because the program really depends on small descriptor
# numbers must differ in exactly the expected way (exit 1, the listed
# differences, the expected text): findings, README "Corpus". The
# select() entries run again in UFD_MODE=random, where they must agree.
# Usage: corpus.sh UFD_COMPARE CORPUS_DIR   (UFD_TEST_PRELOAD: see below)
# UFD_CORPUS_SEED=N reruns with the numbering of an earlier run (each run
# prints its seed); UFD_CORPUS_ONLY=word runs the entries whose name
# contains word.
set -u
if [ -n "${UFD_TEST_EMULATOR:-}" ]; then
	echo "SKIP under $UFD_TEST_EMULATOR: the host's programs (bash, sh, coreutils) run under ufd here, and on this machine they are x86-64: the aarch64 libufd.so cannot be loaded into them"
	exit 77
fi
cmp=$1 dir=$2
# Under a sanitizer build the test runner's preload holds the sanitizer's
# runtime, which would then be preloaded into every program of the
# corpus: that tests git and python3 under ASan's interceptors more than
# ufd. The corpus runs in the plain build.
for lib in $(echo "${UFD_TEST_PRELOAD:-}" | tr ':' ' '); do
	case $lib in *libufd.so*) ;; *)
		echo "SKIP: the corpus runs in the plain build only (preload: $UFD_TEST_PRELOAD)"
		exit 77 ;;
	esac
done
unset LD_PRELOAD
# The system's python3 (on Debian /usr/bin/python3; not a pyenv shim, a
# shell script that would be one more program under ufd).
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || py=python3
seed=${UFD_CORPUS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "corpus: ufd-compare -s $seed (UFD_CORPUS_SEED=$seed to repeat)"

passed=0 failed=0 skipped=0
now() { date +%s%N; }
t0=$(now)

# have PROGRAM...: all installed? Otherwise the entry is skipped.
missing=
have() {
	missing=
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ]
}

# run NAME EXPECT PATTERN PROGRAMS -- COMMAND...: one entry. EXPECT is
# "agree", or the comma-separated list of the differences ufd-compare
# must report ("exit status,stdout"); PATTERN a shell pattern (no quotes
# inside: it is matched from a variable) that its report must match (for
# an agreeing entry, "*").
run() {
	name=$1 expect=$2 pattern=$3 progs=$4
	shift 5
	case ${UFD_CORPUS_ONLY:-} in "") ;; *)
		case $name in *"$UFD_CORPUS_ONLY"*) ;; *) return ;; esac ;;
	esac
	# shellcheck disable=SC2086
	if ! have $progs; then
		printf '%-8s %6s  %s (not installed:%s)\n' skip - "$name" "$missing"
		skipped=$((skipped + 1))
		return
	fi
	start=$(now)
	# shellcheck disable=SC2086
	out=$("$cmp" -s "$seed" ${compare_options:-} -- "$@" 2>&1)
	status=$?
	secs=$(( ($(now) - start) / 1000000 ))
	secs=$((secs / 1000)).$((secs % 1000 / 100))s
	got=$(printf '%s\n' "$out" | sed -n 's/^--- differs: //p' | paste -s -d, -)
	ok=
	if [ "$expect" = agree ]; then
		[ $status -eq 0 ] && ok=agree
	else
		# shellcheck disable=SC2254
		case $out in $pattern) [ $status -eq 1 ] && [ "$got" = "$expect" ] && ok=differs ;; esac
	fi
	if [ -n "$ok" ]; then
		printf '%-8s %6s  %s\n' "$ok" "$secs" "$name"
		passed=$((passed + 1))
	else
		printf 'FAIL     %6s  %s: expected %s (%s), ufd-compare exit %s:\n' \
			"$secs" "$name" "$expect" "$pattern" "$status"
		# The report, cut short: a binary file's difference is long.
		printf '%s\n' "$out" | cut -c1-200 | sed -n '1,80s/^/    /p'
		[ "$(printf '%s\n' "$out" | wc -l)" -le 80 ] || echo "    ..."
		failed=$((failed + 1))
	fi
}

c=$dir
# ---- entries that must agree ----
run "coreutils: cat cp tee split head tail, sort -S 64K spilling to temporary files, dd ..." \
	agree '*' "sh seq awk sort split tee" -- sh "$c/coreutils.sh"
run "bash: redirections, here-documents, pipelines, exec 7> and {x}>, <(...), while-read, coproc" \
	agree '*' "bash" -- bash "$c/shell.bash"
run "dash: redirections, here-documents, pipelines, exec 7>, subshells, while-read" \
	agree '*' "dash" -- dash "$c/shell.dash"
run "find, xargs, tar, gzip, xz, bzip2" \
	agree '*' "find xargs tar gzip xz bzip2" -- sh "$c/archives.sh"
run "sqlite3: file databases, rollback journal, WAL" agree '*' "sqlite3" -- sh "$c/sqlite.sh"
run "git: init, commit, merge, tag, stash, am, rebase --exec, bisect run, worktree, gc, clone" agree '*' "git" -- sh "$c/git.sh"
run "python3: files, dup, mmap, sendfile, dir_fd, tempfile" agree '*' "$py" -- "$py" "$c/files.py"
run "python3: socketpair, TCP server, selectors, UDP, SCM_RIGHTS, asyncio" \
	agree '*' "$py" -- "$py" "$c/sockets.py"
run "python3: os.pipe, fork, subprocess, pass_fds, posix_spawn, system, popen" \
	agree '*' "$py" -- "$py" "$c/processes.py"
run "python3: multiprocessing with fork, spawn and forkserver; a Manager" \
	agree '*' "$py" -- "$py" "$c/multiproc.py"
run "python3 -m http.server and curl" agree '*' "$py curl" -- sh "$c/http.sh" "$py"
run "script, flock, timeout, nohup, setsid, stdbuf, awk pipes, a FIFO, tail -f" \
	agree '*' "script flock timeout nohup setsid stdbuf awk mkfifo tail" -- sh "$c/wrappers.sh"
# The hand-off of 9,000 virtual descriptors is longer than the kernel
# takes in one environment string (128 KiB): it goes in a memfd.
run "bash holding 9,000 descriptors runs ls" agree '*' "bash ls" -- bash "$c/manyfds.bash"
run "make -j1 (no jobserver)" agree '*' "make" -- make -s -j1 -f "$c/jobs.mk"
run "rsync: local copies (--delete, --checksum, -z, --inplace, --link-dest, --files-from)" \
	agree '*' "rsync diff" -- sh "$c/rsync.sh"
run "perl: pipes to and from commands, IPC::Open3, IPC::Open2, fork, dup, socketpair" \
	agree '*' "perl" -- perl "$c/ipc.pl"
run "busybox: ash, sort, xargs, find -exec, gzip, tar, tee, awk pipes, timeout" \
	agree '*' "busybox" -- sh "$c/busybox.sh"
run "python3: pty.fork, openpty with a subprocess, poll on the master" \
	agree '*' "$py" -- "$py" "$c/terminals.py"

# ---- entries that must differ, and how ----
# ls sorts names as text: 10 comes before 2, a virtual number after it.
run "ls -l /dev/fd/ (text order: 10 before 2, 268... after)" stdout \
	'*without ufd:*| l-wx------ 10 -> */written*| l-wx------ 2 -> pipe:*with ufd:*| l-wx------ 2 -> pipe:*| l-wx------ [1-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]* -> */written*' \
	"bash ls awk" -- bash "$c/devfd.bash"
# In numeric order, ls's own directory descriptor (3 without ufd) is
# virtual, so it comes last.
run "ls -lv /dev/fd/ (numeric order: ls's directory 3, or virtual and last)" stdout \
	'*without ufd:*| l-wx------ 2 -> pipe:*| lr-x------ 3 -> /proc/PID/fd*| l-wx------ 7 -> */seven*with ufd:*| l-wx------ 7 -> */seven*| lr-x------ [1-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9] -> /proc/PID/fd*' \
	"bash ls awk" -- bash "$c/devfd.bash" -v
run "python3 select.select() on a pipe" "exit status,stdout,stderr" \
	'*ValueError: filedescriptor out of range in select()*' "$py" -- "$py" "$c/select.py"
run "perl IO::Select on a pipe" stdout \
	'*without ufd: ?ready: 1*with ufd: ?ready: 0 (Bad file descriptor)*' \
	"perl" -- perl "$c/select.pl"
run "bash read -t 0 -u FD (select)" "exit status,stdout,stderr" \
	'*with ufd: -6*bit out of range 0 - FD_SETSIZE on fd_set*' \
	"bash" -- bash "$c/readtimeout.bash"
# make's jobserver: FD_SET on a virtual number, and fortified glibc
# aborts. Job a was running and finishes; b and c never start.
run "make -j2 (jobserver, pselect)" "exit status,stdout,stderr,file b,file c" \
	'*with ufd: -6*bit out of range 0 - FD_SETSIZE on fd_set*' \
	"make" -- make -s -j2 -f "$c/jobs.mk"
# The same with make's jobserver left real: its select() works, and
# everything else is still virtual.  make 4.4 has two jobserver styles
# (--jobserver-style): a named FIFO by default, which it open()s
# (--jobserver-auth=fifo:PATH), and the pipe of the makes before it.
# Each style is run with its call excluded: the pipe with UFD_EXCLUDE=pipe,
# the FIFO with UFD_EXCLUDE=open; a make without styles has the pipe only.
make_pipe="make"
if make --help 2>/dev/null | grep -q -- --jobserver-style; then
	make_pipe="make --jobserver-style=pipe"
fi
compare_options="-x pipe"
run "make -j2 with UFD_EXCLUDE=pipe (jobserver: a pipe)" agree '*' "make" -- \
	$make_pipe -s -j2 -f "$c/jobs.mk"
if [ "$make_pipe" != make ]; then
	compare_options="-x open"
	run "make -j2 with UFD_EXCLUDE=open (jobserver: a named FIFO, make 4.4)" agree '*' \
		"make" -- make --jobserver-style=fifo -s -j2 -f "$c/jobs.mk"
else
	printf '%-8s %6s  %s\n' skip - "make -j2 with a FIFO jobserver (this make $(make --version | sed -n '1s/GNU Make //p') has only the pipe; make 4.4 added --jobserver-style=fifo)"
	skipped=$((skipped + 1))
fi
compare_options=

# ---- UFD_MODE=random: the entries above that differ only because their
# numbers were above FD_SETSIZE agree when the numbers are real, random
# and below 1024 ----
compare_options="-m random"
run "random mode: python3 select.select() on a pipe" agree '*' "$py" -- "$py" "$c/select.py"
run "random mode: perl IO::Select on a pipe" agree '*' "perl" -- perl "$c/select.pl"
run "random mode: bash read -t 0 -u FD (select)" agree '*' "bash" -- bash "$c/readtimeout.bash"
run "random mode: make -j2 (jobserver, pselect)" agree '*' "make" -- make -s -j2 -f "$c/jobs.mk"
compare_options=

total=$(( ($(now) - t0) / 1000000000 ))
echo "corpus: $passed as expected, $failed failed, $skipped skipped, ${total}s (seed $seed)"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || exit 77
exit 0
