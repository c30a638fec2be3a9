# busybox's applets, one program with its own shell and tools: ash with
# exec 3>, a pipeline into a read, a here-document, subshells and
# background jobs; sort, xargs, find -exec, gzip and gunzip through pipes,
# tar to and from a pipe, tee, awk's "cmd" | getline and print | "cmd",
# timeout. Run in an empty directory with sh.
set -eu
export LC_ALL=C
b=busybox
$b sh -c 'exec 3>out3; echo three >&3; exec 3>&-; cat out3
echo a | { read x; echo "read $x"; }
cat <<E
heredoc $((1 + 2))
E
(echo sub; exit 3) || echo "status $?"
for i in 1 2 3; do echo "job $i" > job$i & done; wait; cat job1 job2 job3'
seq 100 | $b sort -rn | $b head -3
seq 20 | $b xargs -n 5 echo
$b find . -name 'job*' -exec $b cat {} \; | $b sort
echo hello | $b gzip | $b gunzip
mkdir t; seq 1000 > t/x; $b tar cf - t | $b tar tf -
echo abc | $b tee t/tee.out | $b wc -c; $b cat t/tee.out
$b awk 'BEGIN { while (("echo piped" | getline l) > 0) print "awk", l; print "z\ny" | "sort"; close("sort") }'
$b timeout 5 $b sleep 0.1; echo "timeout $?"
