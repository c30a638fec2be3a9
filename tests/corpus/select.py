"""python3's select.select() on a pipe: an fd_set holds descriptors below
FD_SETSIZE (1024) only, and CPython checks before building one. poll()
on the same descriptor works. Expected to differ under UFD_MODE=all."""
import os
import select

r, w = os.pipe()
os.write(w, b"x")
p = select.poll()
p.register(r, select.POLLIN)
print("poll ready:", [fd == r for fd, _ in p.poll(0)])
print("select ready:", select.select([r], [], [], 0)[0] == [r])
