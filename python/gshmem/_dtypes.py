"""dtypes by name, numpy dtype or torch dtype, as DLPack's (code, bits)."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from ._native import UsageError

# DLPack's type codes.
_INT, _UINT, _FLOAT, _BFLOAT, _BOOL = 0, 1, 2, 4, 6

_BY_NAME = {
    "bool": (_BOOL, 8),
    "int8": (_INT, 8),
    "int16": (_INT, 16),
    "int32": (_INT, 32),
    "int64": (_INT, 64),
    "uint8": (_UINT, 8),
    "uint16": (_UINT, 16),
    "uint32": (_UINT, 32),
    "uint64": (_UINT, 64),
    "float16": (_FLOAT, 16),
    "half": (_FLOAT, 16),
    "float32": (_FLOAT, 32),
    "float": (_FLOAT, 32),
    "float64": (_FLOAT, 64),
    "double": (_FLOAT, 64),
    "bfloat16": (_BFLOAT, 16),
}


def dlpack_dtype(dtype: Any) -> Tuple[int, int, Optional[str]]:
    """(code, bits, library) of a dtype: a name, a numpy dtype (or type), a torch dtype or a cupy dtype. library is
    "torch" for a torch dtype (so that like="auto" makes a tensor), else None."""
    library = None
    name = dtype
    mod = type(dtype).__module__.split(".")[0]
    if mod == "torch":  # torch.float32 and friends print as "torch.float32"
        library = "torch"
        name = str(dtype).split(".")[-1]
    elif not isinstance(dtype, str):
        try:
            import numpy

            name = numpy.dtype(dtype).name
        except (ImportError, TypeError) as e:
            raise UsageError(f"gshmem.empty: {dtype!r} is not a dtype") from e
    found = _BY_NAME.get(str(name))
    if found is None:
        raise UsageError(
            f"gshmem.empty: the dtype {dtype!r} is not one gshmem's arrays hold "
            f"({', '.join(sorted(set(_BY_NAME) - {'half', 'float', 'double'}))})"
        )
    return found[0], found[1], library
