#!/bin/sh
# Description: the sanitizer's reports (UFD_REPORT), one reproducer of a
# documented bug class per kind (tests/report_cases.c): each report names
# its kind, the descriptor, the call, and stacks whose frames name the
# reproducer's functions where the misuse happened (static functions of a
# program without -rdynamic: from its .symtab).  Run for each build of the
# reproducers given (with and without frame pointers).  Also: JSON lines,
# suppressions, UFD_REPORT_EXITCODE, and no report without UFD_REPORT.
# Usage: report.sh LIBUFD CASES...   (UFD_TEST_PRELOAD: extra preloads)
set -u
lib=$1
shift
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run NAME CASE [VAR=VALUE...]: the case under ufd with reports to
# $tmp/NAME.rep, its stdout in $tmp/NAME.out, its status in $status.
run() {
	name=$1 case=$2
	shift 2
	rm -f "$tmp/$name.rep" "$tmp/scratch"
	env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" \
		UFD_REPORT="$tmp/$name.rep" "$@" \
		"$cases" "$case" "$tmp/scratch" >"$tmp/$name.out" 2>"$tmp/$name.err"
	status=$?
	touch "$tmp/$name.rep"
}
# has NAME REGEX: the report file has a line matching it.
has() {
	grep -Eq -- "$2" "$tmp/$1.rep" ||
		{ cat "$tmp/$1.rep" "$tmp/$1.out" "$tmp/$1.err"; fail "$cases $1: no line matching '$2'"; }
}
# count NAME KIND: the number of reports of that kind.
count() {
	grep -Ec "^==[0-9]+==ERROR: ufd: $2: " "$tmp/$1.rep"
}
# section NAME TITLE FUNCTION: the part of the report titled TITLE (a line
# "  TITLE by ...") has a frame in FUNCTION.
section() {
	awk -v t="  $2 by " -v f=" in $3\\\\+" '
		index($0, t) == 1 { on = 1; next }
		/^  [a-z]/ || /^SUMMARY/ { on = 0 }
		on && $0 ~ f { found = 1 }
		END { exit !found }' "$tmp/$1.rep" ||
		{ cat "$tmp/$1.rep"; fail "$cases $1: '$2' stack does not name $3"; }
}
vfd='26[0-9]{7}'

