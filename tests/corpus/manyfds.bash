# bash holding 9,000 descriptors it chose ({x}>, virtual under
# UFD_MODE=all), then running a program, which inherits them all. The
# kernel passes any number of descriptors through exec; ufd's hand-off
# is one environment string, limited by the kernel to 128 KiB
# (MAX_ARG_STRLEN), so a list that long goes in a memfd. Run in an empty
# directory.
n=9000
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge $((2 * n + 100)) ] ||
	{ echo "hard RLIMIT_NOFILE below $((2 * n + 100))"; exit 0; }
ulimit -n $((2 * n + 100))
i=0
while [ $i -lt $n ]; do exec {x}> /dev/null; i=$((i + 1)); done
ls /proc/self/fd | wc -l
