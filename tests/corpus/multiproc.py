"""python3's multiprocessing with each start method: fork (the child has
the parent's descriptors), spawn (a new interpreter told its pipe's and
the resource tracker's descriptor numbers on its command line, passed
with pass_fds), forkserver (a server process that receives the
descriptors over a Unix socket with SCM_RIGHTS). A Pool, a Process with
a Queue and a Pipe, a ProcessPoolExecutor; a Manager (a server process
reached over a socket). Run in an empty directory."""
import concurrent.futures as cf
import multiprocessing as mp


def square(x):
    return x * x


def worker(q, conn):
    q.put("queued from " + mp.current_process().name)
    conn.send("sent through a Pipe")
    conn.close()


if __name__ == "__main__":
    for method in ("fork", "spawn", "forkserver"):
        ctx = mp.get_context(method)
        with ctx.Pool(2) as pool:
            print(method, "pool", pool.map(square, range(8)))
        q = ctx.Queue()
        a, b = ctx.Pipe()
        p = ctx.Process(target=worker, args=(q, b), name="worker-" + method)
        p.start()
        print(method, q.get(timeout=60), a.recv())
        p.join()
        print(method, "exit", p.exitcode)
        with cf.ProcessPoolExecutor(2, mp_context=ctx) as ex:
            print(method, "executor", sorted(ex.map(square, range(5))))
    with mp.Manager() as m:
        d = m.dict(a=1)
        d["b"] = 2
        print("manager", sorted(d.items()))
