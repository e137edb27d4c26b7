"""The Triton twin of shmem_put_signal_ping_pong_latency at block scope: PE 1 waits for the round's signal, then both
PEs answer with nvshmemx_putmem_signal_nbi_block of SIZE bytes (signal set to the round); PE 0 starts each round.
The round trip per iteration from PE 0's kernel time, as the perftest measures it.
    gshmrun -n 2 python3 triton_put_signal.py [SIZE] [ITERS] [WARMUP]
Prints "triton_put_signal SIZE us"."""

import sys

import torch
import triton.language as tl

import gshmem
import gshmem.triton as nvshmem


@nvshmem.jit
def ping_pong(dest, src, flag, nbytes, me, peer, rounds, base):
    for r in range(1, rounds + 1):
        k = base + r
        if me == 1:
            nvshmem.signal_wait_until(flag, nvshmem.CMP_EQ, k)
        nvshmem.putmem_signal_nbi_block(dest, src, nbytes, flag, k, nvshmem.SIGNAL_SET, peer)
        if me == 0:
            nvshmem.signal_wait_until(flag, nvshmem.CMP_EQ, k)


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    warmup = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    with gshmem.init():
        me = gshmem.my_pe()
        peer = 1 - me
        dest = gshmem.zeros(size, torch.uint8, like="torch")
        src = gshmem.zeros(size, torch.uint8, like="torch")
        flag = gshmem.zeros(1, "uint64", like="torch")
        src.fill_(me + 1)
        gshmem.barrier_all()
        ping_pong[(1,)](dest, src, flag, size, me, peer, warmup, 0)  # num_warps 4: a block of 128 threads
        torch.cuda.synchronize()
        gshmem.barrier_all()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        ping_pong[(1,)](dest, src, flag, size, me, peer, iters, warmup)
        stop.record()
        torch.cuda.synchronize()
        gshmem.barrier_all()
        assert bool((dest == peer + 1).all()), dest[:4]
        if me == 0:
            print(f"triton_put_signal {size} {start.elapsed_time(stop) * 1e3 / iters:.3f}")
        gshmem.barrier_all()
        for a in (flag, src, dest):
            gshmem.free(a)


if __name__ == "__main__":
    main()