for cases in "$@"; do
	echo "== $cases"

	# rsyslog/OpenSSL: by default the number is reused and the second
	# close closes the other file, unseen; under UFD_MODE=all it gets
	# EBADF and is reported with both closes.
	run dc-default double-close
	grep -q '^reused: yes$' "$tmp/dc-default.out" || fail "double-close: number not reused by default"
	grep -q 'closed a descriptor' "$tmp/dc-default.out" || fail "double-close: second close did not hit the reused number"
	[ "$(count dc-default double-close)" -eq 0 ] || fail "double-close: reported where the close succeeded"
	run dc double-close UFD_MODE=all
	grep -q '^reused: no$' "$tmp/dc.out" || fail "double-close: number reused under mode all"
	has dc "^==[0-9]+==ERROR: ufd: double-close: double close of descriptor $vfd \(not open, was .*/scratch\)$"
	has dc '^  call by close in thread [0-9]+:$'
	section dc call rsyslog_close_connection
	section dc "first closed" openssl_ssl_free
	section dc made open_file
	has dc '^SUMMARY: ufd: double-close of descriptor [0-9]+ in rsyslog_close_connection$'
	# Module and offset, without a symbol too: (path+0xoffset).
	has dc "^    #0 0x[0-9a-f]+ in rsyslog_close_connection\+0x[0-9a-f]+ \(.*report_cases[a-z_]*\+0x[0-9a-f]+\)$"

	# The same under UFD_MODE=random: real numbers below 1024, and the
	# closed one in quarantine, so not reused either.
	run dc-random double-close UFD_MODE=random UFD_SEED=3
	grep -q '^reused: no$' "$tmp/dc-random.out" || fail "double-close: number reused under mode random"
	has dc-random '^==[0-9]+==ERROR: ufd: double-close: double close of descriptor [0-9]{1,4} \(not open, was .*/scratch\)$'
	section dc-random call rsyslog_close_connection
	section dc-random "first closed" openssl_ssl_free
	section dc-random made open_file

	# Go 7970: the late write, reported as a use after close under
	# mode all (by default it lands in the other thread's file).
	run race-default write-race
	grep -q "other thread's file" "$tmp/race-default.out" || fail "write-race: the late write did not land elsewhere by default"
	run race write-race UFD_MODE=all
	has race "^==[0-9]+==ERROR: ufd: use-after-close: use after close of descriptor $vfd"
	has race '^  call by write in thread [0-9]+:$'
	section race call write_after_close
	section race closed closer
	# The close was in another thread than the write.
	t_call=$(sed -n 's/^  call by write in thread \([0-9]*\):$/\1/p' "$tmp/race.rep")
	t_close=$(sed -n 's/^  closed by close in thread \([0-9]*\):$/\1/p' "$tmp/race.rep")
	[ -n "$t_call" ] && [ "$t_call" != "$t_close" ] || fail "write-race: same thread for write and close"

	# SQLite 1.1: the write to the closed stderr is reported; once the
	# database has number 2 (never moved: a standard stream's number),
	# the next message lands in it, unseen.
	run sqlite stderr-reuse
	grep -q '^database got 2$' "$tmp/sqlite.out" || fail "stderr-reuse: database did not get 2"
	[ "$(count sqlite use-after-close)" -eq 1 ] || fail "stderr-reuse: not one report"
	has sqlite '^==[0-9]+==ERROR: ufd: use-after-close: use after close of descriptor 2 \(not open, was .*/sqlite.err\)$'
	section sqlite call log_error
	section sqlite closed daemonize

	# OpenOnload 111 / proxychains-ng 439: closefrom spans the library's
	# hidden descriptor, which survives it, reported.
	run cf closefrom
	[ "$status" -ne 77 ] || fail "closefrom: skipped: $(cat "$tmp/cf.out")"
	grep -q 'after closefrom: open$' "$tmp/cf.out" || fail "closefrom: the library's descriptor was closed"
	has cf "^==[0-9]+==ERROR: ufd: close-not-owned: close of a descriptor that is not the program's: a library's hidden descriptor \(NONSEQFD_HIDE\) $vfd \(/"
	has cf '^  call by closefrom in thread'
	section cf call daemon_close_all
	section cf made onload_lib_init
	[ "$(count cf close-not-owned)" -eq 1 ] || fail "closefrom: not one report"

	# A close-all loop by number reaches ufd's backing descriptor of a
	# virtual one: refused (the virtual descriptor stays), reported.
	run cb close-backing UFD_MODE=all
	grep -q '^backing apart$' "$tmp/cb.out" || fail "close-backing: no separate backing descriptor"
	grep -q 'after the loop: open$' "$tmp/cb.out" || fail "close-backing: the virtual descriptor was closed"
	has cb "^==[0-9]+==ERROR: ufd: close-not-owned: close of a descriptor that is not the program's: ufd's backing descriptor of a virtual one [0-9]+ \\(/"
	section cb call close_all_by_number
	[ "$(count cb close-not-owned)" -eq 1 ] || fail "close-backing: not one report"

	# FD_SET past FD_SETSIZE: reported, then glibc's fortify abort; and
	# select with nfds past it (no set: nfds - 1, the highest descriptor
	# it was asked to look at).
	run fdset fd-set
	if [ "$status" -eq 77 ]; then
		echo "SKIP fd-set: $(cat "$tmp/fdset.out")"
	else
		[ "$status" -eq 134 ] || fail "fd-set: status $status, not glibc's abort (134)"
		has fdset '^==[0-9]+==ERROR: ufd: fd-set-overflow: descriptor past FD_SETSIZE \(1024\), in no fd_set: 1100( |$)'
		has fdset '^  call by select in thread'
		has fdset '^==[0-9]+==ERROR: ufd: fd-set-overflow: descriptor past FD_SETSIZE \(1024\), in no fd_set: 1100 \(/'
		has fdset '^  call by __fdelt_chk in thread'
		section fdset call watch_fd
		section fdset call select_wide
	fi

	# runc CVE-2024-21626 class: one leak at the exec, made in
	# open_config_leaky; the dup2'd and F_SETFD-cleared ones are meant.
	run exec exec-leak
	[ "$status" -eq 0 ] || fail "exec-leak: status $status"
	[ "$(count exec exec-leak)" -eq 1 ] || { cat "$tmp/exec.rep"; fail "exec-leak: not one report"; }
	has exec '^==[0-9]+==ERROR: ufd: exec-leak: leak across exec: .* descriptor 3 \(/'
	has exec '^  crossing by execve in thread'
	section exec made open_config_leaky
	run spawn spawn-leak
	[ "$(count spawn exec-leak)" -eq 1 ] || { cat "$tmp/spawn.rep"; fail "spawn-leak: not one report"; }
	has spawn '^  crossing by posix_spawn in thread'
	section spawn made open_config_leaky

	# Leaks at exit, only with UFD_REPORT_LEAKS=1.
	run exit0 exit-leak
	[ "$(count exit0 exit-leak)" -eq 0 ] || fail "exit-leak: reported without UFD_REPORT_LEAKS"
	run exit exit-leak UFD_REPORT_LEAKS=1
	[ "$(count exit exit-leak)" -eq 1 ] || { cat "$tmp/exit.rep"; fail "exit-leak: not one report"; }
	section exit made open_and_forget

	# Records from 4 threads and from signal handlers in them, in both
	# modes: no misuse, so no report, and no deadlock.
	for mode in transparent all; do
		run churn churn UFD_MODE=$mode UFD_REPORT_LEAKS=1
		[ "$status" -eq 0 ] && grep -q '^churn done$' "$tmp/churn.out" ||
			fail "churn, mode $mode: status $status"
		[ ! -s "$tmp/churn.rep" ] || { cat "$tmp/churn.rep"; fail "churn, mode $mode: a report"; }
	done

	# Correct programs get no report (issue 23), and
	# UFD_REPORT_EXITCODE leaves their status alone: closes that failed
	# closed nothing; probes are no uses; close-all loops, in the
	# process and in a fork child, are no double closes; a fork child
	# leaks nothing its parent made.
	for mode in transparent all random; do
		for c in failed-close sweep; do
			run $c $c UFD_MODE=$mode UFD_REPORT_EXITCODE=23
			[ "$status" -eq 0 ] && [ ! -s "$tmp/$c.rep" ] ||
				{ cat "$tmp/$c.rep"; fail "$c, mode $mode: status $status, $(grep -c 'ERROR: ufd' "$tmp/$c.rep") reports"; }
		done
		# Each probe got EBADF, then the read is reported: one report.
		run probe probe UFD_MODE=$mode
		grep -q '^6 probes said closed$' "$tmp/probe.out" || fail "probe, mode $mode: $(cat "$tmp/probe.out")"
		[ "$(grep -c 'ERROR: ufd' "$tmp/probe.rep")" -eq 1 ] ||
			{ cat "$tmp/probe.rep"; fail "probe, mode $mode: not one report"; }
		has probe '^  call by (__)?read(_chk)? in thread [0-9]+:$'
		section probe call read_closed
		# One report: the second child's double close, whose making
		# is its parent's, named as such.
		run fork fork-sweep UFD_MODE=$mode UFD_REPORT_LEAKS=1
		[ "$(grep -c 'ERROR: ufd' "$tmp/fork.rep")" -eq 1 ] && [ "$(count fork double-close)" -eq 1 ] ||
			{ cat "$tmp/fork.rep"; fail "fork-sweep, mode $mode: not one report, a double close"; }
		section fork call child_double_close
		parent=$(sed -n 's/^parent //p' "$tmp/fork.out")
		has fork "^  made by open(64)? in thread [0-9]+ of process $parent, before a fork:$"
		! grep -q "in thread $parent:\$" "$tmp/fork.rep" ||
			{ cat "$tmp/fork.rep"; fail "fork-sweep, mode $mode: the parent's pid named as the child's thread"; }
		# Two closes of neighbours are no loop.
		run pair2x pair-twice UFD_MODE=$mode
		[ "$(count pair2x double-close)" -ge 1 ] || { cat "$tmp/pair2x.out"; fail "pair-twice, mode $mode: no report"; }
		section pair2x call close_pair
	done

	# A frame ufd's unwinder does not follow (over 16 KiB without a frame
	# pointer): the stack past it still comes whole, from backtrace().
	run big big-frame UFD_MODE=all
	[ "$(count big double-close)" -eq 1 ] || { cat "$tmp/big.rep" "$tmp/big.err"; fail "big-frame: not one double-close report"; }
	section big call close_with_big_buffer
	section big call big_frame_caller
	section big "first closed" big_frame_caller

	# Leaks made at one place are one report, with how many more.
	run leaks many-leaks UFD_REPORT_LEAKS=1
	[ "$(count leaks exit-leak)" -eq 2 ] || { cat "$tmp/leaks.rep"; fail "many-leaks: not two reports"; }
	has leaks '^==[0-9]+==ERROR: ufd: exit-leak: leak at exit: still open: descriptor [0-9]+ \(.*\), and 39 more like it$'
	section leaks made leak_one
	section leaks made leak_other
