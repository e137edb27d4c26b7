"""nvshmem.core.interop.cupy over gshmem: symmetric CuPy arrays (the GPU backend)."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from .... import _native
from .._types import Buffer, NvshmemError, NvshmemInvalid, peer_view

__all__ = ["bytearray", "array", "free_array", "array_get_buffer", "get_peer_array", "get_multicast_array"]


def array(shape: Sequence[int], dtype: Any = "float32", release: bool = False, morder: str = "C",
          except_on_del: bool = True) -> Any:
    """A symmetric CuPy array (collective). On the CPU backend there are no CuPy arrays: use interop.torch."""
    import gshmem

    if _native.init_state() == 0:
        raise NvshmemInvalid("NVSHMEM Library is not initialized")
    if morder not in ("C", "F"):
        raise NvshmemInvalid(f"morder {morder!r} is neither 'C' nor 'F'")
    shape = tuple(int(d) for d in ([shape] if isinstance(shape, int) else shape))
    try:
        a = gshmem.empty(shape if morder == "C" else tuple(reversed(shape)), str(dtype), like="cupy")
    except _native.UsageError as e:
        raise NvshmemInvalid(str(e)) from e
    return a if morder == "C" else a.T


def bytearray(shape: Sequence[int], dtype: Any = "float32", release: bool = False, device_id: Optional[int] = None,
              morder: str = "C", except_on_del: bool = True) -> Any:  # noqa: A001 (nvshmem4py's name)
    n = 1
    for d in [shape] if isinstance(shape, int) else shape:
        n *= int(d)
    return array((n,), "int8", release, morder, except_on_del)


def free_array(a: Any) -> None:
    import gshmem

    try:
        gshmem.free(a if getattr(a, "base", None) is None else a.base)
    except _native.UsageError as e:
        raise NvshmemInvalid(str(e)) from e


def array_get_buffer(a: Any) -> Tuple[Buffer, int, str]:
    if not _native.is_symmetric(a):
        raise NvshmemInvalid("the array is not a symmetric array of nvshmem.core")
    return Buffer(a.reshape(-1).view("uint8")), int(a.nbytes), str(a.dtype)


def get_peer_array(a: Any, peer_pe: Optional[int] = None) -> Any:
    return peer_view(a, _native.my_pe() if peer_pe is None else peer_pe)


def get_multicast_array(team: int, a: Any) -> Any:
    raise NvshmemError("gshmem makes no multicast objects yet (nvshmemx_mc_ptr is NULL)")
