#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/sanitizer.py - the descriptor sanitizer (UFD_REPORT) on whole
programs (issue 24, items 6 and 7), run by bench/sanitizer.sh.

CPU time (user + system of the program and its children: wait4) bare,
under UFD_MODE=random, and under UFD_MODE=random with reports on, in
paired rounds (bench/rounds.py): each round runs the workload once in
each setting, in an order rotated from round to round; the table gives
each setting's median seconds and the median of each round's ratio of
random + reports to bare, with its quartiles: the target of issue 24 is
at most 2.  Valgrind (--tool=none --track-fds=yes --trace-children=yes),
where installed, once, against bare's median.  Then what a new process
costs with reports off and on (bench_calls spawn 100: fork, execve,
waitpid) in paired rounds (target: at most 1.2), and the minor page
faults of spawn 10 (11 processes).

Workloads:
  shell    a shell loop of 200 commands (/bin/true)
  python   a Python script making 225,000 descriptor calls (75,000 times
           os.open, os.fstat, os.close)
  orc      open, read 1 byte, close, 1,000,000 times (bench_calls loop)

Usage: sanitizer.py [--table] BUILD_DIR
  --table: only README.md's table (tools/update-readme-sanitizer)
Environment: ROUNDS (rounds of every workload; by default shell 40,
python 15, orc 5), SPAWN_ROUNDS (20), VALGRIND (0: no valgrind column),
SANITIZER_SMALL (1: tiny workloads, for the bench-scripts test; the
figures mean nothing then).
"""
import os
import shutil
import statistics
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rounds import cpu_run, env_int, format_stats, ratio_stats, rotated  # noqa: E402

ME = "sanitizer.sh"
SETTINGS = ("bare", "random", "reports")


def main():
    args = sys.argv[1:]
    table_only = bool(args) and args[0] == "--table"
    if table_only:
        args = args[1:]
    if len(args) > 1 or (args and args[0].startswith("-")):
        sys.exit("usage: bench/sanitizer.sh [--table] [BUILD_DIR]")
    build = os.path.abspath(args[0] if args else "build")
    lib = os.path.join(build, "libufd.so")
    calls = os.path.join(build, "bench", "bench_calls")
    for f in (lib, calls):
        if not os.path.exists(f):
            sys.exit("%s: %s missing: build first" % (ME, f))
    small = env_int("SANITIZER_SMALL", 0, 0) != 0
    rounds_all = env_int("ROUNDS", 1) if "ROUNDS" in os.environ else None
    spawn_rounds = env_int("SPAWN_ROUNDS", 20)
    has_vg = env_int("VALGRIND", 1, 0) != 0 and shutil.which("valgrind") is not None

    tmp = tempfile.mkdtemp(prefix="ufd-sanitizer.")
    try:
        return measure(build, lib, calls, small, rounds_all, spawn_rounds, has_vg,
                       table_only, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(build, lib, calls, small, rounds_all, spawn_rounds, has_vg, table_only, tmp):
    n_shell, n_py, n_orc = (5, 100, 1000) if small else (200, 75000, 1000000)
    script = os.path.join(tmp, "calls.py")
    with open(script, "w") as f:
        f.write("import os\nfor _ in range(%d):\n    fd = os.open('/dev/null', os.O_RDONLY)\n"
                "    os.fstat(fd)\n    os.close(fd)\n" % n_py)
    workloads = [
        ("shell loop of %d commands" % n_shell,
         ["/bin/sh", "-c", "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done" % n_shell],
         40, "shell"),
        ("Python, {:,} descriptor calls".format(3 * n_py), ["python3", script], 15, "python"),
        ("open, read, close ×{:,}".format(n_orc), [calls, "loop", str(n_orc), "orc"], 5, "orc"),
    ]
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("UFD_")}
    envs = {
        "bare": base,
        "random": dict(base, LD_PRELOAD=lib, UFD_MODE="random"),
        "reports": dict(base, LD_PRELOAD=lib, UFD_MODE="random",
                        UFD_REPORT=os.path.join(tmp, "reports")),
        "off": dict(base, LD_PRELOAD=lib),
        "on": dict(base, LD_PRELOAD=lib, UFD_REPORT=os.path.join(tmp, "reports")),
    }
    vg_version = None
    if has_vg:
        import subprocess
        vg_version = subprocess.run(["valgrind", "--version"], capture_output=True,
                                    text=True).stdout.strip()

    header = "| workload | bare | `UFD_MODE=random` | random + `UFD_REPORT` | reports / bare (quartiles) |"
    rule = "| --- | --- | --- | --- | --- |"
    if has_vg:
        header += " %s `--tool=none --track-fds=yes` | valgrind / bare |" % vg_version
        rule += " --- | --- |"
    if not table_only:
        print("== CPU seconds (user + system of the program and its children, wait4), paired "
              "rounds: every setting once a round, order rotated (rounds: %s); the medians, and "
              "the median of each round's ratio reports / bare with its quartiles; valgrind one run"
              % ", ".join("%s %d" % (w[3], rounds_all or w[2]) for w in workloads))
    print(header)
    print(rule)
    details = []
    for label, argv, default_rounds, _ in workloads:
        rounds = rounds_all or default_rounds
        cpu = rotated(rounds, list(SETTINGS),
                      lambda n, r: cpu_run(argv, envs[n], n)[0])
        med = {n: statistics.median(cpu[n]) for n in SETTINGS}
        rep = ratio_stats(cpu["reports"], cpu["bare"])
        line = "| %s | %.2f s | %.2f s | %.2f s | %.2f× (%.2f–%.2f) |" % (
            label, med["bare"], med["random"], med["reports"], rep["median"], rep["q1"], rep["q3"])
        if has_vg:
            vg = cpu_run(["valgrind", "--tool=none", "--track-fds=yes", "--trace-children=yes"]
                         + argv, envs["bare"], "valgrind")[0]
            line += " %.2f s | %.1f× |" % (vg, vg / med["bare"] if med["bare"] > 0 else 0)
        print(line, flush=True)
        details.append((label, rounds, ratio_stats(cpu["random"], cpu["bare"]), rep))
    if table_only:
        return 0

    print()
    for label, rounds, rnd, rep in details:
        print("%s, %d rounds:" % (label, rounds))
        print("  random / bare             %s" % format_stats(rnd))
        print("  random + reports / bare   %s   (target <= 2)" % format_stats(rep))

    n_spawn = 10 if small else 100
    print()
    print("== a new process: fork + execve + waitpid ×%d (bench_calls spawn), CPU seconds, "
          "reports off and on, %d paired rounds" % (n_spawn, spawn_rounds))
    cpu = rotated(spawn_rounds, ["off", "on"],
                  lambda n, r: cpu_run([calls, "spawn", str(n_spawn)], envs[n], n)[0])
    print("   median off %.3f s, on %.3f s" % (statistics.median(cpu["off"]),
                                               statistics.median(cpu["on"])))
    print("   on / off: %s   (target <= 1.2)" % format_stats(ratio_stats(cpu["on"], cpu["off"])))
    print("== minor page faults, fork + execve + waitpid ×10 (11 processes, wait4)")
    for n in ("bare", "off", "on"):
        print("   %s: %d" % (n, cpu_run([calls, "spawn", "10"], envs[n], n)[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
