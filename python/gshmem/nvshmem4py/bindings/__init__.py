"""nvshmem4py's ``nvshmem.bindings`` over gshmem: NVSHMEM's C host functions, one Python function each, named as
nvshmem4py names them (the C name without ``nvshmem_`` / ``nvshmemx_``: ``nvshmem_int_put`` is ``int_put``,
``nvshmemx_barrier_all_on_stream`` is ``barrier_all_on_stream``).

Arguments are what the C function takes: pointers, streams and structures by address as ints (``intptr_t``;
``None`` is a null pointer), PEs, teams, counts and values as ints and floats (``half`` and ``bfloat16`` values as
floats). A function whose C result is a status returns None and raises :class:`NvshmemError` when the status is not
0; a misuse that a C program would be ended for (an invalid PE, a pointer outside the heap, a call before init)
raises :class:`NvshmemError` with the library's message, and nothing was done. Blocking calls release the GIL.

Every host function of gshmem's NVSHMEM API is here (a superset of nvshmem4py 0.4's list), with the structures
they take by address as classes over numpy record arrays (``uniqueid``/``UniqueId``, ``InitAttr``/``init_attr``,
``team_config``/``TeamConfig``, ``uniqueid_args``): ``.ptr`` is the address to pass, the fields are properties, a
new one holds the C initializer's values, and ``from_ptr`` / ``from_data``
wrap memory that exists. Their layouts come from the C headers. For example::

    uid = bindings.uniqueid()
    if rank == 0:
        bindings.get_uniqueid(uid.ptr)
    ...  # every rank gets rank 0's bytes into uid._data
    attr = bindings.InitAttr()
    bindings.set_attr_uniqueid_args(rank, nranks, uid.ptr, attr.ptr)
    bindings.hostlib_init_attr(bindings.Flags.INIT_WITH_UNIQUEID, attr.ptr)
"""

from __future__ import annotations

import enum as _enum
import operator as _operator
import struct as _struct

import numpy as _np
from typing import Any, Callable, Dict, Tuple

from ... import _native
from ..core._types import NvshmemError
from . import device  # noqa: F401  (nvshmem.bindings.device.numba, loaded when first used)

__all__ = ["NvshmemError", "Signal_op", "Cmp_type", "Init_status", "Team_id", "Thread_support", "Status", "Flags",
           "check_status", "uniqueid", "UniqueId", "uniqueid_args", "InitAttr", "init_attr", "team_config",
           "TeamConfig"]

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

Status = _enum_of("Status", "NVSHMEMX_", ("SUCCESS", "ERROR_INVALID_VALUE", "ERROR_OUT_OF_MEMORY", "ERROR_NOT_SUPPORTED",
                                          "ERROR_SYMMETRY", "ERROR_GPU_NOT_SELECTED", "ERROR_COLLECTIVE_LAUNCH_FAILED",
                                          "ERROR_INTERNAL", "ERROR_SENTINEL"))
Flags = _enum_of("Flags", "NVSHMEMX_", ("INIT_THREAD_PES", "INIT_WITH_MPI_COMM", "INIT_WITH_SHMEM", "INIT_WITH_UNIQUEID",
                                        "INIT_MAX"))
# nvshmem4py's module-level names of the same values.
globals().update({k: int(v) for k, v in Init_status.__members__.items() if k.startswith("STATUS_")})
globals().update({k: int(v) for k, v in Team_id.__members__.items()})  # aliases too: TEAM_WORLD_INDEX is 0
TEAM_CONFIG_MASK_NUM_CONTEXTS: int = _C["NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS"]
TEAM_CONFIG_MASK_UNIQUEID: int = _C["NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID"]


def check_status(status: int) -> None:
    """Raises :class:`NvshmemError` when ``status`` (a C function's result) is not 0."""
    if status != 0:
        try:
            name = Status(status).name
        except ValueError:
            name = "unknown status"
        raise NvshmemError(f"{name} ({status})")


# ---- the structures the functions take by address ----

_STRUCTS = _native.binding_structs()


