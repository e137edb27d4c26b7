"""nvshmem4py's types, enums and exceptions, written from its documented behaviour."""

from __future__ import annotations

import enum
from typing import Any, Dict, Iterator

import numpy as np

from ... import _native

INT_MAX = 2**31 - 1


class NvshmemInvalid(Exception):
    """An argument or the library's state made the call invalid."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg


class NvshmemError(Exception):
    """A call failed in the library."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg


class NvshmemWarning(UserWarning):
    pass


class ComparisonType(enum.IntEnum):
    CMP_EQ = 0
    CMP_NE = 1
    CMP_GT = 2
    CMP_LE = 3
    CMP_LT = 4
    CMP_GE = 5
    CMP_SENTINEL = INT_MAX


class SignalOp(enum.IntEnum):
    SIGNAL_SET = 9
    SIGNAL_ADD = 10


class InitStatus(enum.IntEnum):
    STATUS_NOT_INITIALIZED = 0
    STATUS_IS_BOOTSTRAPPED = 1
    STATUS_IS_INITIALIZED = 2
    STATUS_LIMITED_MPG = 3
    STATUS_FULL_MPG = 4
    STATUS_INVALID = INT_MAX


class BufferTypes(enum.IntEnum):
    NORMAL = 0
    PEER = 1
    MULTIMEM = 2
    EXTERNAL = 3


class MutableEnum:
    """A namespace of named ints that grows as teams are made (nvshmem4py's Teams)."""

    def __init__(self, **kwargs: int) -> None:
        object.__setattr__(self, "_items", dict(kwargs))

    @classmethod
    def from_enum(cls, e: Any) -> "MutableEnum":
        return cls(**{m.name: int(m.value) for m in e})

    def add(self, key: str, val: int) -> None:
        if key in self._items:
            raise ValueError(f"{key} is already defined")
        self._items[key] = val

    def remove(self, key: str) -> None:
        if key not in self._items:
            raise ValueError(f"{key} is not defined")
        del self._items[key]

    def remove_by_value(self, val: int) -> None:
        for k in [k for k, v in self._items.items() if v == val]:
            del self._items[k]

    def keys(self):
        return self._items.keys()

    def values(self):
        return self._items.values()

    def items(self):
        return self._items.items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __getattr__(self, name: str) -> int:
        try:
            return self._items[name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> int:
        return self._items[name]


Teams = MutableEnum(
    TEAM_INVALID=-1,
    TEAM_WORLD=0,
    TEAM_SHARED=1,
    TEAM_NODE=2,
    TEAM_SAME_MYPE_NODE=3,
    TEAM_SAME_GPU_INDEX=4,
    TEAM_GPU_LEADERS_INDEX=5,
    TEAM_MC_SHARED=6,
    TEAMS_MIN=7,
    TEAM_INDEX_MAX=INT_MAX,
)


class Version:
    """The versions: of the OpenSHMEM specification, of this module, and of the NVSHMEM API the library gives."""

    def __init__(self, openshmem_spec_version: str = "", nvshmem4py_version: str = "", libnvshmem_version: str = ""):
        self.openshmem_spec_version = openshmem_spec_version
        self.nvshmem4py_version = nvshmem4py_version
        self.libnvshmem_version = libnvshmem_version

    def __repr__(self) -> str:
        return (
            f"NVSHMEM4Py Library:\n  OpenSHMEM spec version: {self.openshmem_spec_version}\n"
            f"  NVSHMEM4Py version: {self.nvshmem4py_version}\n  libnvshmem version: {self.libnvshmem_version}"
        )


_UID_DTYPE = np.dtype([("version", np.int32), ("internal", np.int8, (_native.UNIQUE_ID_BYTES,))])


class UniqueID:
    """A job's unique ID: 128 bytes (a version and the opaque part), held in ``_data`` (a numpy record that programs
    broadcast, e.g. ``comm.Bcast(uid._data.view(np.int8), root=0)``); it pickles."""

    def __init__(self) -> None:
        self._data = np.zeros(1, _UID_DTYPE)

    @property
    def ptr(self) -> int:
        return self._data.ctypes.data

    @property
    def version(self) -> int:
        return int(self._data["version"][0])

    def _bytes(self) -> bytes:
        return self._data["internal"][0].tobytes()

    @classmethod
    def from_data(cls, data: np.ndarray) -> "UniqueID":
        u = cls()
        u._data = np.frombuffer(np.ascontiguousarray(data).tobytes(), _UID_DTYPE).copy()
        return u

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UniqueID) and self._data.tobytes() == other._data.tobytes()

    def __len__(self) -> int:
        return _UID_DTYPE.itemsize

    def __getstate__(self) -> Dict[str, bytes]:
        return {"data": self._data.tobytes()}

    def __setstate__(self, state: Dict[str, bytes]) -> None:
        self._data = np.frombuffer(state["data"], _UID_DTYPE).copy()


class TeamConfig:
    """A team's configuration: the fields that config_mask selects (NUM_CONTEXTS 0x1, UNIQUEID 0x2)."""

    def __init__(self, num_contexts: int = 0, uniqueid: int = 0, version: int = 2) -> None:
        self.version = version
        self.num_contexts = num_contexts
        self.uniqueid = uniqueid


class TeamUniqueId:
    """A team unique ID (get_team_unique_id), in ``value``."""

    def __init__(self, value: int = 0) -> None:
        self.value = value


class Buffer:
    """Symmetric memory of ``size`` bytes that ``buffer()`` made (nvshmem4py's cuda.core Buffer: ``handle`` is the
    address, ``size`` the bytes). DLPack and the buffer protocol reach its bytes."""

    def __init__(self, array: Any) -> None:
        self._array = array  # the uint8 symmetric array (numpy on the CPU backend, a tensor on GPUs)
        self.size = int(array.nbytes) if hasattr(array, "nbytes") else int(array.numel() * array.element_size())

    @property
    def handle(self) -> int:
        a = self._array
        return a.ctypes.data if hasattr(a, "ctypes") else int(a.data_ptr())

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self._array.__dlpack_device__()

    def close(self) -> None:
        from ... import free

        free(self._array)

    def __repr__(self) -> str:
        return f"<Buffer {self.size} bytes at {self.handle:#x}>"


def peer_view(obj: Any, pe: int) -> Any:
    """``pe``'s copy of a symmetric array or tensor as a view for loads and stores, where this process maps it."""
    import gshmem

    view = gshmem.peer_array(obj, int(pe))
    if view is None:
        raise NvshmemError(f"PE {pe}'s memory is not mapped by this process")
    return view
