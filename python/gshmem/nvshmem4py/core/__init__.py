"""``nvshmem.core`` (nvshmem4py 0.4's host API) over gshmem. Written from nvshmem4py's documented behaviour.

Differences, where gshmem can do more: the stream arguments may be None (the call completes on the calling thread,
which is what the CPU backend does anyway), so that programs run without GPUs with torch CPU tensors;
``initializer_method="launcher"`` starts from gshmrun, mpirun or srun as ``gshmem.init()`` does. Views with an
offset into a symmetric tensor work where nvshmem4py needs the allocation's base."""

from __future__ import annotations

import functools
import time
from typing import Any, Optional, Tuple

import numpy as np

from ... import _native
from ._types import peer_view as _peer_view
from ._types import (
    Buffer,
    BufferTypes,
    ComparisonType,
    InitStatus,
    MutableEnum,
    NvshmemError,
    NvshmemInvalid,
    NvshmemWarning,
    SignalOp,
    TeamConfig,
    Teams,
    TeamUniqueId,
    UniqueID,
    Version,
)
from . import device  # noqa: F401  (nvshmem.core.device.numba, loaded when first used)
from . import interop  # noqa: F401  (nvshmem.core.interop.torch / .cupy)
from .interop.cupy import array, array_get_buffer, bytearray, free_array, get_peer_array  # noqa: A001
from .interop.torch import bytetensor, free_tensor, get_peer_tensor, tensor, tensor_get_buffer

NVSHMEM4PY_API_VERSION = "0.4"


def _translated(fn):
    """gshmem's errors as nvshmem4py's: a wrong argument raises NvshmemInvalid, a failed call NvshmemError."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _native.UsageError as e:
            raise NvshmemInvalid(str(e)) from e
        except _native.Error as e:
            raise NvshmemError(str(e)) from e

    return wrapper


def _require_init() -> None:
    if _native.init_state() == 0:
        raise NvshmemInvalid("NVSHMEM Library is not initialized")


# ---- init and finalize ----


@_translated
def get_unique_id(empty: bool = False) -> UniqueID:
    """A unique ID for a job whose first PE this process is (call before init); ``empty=True``: a blank one that
    the other PEs receive the first PE's into."""
    uid = UniqueID()
    if not empty:
        uid._data["internal"][0] = np.frombuffer(_native.get_unique_id(), np.int8)
    return uid


@_translated
def init(
    device: Any = None,
    uid: Optional[UniqueID] = None,
    rank: Optional[int] = None,
    nranks: Optional[int] = None,
    mpi_comm: Any = None,
    initializer_method: str = "",
) -> None:
    """Starts this PE. initializer_method: "uid" (uid, rank and nranks, no mpi_comm), "mpi" or "emulated_mpi" (an
    mpi4py communicator, COMM_WORLD when None; its rank 0 makes the ID), or "launcher" (gshmem's launchers)."""
    import gshmem

    dev = None if device is None else int(getattr(device, "device_id", device))
    if initializer_method == "uid":
        if uid is None or rank is None or nranks is None or mpi_comm:
            raise NvshmemInvalid('initializer_method="uid" needs uid, rank and nranks, and no mpi_comm')
        gshmem.init(unique_id=uid._bytes(), rank=rank, nranks=nranks, device=dev)
    elif initializer_method in ("mpi", "emulated_mpi"):
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise NvshmemInvalid(f'initializer_method="{initializer_method}" needs mpi4py') from e
        gshmem.init(mpi_comm=mpi_comm if mpi_comm is not None else MPI.COMM_WORLD, device=dev)
    elif initializer_method == "launcher":
        gshmem.init(device=dev)
    else:
        raise NvshmemInvalid(
            f"initializer_method={initializer_method!r}: choose 'uid', 'mpi', 'emulated_mpi' (or gshmem's 'launcher')"
        )


@_translated
def finalize() -> None:
    """Ends this PE (collective); symmetric objects not freed are released with it."""
    import gshmem

    gshmem.finalize()


def get_version() -> Version:
    major, minor, patch = _native.NVSHMEM_API_VERSION
    return Version("1.3", f"{NVSHMEM4PY_API_VERSION} (gshmem {_native.__version__})", f"{major}.{minor}.{patch}")


def init_status() -> int:
    return int(_native.init_state())


def my_pe() -> int:
    return _native.my_pe()


def n_pes() -> int:
    return _native.n_pes()


