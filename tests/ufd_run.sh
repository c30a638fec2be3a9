#!/bin/sh
# Description: the ufd-run launcher and UFD_MODE=all and random on
# unmodified programs: bash's own descriptors become virtual and random
# (random real numbers below 1024 in mode random), pipelines,
# here-documents and process substitution keep working, children inherit
# the virtual descriptors, and bad options and settings get clear messages.
# Programs libufd.so cannot be loaded into (static, 32-bit, another
# machine) get one line saying so, and --strict does not run them.
# Usage: ufd_run.sh UFD_RUN BASH CC   (UFD_TEST_PRELOAD: extra preloads, e.g. ASan)
set -u
run=$1 bash=$2 cc=$3
. "$(dirname "$0")/lib.sh"
skip_under_emulator "$host_programs"

# Reports as the processes write them: the launcher's symbolizing (a
# quarter of a second a run, for libc's debug file) is
# tests/report_symbolize.sh's to test.
export UFD_SYMBOLIZE=0
under() { LD_PRELOAD=$preload_extra "$run" "$@"; }

"$run" --help | grep -q "usage: ufd-run" || fail "--help"
"$run" --bogus true 2>/dev/null; [ $? -eq 2 ] || fail "unknown option: not exit 2"
"$run" -m sometimes true 2>/dev/null; [ $? -eq 2 ] || fail "bad mode: not exit 2"
"$run" -s 12z true 2>/dev/null; [ $? -eq 2 ] || fail "bad seed: not exit 2"
"$run" 2>/dev/null; [ $? -eq 2 ] || fail "no command: not exit 2"
msg=$(UFD_MODE=sometimes under "$bash" -c true 2>&1)
case $msg in
*'ufd: UFD_MODE="sometimes" is not one of transparent, all, random; using transparent'*) ;;
*) fail "bad UFD_MODE: '$msg'" ;;
esac

# Transparent by default: bash's {var} redirection gets a small number.
x=$(under "$bash" -c 'exec {x}</etc/hostname; echo $x')
[ "$x" -lt 268435456 ] || fail "transparent mode gave $x"
# UFD_MODE=all: a virtual one, random, and the same for a fixed seed.
x=$(under -m all "$bash" -c 'exec {x}</etc/hostname; echo $x')
y=$(under -m all "$bash" -c 'exec {x}</etc/hostname; echo $x')
[ "$x" -ge 268435456 ] || fail "mode all gave $x"
a=$(under -m all -s 7 "$bash" -c 'exec {x}</etc/hostname; echo $x')
b=$(under -m all -s 7 "$bash" -c 'exec {x}</etc/hostname; echo $x')
[ "$a" = "$b" ] || fail "seed 7 gave $a then $b"
# (x and y are random; equal only by a 1-in-thousands chance, so not checked.)
: "$y"

# A process tree: redirections, pipelines, here-documents, process
# substitution and a child reading an inherited virtual descriptor.
script='
exec {v}</etc/hostname
read -r first <&$v
printf "%s\n" one two three | sort -r | head -n 1
cat <<END
here $first
END
cat <(echo substituted)
exec 7>"$TMPF"; echo seven >&7; exec 7>&-; cat "$TMPF"
exec {w}</etc/hostname
head -n 1 /dev/fd/$w
'
TMPF=$(mktemp) && export TMPF
want=$("$bash" -c "$script") || fail "script fails without ufd"
got=$(under -m all "$bash" -c "$script") || fail "script fails under ufd"
rm -f "$TMPF"
[ "$want" = "$got" ] || fail "mode all differs: '$want' vs '$got'"
# UFD_MODE=random: bash's {x} (fcntl F_DUPFD from 10) a real number in
# [10, 1024), the same for a fixed seed; the script's output as without ufd.
r=$(under -m random -s 7 "$bash" -c 'exec {x}</etc/hostname; echo $x')
s=$(under -m random -s 7 "$bash" -c 'exec {x}</etc/hostname; echo $x')
[ "$r" -ge 10 ] && [ "$r" -lt 1024 ] || fail "mode random gave $r"
[ "$r" = "$s" ] || fail "mode random, seed 7 gave $r then $s"
TMPF=$(mktemp) && export TMPF
got=$(under -m random "$bash" -c "$script") || fail "script fails under mode random"
rm -f "$TMPF"
[ "$want" = "$got" ] || fail "mode random differs: '$want' vs '$got'"
# -r FILE: the sanitizer's reports, appended to FILE (relative to the
# working directory): a close of a closed descriptor in mode all.
rdir=$(mktemp -d) || exit 1
(cd "$rdir" && under -m all -r reports.txt "$bash" -c 'exec 3</etc/hostname; exec 3<&-; exec 3<&-; true') ||
	fail "-r: exit $?"
