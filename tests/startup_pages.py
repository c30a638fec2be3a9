#!/usr/bin/env python3
"""Description: a process's start-up under ufd touches few pages more than
under an empty preloaded library (bench/empty.c: what any LD_PRELOAD
costs): each page of code or data start-up reads or writes is a page fault
in every process a shell or make starts (HACKING.md, Start-up).  /bin/true
is started N times under each, alternating, with posix_spawn (a vfork:
nothing of this process is copied, so the child's faults are the new
image's), and the means of the children's minor faults (wait4's
ru_minflt) compared: ufd's at most MARGIN more.  Issue 27 measured 59.8
under ufd, 55.6 under the empty library: a .rodata constant, a .bss page
written with 0 and a function outside start-up's section each cost one.
Then the same with relative names in LD_PRELOAD (the loop of issue 27
ran with LD_PRELOAD=build/libufd.so): there ufd makes its own name
absolute at start-up, for its children, which realpath did at 3.5 faults
(+5.6 in all); one raw getcwd costs the page of .bss it writes.

Last, the mappings: each is an mmap (or an mprotect that splits one) the
loader makes and exit tears down in every process.  ufd's file must be
mapped in at most 3 pieces (code and read-only data in one, with
-z noseparate-code; the RELRO page; the data), and in no more than the
empty library's: x86_64's default of separate code made it 5, as the
empty library's are, a third of what ufd added to /bin/true's CPU time.

Usage: startup_pages.py LIBUFD EMPTY_LIB BUILDTYPE
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

N = 200
# After issue 27: +1.0 (the code page of the constructor, and libc's of
# pthread_atfork); relative names +1 more (the written .bss page).  With
# -z noseparate-code +0.1 and +1.0 (the loader's reads of the symbol
# tables and the constructor's code share a mapping); the margins stay,
# since a fresh copy's page-cache folios move a count by about 1.
MARGIN = 1.8
MARGIN_RELATIVE = 2.8


def faults(env):
    pid = os.posix_spawn("/bin/true", ["/bin/true"], env)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        print("FAIL: /bin/true exited with status %d under %s" % (status, env))
        sys.exit(1)
    return ru.ru_minflt


# ufd's file mapped in at most this many pieces (see above).
MAPPINGS = 3


def mappings(env, path):
    """How many of cat's own mappings (/proc/self/maps) name the file
    path, the library preloaded by env."""
    out = subprocess.run(["cat", "/proc/self/maps"], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return sum(1 for line in out.splitlines() if line.split()[5:] == [path])


def main():
    lib, empty, buildtype = sys.argv[1:4]
    if buildtype != "debugoptimized":
        print("SKIP: start-up's pages are those of the default debugoptimized "
              "build (-O2); this one is %s" % buildtype)
        return 77
    if not os.path.exists("/bin/true"):
        print("SKIP: no /bin/true")
        return 77
    tmp = tempfile.mkdtemp(prefix="ufd-pages.")
    try:
        # Paths of the same length: the loader's work depends on it.
        paths = {"ufd": os.path.join(tmp, "ufd.so"), "empty": os.path.join(tmp, "emp.so")}
        shutil.copyfile(lib, paths["ufd"])
        shutil.copyfile(empty, paths["empty"])
        envs = {k: {"PATH": "/usr/bin:/bin", "LD_PRELOAD": p} for k, p in paths.items()}
        rel = {k: {"PATH": "/usr/bin:/bin", "LD_PRELOAD": "./" + os.path.basename(p)}
               for k, p in paths.items()}
        maps = {k: mappings(envs[k], p) for k, p in paths.items()}
        counts = {k: [] for k in ("ufd", "empty", "ufd-rel", "empty-rel")}
        os.chdir(tmp)  # for the relative names
        for _ in range(N):
            for k in ("empty", "ufd"):
                counts[k].append(faults(envs[k]))
                counts[k + "-rel"].append(faults(rel[k]))
    finally:
        os.chdir("/")
        shutil.rmtree(tmp, ignore_errors=True)
    mean = {k: statistics.mean(v) for k, v in counts.items()}
    failed = 0
    for suffix, what, margin in (("", "an absolute", MARGIN),
                                 ("-rel", "a relative", MARGIN_RELATIVE)):
        over = mean["ufd" + suffix] - mean["empty" + suffix]
        print("minor faults per /bin/true, mean of %d, %s name in LD_PRELOAD: ufd %.2f, an "
              "empty preloaded library %.2f (%+.2f; at most +%.1f)"
              % (N, what, mean["ufd" + suffix], mean["empty" + suffix], over, margin))
        if over > margin:
            print("FAIL: with %s name, ufd's start-up touches %.1f pages more "
                  "than an empty library's" % (what, over))
            failed = 1
    if maps["empty"] == 0:
        # Not loaded: a library of another architecture, run under an
        # emulator, which the host's cat cannot load.
        print("mappings not counted: the empty library is not mapped in cat "
              "(another architecture?)")
        return failed
    print("mappings of the preloaded file in cat: ufd %d, the empty library %d "
          "(at most %d, and no more than the empty library's)"
          % (maps["ufd"], maps["empty"], MAPPINGS))
    if maps["ufd"] > min(MAPPINGS, maps["empty"]) or maps["ufd"] == 0:
        print("FAIL: ufd's file is mapped in %d pieces" % maps["ufd"])
        failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
