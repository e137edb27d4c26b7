"""``nvshmem.bindings.device``: the device functions one by one (``numba``), imported when first used."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["numba"]


def __getattr__(name: str) -> Any:
    if name == "numba":
        return importlib.import_module(f"{__name__}.numba")
    raise AttributeError(f"nvshmem.bindings.device has no {name!r} (gshmem has the numba bindings)")
