"""A program written against nvshmem4py 0.4 with numba-cuda kernels (nvshmem.core.device.numba): cupy symmetric
arrays from nvshmem.core, a put-with-signal ring and a get ring in kernels, an all-reduce and a broadcast in a
kernel, atomics, launched on a cuda.core stream, values checked on every PE.
    gshmrun -n 2 python3 nvshmem4py_numba_program.py SHIM_DIR      (SHIM_DIR: where the nvshmem shim is)
Prints "nvshmem4py numba program: PE i of n ok" on each PE; exits 77 ("skipped") where no GPU, cupy or numba-cuda."""

import os
import sys

sys.path.insert(0, sys.argv[1])

try:
    import cupy as cp
    from numba import cuda
except ImportError as e:
    print(f"nvshmem4py numba program: skipped: {e}")
    sys.exit(77)
try:
    from cuda.core import Device
except ImportError:
    try:
        from cuda.core.experimental import Device
    except ImportError as e:
        print(f"nvshmem4py numba program: skipped: {e}")
        sys.exit(77)
if cp.cuda.runtime.getDeviceCount() == 0:
    print("nvshmem4py numba program: no usable GPU: skipped")
    sys.exit(77)

import nvshmem.core as nvshmem  # noqa: E402

try:
    import nvshmem.core.device.numba as nvshmem_numba  # noqa: E402
except ImportError as e:  # numba's own older CUDA target
    print(f"nvshmem4py numba program: skipped: {e}")
    sys.exit(77)
from nvshmem.core import ComparisonType, SignalOp  # noqa: E402

local = int(os.environ.get("LOCAL_RANK", os.environ.get("GSHMEM_RUN_RANK", "0")))
dev = Device(local % cp.cuda.runtime.getDeviceCount())
dev.set_current()
stream = dev.create_stream()
nvshmem.init(device=dev, initializer_method="launcher")
me, n = nvshmem.my_pe(), nvshmem.n_pes()
right, left = (me + 1) % n, (me - 1) % n


@cuda.jit
def ring(dst, src, sig, got):
    pe = (nvshmem_numba.my_pe() + 1) % nvshmem_numba.n_pes()
    nvshmem_numba.put_signal_block(dst, src, sig, 1, SignalOp.SIGNAL_SET, pe)
    nvshmem_numba.signal_wait(sig, ComparisonType.CMP_EQ, 1)
    nvshmem_numba.get_block(got, src, pe)


@cuda.jit
def reduce_and_broadcast(team, dst, src, bc, root):
    nvshmem_numba.reduce_block(team, dst, src, "sum")
    nvshmem_numba.broadcast_block(team, bc, bc, root)
    nvshmem_numba.barrier_all_block()


@cuda.jit
def count(counter, result):
    for pe in range(nvshmem_numba.n_pes()):
        nvshmem_numba.atomic_add(counter, 1, pe)
    nvshmem_numba.barrier_all()
    result[0] = nvshmem_numba.atomic_fetch(counter, nvshmem_numba.my_pe())


ns = cuda.external_stream(int(stream.handle))  # numba-cuda takes the cuda.core stream by its handle
N = 1024
src, dst, got = nvshmem.array((N,), dtype="int32"), nvshmem.array((N,), dtype="int32"), cp.zeros(N, dtype="int32")
sig = nvshmem.array((1,), dtype="uint64")
src[:] = cp.arange(N, dtype="int32") + 100 * me
dst[:] = 0
sig[:] = 0
cp.cuda.Device().synchronize()
nvshmem.barrier_all(stream=stream)
ring[1, 128, ns](dst, src, sig, got)
stream.sync()
assert bool((dst == cp.arange(N, dtype="int32") + 100 * left).all()), dst[:4]
assert bool((got == cp.arange(N, dtype="int32") + 100 * right).all()), got[:4]

rs, rd, bc = nvshmem.array((N,), dtype="float32"), nvshmem.array((N,), dtype="float32"), nvshmem.array((8,), "int64")
rs[:] = cp.arange(N, dtype="float32") + me
bc[:] = 7 + me
cp.cuda.Device().synchronize()
nvshmem.barrier_all(stream=stream)
reduce_and_broadcast[1, 128, ns](0, rd, rs, bc, 0)  # team 0: the world (nvshmem.core.Teams.TEAM_WORLD)
stream.sync()
assert bool((rd == cp.arange(N, dtype="float32") * n + n * (n - 1) / 2).all()), rd[:4]
assert bool((bc == 7).all()), bc[:4]

counter, result = nvshmem.array((1,), dtype="int64"), cp.zeros(1, dtype="int64")
counter[:] = 0
cp.cuda.Device().synchronize()
nvshmem.barrier_all(stream=stream)
count[1, 1, ns](counter, result)
stream.sync()
assert int(result[0]) == n, result

nvshmem.barrier_all(stream=stream)
stream.sync()
for a in (src, dst, sig, rs, rd, bc, counter):
    nvshmem.free_array(a)
print(f"nvshmem4py numba program: PE {me} of {n} ok", flush=True)
nvshmem.finalize()
