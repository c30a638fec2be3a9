#!/bin/sh
# Description: leaks at exec of descriptors a program was given by name
# (issue 25, item 7; src/report_given.h).  Under UFD_REPORT_LEAKS=1, sh is
# started with descriptor 5 open and named in its arguments (--fd 5):
# sh's exec of a program that is not told about it is an exec-leak report
# of sh's; an exec that names it again, one after sh closed it, one of a
# descriptor sh was given without a name (its parent's leak, not sh's),
# and the same run without UFD_REPORT_LEAKS give none.  Modes: default
# and all.  Full paths: dash tries each directory of PATH with its own
# execve, and each attempt is an exec that reports.  Then: what each given
# descriptor was (a pipe, a socket, a file, /dev/null) is said in the
# reports of its number, found at start-up without listing /proc.
# Usage: report_given.sh LIBUFD   (UFD_TEST_PRELOAD: extra preloads)
set -u
lib=$1
. "$(dirname "$0")/lib.sh"
skip_under_emulator "$host_programs (here sh)"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run NAME SCRIPT [ARG...]: sh -c SCRIPT sh ARG... under ufd, fd 5 open
# on /dev/null, reports to $tmp/NAME.rep; the number of exec-leak reports
# in $n.
run() {
	name=$1 script=$2
	shift 2
	rm -f "$tmp/$name.rep"
	env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_REPORT="$tmp/$name.rep" \
		UFD_MODE=$mode $leaks sh -c "$script" sh "$@" 5</dev/null >/dev/null 2>&1 ||
		fail "$name: sh failed"
	touch "$tmp/$name.rep"
	n=$(grep -Ec "^==[0-9]+==ERROR: ufd: exec-leak: .*descriptor 5 " "$tmp/$name.rep")
}

for mode in default all; do
	leaks=UFD_REPORT_LEAKS=1
	run named 'exec /bin/true' --fd 5
	[ "$n" -eq 1 ] || { cat "$tmp/named.rep"; fail "$mode: given by name, passed on unnamed: $n reports, not 1"; }
	grep -q "crossing by execv" "$tmp/named.rep" || { cat "$tmp/named.rep"; fail "$mode: no crossing stack"; }
	run renamed 'exec /bin/true --fd 5' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/renamed.rep"; fail "$mode: named again: reported"; }
	run devfd 'exec /bin/cat /dev/fd/5' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/devfd.rep"; fail "$mode: named again as /dev/fd/5: reported"; }
	run closed 'exec 5<&-; exec /bin/true' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/closed.rep"; fail "$mode: closed first: reported"; }
	run unnamed 'exec /bin/true'
	[ "$n" -eq 0 ] || { cat "$tmp/unnamed.rep"; fail "$mode: given without a name (the parent's leak): reported"; }
	leaks=
	run noleaks 'exec /bin/true' --fd 5
	[ "$n" -eq 0 ] || { cat "$tmp/noleaks.rep"; fail "$mode: reported without UFD_REPORT_LEAKS"; }
done

# What each given descriptor was, found at start-up without listing
# /proc/self/fd: a pipe, a socket, a file at 100, /dev/null and a
# pseudo-terminal, each closed twice by the program: each double-close report
# says what the kernel's link said before the first close.
command -v python3 >/dev/null || { echo "ok (names: no python3)"; exit 0; }
python3 - "$lib" "${preload_extra:-}" "$tmp" <<'PY' || fail "names of given descriptors"
import os, socket, subprocess, sys
lib, extra, tmp = sys.argv[1:]
r, w = os.pipe()
a, b = socket.socketpair()
f = os.open("/etc/hostname", os.O_RDONLY)
os.dup2(f, 100)
want = {0: "pipe:[%d]" % os.fstat(r).st_ino, 5: "socket:[%d]" % os.fstat(a.fileno()).st_ino,
        100: os.readlink("/proc/self/fd/%d" % f), 7: "/dev/null"}
