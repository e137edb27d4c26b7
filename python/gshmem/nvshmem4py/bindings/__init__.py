"""nvshmem4py's ``nvshmem.bindings`` over gshmem: NVSHMEM's C host functions, one Python function each, named as
nvshmem4py names them (the C name without ``nvshmem_`` / ``nvshmemx_``: ``nvshmem_int_put`` is ``int_put``,
``nvshmemx_barrier_all_on_stream`` is ``barrier_all_on_stream``).

Arguments are what the C function takes: pointers, streams and structures by address as ints (``intptr_t``;
``None`` is a null pointer), PEs, teams, counts and values as ints and floats (``half`` and ``bfloat16`` values as
floats). A function whose C result is a status returns None and raises :class:`NvshmemError` when the status is not
0; a misuse that a C program would be ended for (an invalid PE, a pointer outside the heap, a call before init)
raises :class:`NvshmemError` with the library's message, and nothing was done. Blocking calls release the GIL.

Every host function of gshmem's NVSHMEM API is here (a superset of nvshmem4py 0.4's list). Not here: the structure
classes (``init_attr``, ``team_config``, ``uniqueid``): pass the address of a buffer of the size
``SIZEOF_INIT_ATTR`` (``SIZEOF_TEAM_CONFIG``, ``SIZEOF_UNIQUEID``) instead, a numpy array's ``ctypes.data`` say.
"""

from __future__ import annotations

import enum as _enum
import struct as _struct

import numpy as _np
from typing import Any, Callable, Dict, Tuple

from ... import _native
from ..core._types import NvshmemError

__all__ = ["NvshmemError", "Signal_op", "Cmp_type", "Init_status", "Team_id", "Thread_support"]

_C = _native.binding_constants()
SIZEOF_INIT_ATTR: int = _C["sizeof_init_attr"]
SIZEOF_UNIQUEID: int = _C["sizeof_uniqueid"]
SIZEOF_TEAM_CONFIG: int = _C["sizeof_team_config"]


def _enum_of(name: str, prefix: str, members: Tuple[str, ...]) -> Any:
    return _enum.IntEnum(name, {m: _C[prefix + m] for m in members})


Signal_op = _enum_of("Signal_op", "NVSHMEM_", ("SIGNAL_SET", "SIGNAL_ADD"))
Cmp_type = _enum_of("Cmp_type", "NVSHMEM_", ("CMP_EQ", "CMP_NE", "CMP_GT", "CMP_LE", "CMP_LT", "CMP_GE",
                                             "CMP_SENTINEL"))
Init_status = _enum_of("Init_status", "NVSHMEM_", ("STATUS_NOT_INITIALIZED", "STATUS_IS_BOOTSTRAPPED",
                                                   "STATUS_IS_INITIALIZED", "STATUS_LIMITED_MPG", "STATUS_FULL_MPG",
                                                   "STATUS_INVALID"))
Thread_support = _enum_of("Thread_support", "NVSHMEM_", ("THREAD_SINGLE", "THREAD_FUNNELED", "THREAD_SERIALIZED",
                                                         "THREAD_MULTIPLE", "THREAD_TYPE_SENTINEL"))
Team_id = _enum.IntEnum("Team_id", {
    "TEAM_INVALID": _C["NVSHMEM_TEAM_INVALID"],
    "TEAM_WORLD": _C["NVSHMEM_TEAM_WORLD"],
    "TEAM_WORLD_INDEX": _C["NVSHMEM_TEAM_WORLD_INDEX"],
    "TEAM_SHARED": _C["NVSHMEM_TEAM_SHARED"],
    "TEAM_SHARED_INDEX": _C["NVSHMEM_TEAM_SHARED_INDEX"],
    "TEAM_NODE": _C["NVSHMEMX_TEAM_NODE"],
    "TEAM_NODE_INDEX": _C["NVSHMEM_TEAM_NODE_INDEX"],
    "TEAM_SAME_MYPE_NODE": _C["NVSHMEMX_TEAM_SAME_MYPE_NODE"],
    "TEAM_SAME_MYPE_NODE_INDEX": _C["NVSHMEM_TEAM_SAME_MYPE_NODE_INDEX"],
})


# ---- half and bfloat16 values travel as their 16 bits ----

def _half_bits(x: float) -> int:
    with _np.errstate(over="ignore"):  # rounds as C does: inf past the range
        return int(_np.array(float(x), _np.float16).view(_np.uint16))


def _half_value(bits: int) -> float:
    return _struct.unpack("<e", _struct.pack("<H", bits & 0xFFFF))[0]


def _bfloat16_bits(x: float) -> int:
    u = _struct.unpack("<I", _struct.pack("<f", float(x)))[0]
    if (u & 0x7F800000) == 0x7F800000 and u & 0x7FFFFF:
        return (u >> 16) | 0x40  # a NaN stays a NaN
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest, ties to even


def _bfloat16_value(bits: int) -> float:
    return _struct.unpack("<f", _struct.pack("<I", (bits & 0xFFFF) << 16))[0]


_TO_BITS = {"e": _half_bits, "E": _bfloat16_bits}
_FROM_BITS = {"e": _half_value, "E": _bfloat16_value}

# nvshmem4py's name -> (index in the native table, C name, result code, parameter codes)
_TABLE: Dict[str, Tuple[int, str, str, str]] = {
    c_name.split("_", 1)[1]: (i, c_name, result, params) for i, (c_name, result, params) in enumerate(_native.bindings())
}


def _make(name: str) -> Callable[..., Any]:
    index, c_name, result, params = _TABLE[name]
    call = _native.call_binding
    usage_error = _native.UsageError
    to_bits = [(k, _TO_BITS[c]) for k, c in enumerate(params) if c in _TO_BITS]
    from_bits = _FROM_BITS.get(result)

    def fn(*args: Any) -> Any:
        if to_bits and len(args) == len(params):
            args = list(args)
            for k, conv in to_bits:
                args[k] = conv(args[k])
        try:
            r = call(index, *args)
        except usage_error as e:
            raise NvshmemError(str(e)) from None
        if result == "S":
            if r != 0:
                why = _native.last_error()
                raise NvshmemError(f"{c_name} failed (status {r})" + (f": {why}" if why else ""))
            return None
        return from_bits(r) if from_bits else r

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"NVSHMEM's {c_name}, with {len(params)} argument(s) (see the module's documentation)."
    return fn


def __getattr__(name: str) -> Any:
    if name in _TABLE:
        fn = _make(name)
        globals()[name] = fn  # made once, on first use
        return fn
    raise AttributeError(f"nvshmem.bindings has no function {name!r}: gshmem has no host function "
                         f"nvshmem_{name} or nvshmemx_{name}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_TABLE))
