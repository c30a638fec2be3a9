#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Description: the sanitizer's corpus (tests/sanitizer/): each cNN program
mirrors a real-world descriptor bug and each hNN program is a healthy one
doing something tricky but correct.  Each runs under ufd as a user's CI
would (UFD_MODE=random, reports on, leaks at exit reported; a program's
"env:" lines add settings), and its source's header says what must come
of it:

  expect: KIND in FUNCTION   a report of KIND whose stacks have a frame in
                             FUNCTION (the bug's own function)
  expect: none               no report at all
  missed: KIND in FUNCTION (why)
                             a bug ufd does not find yet: asserted absent,
                             so that finding it fails here until the line
                             becomes an "expect:"

Usage: run.py LIBUFD PROGRAM...   (UFD_TEST_PRELOAD: the sanitizer
runtime of an instrumented build, which must come first)
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ENV = {"UFD_MODE": "random", "UFD_REPORT_LEAKS": "1"}
ERROR = re.compile(r"^==\d+==ERROR: ufd: ([a-z-]+): ", re.M)


def expectations(source):
    """The program's expect:, missed: and env: lines."""
    expect, missed, env = [], [], {}
    for line in open(source, encoding="utf-8"):
        m = re.match(r"^ \* (expect|missed|env): (.*)$", line)
        if not m:
            continue
        what, rest = m.groups()
        if what == "env":
            k, v = rest.split("=", 1)
            env[k] = v
            continue
        if rest == "none":
            continue
        k = re.match(r"^([a-z-]+) in ([A-Za-z_0-9]+)", rest)
        if not k:
            sys.exit(f"{source}: cannot read '{line.strip()}'")
        (expect if what == "expect" else missed).append(k.groups())
    return expect, missed, env


def reports(text):
    """The report blocks: (kind, block text), one per ERROR line."""
    starts = [m for m in ERROR.finditer(text)]
    out = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        out.append((m.group(1), text[m.start():end]))
    return out


def names_function(block, function):
    return re.search(r"^\s+#\d+ 0x[0-9a-f]+ in " + re.escape(function) + r"\b",
                     block, re.M) is not None


def main():
    lib, programs = os.path.abspath(sys.argv[1]), [os.path.abspath(p) for p in sys.argv[2:]]
    preload = [p for p in os.environ.get("UFD_TEST_PRELOAD", "").split(":")
               if p and "libufd.so" not in p]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for prog in programs:
            name = os.path.basename(prog)
            source = os.path.join(HERE, name + ".c")
            expect, missed, extra = expectations(source)
            rep = os.path.join(tmp, name + ".rep")
            env = dict(os.environ)
            env.update(DEFAULT_ENV)
            env.update(extra)
            env.update({"LD_PRELOAD": " ".join(preload + [lib]),
                        "UFD_REPORT": rep, "ASAN_OPTIONS": "detect_leaks=0"})
            run = subprocess.run([prog], env=env, cwd=tmp, timeout=60,
                                 stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            text = open(rep, errors="replace").read() if os.path.exists(rep) else ""
            got = reports(text)
            problems = []
            for kind, func in expect:
                if not any(k == kind and names_function(b, func) for k, b in got):
                    problems.append(f"no {kind} report naming {func}")
            for kind, func in missed:
                if any(k == kind and names_function(b, func) for k, b in got):
                    problems.append(f"{kind} in {func} is found now: make its "
                                    "'missed:' line an 'expect:' line")
            expected_kinds = {k for k, _ in expect}
            unexpected = [b.splitlines()[0] for k, b in got if k not in expected_kinds]
            if unexpected:
                problems.append(f"{len(unexpected)} unexpected report(s), the first: "
                                + unexpected[0])
            if problems:
                failed += 1
                print(f"FAIL {name}: " + "; ".join(problems))
                print(f"  its output (status {run.returncode}):\n" +
                      run.stdout.decode(errors="replace"))
                print("  its reports:\n" + text[:6000])
            else:
                what = ", ".join(f"{k} in {f}" for k, f in expect) or "no report"
                miss = "".join(f" (known miss: {k} in {f})" for k, f in missed)
                print(f"ok   {name}: {what}{miss}")
    print(f"{len(programs) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