done

# Every creating call records what it made: test_made_fds (given in
# UFD_TEST_MADE_FDS) uses each descriptor once after closing it, and
# each such use's report names the call that made it (the i-th
# descriptor printed is the next report on its number).
# Not under ThreadSanitizer: its runtime keeps a table of descriptors
# below 2^20 and aborts on a virtual number there (socketpair's
# interceptor), and under it test_made_fds printed its clone3 line twice,
# which throws the matching below out.  The plain and the
# ASan+UBSan builds run it.
case ${preload_extra:-} in
*libtsan*) echo "made-fds under reports: skipped under TSan (see tests/report.sh)"
	UFD_TEST_MADE_FDS= ;;
esac
if [ -n "${UFD_TEST_MADE_FDS:-}" ]; then
	for mode in all transparent; do
		rm -f "$tmp/made.rep"
		env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=$mode \
			UFD_REPORT="$tmp/made.rep" "$UFD_TEST_MADE_FDS" >"$tmp/made.out" 2>&1 ||
			{ cat "$tmp/made.out"; fail "test_made_fds under reports, mode $mode"; }
		python3 - "$tmp/made.out" "$tmp/made.rep" <<'EOF' || fail "made-fds, mode $mode: a creation not recorded"
import re, sys
made = [l.rsplit(": ", 1) for l in open(sys.argv[1]).read().splitlines()
        if re.match(r"^.*: \d+$", l)]
