#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/loop_pairs.py - the shell loop of issue 27: a shell running
/bin/true ITER times, everything under LD_PRELOAD, under ufd (each mode
given) against the same loop under an empty preloaded library
(bench/empty.c: what any LD_PRELOAD costs) and bare.

Made for a shared, noisy machine, where a 5% difference hides in the
drift of the load between two long runs:
- each round runs the loop once under every setting, one right after
  the other, in an order rotated from round to round;
- the time is the CPU time the kernel accounts to the shell and its
  children (wait4's utime + stime), not the wall clock, which counts
  what other processes run meanwhile;
- each round gives ufd's ratio to the empty library's run of the same
  round; printed are the median of these ratios with their quartiles and
  range, and the ratio of the sums with its range over 10 blocks of
  rounds (the spread that matters for a median of many rounds).
Also the minor page faults per /bin/true, which are exact.  Issue 27's
target (at most 1.05) is the default mode's; UFD_MODE=all and random
made vfork a fork until the vfork branch (now a real one while no
virtual descriptor is live, ufd(7)), which cost each command its page
tables.

Usage: loop_pairs.py EMPTY_LIB UFD_LIB [MODE...]   (MODE: default, all,
random; default: default)
Environment: LOOP_ROUNDS (200), LOOP_ITER (50).
"""
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rounds import env_int, format_stats, ratio_stats, rotated, summary  # noqa: E402

LOOP = "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done"
MODES = ("default", "all", "random")


def run(env, loop):
    pid = os.posix_spawn("/bin/sh", ["/bin/sh", "-c", loop], env)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("loop_pairs.py: the loop failed (status %d) under %s"
                 % (status, env.get("LD_PRELOAD", "nothing")))
    return ru.ru_utime + ru.ru_stime, ru.ru_minflt


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    empty, ufd = sys.argv[1:3]
    modes = sys.argv[3:] or ["default"]
    for lib in (empty, ufd):
        if not os.path.isfile(lib):
            sys.exit("loop_pairs.py: %s: no such library" % lib)
    for m in modes:
        if m not in MODES:
            sys.exit("loop_pairs.py: %s: not a mode (%s)" % (m, ", ".join(MODES)))
    rounds = env_int("LOOP_ROUNDS", 200)
    iters = env_int("LOOP_ITER", 50)
    loop = LOOP % iters
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("UFD_")}
    settings = {"bare": dict(base), "empty": dict(base, LD_PRELOAD=empty)}
    for m in modes:
        settings[m] = dict(base, LD_PRELOAD=ufd)
        if m != "default":
            settings[m]["UFD_MODE"] = m
    names = list(settings)
    res = rotated(rounds, names, lambda n, r: run(settings[n], loop))
    cpu = {n: [t for t, _ in res[n]] for n in names}
    faults = {n: sum(f for _, f in res[n]) for n in names}
    print("== shell loop of %d /bin/true, CPU time (utime+stime of the shell and its "
          "children); %d rounds, every setting once a round, order rotated"
          % (iters, rounds))
    per_run = {n: statistics.mean(cpu[n]) / iters * 1e6 for n in names}
    for n in names:
        if n == "empty":
            continue
        if n == "bare":
            s = ratio_stats(cpu["empty"], cpu["bare"])
            label = "the empty library / bare"
        else:
            s = ratio_stats(cpu[n], cpu["empty"])
            label = "ufd %s / the empty library" % n
        summary("loop_%s" % n, s)
        print("%-34s %s%s" % (label, format_stats(s),
                              "   (target <= 1.05)" if n == "default" else ""))
    print("per /bin/true: " + ", ".join(
        "%s %.0f us %.2f faults" % (n, per_run[n], faults[n] / rounds / iters) for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
