#!/bin/sh
# Description: the audit (tests/audit.py) on what glibc 2.39-2.41 added:
# against their headers' prototypes (tests/audit_glibc/) and a library
# exporting their names, it must list pidfd_getpid and
# posix_spawnattr_setcgroup_np (take a descriptor), pidfd_spawn,
# pidfd_spawnp and posix_spawnattr_getcgroup_np (return one through a
# pointer) as missing from a calls.def without their rows (calls.def has
# them since; the test is of the heuristic).  Skips (77) where audit.py does (no nm).
# Usage: audit_glibc.sh AUDIT_PY CALLS_DEF NOT_NEEDED FAKE_LIBC HEADERS
set -u
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
grep -Ev '^UFD_[A-Z]+\((pidfd_getpid|pidfd_spawn|pidfd_spawnp|posix_spawnattr_[gs]etcgroup_np),' "$2" >"$tmp"
out=$("$1" "$tmp" "$3" "$4" "$5")
rc=$?
[ $rc -eq 77 ] && { echo "$out"; exit 77; }
echo "$out"
[ $rc -eq 1 ] || fail "audit exit $rc, not 1, with pidfd_spawn, pidfd_spawnp and pidfd_getpid not in calls.def"
case $out in *"missing: pidfd_getpid: takes a descriptor"*) ;;
*) fail "the audit does not list pidfd_getpid" ;; esac
case $out in *"missing: posix_spawnattr_setcgroup_np: takes a descriptor"*) ;;
*) fail "the audit does not list posix_spawnattr_setcgroup_np" ;; esac
for name in pidfd_spawn pidfd_spawnp posix_spawnattr_getcgroup_np; do
	case $out in
	*"missing: $name: returns a descriptor through a pointer"*) ;;
	*) fail "the audit does not list $name" ;;
	esac
done
echo "PASS: the audit lists glibc 2.39-2.41's pidfd_getpid, pidfd_spawn, pidfd_spawnp, posix_spawnattr_[gs]etcgroup_np"