reps = []
for b in open(sys.argv[2]).read().split("\n\n"):
    m = re.search(r"use after close of descriptor (\d+)", b)
    if m:
        c = re.search(r"^  made by (\S+) in thread", b, re.M)
        reps.append((m.group(1), c.group(1) if c else None))
assert len(made) > 30, made
j, bad = 0, 0
for call, fd in made:
    while j < len(reps) and reps[j][0] != fd:
        j += 1
    if j == len(reps) or not reps[j][1]:
        print(f"{call}: descriptor {fd}: no report of what made it")
        bad += 1
        j = 0
        continue
    print(f"{call}: {fd}: made by {reps[j][1]}")
    j += 1
sys.exit(1 if bad else 0)
EOF
	done
fi

# JSON: one object a line, with the same content.
run json double-close UFD_MODE=all UFD_REPORT_FORMAT=json
python3 - "$tmp/json.rep" <<'EOF' || fail "JSON reports"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
r = json.loads(lines[0])
summary = json.loads(lines[1])
assert summary["ufd"] == "summary" and summary["kinds"] == {"double-close": 1}, summary
assert r["kind"] == "double-close", r
assert r["call"]["call"] == "close", r
assert any(f["function"] == "rsyslog_close_connection" for f in r["call"]["stack"]), r
assert any(f["function"] == "openssl_ssl_free" for f in r["closed"]["stack"]), r
assert r["made"]["call"] in ("open", "open64"), r
EOF
run jsonleaks many-leaks UFD_REPORT_LEAKS=1 UFD_REPORT_FORMAT=json
python3 - "$tmp/jsonleaks.rep" <<'EOF' || fail "JSON reports of merged leaks"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
reps = [r for r in lines if r["ufd"] == "report"]
assert sorted(r.get("more", 0) for r in reps) == [0, 39], reps
# A merged report counts once in the summary: two reports.
assert lines[-1]["ufd"] == "summary" and lines[-1]["kinds"] == {"exit-leak": 2}, lines[-1]
EOF

# Suppressions: by kind and function glob; comments and other kinds.
printf '# known\nuse-after-close:*\ndouble-close:rsyslog_*\n' >"$tmp/supp"
run supp double-close UFD_MODE=all UFD_SUPPRESS="$tmp/supp"
[ ! -s "$tmp/supp.rep" ] || { cat "$tmp/supp.rep"; fail "suppressed report written"; }
printf 'exit-leak:rsyslog_*\n' >"$tmp/supp"
run supp2 double-close UFD_MODE=all UFD_SUPPRESS="$tmp/supp"
[ "$(count supp2 double-close)" -eq 1 ] || fail "a rule of another kind suppressed"

