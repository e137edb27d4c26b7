"""``nvshmem.bindings.device.numba``: every device function of the library for numba-cuda kernels, named as
nvshmem4py names them (the C name without ``nvshmem_`` / ``nvshmemx_``: ``int32_put_block`` is
nvshmemx_int32_put_block, ``quiet`` is nvshmem_quiet), with the C signature's arguments (gshmem.numba.c_function:
a pointer as an array, a CPointer such as cffi's ffi.from_buffer gives, or an address)."""

from __future__ import annotations

from typing import Any, List

from gshmem import devlib
from gshmem import numba as _numba


def __getattr__(attr: str) -> Any:
    for name in (f"nvshmemx_{attr}", f"nvshmem_{attr}"):
        if name in devlib.signatures():
            fn = _numba.c_function(name)
            globals()[attr] = fn
            return fn
    raise AttributeError(f"nvshmem.bindings.device.numba has no {attr!r}: no device function nvshmem_{attr} or "
                         f"nvshmemx_{attr}")


def __dir__() -> List[str]:
    names = {n.split("_", 1)[1] for n in devlib.signatures()}
    return sorted(names | set(globals()))
