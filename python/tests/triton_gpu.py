"""Triton kernels that call gshmem on GPUs (2 or 4 PEs; on a machine of one GPU they share it): a put + signal ring,
a get ring, an all-reduce that reads the peers through nvshmem_ptr, one by puts with signals, an all-to-all, fcollect
and broadcast, barriers and syncs of the world and of a team, a ring captured in a CUDA graph and replayed; every
value checked on every PE. Nothing is called after a kernel compiles: gshmem.triton sets up each module as Triton
loads it.
    gshmrun -n 2 python3 triton_gpu.py
Prints "triton_gpu: PE i of n ok"; exits 77 ("skipped") without a GPU or Triton."""

import sys

try:
    import torch
    import triton
    import triton.language as tl
except ImportError as e:
    print(f"triton_gpu: skipped: {e}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("triton_gpu: no usable GPU: skipped")
    sys.exit(77)

import gshmem  # noqa: E402
import gshmem.devlib  # noqa: E402

try:
    gshmem.devlib.files()
except gshmem.devlib.DeviceLibraryNotFound as e:  # built without clang: GSHMEM_DEVICE_LIB_DIR names a copy
    print(f"triton_gpu: skipped: {e}")
    sys.exit(77)
import gshmem.triton as nvshmem  # noqa: E402

gshmem.init()
me, n = gshmem.my_pe(), gshmem.n_pes()
dev = torch.device("cuda", gshmem.cuda_device())


def sym(shape, dtype, fill=0):
    t = gshmem.empty(shape, dtype, like="torch")
    t.fill_(fill)
    torch.cuda.synchronize()  # filled before any peer's put can land (a host barrier does not wait for the GPU)
    return t


def settled():
    """This PE's GPU work done, then every PE's: what follows (a kernel that writes to peers) races nothing."""
    torch.cuda.synchronize()
    gshmem.barrier_all()


@nvshmem.jit
def ring_put_signal(dst, src, sig, nbytes, round):
    me = nvshmem.my_pe()
    nvshmem.putmem_signal_block(dst, src, nbytes, sig, round, nvshmem.SIGNAL_SET, (me + 1) % nvshmem.n_pes())
    nvshmem.signal_wait_until(sig, nvshmem.CMP_GE, round)


@nvshmem.jit
def ring_get(dst, src, nbytes):
    me = nvshmem.my_pe()
    nvshmem.getmem_block(dst, src, nbytes, (me + 1) % nvshmem.n_pes())


@nvshmem.jit
def allreduce_by_loads(buf, out, N: tl.constexpr, NPES: tl.constexpr):
    nvshmem.barrier_all_block()
    offs = tl.arange(0, N)
    acc = tl.zeros([N], tl.float32)
    for pe in tl.static_range(NPES):
        peer = nvshmem.ptr(buf, pe).to(tl.pointer_type(tl.float32))
        acc += tl.load(peer + offs)
    tl.store(out + offs, acc)
    nvshmem.barrier_all_block()  # no PE rewrites its buf while another still reads it


@nvshmem.jit
def allreduce_by_puts(buf, slots, sig, out, N: tl.constexpr, NPES: tl.constexpr, round):
    me = nvshmem.my_pe()
    for pe in tl.static_range(NPES):  # my part into slot `me` of every PE, counted by its signal
        nvshmem.putmem_signal_nbi_block(slots + me * N, buf, N * 4, sig, 1, nvshmem.SIGNAL_ADD, pe)
    nvshmem.signal_wait_until(sig, nvshmem.CMP_GE, NPES * round)
    offs = tl.arange(0, N)
    acc = tl.zeros([N], tl.float32)
    for pe in tl.static_range(NPES):
        acc += tl.load(slots + pe * N + offs, volatile=True)
    tl.store(out + offs, acc)


@nvshmem.jit
def collectives(team, a2a_dst, a2a_src, fc_dst, fc_src, bc, nbytes, root):
    nvshmem.alltoallmem_block(team, a2a_dst, a2a_src, nbytes)
    nvshmem.fcollectmem_block(team, fc_dst, fc_src, nbytes)
    nvshmem.broadcastmem_block(team, bc, bc, nbytes, root)


@nvshmem.jit
def barriers(counter, team, NPES: tl.constexpr):
    # Each round every PE adds 1 to every PE's counter, then a barrier (or a quiet and a sync): after round k every
    # PE sees at least k * NPES (a faster PE may have begun the next round). The world's and a team's forms.
    for pe in tl.static_range(NPES):
        nvshmem.signal_op(counter, 1, nvshmem.SIGNAL_ADD, pe)
    nvshmem.barrier_all_block()
    v1 = nvshmem.signal_fetch(counter)
    for pe in tl.static_range(NPES):
        nvshmem.signal_op(counter, 1, nvshmem.SIGNAL_ADD, pe)
    nvshmem.quiet()
    nvshmem.sync_all_block()
    v2 = nvshmem.signal_fetch(counter)
    for pe in tl.static_range(NPES):
        nvshmem.signal_op(counter, 1, nvshmem.SIGNAL_ADD, pe)
    nvshmem.barrier_block(team)
    v3 = nvshmem.signal_fetch(counter)
    nvshmem.team_sync_block(team)
    tl.store(counter + 1, v1)
    tl.store(counter + 2, v2)
    tl.store(counter + 3, v3)


@nvshmem.jit
def torch_style(dst, src, got, n, OP: tl.constexpr):
    # torch's element-count forms: a reduction over the world, then a get of the next PE's src
    nvshmem.reduce(0, dst, src, n, OP)
    nvshmem.get(got, src, n, (nvshmem.my_pe() + 1) % nvshmem.n_pes())
    nvshmem.barrier_all()


# put + signal ring, rounds 1..3
N = 4096
dst, src, sig = sym(N, "uint8"), sym(N, "uint8"), sym(1, "uint64")
for r in range(1, 4):
    src.fill_((me * 7 + r) % 251)
    settled()
    ring_put_signal[(1,)](dst, src, sig, N, r)
    torch.cuda.synchronize()
    assert int(sig.item()) == r and bool((dst == ((me - 1) % n * 7 + r) % 251).all()), (r, sig.item(), dst[:4])
    gshmem.barrier_all()

# get ring
got = torch.zeros(N, dtype=torch.uint8, device=dev)
settled()
ring_get[(1,)](got, src, N)
torch.cuda.synchronize()
assert bool((got == ((me + 1) % n * 7 + 3) % 251).all()), got[:4]

# all-reduce two ways
M = 1024
buf, out = sym(M, "float32"), torch.zeros(M, dtype=torch.float32, device=dev)
expect = sum(float(p + 1) for p in range(n))
buf.copy_(torch.arange(M, device=dev, dtype=torch.float32) + me + 1)
settled()
allreduce_by_loads[(1,)](buf, out, M, n)
torch.cuda.synchronize()
assert torch.equal(out, n * torch.arange(M, device=dev, dtype=torch.float32) + expect), out[:4]
slots, asig = sym(n * M, "float32"), sym(1, "uint64")
for r in (1, 2):  # new data each round, and out cleared: a round that did nothing fails
    gshmem.barrier_all()  # every PE has read the last round's slots
    buf.copy_(torch.arange(M, device=dev, dtype=torch.float32) * r + me + 1)
    out.zero_()
    settled()
    allreduce_by_puts[(1,)](buf, slots, asig, out, M, n, r)
    torch.cuda.synchronize()
    assert torch.equal(out, n * r * torch.arange(M, device=dev, dtype=torch.float32) + expect), (r, out[:4])

# torch's forms: reduce (sum, max) and get
rs, rd, rg = sym(M, "float32"), sym(M, "float32"), torch.zeros(M, dtype=torch.float32, device=dev)
for k, (op, scale) in enumerate((("sum", n), ("max", 1))):
    gshmem.barrier_all()  # the last round's get of this PE's rs is done everywhere
    base = torch.arange(M, device=dev, dtype=torch.float32) * (k + 1)
    rs.copy_(base + me)
    rd.zero_()
    rg.zero_()
    settled()
    torch_style[(1,)](rd, rs, rg, M, op)
    torch.cuda.synchronize()
    want = base * scale + (n * (n - 1) / 2 if op == "sum" else n - 1)
    assert torch.equal(rd, want), (op, rd[:4])
    assert torch.equal(rg, base + (me + 1) % n), (op, rg[:4])

# all-to-all, fcollect, broadcast on the world
K = 64  # bytes per PE
a2a_src, a2a_dst = sym(n * K, "uint8"), sym(n * K, "uint8")
fc_src, fc_dst, bc = sym(K, "uint8", me + 1), sym(n * K, "uint8"), sym(K, "uint8", 10 + me)
for p in range(n):
    a2a_src[p * K:(p + 1) * K] = me * 16 + p
settled()
collectives[(1,)](0, a2a_dst, a2a_src, fc_dst, fc_src, bc, K, n - 1)
torch.cuda.synchronize()
for p in range(n):
    assert bool((a2a_dst[p * K:(p + 1) * K] == p * 16 + me).all()), (p, a2a_dst[p * K])
    assert bool((fc_dst[p * K:(p + 1) * K] == p + 1).all()), (p, fc_dst[p * K])
assert bool((bc == 10 + n - 1).all()), bc[:4]

# barriers and syncs: the world's, and the world team's by id
counter = sym(4, "uint64")
THREADS = 4 * 32  # num_warps=4: Triton makes the thread-scope signal_op in every thread of the program
settled()
barriers[(1,)](counter, 0, n, num_warps=4)
torch.cuda.synchronize()
gshmem.barrier_all()
c = counter.tolist()
per_round = n * THREADS
assert c[0] == 3 * per_round and c[1] >= per_round and c[2] >= 2 * per_round and c[3] >= 3 * per_round, c

# a captured ring, replayed (its kernel was compiled and its module loaded and set up by the first round above)
s = torch.cuda.Stream()
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g, stream=s):
    ring_put_signal[(1,)](dst, src, sig, N, 1)
for r in range(3):
    sig.zero_()
    settled()
    g.replay()
    torch.cuda.synchronize()
    assert int(sig.item()) == 1, (r, sig.item())
    gshmem.barrier_all()

gshmem.barrier_all()
gshmem.finalize()
print(f"triton_gpu: PE {me} of {n} ok")
