"""gshmem from Python: PEs, a symmetric heap, one-sided puts, gets, atomics and signals, and collectives.

A first program (run it with ``gshmrun -n 2 python3 ring.py``)::

    import numpy as np
    import gshmem

    with gshmem.init():
        me, n = gshmem.my_pe(), gshmem.n_pes()
        box = gshmem.zeros(4, dtype=np.int64)          # symmetric: every PE has one
        gshmem.put(box, np.full(4, me, np.int64), (me + 1) % n)
        gshmem.barrier_all()
        assert (box == (me - 1) % n).all()
        gshmem.free(box)

Arrays are numpy arrays or torch CPU tensors on the CPU backend (no GPU needed), torch CUDA tensors or cupy
arrays on GPUs: ``like=`` chooses. A wrong argument raises :class:`UsageError` (a ``ValueError``) before
anything is done; a failed collective raises :class:`Error`.
"""

from __future__ import annotations

import os
import sys as _sys
import warnings
from typing import Any, Optional, Sequence, Union

from . import _native
from ._native import (  # noqa: F401  (the API)
    CMP_EQ,
    CMP_GE,
    CMP_GT,
    CMP_LE,
    CMP_LT,
    CMP_NE,
    NVSHMEM_API_VERSION,
    SIGNAL_ADD,
    SIGNAL_SET,
    Error,
    UsageError,
    atomic_add,
    atomic_and,
    atomic_compare_swap,
    atomic_fetch,
    atomic_fetch_add,
    atomic_fetch_and,
    atomic_fetch_inc,
    atomic_fetch_or,
    atomic_fetch_xor,
    atomic_inc,
    atomic_or,
    atomic_set,
    atomic_swap,
    atomic_xor,
    alltoall,
    barrier,
    barrier_all,
    broadcast,
    cuda_device,
    fcollect,
    fence,
    flush,
    g,
    get,
    get_unique_id,
    is_symmetric,
    my_pe,
    n_pes,
    p,
    put,
    put_signal,
    quiet,
    reduce,
    reducescatter,
    signal_fetch,
    signal_op,
    signal_wait_until,
    sync,
    sync_all,
    test,
    test_any,
    test_some,
    wait_until,
    wait_until_any,
    wait_until_some,
)
from ._dtypes import dlpack_dtype
from ._launch import unique_id_from_environment, unique_id_through_store
from ._team import TEAM_NODE, TEAM_SAME_MYPE_NODE, TEAM_SHARED, TEAM_WORLD, Team

__version__ = _native.__version__
__all__ = [name for name in dir() if not name.startswith("_") and name not in ("annotations", "os")]


class _Session:
    """What init() returns: finalizes on leaving a ``with`` block."""

    def __enter__(self) -> "_Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        finalize()

    def __repr__(self) -> str:
        return f"<gshmem PE {my_pe()} of {n_pes()}>" if initialized() else "<gshmem (finalized)>"


def init(
    *,
    unique_id: Optional[bytes] = None,
    rank: Optional[int] = None,
    nranks: Optional[int] = None,
    device: Optional[int] = None,
    mpi_comm: Any = None,
    process_group: Any = None,
    store: Any = None,
) -> _Session:
    """Starts this PE (collective over the job). Returns an object that finalizes at the end of a ``with``.

    How the PEs find each other, in this order:

    - ``unique_id``, ``rank``, ``nranks``: the ID from :func:`get_unique_id` on rank 0, handed out by the program;
    - ``mpi_comm``: an ``mpi4py`` communicator (its rank 0 makes the ID and broadcasts it);
    - ``process_group``: ``True`` or a ``torch.distributed`` group that is initialised (likewise);
    - ``store``, ``rank``, ``nranks``: a ``torch.distributed`` store (``TCPStore``, ``FileStore``, ...) that every
      rank reaches: rank 0 sets the ID in it, the others read it (a new key each session);
    - otherwise the launcher's environment: ``gshmrun``, ``mpirun``, ``srun`` (as the C++ library reads it), or
      ``torchrun``'s ``RANK``/``WORLD_SIZE``/``MASTER_ADDR``/``MASTER_PORT`` through its store.

    ``device``: the CUDA device to bind (GPU backend); default the current one (``torch.cuda.set_device`` before
    init), else the PE's rank on its node modulo the visible GPUs. The GPU is bound in init. No allocation hides a collective:
    every collective step is one of these calls. Calling init again after :func:`finalize` starts a new session.
    """
    dev = -1 if device is None else int(device)
    torch = _sys.modules.get("torch")
    if device is None and torch is not None and torch.cuda.is_initialized():
        dev = torch.cuda.current_device()  # the device torch chose (its set_device need not make a context current)
    if unique_id is None and mpi_comm is not None:
        unique_id, rank, nranks = _from_mpi4py(mpi_comm)
    elif unique_id is None and process_group is not None:
        unique_id, rank, nranks = _from_torch_group(None if process_group is True else process_group)
    elif unique_id is None and store is not None:
        if rank is None or nranks is None:
            raise UsageError("gshmem.init: store needs rank and nranks")
        unique_id = unique_id_through_store(store, int(rank), "gshmem/unique_id/store")
    elif unique_id is None:
        found = unique_id_from_environment()
        if found is not None:
            unique_id, rank, nranks = found
    if unique_id is not None:
        if rank is None or nranks is None:
            raise UsageError("gshmem.init: unique_id needs rank and nranks")
        _native.init_unique_id(bytes(unique_id), int(rank), int(nranks), dev)
    else:
        _native.init_launcher(dev)
    return _Session()


