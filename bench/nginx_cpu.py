#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/nginx_cpu.py - issue 27's nginx figure: the CPU time nginx spends
per keep-alive request, bare and under ufd in each mode given, in paired
rounds (bench/rounds.py), made to hold on a shared, noisy 2-core machine:

- the CPU time is nginx's own (master and worker, every thread): the
  scheduler's nanoseconds on the CPU (/proc/PID/task/TID/schedstat),
  before and after a fixed number of requests, not the client's time
  nor the wall clock, and finer than /proc's clock ticks;
- the client is wrk (one thread, 16 connections, keep-alive; a Lua
  script ends it after exactly NGINX_REQUESTS responses, all 200), never
  under ufd;
- one nginx per setting, each on its own port, all running; each round
  sends NGINX_REQUESTS to each in an order rotated from round to round;
  the servers are started afresh every block of rounds (10 blocks), so
  that one process's memory layout does not decide the figure;
- the settings are bare, bare again (a second bare server: the A/A check
  of the method, which should give 1.00 with a narrow spread) and ufd in
  each mode; printed per setting: the median CPU per request, and the
  median of each round's ratio to the same round's bare run, with its
  quartiles and range, and the ratio of the sums with its range over the
  blocks.
Then two exact counts, on one connection (every request the same calls):
the system calls per request (strace -c -f on the worker), and the
user-space instructions per request (callgrind on the worker: its total
over 3N requests minus its total over N, over 2N).

PIN=1 puts nginx on CPU 1 and wrk on CPU 0 (taskset); by default the
scheduler places them (on this VM pinned runs were no steadier: nginx's
CPU goes idle between batches, and each wake-up of an idle virtual CPU is
dear).  Real-time priority for both (chrt) was no steadier either.

Usage: nginx_cpu.py UFD_LIB [MODE...]   (MODE: default, all, random;
default: default all random)
Environment: NGINX_ROUNDS (100), NGINX_REQUESTS (5000), PORT_BASE
(18180: the servers take PORT_BASE and up), PIN (0), NGINX_CONNS (16),
NGINX_STRACE_REQUESTS (2000; 0: no system-call count),
NGINX_CALLGRIND_REQUESTS (1000; 0: no instruction count), SUMMARY (a
file the figures are appended to, for bench/servers.sh's summary), RAW
(a file for each round's microseconds per request, a line a round, the
settings in the order above).
Needs nginx and wrk (bench/servers.sh installs them); strace and
valgrind for the counts.
"""
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rounds import env_int, format_stats, ratio_stats, rotated, summary  # noqa: E402

MODES = ("default", "all", "random")
ME = "nginx_cpu.py"

LUA = """
local n = 0
local limit = tonumber(os.getenv("NGINX_CPU_REQUESTS"))
response = function(status, headers, body)
  if status ~= 200 then io.stderr:write("status ", status, "\\n"); os.exit(3) end
  n = n + 1
  if n == limit then os.exit(0) end
end
"""

CONF = """daemon off;
worker_processes 1;
error_log %(dir)s/error.log;
pid %(dir)s/nginx.pid;
events { worker_connections 1024; }
http {
	access_log off;
	server {
		listen 127.0.0.1:%(port)d;
		root %(html)s;
	}
}
"""


def tree_ns(pids):
    """The nanoseconds on the CPU of every thread of PIDS."""
    total = 0
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except FileNotFoundError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                pass
    return total


def children(pid):
    """The pids whose parent is PID."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    stat = f.read()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                out.append(int(d))
    return out


def port_free(port):
    """Whether nothing listens on 127.0.0.1:PORT."""
    s = socket.socket()
    try:
        return s.connect_ex(("127.0.0.1", port)) != 0
    finally:
        s.close()


class Server:
    """One nginx: its prefix directory, port, environment, and when it
    runs, its master's Popen and worker's pid."""

    def __init__(self, work, name, port, env, pin):
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir, exist_ok=True)
        self.port, self.env, self.pin = port, env, pin
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(CONF % {"dir": self.dir, "port": port, "html": os.path.join(work, "html")})
        self.proc = None
        self.worker = None

    def start(self, prefix=()):
        argv = list(prefix) + ["nginx", "-p", self.dir, "-c", self.conf]
        if self.pin:
            argv = ["taskset", "-c", "1"] + argv
        self.proc = subprocess.Popen(argv, env=self.env)
        for _ in range(300 if prefix else 100):
            if self.proc.poll() is not None:
                sys.exit("%s: nginx exited at start (%s)" % (ME, self.dir))
            kids = children(self.proc.pid)
            if kids and not port_free(self.port):
                self.worker = kids[0]
                return
            time.sleep(0.1)
        sys.exit("%s: nginx did not listen on port %d in time" % (ME, self.port))

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def cpu(self):
        return tree_ns([self.proc.pid, self.worker])


