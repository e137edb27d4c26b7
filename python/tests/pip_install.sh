#!/usr/bin/env bash
# pip install ./python into a fresh folder (the library built with the package, as a user's install does),
# then a 2-PE job through the installed console script gshmrun.
#   pip_install.sh PYTHON PACKAGE_DIR WORK_DIR [BUILD_DEPS_DIR]
# BUILD_DEPS_DIR holds scikit-build-core and nanobind (pip's build isolation would fetch them from PyPI).
set -euo pipefail
py=$1 src=$2 work=$3 deps=${4:-}
rm -rf "$work"
mkdir -p "$work"
isolation=()
if [ -n "$deps" ]; then
  export PYTHONPATH=$deps
  isolation=(--no-build-isolation)
fi
start=$(date +%s)
# The CUDA kernels and the bitcode device library are left out here to keep the test short (the main build
# makes and checks the bitcode); the GPU machine builds the package with them.
CMAKE_ARGS="-DGSHMEM_ENABLE_CUDA=OFF -DGSHMEM_BUILD_DEVLIB=OFF" "$py" -m pip install -q --disable-pip-version-check --no-deps \
  --break-system-packages "${isolation[@]}" --target "$work/site" "$src"
echo "pip install took $(($(date +%s) - start)) s"
ls "$work/site/gshmem/lib/libgshmem_host.so"* "$work/site/gshmem/bin/gshmrun" "$work/site/gshmem/_native"*.so >/dev/null
export PYTHONPATH=$work/site
cd "$work"
GSHMEM_BACKEND=cpu "$work/site/bin/gshmrun" -n 2 "$py" -c '
import gshmem
with gshmem.init():
    me, n = gshmem.my_pe(), gshmem.n_pes()
    try:
        import numpy as np
        box = gshmem.zeros(4, np.int64)
        gshmem.put(box, np.full(4, me, np.int64), (me + 1) % n)
        gshmem.barrier_all()
        assert (box == (me - 1) % n).all()
        gshmem.free(box)
    except ImportError:
        gshmem.barrier_all()
    print(f"installed gshmem {gshmem.__version__}: PE {me} of {n} ok from {gshmem.__file__}")
'
