"""A program written against nvshmem4py 0.4's nvshmem.core, run over gshmem (torch CPU tensors on the CPU
backend; the stream arguments left out, which gshmem allows). Started by torchrun (or torchrun_env.py), the
unique ID handed out through torch.distributed as nvshmem4py's examples do.
    torchrun_env.py 2 python3 nvshmem4py_program.py SHIM_DIR      (SHIM_DIR: where the nvshmem shim is)"""

import sys

sys.path.insert(0, sys.argv[1])

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import nvshmem.core as nvshmem  # noqa: E402
from nvshmem.core import ComparisonType, InitStatus, SignalOp, Teams  # noqa: E402

dist.init_process_group("gloo")
rank, n = dist.get_rank(), dist.get_world_size()
uid = nvshmem.get_unique_id(empty=True)
if rank == 0:
    uid = nvshmem.get_unique_id()
box = [uid]
dist.broadcast_object_list(box, src=0)
nvshmem.init(uid=box[0], rank=rank, nranks=n, initializer_method="uid")
assert nvshmem.init_status() == InitStatus.STATUS_IS_INITIALIZED
assert nvshmem.my_pe() == rank and nvshmem.n_pes() == n
assert nvshmem.team_n_pes(Teams.TEAM_WORLD) == n and nvshmem.team_my_pe(Teams.TEAM_WORLD) == rank
right, left = (rank + 1) % n, (rank - 1) % n

# put / get over symmetric tensors
t = nvshmem.tensor((8,), dtype=torch.int64)
t.zero_()
nvshmem.barrier_all()
nvshmem.put(t, torch.full((8,), rank + 1, dtype=torch.int64), remote_pe=right)
nvshmem.quiet()
nvshmem.barrier_all()
assert torch.equal(t, torch.full((8,), left + 1, dtype=torch.int64)), t
got = torch.zeros(8, dtype=torch.int64)
nvshmem.get(got, t, remote_pe=right)
assert torch.equal(got, torch.full((8,), rank + 1, dtype=torch.int64))

# put_signal and signal_wait, the signal as a Buffer of a uint8 tensor (torch 1.x has no uint64)
data = nvshmem.tensor((16,), dtype=torch.float32)
sig = nvshmem.bytetensor((8,))
sig.zero_()
buf_sig, nbytes, dtype = nvshmem.tensor_get_buffer(sig)
assert nbytes == 8 and dtype == "torch.uint8"
nvshmem.barrier_all()
nvshmem.put_signal(data, torch.full((16,), 0.5 * rank), buf_sig, 1, SignalOp.SIGNAL_SET, remote_pe=right)
nvshmem.signal_wait(buf_sig, 1, ComparisonType.CMP_EQ)
assert torch.equal(data, torch.full((16,), 0.5 * left))
assert nvshmem.signal_fetch(buf_sig) == 1

# atomics: offset is an element index; a Buffer needs dtype
counter = nvshmem.tensor((4,), dtype=torch.int64)
counter.zero_()
nvshmem.barrier_all()
olds = [nvshmem.atomic_fetch_add(counter, 1, 0, offset=2) for _ in range(5)]
nvshmem.barrier_all()
if rank == 0:
    assert counter[2].item() == 5 * n and counter[0].item() == 0
assert nvshmem.atomic_fetch(counter, 0, offset=2) == 5 * n
raw, _, _ = nvshmem.tensor_get_buffer(counter)
assert nvshmem.atomic_fetch(raw, 0, offset=2, dtype="long") == 5 * n
try:
    nvshmem.atomic_fetch(raw, 0)
    raise AssertionError("an atomic on a Buffer without dtype was accepted")
except nvshmem.NvshmemInvalid:
    pass
nvshmem.barrier_all()

# collectives, team first
src = nvshmem.tensor((4,), dtype=torch.float32)
dst = nvshmem.tensor((4,), dtype=torch.float32)
src.fill_(rank + 1)
nvshmem.barrier_all()
nvshmem.reduce(Teams.TEAM_WORLD, dst, src, "sum")
assert torch.equal(dst, torch.full((4,), float(n * (n + 1) // 2)))
nvshmem.barrier_all()  # every PE has read dst before the next reduction writes it
nvshmem.reduce(Teams.TEAM_WORLD, dst, src, "max")
assert torch.equal(dst, torch.full((4,), float(n)))
allv = nvshmem.tensor((4 * n,), dtype=torch.float32)
nvshmem.fcollect(Teams.TEAM_WORLD, allv, src)
assert torch.equal(allv, torch.arange(1, n + 1, dtype=torch.float32).repeat_interleave(4))
nvshmem.broadcast(Teams.TEAM_WORLD, dst, src, root=n - 1)
assert torch.equal(dst, torch.full((4,), float(n)))

# collective_on_buffer, as nvshmem4py's perftests call it
b_src, b_dst = nvshmem.buffer(4 * 16), nvshmem.buffer(4 * 16)
import numpy as np  # noqa: E402

np.frombuffer(memoryview(b_src._array), np.float32)[:] = rank
ms = nvshmem.collective_on_buffer("reduce", Teams.TEAM_WORLD, b_dst, b_src, dtype="float", op="sum", enable_timing=True)
assert ms >= 0 and (np.frombuffer(memoryview(b_dst._array), np.float32) == sum(range(n))).all()

# teams
evens = nvshmem.team_split_strided(Teams.TEAM_WORLD, 0, 2, (n + 1) // 2, nvshmem.TeamConfig(), 0, "EVENS")
if rank % 2 == 0:
    assert evens == Teams.EVENS and nvshmem.team_my_pe(evens) == rank // 2
    assert nvshmem.team_translate_pe(evens, rank // 2, Teams.TEAM_WORLD) == rank
    nvshmem.barrier(evens)
    nvshmem.team_destroy("EVENS")
    assert "EVENS" not in Teams
else:
    assert evens is None
nvshmem.barrier_all()

for obj in (t, data, sig, counter, src, dst, allv):
    nvshmem.free_tensor(obj)
nvshmem.free(b_src)
nvshmem.free(b_dst)
v = nvshmem.get_version()
nvshmem.finalize()
print(f"nvshmem4py program: PE {rank} of {n} ok ({v.libnvshmem_version} API)", flush=True)
