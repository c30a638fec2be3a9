"""python3 and sockets: socketpair, a TCP server on 127.0.0.1 (an
ephemeral port) with a client thread, selectors (epoll) and poll, UDP,
Unix stream sockets with descriptors passed over SCM_RIGHTS, socket.dup
and fromfd, makefile, and asyncio (an event loop on epoll, with its
self-pipe socketpair). Output is in a fixed order. Run in an empty
directory."""
import asyncio
import os
import select
import selectors
import socket
import threading

# socketpair, both directions, shutdown.
a, b = socket.socketpair()
a.sendall(b"ping")
print("socketpair", b.recv(4))
b.sendall(b"pong")
a.shutdown(socket.SHUT_WR)
print(a.recv(4), b.recv(4))
a.close()
b.close()

# A TCP server on 127.0.0.1 with a thread per client; the main thread is
# the client. The port is the kernel's choice, not printed.
srv = socket.create_server(("127.0.0.1", 0))
port = srv.getsockname()[1]


def serve(n):
    for _ in range(n):
        conn, _ = srv.accept()
        with conn, conn.makefile("rwb") as f:
            for line in f:
                f.write(line.upper())
                f.flush()


t = threading.Thread(target=serve, args=(2,))
t.start()
for i in range(2):
    with socket.create_connection(("127.0.0.1", port)) as c:
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        print("peer is server", c.getpeername()[1] == port)
        with c.makefile("rwb") as f:
            for word in (b"hello\n", b"world %d\n" % i):
                f.write(word)
                f.flush()
                print("tcp", f.readline())
        c.shutdown(socket.SHUT_WR)
t.join()

# A non-blocking server driven by a selector (epoll) and by poll.
srv.setblocking(False)
sel = selectors.DefaultSelector()
print("selector", type(sel).__name__)
sel.register(srv, selectors.EVENT_READ, "accept")
clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
for i, c in enumerate(clients):
    c.sendall(b"client %d" % i)
conns, got = [], []
while len(got) < 3:
    for key, _ in sel.select(timeout=5):
        if key.data == "accept":
            conn, _ = srv.accept()
            conn.setblocking(False)
            sel.register(conn, selectors.EVENT_READ, "read")
            conns.append(conn)
        else:
            data = key.fileobj.recv(100)
            got.append(data)
            sel.unregister(key.fileobj)
print("selected", sorted(got))
sel.close()
p = select.poll()
for c in conns:
    c.sendall(b"back")
for c in clients:
    p.register(c, select.POLLIN)
ready = 0
while ready < 3:
    ev = p.poll(5000)
    for fd, mask in ev:
        p.unregister(fd)
        ready += 1
print("polled", ready, [c.recv(10) for c in clients])
for s in conns + clients:
    s.close()
srv.close()

# UDP.
u1 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u1.bind(("127.0.0.1", 0))
u2 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u2.sendto(b"datagram", u1.getsockname())
data, addr = u1.recvfrom(100)
print("udp", data, addr[0])
u1.close()
u2.close()

# Descriptors passed over a Unix socket: a file and a pipe end.
with open("passed.txt", "w") as f:
    f.write("sent over SCM_RIGHTS\n")
l, r = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
ffd = os.open("passed.txt", os.O_RDONLY)
pr, pw = os.pipe()
socket.send_fds(l, [b"fds"], [ffd, pw])
msg, fds, flags, _ = socket.recv_fds(r, 100, 4)
print("received", msg, len(fds), [fd in (ffd, pw) for fd in fds])
print(os.read(fds[0], 100))
os.write(fds[1], b"through the passed pipe")
os.close(fds[1])
os.close(pw)
print(os.read(pr, 100))
for fd in (ffd, pr, fds[0]):
    os.close(fd)
l.close()
r.close()

# socket.dup, fromfd, and a Unix socket bound to a path.
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("sock")
s.listen()
d = s.dup()
e = socket.fromfd(s.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)
print("dup/fromfd", d.getsockname(), e.getsockname(), d.fileno() != s.fileno())
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.connect("sock")
conn, _ = e.accept()
c.sendall(b"unix path")
print(conn.recv(20))
for x in (c, conn, d, e, s):
    x.close()
os.unlink("sock")


# asyncio: a server and a client on one event loop.
async def main():
    async def handle(reader, writer):
        line = await reader.readline()
        writer.write(b"echo " + line)
        await writer.drain()
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    replies = []
    for i in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"async %d\n" % i)
        await writer.drain()
        replies.append(await reader.readline())
        writer.close()
        await writer.wait_closed()
    server.close()
    await server.wait_closed()
    print("asyncio", replies)
    r, w = os.pipe()
    loop = asyncio.get_running_loop()
    fut = loop.create_future()
    loop.add_reader(r, lambda: fut.set_result(os.read(r, 100)))
    os.write(w, b"pipe reader")
    print("add_reader", await fut)
    loop.remove_reader(r)
    os.close(r)
    os.close(w)

asyncio.run(main())
