"""The same API over torch tensors (CPU tensors on the CPU backend)."""

import pytest

import gshmem

torch = pytest.importorskip("torch")


def test_tensors_put_reduce_atomics(me, npes):
    box = gshmem.zeros(16, torch.float32)
    assert isinstance(box, torch.Tensor) and box.dtype == torch.float32 and box.shape == (16,)
    gshmem.put(box, torch.full((16,), float(me)), (me + 1) % npes)
    gshmem.barrier_all()
    assert torch.equal(box, torch.full((16,), float((me - 1) % npes)))

    src = gshmem.full((4, 4), me + 1, torch.int64)
    dest = gshmem.zeros((4, 4), torch.int64)
    gshmem.reduce(dest, src, "sum")
    assert torch.equal(dest, torch.full((4, 4), npes * (npes + 1) // 2, dtype=torch.int64))

    counter = gshmem.zeros(1, torch.int64)
    gshmem.barrier_all()
    gshmem.atomic_add(counter, 1, 0)
    gshmem.barrier_all()
    if me == 0:
        assert counter.item() == npes
    gshmem.barrier_all()
    for t in (box, src, dest, counter):
        gshmem.free(t)


def test_torch_dtype_mismatch_and_numpy_interplay(me, npes):
    import numpy as np

    box = gshmem.zeros(4, torch.int32)
    with pytest.raises(gshmem.UsageError, match="int32 but the src array is int64"):
        gshmem.put(box, torch.zeros(4, dtype=torch.int64), 0)
    gshmem.put(box, np.full(4, 5, np.int32), me)  # a numpy source into a torch destination
    assert torch.equal(box, torch.full((4,), 5, dtype=torch.int32))
    gshmem.barrier_all()
    gshmem.free(box)


def test_bfloat16_reduce(me, npes):
    src = gshmem.full(8, 0.5 * (me + 1), torch.bfloat16)
    dest = gshmem.zeros(8, torch.bfloat16)
    gshmem.barrier_all()
    gshmem.reduce(dest, src, "max")
    assert torch.equal(dest, torch.full((8,), 0.5 * npes, dtype=torch.bfloat16))
    gshmem.barrier_all()
    gshmem.free(dest)
    gshmem.free(src)
