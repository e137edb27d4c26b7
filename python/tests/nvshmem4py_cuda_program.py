"""A program written against nvshmem4py 0.4's nvshmem.core on GPUs: cuda.core's Device and Stream (the stream
argument of every RMA, signal, ordering and collective call), torch CUDA tensors and cupy arrays from
nvshmem.core.interop, values checked on every PE. Started by gshmrun (initializer "launcher") or, given a
unique ID, by torchrun.
    gshmrun -n 2 python3 nvshmem4py_cuda_program.py SHIM_DIR      (SHIM_DIR: where the nvshmem shim is)
Prints "nvshmem4py cuda program: PE i of n ok" on each PE; exits 77 ("skipped") where no GPU is usable."""

import sys

sys.path.insert(0, sys.argv[1])

try:
    import cupy  # noqa: E402
    import torch  # noqa: E402
except ImportError as e:
    print(f"nvshmem4py cuda program: skipped ({e})")
    sys.exit(77)
try:
    from cuda.core import Device  # noqa: E402
except ImportError:
    try:  # cuda.core before 0.4 keeps it under experimental
        from cuda.core.experimental import Device  # noqa: E402
    except ImportError as e:
        print(f"nvshmem4py cuda program: skipped ({e})")
        sys.exit(77)
if not torch.cuda.is_available():
    print("nvshmem4py cuda program: no usable GPU: skipped")
    sys.exit(77)

import nvshmem.core as nvshmem  # noqa: E402
import nvshmem.core.interop.cupy as ncp  # noqa: E402
import nvshmem.core.interop.torch as nt  # noqa: E402
from nvshmem.core import ComparisonType, SignalOp, Teams  # noqa: E402

# One GPU per PE where there are enough; PEs share it otherwise (as on a machine of one GPU).
import os  # noqa: E402

local = int(os.environ.get("LOCAL_RANK", os.environ.get("GSHMEM_RUN_RANK", "0")))
dev = Device(local % torch.cuda.device_count())
dev.set_current()
torch.cuda.set_device(dev.device_id)
s = dev.create_stream()

nvshmem.init(device=dev, initializer_method="launcher")
me, n = nvshmem.my_pe(), nvshmem.n_pes()
right, left = (me + 1) % n, (me - 1) % n

# put / get on the cuda.core stream, torch CUDA tensors
t = nt.tensor((256,), dtype=torch.int64)
assert t.is_cuda, t.device
t.zero_()
src = torch.arange(256, dtype=torch.int64, device=t.device) + 1000 * me
torch.cuda.synchronize()
nvshmem.barrier_all(stream=s)
nvshmem.put(t, src, remote_pe=right, stream=s)
nvshmem.barrier_all(stream=s)
s.sync()
assert torch.equal(t, torch.arange(256, dtype=torch.int64, device=t.device) + 1000 * left), t[:4]
got = torch.zeros(256, dtype=torch.int64, device=t.device)
torch.cuda.synchronize()  # zeroed on torch's stream before the get on s
nvshmem.get(got, t, remote_pe=right, stream=s)
nvshmem.quiet(stream=s)
s.sync()
assert torch.equal(got, src), got[:4]

# put_signal / signal_wait on the stream; the signal as a Buffer
data = nt.tensor((64,), dtype=torch.float32)
sig = nt.bytetensor((8,))
sig.zero_()
torch.cuda.synchronize()
buf_sig, nbytes, _ = nt.tensor_get_buffer(sig)
assert nbytes == 8
source = torch.full((64,), 0.25 * me, device=t.device)
torch.cuda.synchronize()  # the source filled on torch's stream before the put on s
nvshmem.barrier_all(stream=s)
nvshmem.put_signal(data, source, buf_sig, 7, SignalOp.SIGNAL_SET, remote_pe=right, stream=s)
nvshmem.signal_wait(buf_sig, 7, ComparisonType.CMP_EQ, stream=s)
s.sync()
assert torch.equal(data, torch.full((64,), 0.25 * left, device=t.device)), data[:4]
assert nvshmem.signal_fetch(buf_sig) == 7

# signal_op on the stream: every PE adds its rank + 1 to PE 0's signal
nvshmem.barrier_all(stream=s)
nvshmem.signal_op(buf_sig, me + 1, SignalOp.SIGNAL_ADD, remote_pe=0, stream=s)
nvshmem.barrier_all(stream=s)
s.sync()
if me == 0:
    assert nvshmem.signal_fetch(buf_sig) == 7 + n * (n + 1) // 2

# collectives on the stream, cupy arrays
on_s = cupy.cuda.ExternalStream(s.__cuda_stream__()[1])  # cupy's work on the same stream as the calls
a = ncp.array((32,), dtype="float32")
r = ncp.array((32,), dtype="float32")
with on_s:
    a.fill(me + 1)
nvshmem.barrier_all(stream=s)
nvshmem.reduce(Teams.TEAM_WORLD, r, a, "sum", stream=s)
s.sync()
assert bool((r == n * (n + 1) / 2).all()), r[:4]
nvshmem.barrier_all(stream=s)  # every PE has read r before the next reduction writes it
nvshmem.reduce(Teams.TEAM_WORLD, r, a, "max", stream=s)
s.sync()
assert bool((r == n).all()), r[:4]
allv = ncp.array((32 * n,), dtype="float32")
nvshmem.fcollect(Teams.TEAM_WORLD, allv, a, stream=s)
s.sync()
assert bool((allv.reshape(n, 32) == cupy.arange(1, n + 1, dtype=cupy.float32)[:, None]).all())
b = ncp.array((16,), dtype="int32")
with on_s:
    b.fill(me * 3 + 1)
nvshmem.barrier_all(stream=s)  # every PE's b filled before the root's is sent (in place)
nvshmem.broadcast(Teams.TEAM_WORLD, b, b, root=n - 1, stream=s)
s.sync()
assert bool((b == (n - 1) * 3 + 1).all()), b[:4]
x = ncp.array((n * 4,), dtype="int64")
y = ncp.array((n * 4,), dtype="int64")
with on_s:
    x[:] = cupy.arange(n * 4, dtype=cupy.int64) + 100 * me
nvshmem.barrier_all(stream=s)
nvshmem.alltoall(Teams.TEAM_WORLD, y, x, stream=s)
s.sync()
expect = cupy.concatenate([cupy.arange(me * 4, me * 4 + 4, dtype=cupy.int64) + 100 * p for p in range(n)])
assert bool((y == expect).all()), (y, expect)

# a stream of another kind is refused by name, not crashed on
try:
    nvshmem.barrier_all(stream=object())
    raise AssertionError("a stream that is not one was accepted")
except (nvshmem.NvshmemInvalid, nvshmem.NvshmemError, TypeError, ValueError) as e:
    assert "stream" in str(e), e

nvshmem.barrier_all(stream=s)
s.sync()
for obj in (a, r, allv, b, x, y):
    ncp.free_array(obj)
for obj in (t, data, sig):
    nt.free_tensor(obj)
nvshmem.finalize()
print(f"nvshmem4py cuda program: PE {me} of {n} ok")