# The summary at exit: the counts of what was written and suppressed,
# and where; none when nothing was written (all suppressed).
has supp2 '^==[0-9]+==ERROR SUMMARY: ufd: 1 report \(double-close 1\), 0 suppressed; written to .*/supp2.rep$'
printf 'use-after-close:*\n' >"$tmp/supp"
run supp3 double-close UFD_MODE=all UFD_REPORT_LEAKS=1 UFD_SUPPRESS="$tmp/supp"
has supp3 '^==[0-9]+==ERROR SUMMARY: ufd: 2 reports \(double-close 1, exit-leak 1\), 0 suppressed; '
printf 'double-close:*\n' >"$tmp/supp"
run supp4 double-close UFD_MODE=all UFD_REPORT_LEAKS=1 UFD_SUPPRESS="$tmp/supp"
has supp4 '^==[0-9]+==ERROR SUMMARY: ufd: 1 report \(exit-leak 1\), 1 suppressed; '
run supp5 double-close UFD_MODE=all UFD_SUPPRESS="$tmp/supp"
[ ! -s "$tmp/supp5.rep" ] || { cat "$tmp/supp5.rep"; fail "a summary where nothing was written"; }

# A program that writes over its environment strings, as those that set
# their process title do (PostgreSQL, nginx): the summary still names
# the destination, and UFD_LOG still finds its file (both kept at start).
# (Not under ThreadSanitizer: python3, not built with it, reports races
# of its own under its runtime and exits 66.)
if [ -n "${UFD_TEST_EMULATOR:-}" ]; then
	echo "environment overwritten: not under $UFD_TEST_EMULATOR: $host_programs (here python3)"
else case $preload_extra in *libtsan*) echo "environment overwritten: not under $preload_extra" ;; *)
rm -f "$tmp/envc.rep" "$tmp/envc.log"
env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=all \
	UFD_REPORT="$tmp/envc.rep" UFD_LOG="$tmp/envc.log" python3 -c '
import ctypes, os
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_void_p
for name in ("UFD_REPORT", "UFD_LOG"):
    ctypes.memset(libc.getenv(name.encode()), ord("x"), len(os.environ[name]))
fd = os.open("/dev/null", os.O_RDONLY)
os.close(fd)
try:
    os.close(fd)
except OSError:
    pass' || fail "environment overwritten: status $?"
tail -n 1 "$tmp/envc.rep" | grep -q "ERROR SUMMARY: ufd: 1 report (double-close 1), 0 suppressed; written to $tmp/envc.rep\$" ||
	{ cat "$tmp/envc.rep"; fail "environment overwritten: the summary does not name the destination"; }
grep -q 'close.*26[0-9]\{7\}' "$tmp/envc.log" ||
	{ cat "$tmp/envc.log"; fail "environment overwritten: no log line of the close after it"; }
;; esac; fi

# Suppressions in Valgrind's format: frames from the top, the call's
# name as frame 0 (Valgrind's stack starts in libc's close), "..." for
# any frames, globs; blocks of other tools and their extra lines skipped.
cat >"$tmp/supp" <<'EOF'
# written for memcheck as well
{
   a-memcheck-one
   Memcheck:Param
   write(buf)
   fun:write
}
{
   rsyslog-double-close
   CoreError:FdBadClose
   fun:close
   fun:rsyslog_close_*
   fun:double_close
}
EOF
run vsupp double-close UFD_MODE=all UFD_REPORT_LEAKS=1 UFD_SUPPRESS="$tmp/supp"
[ "$(count vsupp double-close)" -eq 0 ] && [ "$(count vsupp exit-leak)" -eq 1 ] ||
	{ cat "$tmp/vsupp.rep" "$tmp/vsupp.err"; fail "Valgrind-format suppression of the double close"; }
