#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Description: FD_SET on a virtual descriptor with a stack-allocated fd_set
in an unfortified program (issue 23 item 13).  Under UFD_MODE=all such a
program dies of SIGSEGV before select is called; with reports on, an
fd-set-overflow report naming the descriptor, the FD_SET's frame and the
descriptor's making stack comes first, and the death is the same as
without reports (the same signal, the same core dump bit, the same
output).  A program with its own SIGSEGV handler sees no change, a
SIGSEGV of another cause gives no report, and sigaction and signal show
SIGSEGV's action as they do without ufd.  Under TSan, TSan's own
SIGSEGV handler stays (ufd installs none): the runs turn it off but one.
Skipped under ASan, whose instrumentation of the program finds the
overflow first.

Usage: fdset_crash.py LIBUFD PROGRAM...   (UFD_TEST_PRELOAD: the sanitizer
runtime of an instrumented build, which must come first)
"""
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile

lib = os.path.abspath(sys.argv[1])
extra = [p for p in os.environ.get("UFD_TEST_PRELOAD", "").split(":")
         if p and "libufd.so" not in p]
if any("libasan" in p for p in extra):
    # ASan+UBSan instrument the test program: they find the overflow
    # themselves, before any SIGSEGV (UBSan's object-size check).
    print("SKIP: the program is instrumented by ASan and UBSan, which catch "
          "the FD_SET overflow before it faults")
    sys.exit(77)
if os.environ.get("UFD_TEST_EMULATOR"):
    # qemu-user lays the guest's mappings out otherwise: with reports on,
    # ufd's own (the stack depot's) come within 32 MiB of the stack, so
    # the FD_SET write lands in mapped memory and faults not at all.
    print("SKIP under %s: the guest's mappings lie within 32 MiB of its "
          "stack there, so FD_SET's write past the set does not fault"
          % os.environ["UFD_TEST_EMULATOR"])
    sys.exit(77)
tmp = tempfile.mkdtemp()
failed = []


def core_on():
    """Core dumps as the system makes them (in tmp, if to a file)."""
    resource.setrlimit(resource.RLIMIT_CORE, (64 << 20, resource.RLIM_INFINITY))


def run(prog, case, preload, **env):
    """(raw wait status, stdout, report text) of one run."""
    e = dict(os.environ)
    e.pop("UFD_REPORT", None)
    e.update({k: v for k, v in env.items() if k != "handle_segv"})
    e["LD_PRELOAD"] = " ".join(extra + preload)
    # ASan's own SIGSEGV handler, first, is left in place (checked
    # below): it is turned off for the rest.
    segv = env.pop("handle_segv", "0")
    e["ASAN_OPTIONS"] = "detect_leaks=0:handle_segv=" + segv
    e["TSAN_OPTIONS"] = "handle_segv=" + segv
    rep = os.path.join(tmp, "rep")
    if "UFD_REPORT" in env:
        e["UFD_REPORT"] = rep
    if os.path.exists(rep):
        os.unlink(rep)
    out_path = os.path.join(tmp, "out")
    with open(out_path, "wb") as out:
        pid = os.fork()
        if pid == 0:
            try:
                core_on()
                os.chdir(tmp)
                os.dup2(out.fileno(), 1)
                os.execve(prog, [prog, case], e)
            finally:
                os._exit(127)
        _, status = os.waitpid(pid, 0)
    for f in os.listdir(tmp):
        if f.startswith("core"):
            os.unlink(os.path.join(tmp, f))
    text = open(rep).read() if os.path.exists(rep) else ""
    return status, open(out_path).read(), text


def death(status):
    if os.WIFSIGNALED(status):
        return "signal %d%s" % (os.WTERMSIG(status),
                                " (core)" if os.WCOREDUMP(status) else "")
    return "exit %d" % os.WEXITSTATUS(status)


def check(what, ok, detail=""):
    if not ok:
        failed.append(what)
        print("FAIL: %s%s" % (what, "\n" + detail if detail else ""))


ERROR = re.compile(r"^==\d+==ERROR: ufd: ([a-z-]+): ", re.M)

for prog in map(os.path.abspath, sys.argv[2:]):
    print("==", prog)
    for case in ["set", "isset", "heapset", "handler", "null", "raise"]:
        base = run(prog, case, [lib], UFD_MODE="all")
        got = run(prog, case, [lib], UFD_MODE="all", UFD_REPORT="1")
        check(case + ": descriptor virtual", base[1].startswith("descriptor virtual"),
              base[1])
        check(case + ": same death with reports (%s, %s)" % (death(base[0]), death(got[0])),
              base[0] == got[0])
        check(case + ": same output with reports", base[1] == got[1],
              "without: %r\nwith: %r" % (base[1], got[1]))
        kinds = ERROR.findall(got[2])
        if case in ("set", "isset", "heapset"):
            check(case + ": dies of SIGSEGV",
                  os.WIFSIGNALED(base[0]) and os.WTERMSIG(base[0]) == signal.SIGSEGV,
                  death(base[0]))
            check(case + ": one fd-set-overflow report", kinds == ["fd-set-overflow"],
                  got[2])
            fn = {"set": "watch_client", "isset": "poll_client",
                  "heapset": "watch_heap_client"}[case]
            for pattern in [
                    r"^==\d+==ERROR: ufd: fd-set-overflow: descriptor past FD_SETSIZE "
                    r"\(1024\), in no fd_set: virtual descriptor \(UFD_MODE=all; "
                    r"UFD_MODE=random keeps select\(\) working\) 26\d{7} \(/dev/null\)$",
                    r"^  call by FD_SET in thread \d+:\n    #0 0x[0-9a-f]+ in %s\+" % fn,
                    r"^  made by open(64)? in thread \d+:\n    #0 0x[0-9a-f]+ in open_client\+",
                    r"^SUMMARY: ufd: fd-set-overflow of descriptor \d+ in %s$" % fn]:
                check(case + ": report has " + pattern, re.search(pattern, got[2], re.M),
                      got[2])
        else:
            check(case + ": no report", kinds == [], got[2])
        if case == "handler":
            check("handler: the program's handler ran", "caught" in got[1], got[1])

    # What the program sees of SIGSEGV's action: as without ufd.
    bare = run(prog, "view", [])
    for env in [{"UFD_MODE": "all"}, {"UFD_MODE": "all", "UFD_REPORT": "1"}]:
        seen = run(prog, "view", [lib], **env)
        check("view %s: as without ufd" % env,
              seen[1].split("\n")[1:] == bare[1].split("\n")[1:] and seen[0] == bare[0],
              "without: %r\nwith: %r" % (bare[1], seen[1]))

    # Under TSan with its SIGSEGV handler (its default): ufd installs
    # none, and TSan's reports the crash.
    if any("libtsan" in p for p in extra):
        got = run(prog, "set", [lib], UFD_MODE="all", UFD_REPORT="1", handle_segv="1")
        check("TSan's handler: no ufd report", ERROR.findall(got[2]) == [], got[2])

for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
sys.exit(1 if failed else 0)
