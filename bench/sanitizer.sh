#!/bin/sh
# bench/sanitizer.sh [--table] [BUILD_DIR] - the descriptor sanitizer
# (UFD_REPORT) on whole programs (issue 24, items 6 and 7): CPU time of a
# shell loop of 200 commands, a Python script making 225,000 descriptor
# calls and open/read/close 1,000,000 times, bare, under UFD_MODE=random
# and under UFD_MODE=random with reports on, in paired rounds (the median
# of each round's ratio, with its quartiles), and valgrind where
# installed; then fork + execve + waitpid with reports off and on.
# The work is bench/sanitizer.py's (its comment says how and the
# settings); --table prints only README.md's table
# (tools/update-readme-sanitizer).
set -eu
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
exec python3 "$(dirname "$0")/sanitizer.py" "$@"
