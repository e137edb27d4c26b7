"""The device library (NVSHMEM's device API as C functions), for compilers that link it into the kernels they make:
in LLVM bitcode by GPU architecture (Triton, CuTe DSL), also under NVSHMEM's file names for code that looks for
NVSHMEM's, and as LTO-IR (numba-cuda, through nvJitLink); and the C signatures of its functions.

    gshmem.devlib.path(arch=None)   the file for a GPU architecture (90, "sm_90", or None: this PE's GPU)
    gshmem.devlib.lto_path()        the LTO-IR file (a fatbin), which nvJitLink links for any GPU it targets
    gshmem.devlib.signatures()      {C name: (return type, parameter types)} of every function, by width
    gshmem.devlib.nvshmem_lib_dir() a folder holding it as libnvshmem_device.bc and libnvshmem_device_sm_<arch>.bc
                                    (for NVSHMEM_LIB_DIR)
    gshmem.devlib.module_init(handle), module_finalize(handle)
                                    set up a CUDA module that links it (gshmem.triton does it for Triton's)

Where it is looked for: $GSHMEM_DEVICE_LIB_DIR, the package's lib/ (an installed wheel), the build tree's devlib/.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import tempfile
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

from . import _native

_HERE = os.path.dirname(os.path.abspath(__file__))
STATE_SYMBOL = "gshmemi_device_state_d"  # the module state's name in every module that links the library


class DeviceLibraryNotFound(RuntimeError):
    """No bitcode device library was built or installed with this package."""


def _folders() -> List[str]:
    out = []
    if os.environ.get("GSHMEM_DEVICE_LIB_DIR"):
        out.append(os.environ["GSHMEM_DEVICE_LIB_DIR"])
    out += [os.path.join(_HERE, "lib"), os.path.normpath(os.path.join(_HERE, "..", "..", "devlib"))]
    return out


@functools.lru_cache(maxsize=None)
def files() -> Dict[int, str]:
    """The library's files by architecture (80, 90, ...), from the first folder that holds any (looked up once per
    process: gshmem.triton asks at every launch)."""
    for folder in _folders():
        found = {}
        for f in glob.glob(os.path.join(folder, "libgshmem_device_sm_*.bc")):
            m = re.search(r"_sm_([0-9]+)\.bc$", f)
            if m:
                found[int(m.group(1))] = os.path.realpath(f)
        if found:
            return found
    raise DeviceLibraryNotFound(
        "gshmem's bitcode device library is not installed: it is built with the package where clang 17 or newer "
        f"(Debian: clang-19 llvm-19) and the CUDA toolkit's headers are; looked in {', '.join(_folders())} "
        "(GSHMEM_DEVICE_LIB_DIR names another folder)"
    )


LTO_FILE = "libgshmem_device_lto.fatbin"


def lto_path() -> str:
    """The library as LTO-IR (a fatbin built by nvcc for the lowest architecture's virtual one; nvJitLink links it
    into kernels for that GPU generation and every newer one), from the first folder that holds it."""
    for folder in _folders():
        candidate = os.path.join(folder, LTO_FILE)
        if os.path.isfile(candidate):
            return candidate
    raise DeviceLibraryNotFound(
        "gshmem's device library as LTO-IR is not installed: it is built with the package where the CUDA toolkit "
        f"(nvcc) is; looked in {', '.join(_folders())} (GSHMEM_DEVICE_LIB_DIR names another folder)"
    )


# ---- The functions' C signatures, for the front ends that declare them (gshmem.triton, gshmem.numba) ----

# C scalar types by width and kind; each front end maps these names to its own types.
_SCALARS = {
    "char": "int8", "signed char": "int8", "int8_t": "int8", "unsigned char": "uint8", "uint8_t": "uint8",
    "short": "int16", "int16_t": "int16", "unsigned short": "uint16", "uint16_t": "uint16", "int": "int32",
    "int32_t": "int32", "nvshmem_team_t": "int32", "unsigned int": "uint32", "uint32_t": "uint32", "long": "int64",
    "long long": "int64", "int64_t": "int64", "ptrdiff_t": "int64", "unsigned long": "uint64",
    "unsigned long long": "uint64", "uint64_t": "uint64", "size_t": "uint64", "float": "float32", "double": "float64",
    "__half": "float16", "__nv_bfloat16": "bfloat16",
    # NVSHMEM's handles and enumerations, by their C types
    "nvshmemx_qp_handle_t": "int32", "nvshmemx_region_handle_t": "uint64", "nvshmemx_smem_amount_t": "int32",
}

# NVSHMEM's name for elements of each scalar type, in its typed functions (nvshmem_<name>_p, ..._sum_reduce).
TYPE_NAMES = {"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
              "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "float32": "float", "float64": "double",
              "float16": "half", "bfloat16": "bfloat16"}


class Pointer(NamedTuple):
    """A pointer parameter or result: `to` is the pointee's scalar name, or None (void, or a structure)."""

    to: Optional[str]