def team_my_pe(team: int) -> int:
    return _native.team_my_pe(int(team))


def team_n_pes(team: int) -> int:
    return _native.team_n_pes(int(team))


# ---- memory ----


@_translated
def buffer(size: int, release: bool = False, except_on_del: bool = True) -> Buffer:
    """Symmetric memory of ``size`` bytes (collective)."""
    import gshmem

    _require_init()
    return Buffer(gshmem.empty(int(size), "uint8", like="numpy" if _native.cuda_device() < 0 else "torch"))


@_translated
def free(buffer: Buffer) -> None:
    """Frees a buffer (collective)."""
    if not isinstance(buffer, Buffer):
        raise NvshmemInvalid(f"free takes a Buffer from nvshmem.core.buffer, not {type(buffer).__name__}")
    buffer.close()


@_translated
def get_peer_buffer(buffer: Buffer, pe: int) -> Buffer:
    return Buffer(_peer_view(buffer._array, pe))


def get_multicast_buffer(team: int, buffer: Buffer) -> Buffer:
    raise NvshmemError("gshmem makes no multicast objects yet (nvshmemx_mc_ptr is NULL)")


# ---- RMA ----


def _array(obj: Any, what: str) -> Any:
    """The array (tensor) behind an argument: a symmetric array, a tensor, or a Buffer."""
    if isinstance(obj, Buffer):
        return obj._array
    if hasattr(obj, "__dlpack__") or hasattr(obj, "__array_interface__"):
        return obj
    raise NvshmemInvalid(f"{what} must be a CuPy array, a torch tensor or a Buffer, not {type(obj).__name__}")


def _nbytes(a: Any) -> int:
    return int(a.nbytes) if hasattr(a, "nbytes") else int(a.numel() * a.element_size())


def _rma(dst: Any, src: Any, remote_pe: int, stream: Any, get: bool, nbi: bool) -> None:
    _require_init()
    d, s = _array(dst, "dst"), _array(src, "src")
    _native.copy_bytes(d, s, min(_nbytes(d), _nbytes(s)), int(remote_pe), get=get, nbi=nbi, stream=stream)


@_translated
def put(dst: Any, src: Any, remote_pe: int = -1, stream: Any = None) -> None:
    """src's bytes (as many as both hold) into ``remote_pe``'s symmetric dst."""
    _rma(dst, src, remote_pe, stream, False, False)


@_translated
def get(dst: Any, src: Any, remote_pe: int = -1, stream: Any = None) -> None:
    """``remote_pe``'s symmetric src into dst."""
    _rma(dst, src, remote_pe, stream, True, False)


@_translated
def put_nbi(dst: Any, src: Any, remote_pe: int = -1, stream: Any = None) -> None:
    _rma(dst, src, remote_pe, stream, False, True)


@_translated
def get_nbi(dst: Any, src: Any, remote_pe: int = -1, stream: Any = None) -> None:
    _rma(dst, src, remote_pe, stream, True, True)


def _view(a: Any, nbytes: int, dtype: str) -> Any:
    """The first nbytes of a (numpy array or torch tensor, contiguous) read as dtype, over the same memory."""
    if hasattr(a, "ctypes"):  # numpy
        return a.reshape(-1).view(np.uint8)[:nbytes].view(dtype)
    import torch

    t = a.reshape(-1).view(torch.uint8)[:nbytes]
    return t.view(torch.int64 if dtype == "uint64" else getattr(torch, dtype))  # torch 1.x has no uint64


def _signal(signal_var: Any) -> Any:
    """The uint64 signal word at the start of signal_var (a Buffer, or a symmetric array of at least 8 bytes)."""
    a = _array(signal_var, "signal_var")
    if _nbytes(a) < 8:
        raise NvshmemInvalid("signal_var must hold at least 8 bytes (one uint64)")
    return _view(a, 8, "uint64")


def _put_signal(dst, src, signal_var, signal_val, signal_op, remote_pe, stream, nbi):
    import gshmem

    _require_init()
    d, s = _array(dst, "dst"), _array(src, "src")
    n = min(_nbytes(d), _nbytes(s))
    gshmem.put_signal(_view(d, n, "uint8"), _view(s, n, "uint8"), _signal(signal_var), int(signal_val), int(remote_pe),
                      op=int(signal_op), nbi=nbi, stream=stream)


