"""The programs the package ships (gshmrun), found beside the package where pip installed them."""

from __future__ import annotations

import os
import sys


def _program(name: str) -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "bin", name), os.path.join(here, "..", "..", "tools", name)):
        if os.access(candidate, os.X_OK):
            return candidate
    sys.exit(f"gshmem: {name} is not installed beside the package (reinstall it with pip install ./python)")


def gshmrun() -> None:
    """gshmrun -n N program args...: starts N PEs of the program (the C++ launcher, shipped in the package)."""
    path = _program("gshmrun")
    os.execv(path, [path] + sys.argv[1:])
