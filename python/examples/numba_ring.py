"""A ring in a numba-cuda kernel that calls gshmem: each round, every PE's block puts its token array into the next
PE's buffer with a signal, waits for the previous PE's, and adds its own number before passing it on; after n_pes
rounds every token has gone round the ring and holds the sum of all PE numbers.
    gshmrun -n 2 python3 numba_ring.py        (GPUs; PEs may share one)"""

import torch
from numba import cuda

import gshmem
import gshmem.numba as shm

N = 4096


@cuda.jit
def ring_step(inbox, token, sig, round):
    me, n = shm.my_pe(), shm.n_pes()
    i = cuda.threadIdx.x
    while i < token.size:  # this PE's part of the sum, then on to the next PE
        token[i] += me
        i += cuda.blockDim.x
    cuda.syncthreads()
    shm.put_signal_block(inbox, token, sig, round, shm.SIGNAL_SET, (me + 1) % n)
    shm.signal_wait(sig, shm.CMP_GE, round)
    i = cuda.threadIdx.x
    while i < token.size:  # what the previous PE passed on is this PE's token for the next round
        token[i] = inbox[i]
        i += cuda.blockDim.x


def main():
    gshmem.init()
    me, n = gshmem.my_pe(), gshmem.n_pes()
    cuda.select_device(gshmem.cuda_device())
    dev = torch.device("cuda", gshmem.cuda_device())
    inbox = gshmem.zeros(N, "int64", like="torch")
    token = gshmem.zeros(N, "int64", like="torch")
    sig = gshmem.zeros(1, "uint64", like="torch")
    torch.cuda.synchronize(dev)
    gshmem.barrier_all()
    for r in range(1, n + 1):
        ring_step[1, 256](inbox, token, sig, r)
        torch.cuda.synchronize(dev)
        gshmem.barrier_all()  # every PE has read its inbox before the next round's put overwrites it
    want = n * (n - 1) // 2
    assert bool((token == want).all()), token[:4]
    print(f"PE {me} of {n}: every token went round the ring of {n} PEs and holds {want}", flush=True)
    gshmem.finalize()


if __name__ == "__main__":
    main()
