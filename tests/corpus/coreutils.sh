# coreutils on files and pipes: cat, cp, mv, ln, tee to several files,
# split and reassembly, head and tail (by lines, bytes, from a pipe), sort
# with a buffer small enough to spill into temporary files and merge
# them, uniq, comm, join, paste, cut, tr, wc, md5sum, od, dd, install,
# truncate, stat, touch with a fixed date, du, readlink. Run in an empty
# directory with sh.
set -eu
export LC_ALL=C TZ=UTC
seq 1 50000 > numbers
# A shuffled copy, the same in every run.
awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' numbers | sort -k1,1 | cut -f2 > shuffled
cat numbers numbers > twice
cp numbers copy; cp -p shuffled copy-p; cp -r . ../copy-$$ 2>/dev/null || true; rm -rf ../copy-$$
cmp numbers copy && echo "cp: same"
mv copy moved; ln moved hard; ln -s moved soft
readlink soft; stat -c '%h %s' hard
tee t1 t2 t3 < numbers | wc -l; cat t1 t2 t3 | md5sum; rm t2 t3
# split by lines and by bytes, then put back together.
split -l 7000 numbers part.; ls part.*; cat part.* | cmp - numbers && echo "split -l: same"
split -b 10000 -d -a 3 shuffled chunk; ls chunk* | wc -l; cat chunk* | cmp - shuffled && echo "split -b: same"
split -n l/3 --additional-suffix=.txt numbers third.; wc -l third.*; rm part.* chunk* third.*
head -n 3 numbers; head -c 10 shuffled | od -c | head -n 1
tail -n 2 numbers; tail -c 12 numbers; tail -n +49999 numbers
seq 1 100000 | head -n 2; seq 1 100000 | tail -n 1
# sort -S 64K on 50,000 lines spills about a hundred temporary files into
# -T . and merges them 16 at a time.
sort -S 64K -T . -n shuffled > sorted; cmp sorted numbers && echo "sort -S: same"
sort -S 64K -T . --parallel=2 -r shuffled | sed -n 1,2p
sort -m -n numbers numbers | uniq -c | sort -k1,1n -k2,2n | tail -n 1
sort -u -k1,1 twice | wc -l
seq 1 2 20 | sort > odd; seq 1 3 20 | sort > third
comm -12 odd third | paste -s -d,
printf '1 a\n2 b\n' > left; printf '1 x\n2 y\n3 z\n' > right; join -a 2 left right
paste odd third | head -n 2; cut -c1-2 numbers | sort | uniq | wc -l
tr 0-9 a-j < odd | tr -d '\n'; echo
wc numbers twice; md5sum numbers sorted | cut -d' ' -f1
dd if=numbers of=dd.out bs=1000 count=5 skip=2 status=none; wc -c dd.out
dd if=numbers bs=7 count=3 status=none | od -An -c
install -m 640 odd installed; stat -c '%a %s' installed
truncate -s 100 installed; truncate -s +5 installed; stat -c %s installed
touch -d '2024-01-01 00:00:00' installed; stat -c %y installed; ls -l --time-style=+%F installed | cut -d' ' -f1,5-
du -b numbers; printf '%s\n' * | sort
rm -f numbers twice moved hard soft shuffled sorted
