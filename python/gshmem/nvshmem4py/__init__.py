"""nvshmem4py's host API (``nvshmem.core``, version 0.4, and the C host functions of ``nvshmem.bindings``) over
gshmem, so that its programs run where gshmem is installed instead of NVIDIA's NVSHMEM and nvshmem4py.

It is importable as ``gshmem.nvshmem4py.core`` and ``.bindings``; ``python -m gshmem.nvshmem4py install`` makes it
importable as ``nvshmem.core`` and ``nvshmem.bindings`` too (a small ``nvshmem`` package in site-packages), and
refuses where a real nvshmem4py is installed rather than shadow it. Its device-side bindings are numba-cuda's
(``nvshmem.core.device.numba`` and ``nvshmem.bindings.device.numba``, over gshmem.numba); what it does not do yet: CuTe
DSL's bindings, multicast buffers; see docs/python.md.
"""

from . import bindings, core  # noqa: F401
