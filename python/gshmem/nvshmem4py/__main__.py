"""python -m gshmem.nvshmem4py install|uninstall [--target DIR]

install: makes nvshmem4py's module names (nvshmem.core, nvshmem.core.interop.torch / .cupy,
nvshmem.core.device.numba, nvshmem.bindings, nvshmem.bindings.device.numba) import this package's implementation, by
writing a small `nvshmem` package into DIR (default: the site-packages that holds gshmem).
It refuses where a real nvshmem4py is installed (an `nvshmem` package that is not this shim), rather than shadow
it. uninstall removes the shim (only the shim)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys

MARK = "gshmem's nvshmem4py shim"
SHIM = f'''"""{MARK}: nvshmem.core is gshmem.nvshmem4py.core. Remove with: python -m gshmem.nvshmem4py uninstall"""
import sys as _sys

from gshmem.nvshmem4py import bindings as _bindings
from gshmem.nvshmem4py import core as _core
from gshmem.nvshmem4py.core import device as _device
from gshmem.nvshmem4py.core import interop as _interop
from gshmem.nvshmem4py.bindings import device as _bindings_device

core = _core
bindings = _bindings
_sys.modules[__name__ + ".bindings"] = _bindings
_sys.modules[__name__ + ".core"] = _core
_sys.modules[__name__ + ".core.interop"] = _interop
_sys.modules[__name__ + ".core.interop.torch"] = _interop.torch
_sys.modules[__name__ + ".core.interop.cupy"] = _interop.cupy
# The device bindings' packages; their numba modules load from them when imported (they need numba-cuda).
_sys.modules[__name__ + ".core.device"] = _device
_sys.modules[__name__ + ".bindings.device"] = _bindings_device
'''


def _existing(target: str) -> str | None:
    """The folder of an `nvshmem` package that Python would import, or in target; None if there is none."""
    here = os.path.join(target, "nvshmem")
    if os.path.isdir(here):
        return here
    spec = importlib.util.find_spec("nvshmem")
    if spec is not None and spec.submodule_search_locations:
        return list(spec.submodule_search_locations)[0]
    return None


def _is_shim(folder: str) -> bool:
    init = os.path.join(folder, "__init__.py")
    try:
        with open(init, encoding="utf-8") as f:
            return MARK in f.read(512)
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    import gshmem

    ap = argparse.ArgumentParser(prog="python -m gshmem.nvshmem4py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["install", "uninstall"])
    ap.add_argument("--target", default=os.path.dirname(os.path.dirname(os.path.abspath(gshmem.__file__))))
    a = ap.parse_args(argv)
    found = _existing(a.target)
    if a.action == "install":
        if found and not _is_shim(found):
            print(f"gshmem.nvshmem4py: a real nvshmem4py is installed ({found}); not shadowing it. Uninstall it "
                  "(pip uninstall nvshmem4py-cu12 / nvshmem4py-cu13) to use gshmem's nvshmem.core instead.",
                  file=sys.stderr)
            return 1
        folder = os.path.join(a.target, "nvshmem")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "__init__.py"), "w", encoding="utf-8") as f:
            f.write(SHIM)
        print(f"gshmem.nvshmem4py: nvshmem.core now imports gshmem's implementation ({folder})")
        return 0
    folder = os.path.join(a.target, "nvshmem")
    if not os.path.isdir(folder):
        print("gshmem.nvshmem4py: no shim installed there", file=sys.stderr)
        return 1
    if not _is_shim(folder):
        print(f"gshmem.nvshmem4py: {folder} is not gshmem's shim; leaving it", file=sys.stderr)
        return 1
    shutil.rmtree(folder)
    print(f"gshmem.nvshmem4py: removed {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
