"""nvshmem4py's host API (``nvshmem.core``, version 0.4, and the C host functions of ``nvshmem.bindings``) over
gshmem, so that its programs run where gshmem is installed instead of NVIDIA's NVSHMEM and nvshmem4py.

It is importable as ``gshmem.nvshmem4py.core`` and ``.bindings``; ``python -m gshmem.nvshmem4py install`` makes it
importable as ``nvshmem.core`` and ``nvshmem.bindings`` too (a small ``nvshmem`` package in site-packages), and
refuses where a real nvshmem4py is installed rather than shadow it. What it does not do yet: device-side bindings
(numba, CuTe), multicast buffers, ``module_init``/``library_init``; see docs/python.md.
"""

from . import bindings, core  # noqa: F401