@_translated
def put_signal(dst, src, signal_var, signal_val: int, signal_op: SignalOp, remote_pe: int = -1, stream=None) -> None:
    """src into ``remote_pe``'s dst, then the signal update (SIGNAL_SET or SIGNAL_ADD): the data lands first."""
    _put_signal(dst, src, signal_var, signal_val, signal_op, remote_pe, stream, False)


@_translated
def put_signal_nbi(dst, src, signal_var, signal_val: int, signal_op: SignalOp, remote_pe: int = -1, stream=None):
    _put_signal(dst, src, signal_var, signal_val, signal_op, remote_pe, stream, True)


@_translated
def signal_op(signal_var, signal_val: int, signal_op: SignalOp, remote_pe: int = -1, stream=None) -> None:
    import gshmem

    _require_init()
    gshmem.signal_op(_signal(signal_var), int(signal_val), int(remote_pe), op=int(signal_op), stream=stream)


@_translated
def signal_wait(signal_var, signal_val: int, signal_op: ComparisonType, stream=None) -> None:
    """Waits (on the stream, or here) until this PE's signal compares true with signal_val."""
    import gshmem

    _require_init()
    gshmem.signal_wait_until(_signal(signal_var), int(signal_op), int(signal_val), stream=stream)


@_translated
def signal_fetch(signal_var) -> int:
    import gshmem

    return gshmem.signal_fetch(_signal(signal_var))


@_translated
def quiet(stream=None) -> None:
    _native.quiet(stream=stream)


@_translated
def flush(stream=None) -> None:
    _native.flush(stream=stream)


# ---- atomics (host, blocking) ----

# NVSHMEM's type names as numpy dtypes (Linux LP64).
_NVSHMEM_TYPES = {
    "int": np.int32, "long": np.int64, "longlong": np.int64, "uint": np.uint32, "ulong": np.uint64,
    "ulonglong": np.uint64, "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
    "size": np.uint64, "ptrdiff": np.int64, "float": np.float32, "double": np.float64, "half": np.float16,
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "char": np.int8, "schar": np.int8,
    "short": np.int16, "float32": np.float32, "float64": np.float64, "float16": np.float16,
}


def _dtype_name(dtype: Any) -> str:
    s = str(dtype)
    return s.split(".")[-1]


def _amo_target(target: Any, offset: int, dtype: Any) -> Tuple[Any, int]:
    _require_init()
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
        raise NvshmemInvalid(f"offset must be a non-negative element index, not {offset!r}")
    if isinstance(target, Buffer):
        if dtype is None:
            raise NvshmemInvalid("an atomic on a Buffer needs dtype")
        np_dtype = _NVSHMEM_TYPES.get(_dtype_name(dtype)) or np.dtype(_dtype_name(dtype)).type
        view = _view(target._array, target.size, np.dtype(np_dtype).name)
    else:
        view = _array(target, "target").reshape(-1)
        if dtype is not None:
            want = _NVSHMEM_TYPES.get(_dtype_name(dtype))
            have = _dtype_name(view.dtype)
            if want is not None and np.dtype(want).name != have:
                raise NvshmemInvalid(f"dtype {dtype!r} disagrees with the target's {have}")
    if (offset + 1) > (view.numel() if hasattr(view, "numel") else view.size):
        raise NvshmemInvalid(f"offset {offset} is past the target's end")
    return view, int(offset)


def _amo(name: str, fetch_result: bool):
    import gshmem

    impl = getattr(gshmem, name)

    @_translated
    def with_value(target, value, remote_pe: int = -1, *, offset: int = 0, dtype=None):
        view, i = _amo_target(target, offset, dtype)
        r = impl(view, value, int(remote_pe), index=i)
        return r if fetch_result else None

    @_translated
    def without_value(target, remote_pe: int = -1, *, offset: int = 0, dtype=None):
        view, i = _amo_target(target, offset, dtype)
        r = impl(view, int(remote_pe), index=i)
        return r if fetch_result else None

    f = without_value if name in ("atomic_fetch", "atomic_inc", "atomic_fetch_inc") else with_value
    f.__name__ = f.__qualname__ = name
    return f


