# tests/lib.sh - sourced by the test scripts (". "$(dirname "$0")/lib.sh"):
# fail, and what LD_PRELOAD must hold before libufd.so.
#
# UFD_TEST_PRELOAD is what the test runner would preload: libufd.so, and in
# a sanitizer build the sanitizer's runtime, which must come first.  The
# launchers (ufd-run, ufd-compare) add libufd.so themselves, so
# preload_extra is the rest: run them as LD_PRELOAD=$preload_extra ufd-run.

fail() {
	echo "FAIL: $*"
	exit 1
}

preload_extra=
for preload_lib in $(echo "${UFD_TEST_PRELOAD:-}" | tr ':' ' '); do
	case $preload_lib in
	*libufd.so*) ;;
	*) preload_extra="$preload_extra $preload_lib" ;;
	esac
done
preload_extra=${preload_extra# }
unset preload_lib

# A leak report at exit would change the exit status of the program under
# test: the leak checks are the unit tests' job.
export ASAN_OPTIONS=detect_leaks=0
