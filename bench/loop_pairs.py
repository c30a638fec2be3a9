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
make vfork a fork (ufd(7)), which costs each command its page tables.

Usage: loop_pairs.py EMPTY_LIB UFD_LIB [MODE...]   (MODE: default, all,
random; default: default)
Environment: LOOP_ROUNDS (200), LOOP_ITER (50).
"""
import os
import statistics
import sys

LOOP = "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done"


def run(env, loop):
    pid = os.posix_spawn("/bin/sh", ["/bin/sh", "-c", loop], env)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("loop_pairs.py: the loop failed (status %d) under %s"
                 % (status, env.get("LD_PRELOAD", "nothing")))
    return ru.ru_utime + ru.ru_stime, ru.ru_minflt


def quantile(v, q):
    v = sorted(v)
    return v[int(q * (len(v) - 1) + 0.5)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    empty, ufd = sys.argv[1:3]
    modes = sys.argv[3:] or ["default"]
    rounds = int(os.environ.get("LOOP_ROUNDS", "200"))
    iters = int(os.environ.get("LOOP_ITER", "50"))
    loop = LOOP % iters
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("UFD_")}
    settings = {"bare": dict(base), "empty": dict(base, LD_PRELOAD=empty)}
    for m in modes:
        settings[m] = dict(base, LD_PRELOAD=ufd)
        if m != "default":
            settings[m]["UFD_MODE"] = m
    names = list(settings)
    cpu = {n: [] for n in names}
    faults = {n: 0 for n in names}
    for r in range(rounds):
        for j in range(len(names)):
            n = names[(j + r) % len(names)]
            t, f = run(settings[n], loop)
            cpu[n].append(t)
            faults[n] += f
    print("== shell loop of %d /bin/true, CPU time (utime+stime of the shell and its "
          "children); %d rounds, every setting once a round, order rotated"
          % (iters, rounds))
    per_run = {n: statistics.mean(cpu[n]) / iters * 1e6 for n in names}
    blocks = 10 if rounds >= 10 else 1
    for n in names:
        if n == "empty":
            continue
        over = "bare" if n == "bare" else "empty"
        ratios = [a / b for a, b in zip(cpu[n], cpu["empty"])] if n != "bare" else \
            [b / a for a, b in zip(cpu[n], cpu["empty"])]
        size = rounds // blocks
        block = []
        for b in range(blocks):
            x = sum(cpu[n][b * size:(b + 1) * size])
            y = sum(cpu["empty"][b * size:(b + 1) * size])
            block.append(x / y if n != "bare" else y / x)
        total = sum(cpu[n]) / sum(cpu["empty"])
        if n == "bare":
            total = 1 / total
        label = "the empty library / bare" if n == "bare" else "ufd %s / the empty library" % n
        print("%-34s median %.3f (quartiles %.3f-%.3f, range %.2f-%.2f); sums %.3f "
              "(blocks %.3f-%.3f)%s"
              % (label, statistics.median(ratios), quantile(ratios, 0.25),
                 quantile(ratios, 0.75), min(ratios), max(ratios), total,
                 min(block), max(block), "   (target <= 1.05)" if n == "default" else ""))
    print("per /bin/true: " + ", ".join(
        "%s %.0f us %.2f faults" % (n, per_run[n], faults[n] / rounds / iters) for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
