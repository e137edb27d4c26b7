"""All-to-all in a Triton kernel that calls gshmem: program p puts this PE's chunk for PE p into PE p's slot for
this PE, adding 1 to PE p's signal, then every program waits until all PEs' chunks have arrived.
    gshmrun -n 4 python3 triton_alltoall.py        (GPUs; PEs may share one)"""

import torch
import triton.language as tl

import gshmem
import gshmem.triton as nvshmem


@nvshmem.jit
def alltoall(dst, src, signal, chunk_bytes, round, NPES: tl.constexpr):
    me = nvshmem.my_pe()
    pe = tl.program_id(0)  # the destination of this program's chunk
    nvshmem.putmem_signal_nbi_block(dst + me * chunk_bytes, src + pe * chunk_bytes, chunk_bytes, signal, 1,
                                    nvshmem.SIGNAL_ADD, pe)
    nvshmem.signal_wait_until(signal, nvshmem.CMP_GE, NPES * round)


def main():
    with gshmem.init():
        me, n = gshmem.my_pe(), gshmem.n_pes()
        chunk = 4096  # bytes per PE
        src = gshmem.empty(n * chunk, torch.uint8, like="torch")
        dst = gshmem.zeros(n * chunk, torch.uint8, like="torch")
        signal = gshmem.zeros(1, "uint64", like="torch")
        for round in (1, 2, 3):
            # Last round's dst read by everyone, and its puts complete (they read src) before src changes.
            gshmem.barrier_all(stream=torch.cuda.current_stream())
            for p in range(n):
                src[p * chunk:(p + 1) * chunk] = (16 * me + p + round) % 256
            alltoall[(n,)](dst, src, signal, chunk, round, n)
            torch.cuda.synchronize()
            for p in range(n):
                got = dst[p * chunk:(p + 1) * chunk]
                assert bool((got == (16 * p + me + round) % 256).all()), (round, p, got[:4])
        print(f"PE {me} of {n}: all-to-all of {chunk} bytes per PE, 3 rounds ok")
        gshmem.barrier_all()
        for a in (signal, dst, src):
            gshmem.free(a)


if __name__ == "__main__":
    main()
