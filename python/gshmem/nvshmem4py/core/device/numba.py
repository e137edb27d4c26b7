"""``nvshmem.core.device.numba``: nvshmem4py 0.4's numba-cuda device functions, which are gshmem.numba's (put(dst,
src, pe), put_signal, p, g, atomic_*, signal_op, signal_wait, barriers and syncs, reduce(team, dst, src, op),
reducescatter, fcollect, broadcast, alltoall, my_pe, get_peer_array, ...; every thread, warp and block form), so
that nvshmem4py's numba kernels run unchanged. The device library is linked into each kernel that calls one, and
each module it loads is set up before its first launch: nothing to call after compiling."""

from __future__ import annotations

import enum

from gshmem import numba as _numba

for _name in _numba.NVSHMEM4PY_NAMES:
    globals()[_name] = getattr(_numba, _name)


class SmemAmount(enum.IntEnum):
    """How much shared memory ask_smem asks for."""

    SMEM_RECOMMENDED = _numba.SMEM_RECOMMENDED
    SMEM_MINIMUM = _numba.SMEM_MINIMUM
    SMEM_BARRIERS_ONLY = _numba.SMEM_BARRIERS_ONLY


__all__ = list(_numba.NVSHMEM4PY_NAMES) + ["SmemAmount"]
