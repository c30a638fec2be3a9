#!/bin/sh
# Description: ufd-compare on real programs: runs that agree (exit 0), a
# program that relies on small descriptor numbers (exit 1, the difference
# shown), mode random (select() works; numbers unmasked), usage errors
# (exit 2), --json, special files left behind, syscall() by the number of
# a call newer than the build's headers, and
# --strace finding a call that reached the kernel with a virtual number.
# Programs libufd.so cannot be loaded into get one line saying so
# (--strict: not run, exit 2).
# Usage: ufd_compare.sh UFD_COMPARE BASH GAP_PROBE CC
set -u
cmp=$1 bash=$2 probe=$3 cc=$4
. "$(dirname "$0")/lib.sh"
skip_under_emulator "$host_programs"
# The sanitizer build's runtime goes to the second run only (ufd-compare
# adds libufd.so after what LD_PRELOAD holds).
under() { LD_PRELOAD=$preload_extra "$cmp" "$@"; }

out=$(under -- "$bash" -c 'exec 3>out.txt; echo written >&3; exec {x}</etc/hostname; echo "fd $x"; cat <&$x | wc -c') ||
	fail "agreeing run: exit $?: $out"
case $out in *"agree:"*) ;; *) fail "no agree line: $out" ;; esac

out=$(under -- "$bash" -c 'exec {x}</etc/hostname; [ $x -lt 1000 ] && echo small || echo big')
[ $? -eq 1 ] || fail "a program relying on small numbers: not exit 1"
case $out in *"differs: stdout"*small*big*) ;; *) fail "difference not shown: $out" ;; esac

"$cmp" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no command: not exit 2"
"$cmp" --mode odd true >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad mode: not exit 2"
"$cmp" --bogus true >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad option: not exit 2"
"$cmp" --help | grep -q "exit status" || fail "--help"

# The same kind of program, with its pipes left real by -x (UFD_EXCLUDE):
# python's select() works again while everything else stays virtual.
sel='import os, select; r, w = os.pipe(); os.write(w, b"x"); print(select.select([r], [], [], 0)[0] == [r])'
out=$(under -- python3 -c "$sel")
[ $? -eq 1 ] || fail "python select() on a virtual pipe: not exit 1: $out"
out=$(under -x pipe -- python3 -c "$sel") || fail "-x pipe: exit $?: $out"

# Mode random: python's select() works (real numbers below 1024), and
# bash's {x} is still a number other than the kernel's lowest.
out=$(under -m random -- python3 -c "$sel") || fail "-m random, select(): exit $?: $out"
out=$(under -m random -s 3 -- "$bash" -c 'exec {x}</etc/hostname; [ $x -lt 1024 ] && echo small; echo $x')
[ $? -eq 1 ] || fail "-m random: bash's {x} at the kernel's number: $out"
case $out in *"differs: stdout"*small*small*) ;; *) fail "-m random difference not shown: $out" ;; esac

json=$(under --json -- "$bash" -c 'echo same') || fail "--json exit $?"
echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["agree"] is True and d["status"]==[0,0], d' ||
	fail "--json: $json"

# What the command leaves behind that is not a regular file: a FIFO (not
# opened: that would wait for a writer forever), links (compared by
# target, dangling or not).
out=$(under -- "$bash" -c 'mkfifo fifo; ln -s nowhere dangling; ln -s fifo link') ||
	fail "a FIFO and links left behind: exit $?: $out"
out=$(under -- "$bash" -c 'ln -s "${UFD_MODE:+with}${UFD_MODE:-without}" link')
[ $? -eq 1 ] || fail "links to different targets: not exit 1"
case $out in *"differs: file link"*) ;; *) fail "link difference not shown: $out" ;; esac

# syscall() by the kernel's number of a call newer than glibc 2.36's
# headers: fchmodat2 (452 on x86-64 and aarch64) on a directory
# descriptor that is virtual in mode all.  The kernel's answer (ENOSYS
# before Linux 6.6), and the file's mode, as without ufd.
chmod2='import ctypes, os
L = ctypes.c_long
libc = ctypes.CDLL(None, use_errno=True)
open("f", "w").close()
os.chmod("f", 0o600)
d = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
r = libc.syscall(L(452), L(d), ctypes.c_char_p(b"f"), L(0o640), L(0))
print(r, os.strerror(ctypes.get_errno()) if r else "", oct(os.stat("f").st_mode & 0o777))'
out=$(under -- python3 -c "$chmod2") || fail "syscall(452) (fchmodat2) on a virtual directory: $out"

