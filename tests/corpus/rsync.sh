# rsync copying a tree locally: its sender, generator and receiver are
# processes joined by a socketpair and pipes, each with its own poll loop:
# a first copy,
# --delete after a change, --checksum, -z, --inplace, --link-dest and
# --files-from; each copy compared with the source. Run in an empty
# directory with sh.
set -eu
export LC_ALL=C TZ=UTC
mkdir -p src/a/b src/c
for i in 1 2 3 4 5; do seq $((i * 2000)) > src/a/f$i; done
echo x > src/a/b/g; ln -s f1 src/a/link; printf 'bin\0\1\2' > src/c/bin
touch -d 2020-01-01 src/a/f* src/a/b/g src/c/bin
rsync -a src/ dst/ && diff -r src dst && echo "copied"
echo changed >> src/a/f2; rm src/a/f3; touch -d 2020-01-02 src/a/f2 src/a
rsync -a --delete --itemize-changes src/ dst/ | sort
diff -r src dst && echo "synced with --delete"
rsync -a --checksum src/ sum/ && diff -r src sum && echo "copied with --checksum"
rsync -az --inplace src/ z/ && diff -r src z && echo "copied with -z --inplace"
rsync -a --link-dest="$PWD/dst" src/ linked/ && diff -r src linked &&
	[ "$(stat -c %h linked/a/f1)" = 2 ] && echo "hard-linked with --link-dest"
printf 'a/f1\nc/bin\n' > list
rsync -a --files-from=list src/ some/ && find some -type f | sort
