#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
syscall_table.py - ufd's system call numbers against the kernel's tables.

    syscall_table.py SRC_DIR TABLES_DIR

src/syscall_nr.h names, by number for x86-64 and for aarch64, every system
call that syscall() translates or routes (shim_syscall.c, shim_sysdata.c).
TABLES_DIR holds the kernel's lists (x86_64.tbl and aarch64.tbl: number and
name, trimmed from the kernel's own tables; their headers say which release)
and untranslated.txt, the calls ufd passes unchanged with the reason.

Fails (exit 1) when a number in syscall_nr.h is not the kernel's for that
architecture, a call is in syscall_nr.h for an architecture whose table
lacks it (or missing for one that has it), a kernel call is in neither
syscall_nr.h nor untranslated.txt (a new call: decide whether it takes a
descriptor) or in both, a name of syscall_nr.h is not used by the shim, or
a number of the build's libc headers (<sys/syscall.h>, when cpp is there)
disagrees with the kernel's.
"""
import os
import re
import shutil
import subprocess
import sys


def table(path):
    """{name: number} of a trimmed table."""
    calls = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            number, name = line.split()
            calls[name] = int(number)
    return calls


def ufd_numbers(path):
    """{name: (x86_64, generic or None)} of syscall_nr.h."""
    both = re.compile(r'#define UFD_NR_(\w+)\s+UFD_NR\((\d+), (\d+)\)')
    x86 = re.compile(r'#define UFD_NR_(\w+)\s+(\d+)$')
    numbers = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = both.match(line)
            if m:
                numbers[m[1]] = (int(m[2]), int(m[3]))
                continue
            m = x86.match(line)
            if m:
                numbers[m[1]] = (int(m[2]), None)
    return numbers


def untranslated(path):
    """{name: reason} of untranslated.txt."""
    calls = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            names, reason = line.split(':', 1)
            for name in names.split():
                calls[name] = reason.strip()
    return calls


def libc_numbers():
    """{name: number} of the build's <sys/syscall.h>, or {} without cpp."""
    cpp = shutil.which('cpp')
    if not cpp:
        return {}
    out = subprocess.run([cpp, '-dM', '-'], input='#include <sys/syscall.h>\n',
                         capture_output=True, text=True, check=False).stdout
    return {m[1]: int(m[2])
            for m in re.finditer(r'#define __NR_(\w+) (\d+)\n', out)}


def main():
    src, tables = sys.argv[1], sys.argv[2]
    x86 = table(os.path.join(tables, 'x86_64.tbl'))
    generic = table(os.path.join(tables, 'aarch64.tbl'))
    ours = ufd_numbers(os.path.join(src, 'syscall_nr.h'))
    passed = untranslated(os.path.join(tables, 'untranslated.txt'))
    shim = ''.join(open(os.path.join(src, f)).read()
                   for f in ('shim_syscall.c', 'shim_sysdata.c'))
    used = set(re.findall(r'\bUFD_NR_(\w+)', shim))
    bad = []

    for name, (n64, ngen) in sorted(ours.items()):
        if x86.get(name) != n64:
            bad.append(f'{name}: x86-64 number {n64}, the kernel\'s {x86.get(name)}')
        if generic.get(name) != ngen:
            bad.append(f'{name}: aarch64 number {ngen}, the kernel\'s {generic.get(name)}')
        if name not in used:
            bad.append(f'{name}: in syscall_nr.h but not used by the shim')
    for name in sorted(used - set(ours)):
        bad.append(f'{name}: used by the shim but not in syscall_nr.h')
    for name in sorted(set(x86) | set(generic)):
        if name in ours and name in passed:
            bad.append(f'{name}: both handled and in untranslated.txt')
        elif name not in ours and name not in passed:
            bad.append(f'{name}: a kernel call in neither syscall_nr.h nor '
                       'untranslated.txt: does it take or make a descriptor?')
    for name in sorted(set(passed) - set(x86) - set(generic)):
        bad.append(f'{name}: in untranslated.txt but in no kernel table')
    libc = libc_numbers()
    table_here = x86 if os.uname().machine == 'x86_64' else generic
    for name, number in sorted(libc.items()):
        if name in table_here and table_here[name] != number:
            bad.append(f'{name}: the libc headers say {number}, the kernel {table_here[name]}')

    for line in bad:
        print(line)
    print(f'{len(ours)} calls handled, {len(passed)} passed unchanged, '
          f'{len(x86)} x86-64 and {len(generic)} aarch64 calls in the tables, '
          f'{len(libc)} numbers of the libc headers compared: '
          f'{len(bad)} problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
