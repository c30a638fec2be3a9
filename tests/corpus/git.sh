# git in a fresh repository: init, add, commit, branch, merge, log, diff,
# status, a tag, gc (pack-objects and index-pack through pipes), a clone
# over the local transport (upload-pack and fetch-pack talking through
# pipes) and fsck. Hermetic: no system or global configuration, fixed
# identities and dates, so hashes and output are the same in every run.
# Run in an empty directory.
set -e
export HOME="$PWD" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Corpus GIT_AUTHOR_EMAIL=corpus@example.org
export GIT_COMMITTER_NAME=Corpus GIT_COMMITTER_EMAIL=corpus@example.org
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
export GIT_PAGER=cat PAGER=cat LC_ALL=C TZ=UTC
git -c init.defaultBranch=main init -q repo
cd repo
seq 1 100 > numbers
printf 'hello\n' > greeting
git add numbers greeting
git commit -q -m 'first'
git checkout -q -b side
sed -i 's/^50$/fifty/' numbers
git commit -q -am 'fifty on side'
git checkout -q main
echo world >> greeting
git commit -q -am 'world on main'
git merge -q --no-edit side
git tag -a v1 -m 'version 1'
git log --graph --format='%h %s (%an, %ad)' --date=iso
git diff --stat HEAD~2 HEAD
git show --format=%H -s v1
git status --short --branch
echo untracked > new
git status --porcelain
git ls-files -s
git cat-file -p HEAD | sed -n '1,3p'
git gc -q
git count-objects -v | grep -v size
git fsck --strict 2>&1
# Child processes and pipes: stash, grep, format-patch and am, rebase
# --exec (a shell per commit), bisect run, a worktree, archive | tar.
echo change >> greeting; git stash -q; git stash list | wc -l; git stash pop -q
git checkout -q greeting
git grep -n -e fifty -e world
git format-patch -q -1 -o ../patches v1~1
git checkout -q -b applied main~2; git am -q ../patches/*.patch; git log -1 --format='%h %s'
git rebase -q --force-rebase --exec 'git log -1 --format=%s >> ../rebased' main~2
git checkout -q main
git bisect start main main~2 >/dev/null
git bisect run sh -c '! grep -q fifty numbers' > ../bisect.out 2>&1
sed -n 's/ is the first bad commit$//p' ../bisect.out; rm ../bisect.out
git bisect reset >/dev/null 2>&1
git worktree add -q ../wt applied 2>/dev/null; git -C ../wt log -1 --format=%s
git worktree remove ../wt
git archive --format=tar v1 | tar -tf - | sort
cd ..
git clone -q repo clone
git -C clone log --oneline
git -C clone rev-parse HEAD main@{u}
git -C clone describe
# The index holds the files' stat data (times, inode numbers), which no
# two runs share.
rm -f repo/.git/index clone/.git/index
