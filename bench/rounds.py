# SPDX-License-Identifier: MIT
"""bench/rounds.py - paired rounds on a shared, noisy machine: what
loop_pairs.py, nginx_cpu.py and sanitizer.py have in common.

A 5% difference hides in the drift of the load between two long runs, so:
- each round runs every setting once, one right after the other, in an
  order rotated from round to round (rotated());
- the time is CPU time the kernel accounts to the process measured
  (wait4's utime + stime: cpu_run(); or the scheduler's nanoseconds,
  nginx_cpu.py), not the wall clock, which counts whatever else runs;
- each round gives the ratio of a setting to the reference setting of the
  same round; printed are the median of these ratios, their quartiles and
  range, and the ratio of the sums with its range over blocks of rounds
  (ratio_stats()), the spread that matters for a median of many rounds.
"""
import os
import statistics
import sys


def env_int(name, default, minimum=1):
    """The integer in environment variable NAME (DEFAULT when unset);
    exits with status 2 and a message when it is not an integer of at
    least MINIMUM."""
    text = os.environ.get(name, str(default))
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < minimum:
        sys.exit("%s: %s=%r: an integer of at least %d is needed"
                 % (os.path.basename(sys.argv[0]), name, text, minimum))
    return value


def cpu_run(argv, env, what=None):
    """Runs ARGV with ENV, its output to /dev/null; returns (CPU seconds,
    minor faults) of it and its children (wait4).  Exits with a message
    when it fails."""
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        pid = os.posix_spawnp(argv[0], argv, env, file_actions=actions)
    finally:
        os.close(devnull)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("%s: %s failed (wait status %d)%s"
                 % (os.path.basename(sys.argv[0]), " ".join(argv), status,
                    " under " + what if what else ""))
    return ru.ru_utime + ru.ru_stime, ru.ru_minflt


def rotated(rounds, names, run):
    """Calls RUN(name, round) for every name in every round, the order
    rotated by one each round; returns {name: [RUN's results by round]}."""
    out = {n: [] for n in names}
    for r in range(rounds):
        for j in range(len(names)):
            n = names[(j + r) % len(names)]
            out[n].append(run(n, r))
    return out


def quantile(v, q):
    """The element of V at quantile Q (nearest rank)."""
    v = sorted(v)
    return v[int(q * (len(v) - 1) + 0.5)]


def ratio_stats(a, b, blocks=10):
    """A and B: the figures of two settings by round.  Returns a dict:
    median, q1, q3, lo, hi of the rounds' ratios a/b; sums, the ratio of
    the sums; blo, bhi, the range of the ratio of the sums over BLOCKS
    blocks of consecutive rounds (fewer when there are fewer rounds)."""
    # A run too short for the clock's resolution counts as 1 ns.
    ratios = [x / max(y, 1e-9) for x, y in zip(a, b)]
    blocks = max(1, min(blocks, len(ratios)))
    size = len(ratios) // blocks
    block = [sum(a[i * size:(i + 1) * size]) / max(sum(b[i * size:(i + 1) * size]), 1e-9)
             for i in range(blocks)]
    return {"median": statistics.median(ratios), "q1": quantile(ratios, 0.25),
            "q3": quantile(ratios, 0.75), "lo": min(ratios), "hi": max(ratios),
            "sums": sum(a) / max(sum(b), 1e-9), "blo": min(block), "bhi": max(block),
            "n": len(ratios)}


def format_stats(s):
    """ratio_stats()'s dict as one line's text."""
    return ("median %.3f (quartiles %.3f-%.3f, range %.2f-%.2f); sums %.3f "
            "(blocks %.3f-%.3f)" % (s["median"], s["q1"], s["q3"], s["lo"], s["hi"],
                                    s["sums"], s["blo"], s["bhi"]))


def summary(key, s):
    """Appends a line 'KEY median q1 q3 blo bhi' to the file named by
    $SUMMARY, when set (bench/servers.sh's summary reads it)."""
    path = os.environ.get("SUMMARY")
    if path:
        with open(path, "a") as f:
            f.write("%s %.3f %.3f %.3f %.3f %.3f\n"
                    % (key, s["median"], s["q1"], s["q3"], s["blo"], s["bhi"]))
