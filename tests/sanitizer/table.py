#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The sanitizer corpus as a table (README's Sanitizer section): for each
cNN program, whether ufd reports its bug as its header says (UFD_MODE=random,
reports and leaks on, as run.py runs it) and, where valgrind is installed,
whether Valgrind's descriptor tracking (--tool=none --track-fds=yes; and
--track-fds=bad where the version has it) says anything of a descriptor the
program made: an "Open file descriptor" at exit made in the bug's function,
or a descriptor error (FdBadClose, FdBadUse, "is already closed", "invalid
file descriptor").  Healthy (hNN) programs: the count of reports of each.

Usage: table.py LIBUFD PROGRAM...   (or the build's tests/sanitizer
directory, for all of them)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (run.py: the expectations and the report parser)


def ufd_found(lib, prog, tmp):
    expect, _, extra = run.expectations(os.path.join(run.HERE, os.path.basename(prog) + ".c"))
    rep = os.path.join(tmp, "u.rep")
    if os.path.exists(rep):
        os.unlink(rep)
    env = dict(os.environ, **run.DEFAULT_ENV, **extra,
               LD_PRELOAD=lib, UFD_REPORT=rep)
    subprocess.run([prog], env=env, cwd=tmp, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    got = run.reports(open(rep, errors="replace").read()) if os.path.exists(rep) else []
    return expect, got


def valgrind_found(prog, func, option, tmp):
    r = subprocess.run(["valgrind", "-q", "--tool=none", f"--track-fds={option}", prog],
                       cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=120)
    err = r.stderr.decode(errors="replace")
    if re.search(r"FdBadClose|FdBadUse|is already closed|invalid file descriptor|"
                 r"was closed|not open", err):
        return True
    # A descriptor open at exit whose stack names the bug's function.
    for block in err.split("Open file descriptor")[1:]:
        if re.search(r"\b" + re.escape(func) + r"\b", block.split("\n\n")[0]):
            return True
    return False


def valgrind_options():
    if not shutil.which("valgrind"):
        return None, []
    v = subprocess.run(["valgrind", "--version"], stdout=subprocess.PIPE).stdout.decode().strip()
    h = subprocess.run(["valgrind", "--help"], stdout=subprocess.PIPE).stdout.decode()
    return v, ["yes"] + (["bad"] if "=no|yes|all|bad" in h or "|bad" in h else [])


def main():
    lib = os.path.abspath(sys.argv[1])
    progs = []
    for arg in sys.argv[2:]:
        if os.path.isdir(arg):  # a build's tests/sanitizer: its programs
            progs += sorted(os.path.join(arg, n) for n in os.listdir(arg)
                            if re.match(r"^[ch]\d\d_\w+$", n)
                            and os.path.isfile(os.path.join(arg, n)))
        else:
            progs.append(arg)
    progs = [os.path.abspath(p) for p in progs]
    version, options = valgrind_options()
    head = ["program", "the bug", "ufd"] + [f"{version} --track-fds={o}" for o in options]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    found = {"ufd": 0, **{o: 0 for o in options}}
    bugs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for prog in progs:
            name = os.path.basename(prog)
            expect, got = ufd_found(lib, prog, tmp)
            if name.startswith("h"):
                row = [name, "healthy", f"{len(got)} reports"] + ["—"] * len(options)
                print("| " + " | ".join(row) + " |")
                continue
            src = open(os.path.join(run.HERE, name + ".c"), encoding="utf-8").read()
            missed = re.findall(r"^ \* missed: ([a-z-]+) in (\w+)", src, re.M)
            kind, func = (expect or missed)[0]
            bugs += 1
            ok = any(k == kind and run.names_function(b, func) for k, b in got)
            found["ufd"] += ok
            row = [name, f"{kind} in `{func}`", "found" if ok else "missed"]
            for o in options:
                v = valgrind_found(prog, func, o, tmp)
                found[o] += v
                row.append("found" if v else "missed")
            print("| " + " | ".join(row) + " |")
    print(f"\nbugs found: ufd {found['ufd']} of {bugs}" +
          "".join(f"; valgrind --track-fds={o} {found[o]} of {bugs}" for o in options))


if __name__ == "__main__":
    main()