def finalize() -> None:
    """Ends this PE's session (collective). Idempotent. The heap is gone afterwards: gshmem's calls refuse the
    arrays made before it, and reading or writing them through their library would touch unmapped memory, so
    arrays still alive are named in a warning."""
    if _native.init_state() != 0:
        live = _native.live_arrays()
        if live:
            warnings.warn(
                f"gshmem.finalize: {live} symmetric array(s) were not freed; their memory is released now and they "
                "must not be used any more (free them with gshmem.free before finalize)",
                ResourceWarning,
                stacklevel=2,
            )
        _native.finalize()


def initialized() -> bool:
    """Whether init() has run and finalize() has not."""
    return _native.init_state() != 0


def _from_mpi4py(comm: Any) -> tuple:
    uid = _native.get_unique_id() if comm.Get_rank() == 0 else None
    return comm.bcast(uid, root=0), comm.Get_rank(), comm.Get_size()


def _from_torch_group(group: Any) -> tuple:
    import torch.distributed as dist

    if not dist.is_initialized():
        raise UsageError("gshmem.init: process_group given, but torch.distributed is not initialised")
    rank = dist.get_rank(group)
    box = [_native.get_unique_id() if rank == 0 else None]
    dist.broadcast_object_list(box, src=dist.get_global_rank(group, 0) if group is not None else 0, group=group)
    return box[0], rank, dist.get_world_size(group)


# ---- Symmetric arrays ----

Shape = Union[int, Sequence[int]]


def _shape(shape: Shape) -> list:
    dims = [int(shape)] if isinstance(shape, int) or hasattr(shape, "__index__") else [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise UsageError(f"gshmem.empty: the shape {tuple(dims)} has a negative dimension")
    return dims


def empty(shape: Shape, dtype: Any = "float64", *, like: str = "auto") -> Any:
    """A symmetric array (collective: every PE calls it with the same shape and dtype), uninitialised.

    ``dtype``: a numpy or torch dtype, or a name ("int64", "float32", "bfloat16", ...). ``like``: "numpy",
    "torch", "cupy", or "auto" (numpy on the CPU backend, torch on GPUs, or the library of ``dtype``). Free it
    with :func:`free`; the garbage collector never does (freeing is collective).
    """
    code, bits, lib = dlpack_dtype(dtype)
    return _native.alloc(_shape(shape), code, bits, _library(like, lib))


def zeros(shape: Shape, dtype: Any = "float64", *, like: str = "auto") -> Any:
    """A symmetric array of zeros (collective; see :func:`empty`): zero on every PE before any PE's call returns,
    so that other PEs may write into it at once."""
    code, bits, lib = dlpack_dtype(dtype)
    return _native.alloc(_shape(shape), code, bits, _library(like, lib), zeroed=True)


def full(shape: Shape, value: Any, dtype: Any = "float64", *, like: str = "auto") -> Any:
    """A symmetric array filled with ``value`` (collective; see :func:`empty`): filled on every PE before any PE's
    call returns (it ends with a sync of all PEs)."""
    a = empty(shape, dtype, like=like)
    a[...] = value
    sync_all()
    return a


def free(array: Any) -> None:
    """Frees a symmetric array (collective). Using it afterwards raises :class:`UsageError`."""
    _native.free(array)


def peer_array(array: Any, pe: int) -> Any:
    """``pe``'s copy of a symmetric array as a view that loads and stores reach directly, or None where this
    process does not map ``pe``'s heap (another node, or NVSHMEM_DISABLE_P2P)."""
    return _native.peer_array(array, int(pe), _library_of(array))


def _library(like: str, from_dtype: Optional[str]) -> str:
    if like != "auto":
        return like
    if from_dtype is not None:
        return from_dtype
    return "numpy" if _native.cuda_device() < 0 and _native.init_state() != 1 else "torch"


def _library_of(array: Any) -> str:
    mod = type(array).__module__.split(".")[0]
    return {"numpy": "numpy", "torch": "torch", "cupy": "cupy"}.get(mod, "numpy")


__all__ += [
    "init",
    "finalize",
    "initialized",
    "empty",
    "zeros",
    "full",
    "free",
    "peer_array",
]
__all__ = sorted(set(__all__) - {"Any", "Optional", "Sequence", "Union", "Shape"})
