"""python3 and child processes: os.pipe, os.fork with a pipe, subprocess
(Popen with pipes for all three streams, communicate, check_output, run
with input, a pipeline of two Popens, pass_fds with an inherited
descriptor, close_fds), os.posix_spawn with file actions, os.system and
os.popen. Children are small programs (cat, sort, sh, python3 itself).
Run in an empty directory."""
import os
import subprocess
import sys

# os.pipe and os.fork.
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    os.write(w, b"from the forked child")
    os._exit(7)
os.close(w)
print("fork", os.read(r, 100), os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
os.close(r)

# Popen with all three streams piped; communicate polls them.
p = subprocess.Popen(["sh", "-c", "cat; echo to-stderr >&2; exit 3"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
out, err = p.communicate(b"x" * 200000)
print("communicate", len(out), err, p.returncode)

print("check_output", subprocess.check_output(["sort", "-r"], input=b"a\nc\nb\n"))
r = subprocess.run([sys.executable, "-c", "import sys; print(sys.stdin.read().upper())"],
                   input="through run\n", capture_output=True, text=True)
print("run", repr(r.stdout), r.returncode)
try:
    subprocess.check_call(["sh", "-c", "exit 5"])
except subprocess.CalledProcessError as e:
    print("check_call", e.returncode)

# A pipeline: seq | sort -n -r | sed, joined by Popen pipes (sed reads
# to the end, so no stage can die of SIGPIPE, whatever the timing).
p1 = subprocess.Popen(["seq", "1", "5000"], stdout=subprocess.PIPE)
p2 = subprocess.Popen(["sort", "-n", "-r"], stdin=p1.stdout, stdout=subprocess.PIPE)
p1.stdout.close()
p3 = subprocess.Popen(["sed", "-n", "1,3p"], stdin=p2.stdout, stdout=subprocess.PIPE)
p2.stdout.close()
print("pipeline", p3.communicate()[0], p1.wait(), p2.wait(), p3.returncode)

# A descriptor handed to a child by number, with pass_fds; close_fds
# closes the others (the child lists what it has).
with open("handed.txt", "w") as f:
    f.write("read by the child through its number\n")
fd = os.open("handed.txt", os.O_RDONLY)
other = os.open("handed.txt", os.O_RDONLY)
child = ("import os, sys; fd = int(sys.argv[1]); print(os.read(fd, 100).decode(), end='');"
         "print('other open:', os.path.exists('/proc/self/fd/' + sys.argv[2]))")
out = subprocess.check_output([sys.executable, "-c", child, str(fd), str(other)],
                              pass_fds=[fd])
print("pass_fds", out)
os.close(fd)
os.close(other)

# stdout to a file, stderr to stdout, cwd and env.
with open("child-out.txt", "w") as f:
    subprocess.run(["sh", "-c", "echo out; echo err >&2; pwd"],
                   stdout=f, stderr=subprocess.STDOUT, cwd="/", env={"PATH": os.environ["PATH"]})
print(open("child-out.txt").read().split())

# posix_spawn with file actions.
with open("spawn-in.txt", "w") as f:
    f.write("spawned and system\n")
r, w = os.pipe()
pid = os.posix_spawnp("sh", ["sh", "-c", "echo spawned; cat spawn-in.txt"], os.environ,
                      file_actions=[(os.POSIX_SPAWN_DUP2, w, 1),
                                    (os.POSIX_SPAWN_CLOSE, r)])
os.close(w)
with os.fdopen(r, "rb") as f:
    print("posix_spawn", f.read(), os.waitpid(pid, 0)[1])

# os.system and os.popen go through a shell.
print("system", os.waitstatus_to_exitcode(os.system("cat spawn-in.txt > system-out.txt; exit 2")))
with os.popen("sort -r spawn-in.txt child-out.txt") as f:
    print("popen", f.read().split())
