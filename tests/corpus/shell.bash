# bash: redirections, here-documents and here-strings, pipelines, exec
# onto fixed numbers and onto numbers bash chooses ({var}>), process
# substitution, subshells, command substitution, while-read loops from
# files and from chosen descriptors, a coprocess, children reading an
# inherited descriptor. Run in an empty directory with bash.
#
# Under UFD_MODE=all bash is slow here (README, Corpus): a process's first
# read redirection onto a virtual number (<, <>, <&, a here-document)
# grows bash's table of buffered input streams, indexed by descriptor, to
# 2^28 entries (2 GiB, cleared: a second or more), and each pipe of a
# pipeline gets a bitmap of 2^28 bytes that the child walks. A process
# forked after the table has grown shares it, so this shell grows it once
# at the start, and pipelines are few.
set -e
exec {early}< /dev/null; exec {early}<&-
seq 1 50 > numbers
printf '%s\n' pear apple fig > fruit

# Output redirections: >, >>, 2>, 2>&1, &>, >|, <>.
echo one > out; echo two >> out; cat out
ls no-such-file 2> err || true; sed 's/^ls: //' err
{ echo to-stdout; echo to-stderr >&2; } > both 2>&1; cat both
echo all &> amp; set -o noclobber; echo clobbered >| amp; set +o noclobber; cat amp
exec 7> seven; echo via-7 >&7; exec 7>&-; cat seven
exec {w}> chosen; echo "via-chosen" >&$w; exec {w}>&-; cat chosen
exec {a}> moved; exec {b}>&$a-; echo via-moved >&$b; exec {b}>&-; cat moved

# Pipelines, with PIPESTATUS, pipefail and |&.
sort fruit | tr a-z A-Z | sed -n 1,2p
false | true; echo "PIPESTATUS ${PIPESTATUS[*]}"
( set -o pipefail; false | true ) || echo "pipefail $?"
{ echo stderr-piped >&2; } |& cat

# Process substitution, both directions.
diff <(sort fruit) <(sort -r fruit) > /dev/null || echo "differ in order"
paste <(seq 1 3) <(seq 4 6)
echo to-substitution > >(cat > subst); wait $!; cat subst

# Subshells, command substitution, background jobs, functions.
x=outer; (x=inner; echo "subshell $x"); echo "parent $x"
count=$(grep -c 5 numbers); echo "count $count"
nested=$(echo "$(echo "$(wc -l fruit)")"); echo "nested $nested"
( echo background > bg ) & wait $!; cat bg
log() { echo "log: $*" >&3; }
exec 3> log; log first; log second; exec 3>&-; cat log

# Read redirections in children: a file, a here-document, a here-string.
cat < out
tr a-z A-Z <<END
here-document: $(grep -c . numbers) lines
END
tr a-z A-Z <<< "here-string"

# Read redirections in this shell.
exec 8< fruit; read -r first <&8; exec 9<&8; read -r second <&9; exec 8<&- 9<&-
echo "read $first then $second"
exec {r}< numbers; read -r line <&$r; read -r line <&$r; echo "then $line"; exec {r}<&-
echo rw 1<> rw; read -r back < rw; echo "read back $back"
read -r quoted <<'END'
quoted: $HOME stays as written
END
echo "$quoted"
sum=0; while read -r n; do sum=$((sum + n)); done < numbers; echo "sum $sum"
while IFS=: read -r user _ uid _; do [ "$user" = root ] && echo "root uid $uid"; done < /etc/passwd
exec {f}< fruit
while read -r -u "$f" fr; do printf '%s;' "$fr"; done; echo; exec {f}<&-
while read -r n; do echo "line $n"; done < <(sed -n 1,2p numbers)
mapfile -t lines < fruit; echo "mapfile ${#lines[@]}: ${lines[*]}"
# A coprocess: two pipes whose descriptors bash keeps in COPROC.
coproc tr a-z A-Z
echo "to the coprocess" >&"${COPROC[1]}"; exec {COPROC[1]}>&-
read -r -u "${COPROC[0]}" upper; echo "$upper"; wait
# Children inheriting a descriptor bash chose: by number and by /dev/fd.
exec {v}< fruit; perl -e 'open(my $f, "<&=", $ARGV[0]) or die; print <$f>' "$v"; exec {v}<&-
exec {v}< numbers; head -n 1 "/dev/fd/$v"; exec {v}<&-
echo done
