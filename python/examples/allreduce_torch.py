"""An all-reduce of torch tensors: every PE's gradient summed into every PE's copy, then averaged.
    gshmrun -n 2 python3 allreduce_torch.py        (CPU tensors on the CPU backend; CUDA tensors on GPUs)"""

import torch

import gshmem

with gshmem.init():
    me, n = gshmem.my_pe(), gshmem.n_pes()
    grad = gshmem.empty((256, 64), torch.float32)
    total = gshmem.empty((256, 64), torch.float32)
    torch.manual_seed(me)
    grad.copy_(torch.randn(256, 64, device=grad.device))
    gshmem.barrier_all()
    gshmem.reduce(total, grad, "sum")
    total /= n
    # Check against the gradients of every PE, fetched one by one.
    expected = torch.zeros_like(total)
    theirs = torch.empty_like(grad)
    for pe in range(n):
        gshmem.get(theirs, grad, pe)
        expected += theirs
    assert torch.allclose(total, expected / n, atol=1e-5)
    print(f"PE {me}: mean gradient norm {total.norm():.4f}")
    gshmem.barrier_all()
    gshmem.free(total)
    gshmem.free(grad)
