#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the spawners of real programs make a real vfork under
# UFD_MODE=all and random, UFD_CLOEXEC and UFD_REPORT while no virtual
# descriptor is live (issue 27: a fork there cost each command of a shell
# its page tables), and their children still work: dash's loop of three
# commands (three vforks in every setting), CPython's subprocess with
# close_fds and pass_fds (vfork, then dup2, close_range and exec in the
# child; a vfork except under UFD_MODE=all, whose pipes are virtual
# descriptors): the output is right and nothing is reported.  The vforks
# are counted with strace (ufd's vfork is a clone with CLONE_VFORK).
# Usage: vfork_spawn.sh
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
strace -f -o /dev/null /bin/true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
[ -n "$preload_extra" ] && { echo "SKIP: a sanitizer runtime comes first in LD_PRELOAD"; exit 77; }
[ -n "${UFD_TEST_EMULATOR:-}" ] && { echo "SKIP: qemu-user runs vfork as fork"; exit 77; }
dash=$(command -v dash) || { echo "SKIP: no dash"; exit 77; }
python=$(command -v python3 || true)

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/spawn.py" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.write(w, b"passed")
os.close(w)
out = subprocess.run(["/bin/cat", "/dev/fd/%d" % r], stdout=subprocess.PIPE,
                     close_fds=True, pass_fds=[r]).stdout
os.close(r)
sys.stdout.write(out.decode() + "\n")
PY

vforks() {
	grep -c 'CLONE_VFORK' "$dir/trace" || true
}

for setting in UFD_MODE=all UFD_MODE=random UFD_CLOEXEC=1 "UFD_REPORT=$dir/report" \
	"UFD_MODE=random UFD_REPORT=$dir/report"; do
	rm -f "$dir/report"
	# shellcheck disable=SC2086
	out=$(env $setting LD_PRELOAD="$UFD_TEST_PRELOAD" strace -f -qq -o "$dir/trace" \
		-e trace=clone,clone3,vfork,fork "$dash" -c \
		'for i in 1 2 3; do /bin/echo $i; done') || fail "$setting: the shell failed"
	n=$(vforks)
	echo "$setting: dash's loop of 3 commands: $n vforks"
	[ "$out" = "$(printf '1\n2\n3')" ] || fail "$setting: the loop said '$out'"
	[ "$n" -eq 3 ] || fail "$setting: $n vforks for 3 commands"
	[ ! -s "$dir/report" ] || fail "$setting: reports: $(cat "$dir/report")"
	[ -n "$python" ] || continue
	# shellcheck disable=SC2086
	out=$(env $setting LD_PRELOAD="$UFD_TEST_PRELOAD" strace -f -qq -o "$dir/trace" \
		-e trace=clone,clone3,vfork,fork "$python" "$dir/spawn.py") ||
		fail "$setting: the Python spawner failed"
	n=$(vforks)
	echo "$setting: CPython's subprocess: $n vforks"
	[ "$out" = passed ] || fail "$setting: the child said '$out'"
	case $setting in
	UFD_MODE=all) [ "$n" -eq 0 ] || fail "$setting: a vfork with virtual pipes open" ;;
	*) [ "$n" -eq 1 ] || fail "$setting: $n vforks, not 1" ;;
	esac
	[ ! -s "$dir/report" ] || fail "$setting: reports: $(cat "$dir/report")"
done
[ -n "$python" ] || echo "(no python3: CPython's subprocess not run)"
exit 0
