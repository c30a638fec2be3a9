# ls -l /dev/fd/ from a bash that holds a descriptor it chose ({x}>:
# virtual under UFD_MODE=all, 10 without) and one at a number it was told
# (7: real in both runs). ls lists its own directory descriptor too (3
# without ufd; virtual under UFD_MODE=all, where opendir's descriptor is).
# Usage: devfd.bash [LS OPTION...]; run in an empty directory.
exec {x}> written; exec 7> seven
ls -l "$@" /dev/fd/ > listing
# The mode, the name and the target; not the dates, the pipes' inode
# numbers or ls's pid, which differ from run to run anyway.
awk 'NR > 1 { sub(/\[[0-9]+\]/, "", $11); sub(/^\/proc\/[0-9]+\//, "/proc/PID/", $11); print $1, $9, $10, $11 }' listing
rm listing
