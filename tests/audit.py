#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
audit.py - the functions glibc exports that take or return a descriptor,
against calls.def.

    audit.py CALLS_DEF NOT_NEEDED [LIBC [INCLUDE_DIR]]

A function is listed when libc.so.6 exports it (nm -D, any public version)
and either a prototype in the installed headers (INCLUDE_DIR, default
/usr/include, and its subdirectories) has a parameter named as glibc names
descriptors (__fd, __fildes, __dfd, __newfd, __sockfd, __mqdes, ...),
also through a pointer or an array (int *__pidfd, int __pipedes[2]: it
returns one there), or it is in RETURNS below (it returns a new
descriptor).  Each must be a row
of calls.def or a line of NOT_NEEDED ("name  reason": why it needs
nothing).  So must every other name libc exports at the address of a
row's function (an alias: __fcntl of fcntl, _IO_fdopen of fdopen), which
programs built against older headers call.  glibc's internal calls are not interposable, so "it calls an
interposed function" is no reason: only a function that never sees a
virtual number, or whose every use is covered by another entry point, is
not needed.  Prints what is missing, and the lines of NOT_NEEDED that name
nothing the audit lists (stale), and exits 1 if either is non-empty; 77
(skip) without the headers, nm or libc.
"""
import os
import re
import shutil
import subprocess
import sys

# Parameter names glibc's headers give descriptors: int, unsigned int or
# mqd_t, named one of these; also through a pointer or an array (int
# *__pidfd, int __pipedes[2]), where a function returns a descriptor, as
# glibc 2.39's pidfd_spawn does.
FD_PARAM = re.compile(
    r"(?:^|[(,])\s*(?:const\s+)?(?:(?:unsigned\s+)?int|mqd_t)\s*"
    r"(?:(\*)\s*(?:__restrict\s+|restrict\s+)?|\s)"
    r"(__(?:fd\d?|fildes|dfd|\w+_dfd|dirfd|epfd|ufd|out_fd|in_fd|fdout|fdin|"
    r"tofd|fromfd|sockfd|pipedes|pidfd|pid_fd|oldfd|newfd|targetfd|tcfd|"
    r"outfd|infd|mountdirfd|lowfd|fanotify_fd|mqdes|fds|from|tty|s|"
    r"amaster|aslave|cgroup))\b")

# Functions that return a new descriptor (or write one into an array),
# whatever their parameters are called: maintained by hand.
RETURNS = """
open open64 openat openat64 __open_2 __open64_2 __openat_2 __openat64_2
creat creat64 open_by_handle_at mkstemp mkstemp64 mkstemps mkstemps64
mkostemp mkostemp64 mkostemps mkostemps64 pipe pipe2 socket socketpair
accept accept4 dup dup2 dup3 fcntl fcntl64 epoll_create epoll_create1
inotify_init inotify_init1 eventfd timerfd_create memfd_create
fanotify_init posix_openpt getpt signalfd pidfd_open pidfd_getfd
mq_open __mq_open_2 shm_open openpty forkpty fileno fileno_unlocked dirfd
userfaultfd memfd_secret open_tree fsopen fsmount fspick
""".split()

CALL_ROW = re.compile(r"^UFD_(?:WRAP|NEW|HAND|HANDV|ALIAS|ALIASV)\((\w+),", re.M)


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def header_functions(include):
    """{name: what it does (header)} for every prototype with a descriptor
    parameter."""
    found = {}
    for root, _, files in os.walk(include):
        for f in files:
            if not f.endswith(".h"):
                continue
            path = os.path.join(root, f)
            try:
                text = open(path, errors="replace").read()
            except OSError:
                continue
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
            # __REDIRECT (name, (params), alias) and __NTH (name (params))
            text = re.sub(r"\b__REDIRECT\w*\s*\(\s*(\w+)\s*,\s*\(", r"\1 (", text)
            text = re.sub(r"\b__NTH\s*\(", "(", text)
            for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", text):
                fd = FD_PARAM.search(m.group(2))
                if fd:
                    what = ("returns a descriptor through a pointer" if fd.group(1)
                            else "takes a descriptor")
                    found.setdefault(m.group(1),
                                     f"{what} ({os.path.relpath(path, include)})")
    return found


def exported(libc):
    """{name: address} of libc's public functions."""
    out = subprocess.run(["nm", "-D", "--defined-only", libc], capture_output=True,
                         text=True, check=True).stdout
    names = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3 or parts[1] not in "TtWwi":
            continue
        name, _, version = parts[2].partition("@")
        if "GLIBC_PRIVATE" not in version:
            names[name] = parts[0]
    return names


def aliases(libc_names, rows):
    """{name: what it is} for the names at the address of a row's
    function that are not rows."""
    by_addr = {}
    for name, addr in libc_names.items():
        by_addr.setdefault(addr, []).append(name)
    found = {}
    for names in by_addr.values():
        of = sorted(n for n in names if n in rows)
        for n in names:
            if of and n not in rows:
                found[n] = f"another name of {of[0]} (same address in libc)"
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    calls_def, not_needed_path = sys.argv[1], sys.argv[2]
    libc = sys.argv[3] if len(sys.argv) > 3 else None
    include = sys.argv[4] if len(sys.argv) > 4 else "/usr/include"
    if not shutil.which("nm"):
        skip("no nm")
    if not libc:
        libc = next((p for p in ("/lib/x86_64-linux-gnu/libc.so.6",
                                 "/lib/aarch64-linux-gnu/libc.so.6",
                                 "/lib64/libc.so.6", "/usr/lib/libc.so.6",
                                 "/lib/libc.so.6") if os.path.exists(p)), None)
    if not libc or not os.path.exists(libc):
        skip("no libc.so.6 found")
    if not os.path.exists(os.path.join(include, "unistd.h")):
        skip(f"no glibc headers in {include}")

    rows = set(CALL_ROW.findall(open(calls_def).read()))
    not_needed = {}
    for line in open(not_needed_path):
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            if not reason.strip():
                print(f"{not_needed_path}: {name}: no reason given")
                return 1
            not_needed[name] = reason.strip()

    libc_names = exported(libc)
    headers = header_functions(include)
    audited = {n: h for n, h in headers.items() if n in libc_names}
    for n in RETURNS:
        if n in libc_names:
            audited.setdefault(n, "returns a descriptor")
    for n, what in aliases(libc_names, rows).items():
        audited.setdefault(n, what)

    missing = sorted(n for n in audited if n not in rows and n not in not_needed)
    stale = sorted(n for n in not_needed if n not in audited or n in rows)
    print(f"audit: {len(audited)} functions of {libc} take or return a descriptor: "
          f"{len(set(audited) & rows)} in calls.def, "
          f"{len(set(audited) & set(not_needed))} not needed, {len(missing)} missing")
    for n in missing:
        print(f"  missing: {n}: {audited[n]}")
    for n in stale:
        why = "in calls.def too" if n in rows else "not a descriptor function of this libc"
        print(f"  stale line in {os.path.basename(not_needed_path)}: {n} ({why})")
    # stale lines are reported, but only a function of another libc is
    # tolerated (the list serves several glibc versions)
    bad = [n for n in stale if n in rows]
    return 1 if missing or bad else 0


if __name__ == "__main__":
    sys.exit(main())