atomic_fetch = _amo("atomic_fetch", True)
atomic_set = _amo("atomic_set", False)
atomic_inc = _amo("atomic_inc", False)
atomic_fetch_inc = _amo("atomic_fetch_inc", True)
atomic_add = _amo("atomic_add", False)
atomic_fetch_add = _amo("atomic_fetch_add", True)
atomic_and = _amo("atomic_and", False)
atomic_fetch_and = _amo("atomic_fetch_and", True)
atomic_or = _amo("atomic_or", False)
atomic_fetch_or = _amo("atomic_fetch_or", True)
atomic_xor = _amo("atomic_xor", False)
atomic_fetch_xor = _amo("atomic_fetch_xor", True)
atomic_swap = _amo("atomic_swap", True)


@_translated
def atomic_compare_swap(target, cond, value, remote_pe: int = -1, *, offset: int = 0, dtype=None):
    import gshmem

    view, i = _amo_target(target, offset, dtype)
    return gshmem.atomic_compare_swap(view, cond, value, int(remote_pe), index=i)


# ---- collectives (team first; op "sum", "min", "max" and gshmem's others) ----


@_translated
def barrier(team: int, stream=None) -> None:
    _native.barrier(int(team), stream=stream)


@_translated
def sync(team: int, stream=None) -> None:
    _native.sync(int(team), stream=stream)


@_translated
def barrier_all(stream=None) -> None:
    _native.barrier_all(stream=stream)


@_translated
def sync_all(stream=None) -> None:
    _native.sync_all(stream=stream)


@_translated
def reduce(team: int, dst_array, src_array, op: str, stream=None) -> None:
    _native.reduce(dst_array, src_array, op, int(team), stream=stream)


@_translated
def reducescatter(team: int, dst_array, src_array, op: str, stream=None) -> None:
    _native.reducescatter(dst_array, src_array, op, int(team), stream=stream)


@_translated
def alltoall(team: int, dst_array, src_array, stream=None) -> None:
    _native.alltoall(dst_array, src_array, int(team), stream=stream)


@_translated
def fcollect(team: int, dst_array, src_array, stream=None) -> None:
    _native.fcollect(dst_array, src_array, int(team), stream=stream)


@_translated
def broadcast(team: int, dst_array, src_array, root: int = 0, stream=None) -> None:
    _native.broadcast(dst_array, src_array, int(root), int(team), stream=stream)


@_translated
def collective_on_buffer(coll: str, team: int, dest: Buffer, src: Buffer, dtype: Optional[str] = None,
                         op: Optional[str] = None, root: int = 0, stream=None, enable_timing: bool = False) -> float:
    """A collective over two Buffers read as ``dtype`` (an NVSHMEM type name such as "float"); the element count
    follows from the buffers' sizes. Returns the milliseconds it took when enable_timing (the stream synchronised)."""
    if not isinstance(dest, Buffer) or not isinstance(src, Buffer):
        raise NvshmemInvalid("collective_on_buffer takes two Buffers from nvshmem.core.buffer")
    np_dtype = _NVSHMEM_TYPES.get(str(dtype))
    if np_dtype is None:
        raise NvshmemInvalid(f"dtype {dtype!r} is not an NVSHMEM type name (float, double, int, long, ...)")
    size = np.dtype(np_dtype).itemsize
    n = _native.team_n_pes(int(team))

    name = np.dtype(np_dtype).name

    def typed(b: Buffer, nbytes: int) -> Any:
        return _view(b._array, nbytes - nbytes % size, name)

    # The element counts follow from the buffers: fcollect and alltoall from src's size (alltoall's in blocks
    # of one per member), the others from dest's.
    if coll == "fcollect":
        s = typed(src, src.size)
        d = typed(dest, _nbytes(s) * n)
    elif coll == "alltoall":
        s = typed(src, src.size - src.size % (size * n))
        d = typed(dest, _nbytes(s))
    elif coll == "reducescatter":
        d = typed(dest, dest.size)
        s = typed(src, _nbytes(d) * n)
    elif coll in ("reduce", "broadcast"):
        d = typed(dest, dest.size)
        s = typed(src, _nbytes(d))
    else:
        raise NvshmemInvalid(f"coll {coll!r} is none of reduce, reducescatter, alltoall, fcollect, broadcast")
    t0 = time.perf_counter()
    if coll == "reduce":
        _native.reduce(d, s, op or "sum", int(team), stream=stream)
    elif coll == "reducescatter":
        _native.reducescatter(d, s, op or "sum", int(team), stream=stream)
    elif coll == "alltoall":
        _native.alltoall(d, s, int(team), stream=stream)
    elif coll == "fcollect":
        _native.fcollect(d, s, int(team), stream=stream)
    else:
        _native.broadcast(d, s, int(root), int(team), stream=stream)
    if not enable_timing:
        return 0.0
    if stream is not None and hasattr(stream, "sync"):
        stream.sync()
    return (time.perf_counter() - t0) * 1e3


