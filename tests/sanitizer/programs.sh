#!/bin/sh
# Description: the sanitizer on real programs doing healthy work: bash
# with 200 process substitutions and its redirections, gcc and make -j2
# with a jobserver, git init/commit/clone/gc, python's subprocess.  Each
# runs as a user's CI would (ufd-run -m random, reports on, leaks at exit
# reported); a correct program must give no report at all (but those
# programs.supp lists, each true but meant, with its reason).  A program
# that is not installed is skipped, and said so.
# Usage: programs.sh UFD_RUN   (UFD_TEST_PRELOAD: as in tests/lib.sh)
set -u
run=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/../lib.sh"
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
	(cd "$tmp/$name" && LD_PRELOAD=$preload_extra UFD_REPORT_LEAKS=1 UFD_SUPPRESS=$supp \
		"$run" -m random -r "$tmp/$name.rep" -- "$@") >"$tmp/$name.out" 2>&1
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
have /usr/bin/python3 "python" && check python /usr/bin/python3 -c '
import subprocess, os, tempfile
for i in range(20):
    subprocess.run(["true"], check=True)
r, w = os.pipe()
p = subprocess.Popen(["cat", "/dev/fd/%d" % r], pass_fds=[r], stdout=subprocess.DEVNULL)
os.close(r); os.write(w, b"x"); os.close(w); p.wait()
with tempfile.TemporaryFile() as f:
    f.write(b"y")'

echo "$((ran - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
