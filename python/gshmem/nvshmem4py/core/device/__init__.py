"""``nvshmem.core.device``: nvshmem4py's device-side bindings over gshmem. ``numba`` is gshmem.numba under
nvshmem4py's names (imported when first used: it needs numba-cuda); CuTe DSL's bindings are not here yet."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["numba"]


def __getattr__(name: str) -> Any:
    if name == "numba":
        return importlib.import_module(f"{__name__}.numba")
    raise AttributeError(f"nvshmem.core.device has no {name!r} (gshmem has the numba bindings; CuTe DSL's not yet)")
