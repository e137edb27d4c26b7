"""All-reduce of a float32 tensor in Triton kernels that call gshmem, two ways:
  - one-shot by loads: each program reads its block of every PE's buffer through nvshmem_ptr (PEs whose memory
    this GPU maps) and sums them; barriers on the stream before and after;
  - by puts with signals: each program puts its block into a slot of every PE, adding 1 to that PE's signal for
    the block, waits until its own signal says every PE's block arrived, and sums the slots.
    gshmrun -n 2 python3 triton_allreduce.py        (GPUs; PEs may share one)"""

import torch
import triton
import triton.language as tl

import gshmem
import gshmem.triton as nvshmem

BLOCK = 1024


@nvshmem.jit
def allreduce_by_loads(buf, out, n_elements, NPES: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    acc = tl.zeros([BLOCK], tl.float32)
    for pe in tl.static_range(NPES):
        peer = nvshmem.ptr(buf, pe).to(tl.pointer_type(tl.float32))
        acc += tl.load(peer + offs, mask=mask)
    tl.store(out + offs, acc, mask=mask)


@nvshmem.jit
def allreduce_by_puts(buf, slots, signals, out, n_elements, round, NPES: tl.constexpr, BLOCK: tl.constexpr):
    # slots: NPES copies of the buffer, one per source PE; signals: one counter per block
    me = nvshmem.my_pe()
    block = tl.program_id(0)
    start = block * BLOCK
    nbytes = tl.minimum(n_elements - start, BLOCK) * 4
    for pe in tl.static_range(NPES):
        nvshmem.putmem_signal_nbi_block(slots + me * n_elements + start, buf + start, nbytes, signals + block, 1,
                                        nvshmem.SIGNAL_ADD, pe)
    nvshmem.signal_wait_until(signals + block, nvshmem.CMP_GE, NPES * round)
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n_elements
    acc = tl.zeros([BLOCK], tl.float32)
    for pe in tl.static_range(NPES):
        acc += tl.load(slots + pe * n_elements + offs, mask=mask, volatile=True)
    tl.store(out + offs, acc, mask=mask)


def main():
    with gshmem.init():
        me, n = gshmem.my_pe(), gshmem.n_pes()
        count = 5000
        blocks = triton.cdiv(count, BLOCK)
        buf = gshmem.empty(count, torch.float32, like="torch")
        slots = gshmem.empty(n * count, torch.float32, like="torch")
        signals = gshmem.zeros(blocks, "uint64", like="torch")
        out = torch.empty_like(buf)
        buf.copy_(torch.arange(count, device=buf.device, dtype=torch.float32) * (me + 1))
        expect = torch.arange(count, device=buf.device, dtype=torch.float32) * (n * (n + 1) // 2)
        stream = torch.cuda.current_stream()

        gshmem.barrier_all(stream=stream)  # every buf written before any PE reads it
        allreduce_by_loads[(blocks,)](buf, out, count, n, BLOCK)
        gshmem.barrier_all(stream=stream)  # nobody rewrites buf while another PE still reads it
        torch.cuda.synchronize()
        assert torch.equal(out, expect), out[:4]

        for round in (1, 2):  # the signals count on: round r waits for r * n arrivals
            # Every PE's slots are free again and the last round's puts complete (they read buf) before buf changes.
            gshmem.barrier_all(stream=stream)
            buf.mul_(2)  # new data each round (and out cleared), so a round that did nothing would show
            out.zero_()
            allreduce_by_puts[(blocks,)](buf, slots, signals, out, count, round, n, BLOCK)
            torch.cuda.synchronize()
            assert torch.equal(out, expect * 2**round), (round, out[:4])
        print(f"PE {me} of {n}: all-reduce of {count} floats by loads and by puts with signals ok")
        gshmem.barrier_all()
        for a in (signals, slots, buf):
            gshmem.free(a)


if __name__ == "__main__":
    main()