def wrk(port, requests, lua, pin, conns):
    """Sends REQUESTS keep-alive requests to PORT (wrk, CONNS connections);
    exits with a message when wrk fails."""
    argv = ["wrk", "-t1", "-c%d" % conns, "-d600s", "-s", lua, "http://127.0.0.1:%d/" % port]
    if pin:
        argv = ["taskset", "-c", "0"] + argv
    env = dict(os.environ, NGINX_CPU_REQUESTS=str(requests))
    env.pop("LD_PRELOAD", None)
    r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=660)
    if r.returncode != 0:
        sys.exit("%s: wrk failed on port %d (status %d): %s"
                 % (ME, port, r.returncode, r.stderr.decode(errors="replace").strip()))


def settled(server):
    """The server's CPU nanoseconds once it has stopped working (the
    connections wrk left are closed): two readings 20 ms apart agree."""
    last = server.cpu()
    for _ in range(50):
        time.sleep(0.02)
        now = server.cpu()
        if now == last:
            break
        last = now
    return last


def strace_counts(server, requests, lua):
    """{system call: calls} of the worker over REQUESTS requests on one
    connection (strace -c -f attached to it), or None without strace."""
    out = os.path.join(os.path.dirname(server.conf), "strace.txt")
    st = subprocess.Popen(["strace", "-c", "-f", "-U", "name,calls", "-o", out,
                           "-p", str(server.worker)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # attached
    wrk(server.port, requests, lua, False, conns=1)
    settled(server)
    st.send_signal(signal.SIGINT)
    st.wait(30)
    calls = {}
    with open(out) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit() and not parts[0].startswith("-"):
                calls[parts[0]] = int(parts[1])
    calls.pop("total", None)
    return calls


def instructions(server, requests, lua):
    """The user-space instructions of the worker per request: callgrind's
    total over 3 x REQUESTS requests on one connection minus its total
    over REQUESTS, over 2 x REQUESTS (start-up and exit cancel)."""
    out = os.path.join(os.path.dirname(server.conf), "cg")
    os.makedirs(out, exist_ok=True)
    os.chmod(out, 0o777)  # the worker runs as nobody
    total = []
    for n in (requests, 3 * requests):
        for f in os.listdir(out):
            os.unlink(os.path.join(out, f))
        server.start(["valgrind", "-q", "--tool=callgrind", "--callgrind-out-file=%s/cg.%%p" % out])
        wrk(server.port, n, lua, False, 1)
        settled(server)
        worker = server.worker
        server.stop()
        with open(os.path.join(out, "cg.%d" % worker)) as f:
            total.append(next(int(line.split()[1]) for line in f
                              if line.startswith(("totals:", "summary:"))))
    return (total[1] - total[0]) / (2 * requests)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ufd = sys.argv[1]
    modes = sys.argv[2:] or list(MODES)
    if not os.path.isfile(ufd):
        sys.exit("%s: %s: no such library" % (ME, ufd))
    for m in modes:
        if m not in MODES:
            sys.exit("%s: %s: not a mode (%s)" % (ME, m, ", ".join(MODES)))
    rounds = env_int("NGINX_ROUNDS", 100)
    requests = env_int("NGINX_REQUESTS", 5000)
    port = env_int("PORT_BASE", 18180, 1024)
    pin = env_int("PIN", 0, 0) != 0 and os.cpu_count() >= 2
    strace_requests = env_int("NGINX_STRACE_REQUESTS", 2000, 0)
    cg_requests = env_int("NGINX_CALLGRIND_REQUESTS", 1000, 0)
    conns = env_int("NGINX_CONNS", 16)
    for prog in ("nginx", "wrk") + (("taskset",) if pin else ()):
        if not shutil.which(prog):
            sys.exit("%s: %s is not installed (bench/servers.sh installs nginx and wrk)"
                     % (ME, prog))
    if not os.path.exists("/proc/self/schedstat"):
        sys.exit("%s: no /proc/PID/schedstat (a kernel without CONFIG_SCHED_INFO)" % ME)
    if strace_requests and not shutil.which("strace"):
        print("%s: no strace: no system-call count" % ME, file=sys.stderr)
        strace_requests = 0
    if cg_requests and not shutil.which("valgrind"):
        print("%s: no valgrind: no instruction count" % ME, file=sys.stderr)
        cg_requests = 0

    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("UFD_")}
    envs = {"bare": base, "bare again": base}
    for m in modes:
        envs[m] = dict(base, LD_PRELOAD=ufd)
        if m != "default":
            envs[m]["UFD_MODE"] = m
    names = list(envs)
    for i in range(len(names)):
        if not port_free(port + i):
            sys.exit("%s: port %d is taken; set PORT_BASE" % (ME, port + i))

    # Killed, the servers are stopped and the files removed all the same.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("%s: terminated" % ME))
    work = tempfile.mkdtemp(prefix="ufd-nginx-cpu.")
    os.chmod(work, 0o755)
    servers = {}
    try:
        os.makedirs(os.path.join(work, "html"))
        with open(os.path.join(work, "html", "index.html"), "w") as f:
            f.write("x" * 4096)
        lua = os.path.join(work, "stop.lua")
        with open(lua, "w") as f:
            f.write(LUA)
        # A copy of the library every server user can read (nginx's
        # worker runs as nobody).
        lib = os.path.join(work, "libufd.so")
        shutil.copy(ufd, lib)
        os.chmod(lib, 0o644)
        for n in names:
            if "LD_PRELOAD" in envs[n]:
                envs[n]["LD_PRELOAD"] = lib
        for i, n in enumerate(names):
            servers[n] = Server(work, "s%d" % i, port + i, envs[n], pin)
        blocks = min(10, rounds)
        per_block = (rounds + blocks - 1) // blocks

        def start_all():
            for s in servers.values():
                s.stop()
                s.start()
                wrk(s.port, min(requests, 2000), lua, pin, conns)  # warm up

        def one(n, r):
            if r % per_block == 0 and n == names[r % len(names)]:
                start_all()
            s = servers[n]
            before = settled(s)
            wrk(s.port, requests, lua, pin, conns)
            return (settled(s) - before) / 1e3 / requests  # microseconds

        print("%s: %d rounds of %d requests to each of: %s" % (ME, rounds, requests, ", ".join(names)),
              file=sys.stderr)
        cpu = rotated(rounds, names, one)

        calls = {}
        if strace_requests:
            for n in names:
                if n != "bare again":
                    calls[n] = strace_counts(servers[n], strace_requests, lua)
        ins = {}
        if cg_requests:
            for n in names:
                if n != "bare again":
                    servers[n].stop()
                    ins[n] = instructions(servers[n], cg_requests, lua)
    finally:
        for s in servers.values():
            s.stop()
        shutil.rmtree(work, ignore_errors=True)

    if os.environ.get("RAW"):
        with open(os.environ["RAW"], "w") as f:
            for r in range(rounds):
                f.write(" ".join("%.3f" % cpu[n][r] for n in names) + "\n")
    print("== nginx keep-alive (wrk: 1 thread, %d connections, %d requests a run): CPU of nginx "
          "(master and worker, schedstat) per request; %d rounds, every setting once a round, "
          "order rotated, servers restarted every %d rounds%s"
          % (conns, requests, rounds, per_block, "; nginx on CPU 1, wrk on CPU 0" if pin else ""))
    print("CPU per request, median (quartiles): " + ", ".join(
        "%s %.2f us (%.2f-%.2f)" % (n, statistics.median(cpu[n]),
                                    sorted(cpu[n])[int(0.25 * (rounds - 1) + 0.5)],
                                    sorted(cpu[n])[int(0.75 * (rounds - 1) + 0.5)])
        for n in names))
    for n in names[1:]:
        s = ratio_stats(cpu[n], cpu["bare"])
        key = "nginx_aa" if n == "bare again" else "nginx_" + n
        summary(key, s)
        label = "bare again / bare (A/A)" if n == "bare again" else "ufd %s / bare" % n
        print("%-26s %s%s" % (label, format_stats(s),
                              "   (target <= 1.15)" if n == "random" else ""))
    if calls:
        print("system calls per request (strace -c -f on the worker, 1 connection, %d requests):"
              % strace_requests)
        for n in calls:
            total = sum(calls[n].values()) / strace_requests
            top = sorted(calls[n].items(), key=lambda kv: -kv[1])
            print("  %-8s %5.2f: %s" % (n, total, ", ".join(
                "%s %.2f" % (k, v / strace_requests) for k, v in top
                if v / strace_requests >= 0.01)))
            if os.environ.get("SUMMARY"):
                with open(os.environ["SUMMARY"], "a") as f:
                    f.write("nginx_syscalls_%s %.2f\n" % (n, total))
    if ins:
        print("user-space instructions per request (callgrind, the worker, 1 connection, "
              "%d requests minus %d): %s" % (3 * cg_requests, cg_requests, ", ".join(
                  "%s %.0f%s" % (n, ins[n], "" if n == "bare" else " (%+.0f)" % (ins[n] - ins["bare"]))
                  for n in ins)))
        if os.environ.get("SUMMARY"):
            with open(os.environ["SUMMARY"], "a") as f:
                for n in ins:
                    f.write("nginx_instructions_%s %.0f\n" % (n, ins[n]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
