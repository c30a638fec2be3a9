"""python3 and pseudo-terminals: pty.fork (the child's standard streams a
terminal, its output read from the master until EIO), pty.openpty with a
subprocess on the slave (stty on it), the master read through poll.
Run in an empty directory."""
import os
import pty
import select
import subprocess
import sys

pid, fd = pty.fork()
if pid == 0:
    print("in the child, terminals:", os.isatty(0), os.isatty(1))
    sys.stdout.flush()
    os._exit(3)
out = b""
while True:
    try:
        d = os.read(fd, 1024)
    except OSError:
        break
    if not d:
        break
    out += d
os.close(fd)
_, st = os.waitpid(pid, 0)
print(out.replace(b"\r", b"").decode().strip(), "status", os.waitstatus_to_exitcode(st))

m, s = pty.openpty()
p = subprocess.Popen(["sh", "-c", "tty >/dev/null && echo on a terminal; stty -a | head -c 5"],
                     stdin=s, stdout=s, stderr=s, close_fds=True)
print("the slave is a pts:", os.ttyname(s).startswith("/dev/pts/"))
os.close(s)
poller = select.poll()
poller.register(m, select.POLLIN)
buf = b""
while poller.poll(10000):
    try:
        d = os.read(m, 100)
    except OSError:
        break
    if not d:
        break
    buf += d
p.wait()
os.close(m)
print(buf.replace(b"\r", b"").decode().strip(), "status", p.returncode)