[ ! -s "$tmp/vsupp.err" ] || { cat "$tmp/vsupp.err"; fail "Valgrind-format suppressions: a complaint"; }
# The same frames one lower do not match: matching starts at frame 0.
printf '{\n x\n CoreError:FdBadClose\n fun:rsyslog_close_*\n}\n' >"$tmp/supp"
run vsupp2 double-close UFD_MODE=all UFD_SUPPRESS="$tmp/supp"
[ "$(count vsupp2 double-close)" -eq 1 ] || fail "Valgrind format: a block matched below frame 0"
# "..." reaches down; obj: names the module; another kind does not.
printf '{\n x\n CoreError:FdBadClose\n obj:*libc.so*\n ...\n fun:double_close\n}\n' >"$tmp/supp"
run vsupp3 double-close UFD_MODE=all UFD_SUPPRESS="$tmp/supp"
[ "$(count vsupp3 double-close)" -eq 0 ] || fail "Valgrind format: ... and obj: did not match"
printf '{\n x\n CoreError:FdNotClosed\n ...\n}\n{\n y\n CoreError:FdBadUse\n ...\n}\n' >"$tmp/supp"
run vsupp4 double-close UFD_MODE=all UFD_REPORT_LEAKS=1 UFD_SUPPRESS="$tmp/supp"
[ "$(count vsupp4 double-close)" -eq 1 ] && [ "$(count vsupp4 exit-leak)" -eq 0 ] ||
	{ cat "$tmp/vsupp4.rep"; fail "Valgrind format: kinds (FdNotClosed suppresses leaks, FdBadUse no close)"; }
# A malformed block and an unknown core kind are said, and skipped.
printf '{\n x\n CoreError:FdNoSuchKind\n ...\n}\n{\n y\n CoreError:FdBadClose\n fun:close\n' >"$tmp/supp"
run vsupp5 double-close UFD_MODE=all UFD_SUPPRESS="$tmp/supp"
[ "$(count vsupp5 double-close)" -eq 1 ] || fail "Valgrind format: a broken block suppressed"
grep -q 'unknown CoreError kind "FdNoSuchKind"' "$tmp/vsupp5.err" &&
	grep -q 'a block without its "}"' "$tmp/vsupp5.err" ||
	{ cat "$tmp/vsupp5.err"; fail "Valgrind format: malformed blocks not said"; }

# UFD_REPORT_EXITCODE: a process that reported exits with it; one that
# did not (suppressed) keeps its status.
run code double-close UFD_MODE=all UFD_REPORT_EXITCODE=23
[ "$status" -eq 23 ] || fail "UFD_REPORT_EXITCODE=23: status $status"
printf '*:rsyslog_*\n' >"$tmp/supp"
run code0 double-close UFD_MODE=all UFD_REPORT_EXITCODE=23 UFD_SUPPRESS="$tmp/supp"
[ "$status" -eq 0 ] || fail "suppressed, UFD_REPORT_EXITCODE=23: status $status"

# No UFD_REPORT, no report: the double close goes unsaid.
env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=all \
	"$cases" double-close "$tmp/scratch" >"$tmp/off.out" 2>"$tmp/off.err" ||
	fail "without reports: status $?"
! grep -q 'ERROR: ufd' "$tmp/off.err" || fail "a report without UFD_REPORT"

# The program's path, found at start-up without /proc where the kernel's
# AT_EXECFN is the program: run by a relative path, its frames still name
# it by its absolute path, with its static functions; a script's frames
# name its interpreter (with its static functions), not the script.
dir=$(dirname "$cases")
(cd "$dir" && env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=all \
	UFD_REPORT="$tmp/rel.rep" "./$(basename "$cases")" double-close "$tmp/scratch" \
	>/dev/null 2>&1) || fail "relative path: status $?"
grep -Eq "^    #0 0x[0-9a-f]+ in rsyslog_close_connection\+0x[0-9a-f]+ \($(cd "$dir" && pwd)/$(basename "$cases")\+0x[0-9a-f]+\)$" "$tmp/rel.rep" ||
	{ cat "$tmp/rel.rep"; fail "run by a relative path: the frame does not name the program by its absolute path"; }
# A script whose interpreter is the test program (the kernel runs it with
# the script's path as its last argument, its scratch file here).
abs=$(cd "$dir" && pwd)/$(basename "$cases")
printf '#!%s double-close\n' "$abs" >"$tmp/script"
chmod +x "$tmp/script"
env LD_PRELOAD="${preload_extra:+$preload_extra }$lib" UFD_MODE=all \
	UFD_REPORT="$tmp/script.rep" "$tmp/script" >/dev/null 2>&1 || fail "script: status $?"
grep -Eq "^    #0 0x[0-9a-f]+ in rsyslog_close_connection\+0x[0-9a-f]+ \($abs\+0x[0-9a-f]+\)$" "$tmp/script.rep" ||
	{ cat "$tmp/script.rep"; fail "a script's frames do not name its interpreter $abs"; }

echo "PASS: every kind reported with its call and stacks"
