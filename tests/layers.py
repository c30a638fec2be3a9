#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
layers.py - the library's layers, and the check that each file uses only
its own layer and the ones below.

    layers.py SRC_DIR [BUILD_DIR]

Every file of src/ belongs to one layer of LAYERS below (HACKING.md says
what each is for).  The check fails if a file is in no layer, opens with no
comment naming its job, includes a header of a higher layer, includes a
layer's private header (*_internal.h) from another layer, or if the
includes form a cycle: among files, or among modules (a module is the
files of one name, foo.c, foo.h, foo.def: foo.c including bar.h and
bar.h or bar.c including foo.h is a cycle of foo and bar, though no file
includes itself).  Given BUILD_DIR, it also reads the compiled
objects with nm and fails if a function or variable of a higher layer is
used: a declaration put in the wrong header would pass the include check.
Exits 0 or 1, printing the layers and what is wrong.
"""
import glob
import os
import re
import subprocess
import sys

# Lowest first.  A file may include, and call, its own layer and those
# before it, never one after.
LAYERS = [
    ("base", "raw system calls, text, settings, the log, the list of calls, "
     "the look-up of the real functions",
     ["sys.h", "glibc_versions.h", "syscall_nr.h", "text.h", "procfs.h", "procfs.c", "posix_locks.h", "posix_locks.c", "settings.h", "settings.c",
      "log.h", "log.c", "sections.h", "gnu_hash.h", "calls.def", "calls.h",
      "calls.c", "symbols.h",
      "symbols.c", "reserve.h", "reserve.c", "stack.h", "stack.c", "unwind.h", "unwind.c", "escape.h", "escape.c", "ufd.h"]),
    ("fdmap", "the descriptor map and the reverse map, pure data structures",
     ["fdmap.h", "fdmap.c", "revmap.h", "revmap.c"]),
    ("placement", "where backing descriptors live; the kernel's limit",
     ["placement.h", "placement.c"]),
    ("table", "the virtual descriptor table, its lock, fork, the hand-off",
     ["vfd_slot.h", "vfd_table.h", "vfd_internal.h", "vfd_table.c", "vfd_lock.c",
      "vfd_fork.c", "vfd_real.c", "vfd_range.c", "vfd_files.c", "vfd_shared.h",
      "vfd_shared.c", "handoff.h", "handoff.c"]),
    ("report", "the sanitizer's records of descriptors and its reports",
     ["report.h", "report.c", "report_out.h", "report_out.c", "fdname.h",
      "fdname.c", "exec_names.h", "exec_names.c", "report_probe.h",
      "report_probe.c", "report_group.h", "report_group.c",
      "report_suppress.h", "report_suppress.c", "report_summary.h",
      "report_summary.c", "report_internal.h", "report_emit.c",
      "report_kind.h", "report_given.h", "report_given.c", "given.h", "given.c"]),
    ("newfd", "what happens to a descriptor a call has just made",
     ["newfd.h", "newfd.c", "random_fd.h", "random_fd.c"]),
    ("shim", "the interposed entry points",
     ["shim.h", "shim.c", "shim_fd.c", "shim_create.c", "shim_dup.c",
      "shim_fcntl.c", "shim_locks.c", "shim_close.c", "shim_msg.c", "shim_poll.c", "shim_ioctl.c",
      "shim_sysdata.c",
      "shim_stream.h", "shim_stream.c", "shim_dir.c", "shim_stream_closed.c", "shim_exec.h", "shim_exec.c",
      "shim_spawn.c", "shim_vfork.c", "shim_pidfd_spawn.c", "shim_path.c",
      "shim_limits.c", "shim_clone.c", "shim_alias.c",
      "shim_signal.c", "shim_segv.c", "shim_syscall.c", "shim_report.c", "shim_chain.c"]),
    ("api", "the public API and the one constructor",
     ["api.c"]),
]


def module_of(f):
    """A file's module: its name without the extension."""
    return f.rsplit(".", 1)[0]


