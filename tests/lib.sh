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

# Programs libufd.so cannot be loaded into, made in directory $1 with C
# compiler $2, for the launchers' tests: elf32 and foreign, copies of
# true(1) whose ELF class (32-bit) or machine (40, 32-bit ARM) is
# changed; static, a statically linked program that prints "static ran"
# and exits 3, and static.sh, a #! script run by it through env (PATH must
# hold $1).  static is made only where the C library has a static archive
# (libc.a, in libc6-dev): otherwise static_skip says why.
make_unloadable() {
	for dyn in /usr/bin/true /bin/true; do [ -x "$dyn" ] && break; done
	cp "$dyn" "$1/elf32" && cp "$dyn" "$1/foreign" || exit 1
	printf '\001' | dd of="$1/elf32" bs=1 seek=4 conv=notrunc 2>/dev/null || exit 1
	printf '\050\000' | dd of="$1/foreign" bs=1 seek=18 conv=notrunc 2>/dev/null || exit 1
	static_skip=
	case $("$2" -print-file-name=libc.a 2>/dev/null) in
	/*) ;;
	*) static_skip="no libc.a for $2 (libc6-dev): static programs not tested"; return 0 ;;
	esac
	printf '#include <stdio.h>\nint main(void) { puts("static ran"); return 3; }\n' >"$1/static.c"
	"$2" -static -o "$1/static" "$1/static.c" ||
		fail "$2 -static could not build a program although it has libc.a"
	printf '#!/usr/bin/env static\n' >"$1/static.sh"
	chmod +x "$1/static.sh"
}

# same_toolchain SOURCE_ROOT COMPILER: is this the toolchain the
# instruction counts were measured with (bench/toolchain.txt)?  COMPILER
# is the build's, as meson names it ("gcc 12.2.0"); the C library is this
# system's.  Sets toolchain (this one) and reference (the file's).
same_toolchain() {
	toolchain="$2, $(getconf GNU_LIBC_VERSION 2>/dev/null || echo 'an unknown C library')"
	reference=$(grep -v '^#' "$1/bench/toolchain.txt" | head -1)
	[ "$toolchain" = "$reference" ]
}

# skip_under_emulator REASON: under an emulator (UFD_TEST_EMULATOR, set in
# a cross build run under qemu-user: tests/meson.build), say why and skip.
skip_under_emulator() {
	if [ -n "${UFD_TEST_EMULATOR:-}" ]; then
		echo "SKIP under $UFD_TEST_EMULATOR: $*"
		exit 77
	fi
}
# The reason of the tests whose subjects are the host's programs.
host_programs="the host's programs (bash, sh, coreutils) run under ufd here, and on this machine they are x86-64: the aarch64 libufd.so cannot be loaded into them"

