"""The Python side of bench/pycalls: the same host calls as host_calls.cpp, through `import gshmem`, timed the same
way. Prints "op us_per_call" lines on PE 0.
    gshmrun -n 2 python3 python_calls.py [iters] [warmup]"""

import sys
import time

import numpy as np

import gshmem


def time_us(iters, warmup, f):
    for _ in range(warmup):
        f()
    gshmem.barrier_all()
    t0 = time.perf_counter()
    for _ in range(iters):
        f()
    return (time.perf_counter() - t0) * 1e6 / iters


BATCH = 100


def time_stream_us(iters, warmup, f, sync):
    """The on-stream forms: the host's cost per call, in batches of BATCH with the stream drained between them
    (not timed), as host_calls.cpp times them."""
    for _ in range(warmup):
        f()
    sync()
    gshmem.barrier_all()
    spent, done = 0.0, 0
    while done < iters:
        t0 = time.perf_counter()
        for _ in range(BATCH):
            f()
        spent += time.perf_counter() - t0
        sync()
        done += BATCH
    return spent * 1e6 / done


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    warmup = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    with gshmem.init():
        me, n = gshmem.my_pe(), gshmem.n_pes()
        box = gshmem.zeros(1, np.int64)
        src = gshmem.zeros(1, np.int64)
        dst = gshmem.zeros(1, np.int64)
        local = np.full(1, 7, np.int64)
        peer = (me + 1) % n
        put, get, p, fadd, barrier_all, reduce = (
            gshmem.put, gshmem.get, gshmem.p, gshmem.atomic_fetch_add, gshmem.barrier_all, gshmem.reduce)
        rows = []

        def one_sided(op, f, stream=False):
            us = 0.0
            if me == 0:
                us = time_stream_us(iters, warmup, f, sync) if stream else time_us(iters, warmup, f)
            else:
                barrier_all()
            barrier_all()
            rows.append((op, us))

        one_sided("put_8B", lambda: put(box, local, peer))
        one_sided("put_nbi_8B", lambda: put(box, local, peer, nbi=True))
        gshmem.quiet()
        one_sided("get_8B", lambda: get(local, box, peer))
        one_sided("p_8B", lambda: p(box, 5, peer))
        one_sided("atomic_fetch_add_8B", lambda: fadd(box, 1, peer))
        rows.append(("barrier_all", time_us(iters // 4, warmup // 4, barrier_all)))
        rows.append(("reduce_sum_8B", time_us(iters // 4, warmup // 4, lambda: reduce(dst, src, "sum"))))
        # On the default stream (0: CUDA's legacy stream; on the CPU backend the calls run at once).
        sync = lambda: None  # noqa: E731
        if gshmem.cuda_device() >= 0:
            import torch

            sync = torch.cuda.synchronize
        one_sided("put_on_stream_8B", lambda: put(box, src, peer, stream=0), stream=True)
        rows.append(("barrier_all_on_stream",
                     time_stream_us(iters // 4, warmup // 4, lambda: barrier_all(stream=0), sync)))
        rows.append(("reduce_sum_on_stream_8B",
                     time_stream_us(iters // 4, warmup // 4, lambda: reduce(dst, src, "sum", stream=0), sync)))
        sync()
        if me == 0:
            print("backend", "gpu" if gshmem.cuda_device() >= 0 else "cpu", flush=True)
            for op, us in rows:
                print(f"{op} {us:.3f}", flush=True)
        gshmem.barrier_all()
        for a in (dst, src, box):
            gshmem.free(a)


if __name__ == "__main__":
    main()
