"""Symmetric torch tensors and CuPy arrays (nvshmem.core.interop.torch / .cupy)."""

from . import cupy, torch  # noqa: F401
