"""python3 and files: built-in open (buffered, text, binary, append),
os.open/os.read/os.write, dup and dup2, fdopen, tempfile, mmap, fcntl
locks, os.scandir, os.sendfile and os.copy_file_range, shutil. Descriptor
numbers printed are masked by ufd-compare. Run in an empty directory."""
import fcntl
import mmap
import os
import shutil
import tempfile

with open("lines.txt", "w") as f:
    for i in range(1000):
        print(f"line {i}", file=f)
with open("lines.txt", "a") as f:
    f.write("appended\n")
with open("lines.txt") as f:
    lines = f.read().splitlines()
print(len(lines), lines[0], lines[-1])
with open("lines.txt", "rb") as f:
    f.seek(-9, os.SEEK_END)
    print(f.read())

# The descriptor layer.
fd = os.open("raw.bin", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
print("raw fd", fd)
os.write(fd, bytes(range(256)) * 16)
os.lseek(fd, 100, os.SEEK_SET)
print(os.read(fd, 4), os.pread(fd, 4, 200), os.fstat(fd).st_size)
copy = os.dup(fd)
print("dup", copy, os.lseek(copy, 0, os.SEEK_CUR))
os.dup2(fd, copy)
os.close(copy)
print(os.get_inheritable(fd), os.get_blocking(fd))
os.set_inheritable(fd, True)
print(os.get_inheritable(fd))
with os.fdopen(os.dup(fd), "rb") as f:
    f.seek(0)
    print("fdopen", f.read(3), f.fileno() > 2)
os.ftruncate(fd, 1024)
os.fsync(fd)
print("truncated", os.fstat(fd).st_size)

# Memory mapping, locks.
with mmap.mmap(fd, 1024) as m:
    m[0:5] = b"HELLO"
    print("mmap", m[0:8])
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
fcntl.lockf(fd, fcntl.LOCK_UN)
print("flags", fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDWR,
      fcntl.fcntl(fd, fcntl.F_GETFD))
os.close(fd)
with open("raw.bin", "rb") as f:
    print(f.read(6))

# Copies through the kernel: sendfile and copy_file_range.
src = os.open("lines.txt", os.O_RDONLY)
dst = os.open("copy1.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
print("sendfile", os.sendfile(dst, src, 0, 100))
os.close(dst)
dst = os.open("copy2.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
print("copy_file_range", os.copy_file_range(src, dst, 50, 10))
os.close(dst)
os.close(src)
shutil.copyfile("lines.txt", "copy3.txt")
shutil.copytree(".", "../tree-" + os.path.basename(os.getcwd()), dirs_exist_ok=True)
shutil.rmtree("../tree-" + os.path.basename(os.getcwd()))

# Directories: listing through a descriptor, *at calls via dir_fd.
os.mkdir("sub")
dfd = os.open("sub", os.O_RDONLY | os.O_DIRECTORY)
with open("inside", "w", opener=lambda p, fl: os.open(p, fl, 0o644, dir_fd=dfd)) as f:
    f.write("made with dir_fd\n")
os.rename("inside", "renamed", src_dir_fd=dfd, dst_dir_fd=dfd)
print("stat via dir_fd", os.stat("renamed", dir_fd=dfd).st_size)
print(sorted(e.name for e in os.scandir(dfd)))
print(sorted(os.listdir(dfd)))
os.close(dfd)
print(sorted(os.listdir(".")))

# Temporary files and directories.
with tempfile.TemporaryFile(dir=".") as t:
    t.write(b"temporary")
    t.seek(0)
    print(t.read())
with tempfile.NamedTemporaryFile("w+", dir=".", delete=True) as t:
    t.write("named")
    t.flush()
    print(open(t.name).read())
with tempfile.TemporaryDirectory(dir=".") as d:
    open(os.path.join(d, "x"), "w").close()
    print(os.listdir(d))
print(sorted(os.listdir(".")))