n = os.open("/dev/null", os.O_RDONLY)
os.dup2(a.fileno(), 5)
os.dup2(n, 7)
fds = [0, 5, 7, 100]
try:
    master, slave = os.openpty()
    os.dup2(slave, 8)
    want[8] = os.ttyname(slave)
    fds.append(8)
except OSError:
    pass
rep = tmp + "/names.rep"
env = dict(os.environ, LD_PRELOAD=(extra + " " + lib).strip(), UFD_REPORT=rep, UFD_MODE="all")
code = "import os\nfor fd in %r:\n    os.close(fd)\n    try: os.close(fd)\n    except OSError: pass\n" % (fds,)
subprocess.run([sys.executable, "-c", code], stdin=r, env=env, check=True, pass_fds=fds[1:])
text = open(rep).read()
for fd, name in want.items():
    line = "double close of descriptor %d (not open, was %s)" % (fd, name)
    if line not in text:
        print(text)
        print("FAIL: no '%s'" % line)
        sys.exit(1)
print("names of given descriptors: ok")
PY

# Names past the first table of the depot (fdname.c: a page of slots,
# filled to half, then the large table): each of 1,500 files opened,
# closed and closed again is named in its own report.
python3 - "$lib" "${preload_extra:-}" "$tmp" <<'PY' || fail "names of 1,500 files"
import os, subprocess, sys
lib, extra, tmp = sys.argv[1:]
os.mkdir(tmp + "/many")
rep = tmp + "/many.rep"
env = dict(os.environ, LD_PRELOAD=(extra + " " + lib).strip(), UFD_REPORT=rep, UFD_MODE="all")
code = """import os, sys
d = sys.argv[1]
for i in range(1500):
    fd = os.open("%s/f%d" % (d, i), os.O_CREAT | os.O_RDONLY)
    os.close(fd)
    try: os.close(fd)
    except OSError: pass
"""
subprocess.run([sys.executable, "-c", code, tmp + "/many"], env=env, check=True)
text = open(rep).read()
for i in (0, 700, 1499):
    if "(not open, was %s/many/f%d)\n" % (tmp, i) not in text:
        print(text[:2000])
        print("FAIL: file %d not named" % i)
        sys.exit(1)
print("names of 1,500 files: ok")
PY

# Found without /proc: a process with reports on, given /dev/null as
# 0 and 2, and a regular file as 1 and at a number past 2, reads no link and lists no
# directory at start-up (it listed /proc/self/fd and read each link there
# and /proc/self/exe: the entries the kernel then builds for the process,
# and tears down at its exit, were a fifth of what reports added to a
# fork + exec; then it read the link of each regular file it was given,
# a third of what was left: now read at its close, as the names test
# above checks).
# (Not under a sanitizer's runtime, which reads /proc itself.)
if [ -n "${preload_extra:-}" ]; then
	echo "no /proc at start-up: not checked under $preload_extra, which reads /proc itself"
elif command -v strace >/dev/null 2>&1 && strace -f -o /dev/null /bin/true 2>/dev/null &&
	command -v python3 >/dev/null; then
	python3 - "$lib" "${preload_extra:-}" "$tmp" <<'PY' || fail "reports on use /proc at start-up"
import os, subprocess, sys
lib, extra, tmp = sys.argv[1:]
env = dict(os.environ, LD_PRELOAD=(extra + " " + lib).strip(), UFD_REPORT=tmp + "/true.rep")
out = tmp + "/strace"
with open(tmp + "/given", "w") as given:
    subprocess.run(["strace", "-f", "-o", out, "-e", "trace=readlinkat,readlink,getdents64",
                    "/bin/true"], env=env, check=True, stdin=subprocess.DEVNULL,
                   stdout=given, stderr=subprocess.DEVNULL, pass_fds=[given.fileno()])
calls = [l for l in open(out) if "readlink" in l or "getdents" in l]
if calls:
    print("".join(calls))
    sys.exit(1)
print("no /proc at start-up: ok")
PY
fi
echo "ok"