if command -v strace >/dev/null; then
	out=$(under --strace -- "$probe")
	[ $? -eq 1 ] || fail "--strace: a gap did not make exit 1: $out"
	case $out in *"reached the kernel with a virtual number (ufd gaps): 1"*process_mrelease*) ;;
	*) fail "--strace gap not reported: $out" ;; esac
	out=$(under --strace -- "$bash" -c 'cat /etc/hostname >/dev/null') ||
		fail "--strace on an agreeing run: exit $?: $out"
	case $out in *"no call reached the kernel with a virtual number"*) ;;
	*) fail "--strace clean run: $out" ;; esac
else
	echo "strace not installed: --strace checks skipped"
fi
# The reports of the run under ufd follow the comparison (the sanitizer
# is on in the second run): bash closing a closed descriptor.
out=$(under -- "$bash" -c 'exec 3</etc/hostname; exec 3<&-; exec 3<&-; echo done')
case $out in *"sanitizer reports of the run under ufd: "[1-9]*"ERROR: ufd: "*"closed by close"*) ;;
	*) fail "reports not shown: $out" ;; esac
out=$(under --json -- "$bash" -c 'exec 3</etc/hostname; exec 3<&-; exec 3<&-; echo done')
printf "%s\n" "$out" | python3 -c 'import json, sys; r = json.load(sys.stdin)["reports"]; sys.exit(0 if r and "ERROR: ufd" in r[0] else 1)' ||
	fail "--json: no reports: $out"
out=$(under -- "$bash" -c 'echo clean')
case $out in *"sanitizer reports of the run under ufd: 0"*) ;; *) fail "reports on a clean run: $out" ;; esac
# --sanitize: mode random, leaks at exit too, and exit status 23 when the
# run under ufd reported; a clean run agrees (0).
out=$(under --sanitize -- "$bash" -c 'exec 3</etc/hostname; exec 3<&-; exec 3<&-; echo done')
[ $? -eq 23 ] || fail "--sanitize: a double close did not make exit 23: $out"
case $out in *"UFD_MODE=random"*) ;; *) fail "--sanitize: not mode random: $out" ;; esac
out=$(under --sanitize -- "$bash" -c 'exec {x}</etc/hostname; echo left open')
[ $? -eq 23 ] || fail "--sanitize: a leak at exit did not make exit 23: $out"
case $out in *"exit-leak"*) ;; *) fail "--sanitize: no exit-leak report: $out" ;; esac
out=$(under --sanitize -- "$bash" -c 'echo clean') || fail "--sanitize, clean run: exit $?: $out"
# Programs libufd.so cannot be loaded into: one line on stderr saying
# why, then the comparison (both runs without ufd); with --strict, exit 2
# and nothing run.  None for a dynamic program.
t=$(mktemp -d) || exit 1
make_unloadable "$t" "$cc"
unloadable() { # program, how stderr's line starts after its name
	err=$(under "$1" 2>&1 >/dev/null)
	case $err in "ufd-compare: $1 $2"*": libufd.so cannot be loaded into it; both runs are without ufd"*) ;;
	*) fail "$1: stderr '$err'" ;; esac
	out=$(under --strict "$1" 2>&1)
	[ $? -eq 2 ] || fail "--strict $1: not exit 2: $out"
	case $out in "ufd-compare: $1 $2"*": libufd.so cannot be loaded into it; not run (--strict)") ;;
	*) fail "--strict $1: output '$out'" ;; esac
}
unloadable "$t/elf32" "is a 32-bit program and libufd.so is 64-bit"
unloadable "$t/foreign" "is built for another machine (ELF machine 40"
if [ -z "$static_skip" ]; then
	unloadable "$t/static" "is statically linked (no program interpreter)"
	out=$(under "$t/static" 2>/dev/null) || fail "the static program's runs: exit $?: $out"
	case $out in *"without ufd: exit 3; with ufd (UFD_MODE=all): exit 3"*) ;;
	*) fail "the static program was not compared: $out" ;; esac
	json=$(under --json "$t/static" 2>/dev/null) || fail "--json on the static program: exit $?"
	echo "$json" | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(0 if "statically linked" in d["cannot_load"] else 1)' ||
		fail "--json: no cannot_load: $json"
	err=$(PATH=$t:$PATH under "$t/static.sh" 2>&1 >/dev/null)
	case $err in "ufd-compare: $t/static is statically linked"*) ;;
	*) fail "static interpreter of a script: '$err'" ;; esac
else
	echo "$static_skip"
fi
err=$(under "$bash" -c true 2>&1 >/dev/null) || fail "a dynamic program: exit $?"
[ -z "$err" ] || fail "a dynamic program: stderr '$err'"
rm -rf "$t"
echo "PASS: ufd-compare"