def c_type(decl: str) -> Union[None, str, Pointer]:
    """A C parameter or return type: None (void), a scalar's name ("int32", "float16", ...), a Pointer, or the
    declaration's own text for what neither is (a structure by value)."""
    decl = decl.strip()
    if "*" in decl:
        pointee = c_type(decl[: decl.index("*")])
        return Pointer(pointee if isinstance(pointee, str) and pointee in TYPE_NAMES else None)
    words = decl.replace("const ", "").split()
    if words == ["void"]:
        return None
    for n in (len(words), len(words) - 1):  # with and without the parameter's name
        t = " ".join(words[:n])
        if t in _SCALARS:
            return _SCALARS[t]
    return decl


@functools.lru_cache(maxsize=None)
def signatures() -> Dict[str, Tuple[Union[None, str, Pointer], Tuple[Union[None, str, Pointer], ...]]]:
    """Every function of the library: {C name: (return type, parameter types)}, as c_type gives them (from the
    table the build generates with the library's sources)."""
    table = {}
    with open(os.path.join(_HERE, "device_api.txt")) as f:
        for line in f:
            ret, name, params = line.rstrip("\n").split("|")
            args = () if params.strip() == "void" else tuple(c_type(p) for p in params.split(","))
            table[name] = (c_type(ret), args)
    return table


def _arch_number(arch: Union[int, str, None]) -> int:
    if arch is None:
        try:
            import torch

            if torch.cuda.is_available():
                major, minor = torch.cuda.get_device_capability()
                return major * 10 + minor
        except ImportError:
            pass
        return min(files())
    m = re.fullmatch(r"(?:sm_|compute_)?([0-9]+)[af]?", str(arch))
    if not m:
        raise ValueError(f"gshmem.devlib: {arch!r} is not a GPU architecture (90, 'sm_90', ...)")
    return int(m.group(1))


def path(arch: Union[int, str, None] = None) -> str:
    """The library's file for GPU architecture `arch`: the newest built one that the architecture runs (an sm_90
    GPU runs sm_80's and sm_90's; None: the current torch device's, else the lowest built)."""
    built = files()
    want = _arch_number(arch)
    usable = [a for a in built if a <= want]
    if not usable:
        raise DeviceLibraryNotFound(
            f"gshmem's bitcode device library was built for sm_{', sm_'.join(map(str, sorted(built)))}, none of "
            f"which sm_{want} runs; rebuild it with GSHMEM_DEVLIB_ARCHS including {want}"
        )
    return built[max(usable)]


def nvshmem_lib_dir(folder: Optional[str] = None) -> str:
    """A folder in which the library has NVSHMEM's file names (links to ours), for code that looks for NVSHMEM's
    device library there (NVSHMEM_LIB_DIR): made in `folder`, or in a folder of this user's temporary files."""
    built = files()
    folder = folder or os.path.join(tempfile.gettempdir(), f"gshmem-nvshmem-lib-{os.getuid()}")
    os.makedirs(folder, exist_ok=True)
    names = {f"libnvshmem_device_sm_{a}.bc": p for a, p in built.items()}
    names["libnvshmem_device.bc"] = built[min(built)]
    for name, target in names.items():
        link = os.path.join(folder, name)
        if os.path.realpath(link) != target:
            tmp = f"{link}.{os.getpid()}"
            os.symlink(target, tmp)
            os.replace(tmp, link)
    return folder


def module_init(handle: int, library: bool = False) -> None:
    """Sets up gshmem's state in a loaded CUDA module that links the library (a CUmodule as an int; library=True: a
    CUlibrary). Before gshmem.init too: the state is written when the PE starts, and again after each change."""
    _native.module_init(int(handle), library)


def module_finalize(handle: int, library: bool = False) -> None:
    """Stops writing gshmem's state into a module that module_init set up (before the module is unloaded)."""
    _native.module_finalize(int(handle), library)
