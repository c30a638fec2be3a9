#!/bin/sh
# bench/calls.sh [BUILD_DIR] - kept for the old command line: bench/run
# prints every operation's instruction counts now.
exec "$(dirname "$0")/run" --quick "$@"