# ---- teams ----


def _register(handle: int, name: str) -> None:
    if name not in Teams:
        Teams.add(name, handle)


@_translated
def team_split_strided(parent_team: int, start: int, stride: int, size: int, config: Optional[TeamConfig] = None,
                       config_mask: int = 0, new_team_name: Optional[str] = None) -> Optional[int]:
    """A team of the parent's members start + i * stride (collective over the parent); None on other PEs."""
    if size <= 0 or stride < 1 or start < 0:
        raise NvshmemError(f"team_split_strided: start {start}, stride {stride}, size {size}: need size > 0, stride >= 1, start >= 0")
    t = _native.team_split_strided(int(parent_team), int(start), int(stride), int(size))
    if t == _native.TEAM_INVALID:
        return None
    _register(t, new_team_name or f"TEAM_{t}")
    return t


@_translated
def team_split_2d(parent_team: int, xrange: int, xaxis_config: Optional[TeamConfig] = None, xaxis_mask: int = 0,
                  yaxis_config: Optional[TeamConfig] = None, yaxis_mask: int = 0,
                  new_team_name: Optional[str] = None) -> Tuple[Optional[int], Optional[int]]:
    x, y = _native.team_split_2d(int(parent_team), int(xrange))
    out = []
    for h, axis in ((x, "X"), (y, "Y")):
        if h == _native.TEAM_INVALID:
            out.append(None)
        else:
            _register(h, f"{new_team_name}_{axis}" if new_team_name else f"TEAM_{axis}_{h}")
            out.append(h)
    return out[0], out[1]


@_translated
def team_destroy(team: Any) -> None:
    handle = Teams[team] if isinstance(team, str) else int(team)
    _native.team_destroy(handle)
    if isinstance(team, str):
        Teams.remove(team)
    else:
        Teams.remove_by_value(handle)


def get_team_unique_id() -> TeamUniqueId:
    return TeamUniqueId(_native.team_uniqueid())


@_translated
def team_init(team_config: TeamConfig, config_mask: int, npes: int, pe_idx_in_team: int,
              new_team_name: Optional[str] = None) -> int:
    """The team of npes PEs that share team_config.uniqueid (mask 0x2); this PE is member pe_idx_in_team."""
    t = _native.team_init(int(team_config.uniqueid), int(npes), int(pe_idx_in_team))
    if t == _native.TEAM_INVALID:
        raise NvshmemError("team_init made no team")
    _register(t, new_team_name or f"TEAM_{t}")
    return t


def team_translate_pe(src_team: int, src_pe: int, dest_team: int) -> int:
    return _native.team_translate_pe(int(src_team), int(src_pe), int(dest_team))


def _handle(obj: Any, library: bool) -> Tuple[int, bool]:
    """A handle as an int, and whether it is a CUlibrary: a cuda.core object's .handle, a cuda.bindings handle
    (whose type says which), or an int (taken as the caller says)."""
    h = getattr(obj, "handle", obj)
    kind = type(h).__name__
    if kind == "CUlibrary":
        library = True
    elif kind == "CUmodule":
        library = False
    return int(h), library


@_translated
def module_init(mod: Any) -> None:
    """Sets up gshmem's state in a loaded CUDA module (a CUmodule; a cuda.core ObjectCode's CUlibrary is taken as
    one) that links the bitcode device library."""
    from ... import devlib

    devlib.module_init(*_handle(mod, False))


@_translated
def module_finalize(mod: Any) -> None:
    from ... import devlib

    devlib.module_finalize(*_handle(mod, False))


@_translated
def library_init(lib: Any) -> None:
    """The same for a CUlibrary (cuda.core's ObjectCode loads its code as one)."""
    from ... import devlib

    devlib.module_init(*_handle(lib, True))


@_translated
def library_finalize(lib: Any) -> None:
    from ... import devlib

    devlib.module_finalize(*_handle(lib, True))

__all__ = sorted(
    name
    for name in dir()
    if not name.startswith("_")
    and name not in ("annotations", "functools", "time", "np", "Any", "Optional", "Tuple", "INT_MAX",
                     "NVSHMEM4PY_API_VERSION")
)