class _Struct:
    """One C structure, or an array of them, over a numpy record array (``_data``); subclasses name theirs."""

    _c_name = ""
    _dtype: _np.dtype
    _initial = b""  # the C initializer's bytes
    _fields: Tuple[str, ...] = ()
    __slots__ = ("_data",)

    def __init__(self, size: int = 1) -> None:
        if int(size) < 1:
            raise ValueError(f"{type(self).__name__}: size must be at least 1, not {size}")
        arr = _np.frombuffer(self._initial * int(size), dtype=self._dtype).copy()
        self._data = arr.view(_np.recarray)

    @property
    def ptr(self) -> int:
        """The address of the (first) structure, to pass to a function."""
        return int(self._data.ctypes.data)

    def __int__(self) -> int:
        if self._data.size != 1:
            raise TypeError(f"int() of an array of {self._data.size} {self._c_name}: use .ptr for its address")
        return self.ptr

    def __len__(self) -> int:
        return int(self._data.size)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        # Field by field: padding bytes that C left as they were do not count.
        return self._data.size == other._data.size and all(
            _np.array_equal(self._data[f], other._data[f]) for f in self._fields)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        n = self._data.size
        what = type(self).__name__ + (f" array of {n}" if n != 1 else "")
        return f"<nvshmem.bindings.{what} ({self._c_name}) at {hex(self.ptr)}>"

    def __getitem__(self, key: Any) -> Any:
        """An element (a view), a field's values by name, or a slice (a view where it is contiguous, else a copy)."""
        try:
            i = _operator.index(key)
        except TypeError:
            i = None
        if i is not None:
            n = self._data.size
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for {n} {self._c_name}")
            i %= n
            return type(self).from_data(self._data[i:i + 1])
        out = self._data[key]
        if isinstance(out, _np.ndarray) and out.dtype == self._dtype and out.ndim == 1:
            return type(self).from_data(out if out.flags.c_contiguous else _np.ascontiguousarray(out))
        return out

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[key] = value._data if isinstance(value, _Struct) else value

    @classmethod
    def from_data(cls, data: Any) -> Any:
        """Wraps ``data``, a one-dimensional numpy array of this structure's dtype (no copy)."""
        if not isinstance(data, _np.ndarray):
            raise TypeError(f"{cls.__name__}.from_data takes a numpy array, not {type(data).__name__}")
        if data.ndim != 1 or data.dtype != cls._dtype:
            raise ValueError(f"{cls.__name__}.from_data takes a one-dimensional array of dtype "
                             f"{cls.__name__}_dtype, not {data.ndim} dimension(s) of {data.dtype}")
        if not data.flags.c_contiguous:
            raise ValueError(f"{cls.__name__}.from_data takes a contiguous array (its .ptr is where C reads them "
                             "one after another)")
        obj = cls.__new__(cls)
        obj._data = data.view(_np.recarray)
        return obj

    @classmethod
    def from_ptr(cls, ptr: int, size: int = 1, readonly: bool = False) -> Any:
        """Wraps ``size`` structures at address ``ptr`` (memory the caller keeps alive; no copy)."""
        if not ptr:
            raise ValueError(f"{cls.__name__}.from_ptr: ptr must not be null (0)")
        import ctypes

        buf = (ctypes.c_char * (cls._dtype.itemsize * int(size))).from_address(int(ptr))
        arr = _np.frombuffer(buf, dtype=cls._dtype, count=int(size))
        if readonly:
            arr.flags.writeable = False
        return cls.from_data(arr)


def _field(name: str) -> property:
    def get(self: _Struct) -> Any:
        v = self._data[name]
        if self._data.size != 1:
            return v
        v = v[0]
        return int(v) if v.ndim == 0 else v

    def set(self: _Struct, value: Any) -> None:
        self._data[name] = value

    return property(get, set, doc=f"The field {name}.")


def _struct_class(key: str, name: str, c_name: str) -> type:
    size, initial, fields = _STRUCTS[key]
    dtype = _np.dtype({
        "names": [f[0] for f in fields],
        "formats": [(f[2], (f[3],)) if f[3] else f[2] for f in fields],
        "offsets": [f[1] for f in fields],
        "itemsize": size,
    })
    shown = tuple(f[0] for f in fields if f[0] not in ("padding", "reserved"))
    attrs = {"__slots__": (), "_c_name": c_name, "_dtype": dtype, "_initial": bytes(initial), "_fields": shown,
             "__doc__": f"NVSHMEM's {c_name}: ``{name}(size=1)`` holds ``size`` of them, as the C initializer sets "
                        "them; ``.ptr`` is the address to pass."}
    attrs.update({name: _field(name) for name in shown})
    cls = type(name, (_Struct,), attrs)
    globals()[key + "_dtype"] = dtype
    return cls


uniqueid = _struct_class("uniqueid", "uniqueid", "nvshmemx_uniqueid_t")
uniqueid_args = _struct_class("uniqueid_args", "uniqueid_args", "nvshmemx_uniqueid_args_t")
init_attr = _struct_class("init_attr", "init_attr", "nvshmemx_init_attr_t")
team_config = _struct_class("team_config", "team_config", "nvshmem_team_config_t")
# nvshmem4py's other spellings of the same classes.
UniqueId = uniqueid
InitAttr = init_attr
TeamConfig = team_config


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