def module_cycles(includes):
    """The strongly connected sets of two or more modules in the graph of
    includes between modules, each as (set of modules, the includes that
    make it), in a stable order."""
    graph = {}
    for f, incs in includes.items():
        for h in incs:
            a, b = module_of(f), module_of(h)
            if a != b:
                graph.setdefault(a, {}).setdefault(b, []).append(f"{f} -> {h}")
    # Tarjan's algorithm, iteratively: no recursion limit to think about.
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        edges = [e for a in sorted(comp)
                                 for b, es in sorted(graph.get(a, {}).items())
                                 if b in comp for e in es]
                        out.append((frozenset(comp), edges))
    return sorted(out, key=lambda c: sorted(c[0]))


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = sys.argv[1]
    layer_of = {}
    for i, (name, _, files) in enumerate(LAYERS):
        for f in files:
            layer_of[f] = i
    problems = []

    files = sorted(f for f in os.listdir(src)
                   if f.endswith((".c", ".h", ".def")))
    includes = {}
    for f in files:
        if f not in layer_of:
            problems.append(f"src/{f}: in no layer (add it to LAYERS in "
                            "tests/layers.py and to HACKING.md)")
            continue
        text = open(os.path.join(src, f), encoding="utf-8").read()
        if not re.match(r"/\* SPDX[^\n]*\n/\*\n \* " + re.escape(f) + " - ",
                        text):
            problems.append(f"src/{f}: does not open with a comment "
                            f"' * {f} - <its job>'")
        includes[f] = re.findall(r'^#include "([^"]+)"', text, re.M)
    for f, incs in includes.items():
        for h in incs:
            if h not in layer_of:
                problems.append(f"src/{f}: includes {h}, which is in no layer")
            elif layer_of[h] > layer_of[f]:
                problems.append(
                    f"src/{f} ({LAYERS[layer_of[f]][0]}) includes {h} "
                    f"({LAYERS[layer_of[h]][0]}): an upward edge")
            elif h.endswith("_internal.h") and layer_of[h] != layer_of[f]:
                problems.append(f"src/{f}: includes {h}, private to the "
                                f"{LAYERS[layer_of[h]][0]} layer")

    # Cycles among the includes (a .def file includes nothing).
    state = {}

    def visit(f, path):
        state[f] = "open"
        for h in includes.get(f, []):
            if h == f:
                continue
            if state.get(h) == "open":
                cycle = path[path.index(h):] + [h] if h in path else [f, h]
                problems.append("an include cycle: " + " -> ".join(cycle))
            elif h not in state:
                visit(h, path + [h])
        state[f] = "done"

    for f in includes:
        if f not in state:
            visit(f, [f])

    # Cycles among modules: every one fails.
    for comp, edges in module_cycles(includes):
        problems.append(f"a cycle among the modules {', '.join(sorted(comp))}: "
                        f"{'; '.join(edges)}")

    if len(sys.argv) == 3:
        problems += check_symbols(sys.argv[2], layer_of)

    for i, (name, job, members) in enumerate(LAYERS):
        print(f"{i} {name:10} {job}: {' '.join(members)}")
    for p in problems:
        print("FAIL: " + p)
    print(f"{len(files)} files, {sum(len(v) for v in includes.values())} "
          f"includes, {len(problems)} problems")
    return 1 if problems else 0


def check_symbols(build, layer_of):
    """Each object's undefined symbols, matched to the object that defines
    them: the user's layer must be at or above the definer's."""
    objects = glob.glob(os.path.join(build, "libufd.so*.p", "src_*.c.o")) + \
        glob.glob(os.path.join(build, "libfdmap.a.p", "src_*.c.o"))
    if not objects:
        return [f"no objects of libufd.so under {build}"]
    defined, used = {}, {}
    for obj in objects:
        src = re.sub(r"^src_|\.o$", "", os.path.basename(obj))
        out = subprocess.run(["nm", obj], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                used.setdefault(src, set()).add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRVW":
                defined[parts[2]] = src
    problems = []
    for src, symbols in sorted(used.items()):
        for s in sorted(symbols):
            owner = defined.get(s)
            if owner and owner in layer_of and src in layer_of and \
                    layer_of[owner] > layer_of[src]:
                problems.append(
                    f"src/{src} ({LAYERS[layer_of[src]][0]}) uses {s} of "
                    f"src/{owner} ({LAYERS[layer_of[owner]][0]}): an upward "
                    "call")
    return problems


if __name__ == "__main__":
    sys.exit(main())
