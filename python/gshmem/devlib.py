"""The bitcode device library (NVSHMEM's device API as C functions in LLVM bitcode), for compilers that link bitcode
into the kernels they make: where it is, by GPU architecture, and under NVSHMEM's file names for code that looks for
NVSHMEM's.

    gshmem.devlib.path(arch=None)   the file for a GPU architecture (90, "sm_90", or None: this PE's GPU)
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
from typing import Dict, List, Optional, Union

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