grep -Eq '^==[0-9]+==ERROR: ufd: (use-after-close|double-close): ' "$rdir/reports.txt" ||
	fail "-r: no report in the file: $(cat "$rdir/reports.txt")"
grep -Eq '^  (first )?closed by close in thread' "$rdir/reports.txt" || fail "-r: no close stack"
rm -rf "$rdir"
# --sanitize: random mode, reports on stderr, exit status 23 from a
# process that reported; a healthy command keeps its status and says
# nothing; an explicit -m wins, before or after it.
out=$(under --sanitize "$bash" -c 'exec {x}</etc/hostname; echo $x; exec {x}<&-; exec 3<&-' 2>&1)
st=$?
[ "$st" -eq 0 ] || fail "--sanitize, healthy: exit $st: $out"
[ "$out" -ge 3 ] && [ "$out" -lt 1024 ] || fail "--sanitize, healthy: not mode random, or a report: '$out'"
out=$(under --sanitize "$bash" -c 'exec 3</etc/hostname; exec 3<&-; exec 3<&-; true' 2>&1)
st=$?
[ "$st" -eq 23 ] || fail "--sanitize, a double close: exit $st, not 23"
case $out in *'ERROR: ufd: '*) ;; *) fail "--sanitize: no report on stderr: $out" ;; esac
x=$(under -m all --sanitize "$bash" -c 'exec {x}</etc/hostname; echo $x; exec {x}<&-' 2>&1)
y=$(under --sanitize -m all "$bash" -c 'exec {x}</etc/hostname; echo $x; exec {x}<&-' 2>&1)
[ "$x" -ge 268435456 ] && [ "$y" -ge 268435456 ] || fail "--sanitize with -m all: '$x', '$y'"
# Programs libufd.so cannot be loaded into: one line on stderr saying
# why, and the program run all the same; not run with --strict (exit 2).
# A dynamic program gets no such line.
t=$(mktemp -d) || exit 1
make_unloadable "$t" "$cc"
unloadable() { # program, how stderr's line starts after its name
	err=$(under "$1" 2>&1 >/dev/null)
	case $err in "ufd-run: $1 $2"*": libufd.so cannot be loaded into it; it runs without ufd"*) ;;
	*) fail "$1: stderr '$err'" ;; esac
	err=$(under --strict "$1" 2>&1 >/dev/null)
	[ $? -eq 2 ] || fail "--strict $1: not exit 2"
	case $err in "ufd-run: $1 $2"*": libufd.so cannot be loaded into it; not run (--strict)") ;;
	*) fail "--strict $1: stderr '$err'" ;; esac
}
unloadable "$t/elf32" "is a 32-bit program and libufd.so is 64-bit"
unloadable "$t/foreign" "is built for another machine (ELF machine 40"
if [ -z "$static_skip" ]; then
	unloadable "$t/static" "is statically linked (no program interpreter)"
	out=$(under "$t/static" 2>/dev/null)
	[ $? -eq 3 ] && [ "$out" = "static ran" ] || fail "the static program was not run: '$out'"
	out=$(under --strict "$t/static" 2>/dev/null)
	[ -z "$out" ] || fail "--strict ran the static program"
	# A #! script: its interpreter is the program looked at.
	err=$(PATH=$t:$PATH under "$t/static.sh" 2>&1 >/dev/null)
	case $err in "ufd-run: $t/static is statically linked"*) ;;
	*) fail "static interpreter of a script: '$err'" ;; esac
else
	echo "$static_skip"
fi
err=$(under "$bash" -c true 2>&1) || fail "a dynamic program: exit $?"
[ -z "$err" ] || fail "a dynamic program: stderr '$err'"
err=$(under --strict "$bash" -c true 2>&1) || fail "--strict on a dynamic program: exit $?: $err"
rm -rf "$t"
echo "PASS: ufd-run, UFD_MODE=all ($x, $a) and random ($r), -r, --sanitize, programs ufd cannot enter"
