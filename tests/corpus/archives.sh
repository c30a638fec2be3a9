# find and xargs over a tree; tar and gzip: create and extract archives
# (tar's own -z runs gzip as a child through a pipe; tar -c | gzip and
# gunzip | tar -x are pipelines), list, compare and append; gzip -k, -d
# and -t on files; xz and bzip2 through tar as well. Run in an empty
# directory with sh.
set -eu
export LC_ALL=C TZ=UTC
mkdir -p tree/a/b/c tree/d tree/"with space"
for i in 1 2 3 4 5 6 7 8 9; do seq 1 $((i * 500)) > tree/a/file$i.txt; done
seq 1 3000 > tree/a/b/c/deep.log
printf 'x\n' > tree/d/x.dat
printf 'spaced\n' > "tree/with space/name with space.txt"
ln -s ../a/file1.txt tree/d/link
printf '%s\n' a b c | xargs -I{} sh -c 'echo item {} > tree/d/{}.item'
# Fixed times, so that archives are the same in both runs.
find tree -exec touch -h -d '2024-01-01 00:00:00' {} +

# find: names, types, sizes, -exec with ; and +, -print0 into xargs -0.
find tree -name '*.txt' | sort
find tree -type d | sort | tr '\n' ' '; echo
find tree -type l -printf '%p -> %l\n'
find tree -size +10k -name '*.txt' | sort
find tree -name 'file[12].txt' -exec wc -l {} \; | sort
find tree -name '*.txt' -exec cat {} + | wc -l
find tree -type f -print0 | sort -z | xargs -0 md5sum
find tree -type f -name 'file*' | sort | xargs -n 3 echo | wc -l
find tree -type f -name 'file*' | sort | xargs -P 2 -n 2 wc -c | grep -v total | sort
find tree -newer tree/a/file1.txt | wc -l
ls tree/d

# tar and gzip. --sort=name, --mtime, owners fixed: a reproducible archive.
tarx() { tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2024-01-01 00:00:00' "$@"; }
tarx -cf tree.tar tree
tar -tvf tree.tar | awk '{print $1, $3, $6}' | head -n 5
tarx -czf tree.tar.gz tree
tar -tzf tree.tar.gz | wc -l
tarx -cf - tree | gzip -n -9 > piped.tar.gz
gzip -t piped.tar.gz && echo "gzip -t: ok"
mkdir out1 out2 out3
tar -xzf tree.tar.gz -C out1
gunzip -c piped.tar.gz | tar -xf - -C out2
tar -xf tree.tar -C out3 --wildcards '*/c/*'
diff -r tree out1/tree && echo "tar -xz: same"
diff -r tree out2/tree && echo "gunzip | tar -x: same"
find out3 -type f
tar -df tree.tar && echo "tar -d: no differences"
echo appended > extra; tarx -rf tree.tar extra; tar -tf tree.tar | tail -n 1
gzip -k -n extra; gzip -l extra.gz | tail -n 1 | awk '{print $2}'
gzip -d -c extra.gz; zcat extra.gz | wc -c
gzip -n -c tree.tar | gzip -d | cmp - tree.tar && echo "gzip | gunzip: same"
tarx -cJf tree.tar.xz tree; tar -tJf tree.tar.xz | wc -l
tarx -cjf tree.tar.bz2 tree; tar -tjf tree.tar.bz2 | wc -l
md5sum tree.tar.gz piped.tar.gz
rm -rf out1 out2
