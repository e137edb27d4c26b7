"""nvshmem.core.interop.torch over gshmem: symmetric torch tensors (CPU tensors on the CPU backend, CUDA tensors on
GPUs)."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from .... import _native
from .._types import Buffer, NvshmemError, NvshmemInvalid, peer_view

__all__ = ["bytetensor", "tensor", "free_tensor", "tensor_get_buffer", "get_peer_tensor", "get_multicast_tensor",
           "register_external_tensor", "unregister_external_tensor"]


def tensor(shape: Sequence[int], dtype: Any = None, release: bool = False, morder: str = "C",
           except_on_del: bool = True) -> Any:
    """A symmetric tensor (collective); ``morder="F"``: column-major strides."""
    import torch

    import gshmem

    if _native.init_state() == 0:
        raise NvshmemInvalid("NVSHMEM Library is not initialized")
    if morder not in ("C", "F"):
        raise NvshmemInvalid(f"morder {morder!r} is neither 'C' nor 'F'")
    shape = tuple(int(d) for d in ([shape] if isinstance(shape, int) else shape))
    dtype = dtype or torch.get_default_dtype()
    try:
        t = gshmem.empty(shape if morder == "C" else tuple(reversed(shape)), dtype, like="torch")
    except _native.UsageError as e:
        raise NvshmemInvalid(str(e)) from e
    return t if morder == "C" else t.permute(*reversed(range(len(shape))))


def bytetensor(shape: Sequence[int], dtype: Any = None, release: bool = False, morder: str = "C",
               except_on_del: bool = True) -> Any:
    """A symmetric uint8 tensor of prod(shape) bytes (dtype is not used, as in nvshmem4py)."""
    import torch

    n = 1
    for d in [shape] if isinstance(shape, int) else shape:
        n *= int(d)
    return tensor((n,), torch.uint8, release, morder, except_on_del)


def _base(t: Any) -> Any:
    return t if t._base is None else t._base


def free_tensor(t: Any) -> None:
    """Frees a symmetric tensor (collective)."""
    import gshmem

    try:
        gshmem.free(_base(t))
    except _native.UsageError as e:
        raise NvshmemInvalid(str(e)) from e


def tensor_get_buffer(t: Any) -> Tuple[Buffer, int, str]:
    """(the Buffer over the tensor's bytes, its byte count, its dtype as "torch.float32")."""
    import torch

    if not _native.is_symmetric(t):
        raise NvshmemInvalid("the tensor is not a symmetric tensor of nvshmem.core")
    return Buffer(t.reshape(-1).view(torch.uint8)), t.numel() * t.element_size(), str(t.dtype)


def get_peer_tensor(t: Any, peer_pe: Optional[int] = None) -> Any:
    """``peer_pe``'s copy of the tensor, for loads and stores (a PE whose memory this process maps)."""
    return peer_view(t, _native.my_pe() if peer_pe is None else peer_pe)


def get_multicast_tensor(team: int, t: Any) -> Any:
    raise NvshmemError("gshmem makes no multicast objects yet (nvshmemx_mc_ptr is NULL)")


def register_external_tensor(t: Any) -> Any:
    raise NvshmemError("register_external_tensor: not supported by gshmem's Python package yet")


def unregister_external_tensor(t: Any) -> None:
    raise NvshmemError("unregister_external_tensor: not supported by gshmem's Python package yet")
