#!/usr/bin/env bash
# The nvshmem shim: installs into a fresh folder, refuses over a (fake) real nvshmem4py, uninstalls.
#   nvshmem4py_shim.sh PYTHON WORK_DIR      (PYTHONPATH reaches gshmem)
set -euo pipefail
py=$1 work=$2
rm -rf "$work"
mkdir -p "$work/shim" "$work/real/nvshmem/core"
"$py" -m gshmem.nvshmem4py install --target "$work/shim"
PYTHONPATH="$work/shim:$PYTHONPATH" "$py" -c 'import nvshmem.core, nvshmem.core.interop.torch as t; import gshmem.nvshmem4py.core as c; assert nvshmem.core is c; import nvshmem.bindings as b, gshmem.nvshmem4py.bindings as gb; assert b is gb and callable(b.int_put); print("shim: nvshmem.core is gshmem.nvshmem4py.core")'
"$py" -m gshmem.nvshmem4py install --target "$work/shim"   # again: replaces its own shim
echo '"""not gshmem"""' > "$work/real/nvshmem/__init__.py"
if "$py" -m gshmem.nvshmem4py install --target "$work/real"; then echo "shim: installed over a real nvshmem4py"; exit 1; fi
"$py" -m gshmem.nvshmem4py uninstall --target "$work/shim"
[ ! -e "$work/shim/nvshmem" ]
if "$py" -m gshmem.nvshmem4py uninstall --target "$work/real"; then echo "shim: removed a real nvshmem4py"; exit 1; fi
[ -e "$work/real/nvshmem/__init__.py" ]
echo "shim: refused and uninstalled as it should"
