"""numba-cuda kernels that call gshmem on GPUs (2 or 4 PEs; on a machine of one GPU they share it): put + signal,
put and get rings at thread, warp and block scope, p and g (int32, and float16 as its bits), atomics, an all-reduce
that reads the peers through get_peer_array, reduce (sum, max), reducescatter, fcollect, broadcast and alltoall,
barriers and syncs at every scope; every value checked on every PE. Nothing is called after a kernel compiles: the
library's set-up callback sets up each module as numba-cuda loads it.
    gshmrun -n 2 python3 numba_gpu.py
Prints "numba_gpu: PE i of n ok"; exits 77 ("skipped") without a GPU, torch or numba-cuda."""

import sys

try:
    import torch
    from numba import cuda
except ImportError as e:
    print(f"numba_gpu: skipped: {e}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("numba_gpu: no usable GPU: skipped")
    sys.exit(77)

import gshmem  # noqa: E402
import gshmem.devlib  # noqa: E402

try:
    gshmem.devlib.lto_path()
except gshmem.devlib.DeviceLibraryNotFound as e:
    print(f"numba_gpu: skipped: {e}")
    sys.exit(77)
try:
    import gshmem.numba as shm  # noqa: E402
except ImportError as e:  # numba's own older CUDA target
    print(f"numba_gpu: skipped: {e}")
    sys.exit(77)

gshmem.init()
me, n = gshmem.my_pe(), gshmem.n_pes()
cuda.select_device(gshmem.cuda_device())
dev = torch.device("cuda", gshmem.cuda_device())


def sym(shape, dtype, fill=0):
    t = gshmem.empty(shape, dtype, like="torch")
    t.fill_(fill)
    torch.cuda.synchronize(dev)  # filled before any peer's put can land
    return t


def settled():
    """This PE's GPU work done, then every PE's."""
    torch.cuda.synchronize(dev)
    gshmem.barrier_all()


@cuda.jit
def ring_put_signal(dst, src, sig, round):
    peer = (shm.my_pe() + 1) % shm.n_pes()
    shm.put_signal_block(dst, src, sig, round, shm.SIGNAL_SET, peer)
    shm.signal_wait(sig, shm.CMP_GE, round)


@cuda.jit
def rings(dst_t, dst_w, dst_b, got_t, got_w, got_b, src):
    peer = (shm.my_pe() + 1) % shm.n_pes()
    if cuda.threadIdx.x == 0:
        shm.put(dst_t, src, peer)
        shm.get(got_t, src, peer)
    if cuda.threadIdx.x < 32:
        shm.put_nbi_warp(dst_w, src, peer)
        shm.get_warp(got_w, src, peer)
    shm.put_block(dst_b, src, peer)
    shm.get_nbi_block(got_b, src, peer)
    shm.quiet()
    shm.barrier_all_block()


@cuda.jit
def scalars(i32, f16, out_i, out_h):
    peer = (shm.my_pe() + 1) % shm.n_pes()
    if cuda.threadIdx.x == 0:
        shm.p(i32, shm.my_pe() * 10 + 1, peer)
        shm.p(f16, shm.my_pe() + 0.5, peer)
        shm.quiet()
    shm.barrier_all_block()
    if cuda.threadIdx.x == 0:
        out_i[0] = shm.g(i32, peer)
        out_h[0] = shm.g(f16, peer)


@cuda.jit
def atomics(counter, swap, dcount, old):
    # every PE adds 1 to every PE's counter, and its number + 1 into every PE's double counter; compare_swap
    # claims each PE's swap word once (0 -> claimer + 1)
    npes = shm.n_pes()
    for pe in range(npes):
        shm.atomic_fetch_add(counter, 1, pe)
        shm.atomic_add(dcount, float(shm.my_pe() + 1), pe)
        shm.atomic_inc(counter, pe)
    target = (shm.my_pe() + 1) % npes
    old[0] = shm.atomic_compare_swap(swap, 0, shm.my_pe() + 1, target)
    shm.barrier_all()
    old[1] = shm.atomic_fetch(counter, shm.my_pe())


@cuda.jit
def allreduce_by_loads(buf, out):
    shm.barrier_all_block()
    i = cuda.threadIdx.x
    acc = 0.0
    for pe in range(shm.n_pes()):
        peer = shm.get_peer_array(buf, pe)
        acc += peer[i]
    out[i] = acc
    shm.barrier_all_block()


@cuda.jit
def collectives(team, rs, rd, mx_s, mx_d, scat_s, scat_d, fc_s, fc_d, bc, a2a_s, a2a_d, root):
    shm.reduce_block(team, rd, rs, "sum")
    shm.reduce_block(team, mx_d, mx_s, "max")
    shm.reducescatter_block(team, scat_d, scat_s, "sum")
    shm.fcollect_block(team, fc_d, fc_s)
    shm.broadcast_block(team, bc, bc, root)
    shm.alltoall_block(team, a2a_d, a2a_s)


@cuda.jit
def barriers(counter, team):
    # Each round every PE adds 1 to every PE's counter, then a barrier or quiet + sync of one scope: after round k
    # every PE sees at least k * n (a faster PE may have begun the next round).
    npes = shm.n_pes()
    t = cuda.threadIdx.x
    for k in range(6):
        if t == 0:
            for pe in range(npes):
                shm.signal_op(counter, 1, shm.SIGNAL_ADD, pe)
            shm.quiet()
        cuda.syncthreads()
        if k == 0:
            shm.barrier_all_block()
        elif k == 1:
            shm.sync_all_block()
        elif k == 2:
            if t < 32:
                shm.barrier_all_warp()
        elif k == 3:
            if t == 0:
                shm.barrier(team)
        elif k == 4:
            if t < 32:
                shm.sync_warp(team)
        else:
            if t == 0:
                shm.sync_all()
        cuda.syncthreads()
        if t == 0:
            counter[1 + k] = shm.signal_fetch(counter)
        cuda.syncthreads()


# put + signal ring, rounds 1..3
N = 4096
dst, src, sig = sym(N, "uint8"), sym(N, "uint8"), sym(1, "uint64")
for r in range(1, 4):
    src.fill_((me * 7 + r) % 251)
    settled()
    ring_put_signal[1, 128](dst, src, sig, r)
    torch.cuda.synchronize(dev)
    assert int(sig.item()) == r and bool((dst == ((me - 1) % n * 7 + r) % 251).all()), (r, sig.item(), dst[:4])
    gshmem.barrier_all()

# rings at each scope: this PE's src (me + 1) lands on the next PE; got holds the next PE's
M = 1000
rsrc = sym(M, "int32", me + 1)
outs = [sym(M, "int32", -1) for _ in range(3)]
gots = [torch.full((M,), -1, dtype=torch.int32, device=dev) for _ in range(3)]
settled()
rings[1, 128](*outs, *gots, rsrc)
torch.cuda.synchronize(dev)
gshmem.barrier_all()
for scope, d, g in zip(("thread", "warp", "block"), outs, gots):
    assert bool((d == (me - 1) % n + 1).all()), (scope, d[:4])
    assert bool((g == (me + 1) % n + 1).all()), (scope, g[:4])

# p and g: int32, and float16 through its bits
i32, f16 = sym(1, "int32"), sym(1, "float16")
out_i, out_h = torch.zeros(1, dtype=torch.int32, device=dev), torch.zeros(1, dtype=torch.float16, device=dev)
settled()
scalars[1, 64](i32, f16, out_i, out_h)
torch.cuda.synchronize(dev)
gshmem.barrier_all()
left = (me - 1) % n
assert int(i32.item()) == left * 10 + 1 and float(f16.item()) == left + 0.5, (i32.item(), f16.item())
assert int(out_i.item()) == me * 10 + 1 and float(out_h.item()) == me + 0.5, (out_i.item(), out_h.item())

# atomics
counter, swap, dcount = sym(1, "int64"), sym(1, "int32"), sym(1, "float64")
old = torch.full((2,), -1, dtype=torch.int64, device=dev)
settled()
atomics[1, 1](counter, swap, dcount, old)
torch.cuda.synchronize(dev)
gshmem.barrier_all()
assert int(counter.item()) == 2 * n and int(old[1].item()) == 2 * n, (counter.item(), old.tolist())
assert float(dcount.item()) == n * (n + 1) / 2, dcount.item()
assert int(swap.item()) == left + 1 and int(old[0].item()) == 0, (swap.item(), old.tolist())

# all-reduce through the peers' memory
K = 256
buf, out = sym(K, "float32"), torch.zeros(K, dtype=torch.float32, device=dev)
buf.copy_(torch.arange(K, device=dev, dtype=torch.float32) + me + 1)
settled()
allreduce_by_loads[1, K](buf, out)
torch.cuda.synchronize(dev)
assert torch.equal(out, n * torch.arange(K, device=dev, dtype=torch.float32) + n * (n + 1) / 2), out[:4]

# collectives on the world
R, B = 512, 32
base = torch.arange(R, device=dev, dtype=torch.float32)
rs, rd = sym(R, "float32"), sym(R, "float32")
rs.copy_(base + me)
mx_s, mx_d = sym(R, "int32"), sym(R, "int32")
mx_s.copy_(torch.arange(R, device=dev, dtype=torch.int32) * (me + 1))
scat_s, scat_d = sym(n * B, "float32"), sym(B, "float32")
scat_s.copy_(torch.arange(n * B, device=dev, dtype=torch.float32) + me)
fc_s, fc_d = sym(B, "int64", me + 1), sym(n * B, "int64")
bc = sym(B, "int16", 10 + me)
a2a_s, a2a_d = sym(n * B, "uint8"), sym(n * B, "uint8")
for p in range(n):
    a2a_s[p * B:(p + 1) * B] = me * 16 + p
settled()
collectives[1, 128](0, rs, rd, mx_s, mx_d, scat_s, scat_d, fc_s, fc_d, bc, a2a_s, a2a_d, n - 1)
torch.cuda.synchronize(dev)
gshmem.barrier_all()
assert torch.equal(rd, base * n + n * (n - 1) / 2), rd[:4]
assert torch.equal(mx_d, torch.arange(R, device=dev, dtype=torch.int32) * n), mx_d[:4]
want_scat = (torch.arange(B, device=dev, dtype=torch.float32) + me * B) * n + n * (n - 1) / 2
assert torch.equal(scat_d, want_scat), scat_d[:4]
for p in range(n):
    assert bool((fc_d[p * B:(p + 1) * B] == p + 1).all()), (p, fc_d[p * B])
    assert bool((a2a_d[p * B:(p + 1) * B] == p * 16 + me).all()), (p, a2a_d[p * B])
assert bool((bc == 10 + n - 1).all()), bc[:4]

# barriers and syncs of every scope
bar = sym(8, "uint64")
settled()
barriers[1, 64](bar, 0)
torch.cuda.synchronize(dev)
gshmem.barrier_all()
seen = bar.tolist()
assert seen[0] == 6 * n, seen
for k in range(6):
    assert seen[1 + k] >= (k + 1) * n, (k, seen)

gshmem.barrier_all()
print(f"numba_gpu: PE {me} of {n} ok", flush=True)
gshmem.finalize()
