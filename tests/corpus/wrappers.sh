# Programs that set up descriptors for another: script (a pseudo-terminal
# pair, the command's output copied through poll), flock (a lock on a
# file or on a descriptor the shell opened), timeout, nohup, setsid,
# stdbuf, env; awk's pipes to and from commands (popen) and system();
# a FIFO; tail -f following a growing file (inotify) until the writer
# exits. Run in an empty directory with sh.
set -eu
export LC_ALL=C SHELL=/bin/sh
script -q -e -c 'tty | sed "s/[0-9]*$/N/"; echo "in a pty"; stty size' typescript
# The typescript's first and last lines hold the date.
sed '1d;$d' typescript | tr -d '\r'; rm typescript
touch lockfile
flock lockfile -c 'echo "locked by flock"'
flock -n lockfile true && echo "free again"
( flock -x 8; echo "locked through descriptor 8"; flock -n lockfile true || echo "taken while held" ) 8> lockfile
timeout 10 sh -c 'echo "under timeout"'; timeout -s KILL 0.2 sleep 5 || echo "timeout status $?"
nohup sh -c 'echo "under nohup"' > nohup.out 2>/dev/null; cat nohup.out
setsid -w sh -c 'echo "in a new session"'
stdbuf -oL -eL sh -c 'echo "under stdbuf"'
# env -i empties the environment, but ufd's exec puts LD_PRELOAD back (it
# keeps itself loaded in every program it execs: README, Fork, exec).
env -i PATH="$PATH" sh -c 'echo "env -i: $(env | grep -v ^LD_PRELOAD= | sort | cut -d= -f1 | paste -s -d" " -)"'
awk 'BEGIN {
	while (("seq 3" | getline l) > 0) print "awk got", l
	print "b\na" | "sort"; close("sort")
	system("echo awk system")
	print "awk wrote" > "awk.out"; close("awk.out")
	while ((getline l < "awk.out") > 0) print "awk read back:", l
}'
mkfifo fifo
( echo "through a FIFO" > fifo ) & cat fifo; wait
rm fifo
seq 1 3 > growing
( for i in 4 5 6; do sleep 0.1; echo $i >> growing; done ) &
tail -n 1 -s 0.05 -f --pid=$! growing
