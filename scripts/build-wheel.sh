#!/usr/bin/env bash
# Builds the Python package's wheel (gshmem-<version>-<python>-<platform>.whl) into ./dist (or $DIST):
# the library, its plugins, gshmrun and the extension inside, built for the Python that runs this script
# ($PYTHON, default python3). The version is the library's (include/gshmem/version.h). With the CUDA toolkit
# the GPU backend is built in; CMAKE_ARGS passes CMake options (for one, -DGSHMEM_ENABLE_CUDA=OFF).
#   scripts/build-wheel.sh            then: pip install dist/gshmem-*.whl
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
DIST=${DIST:-dist}
"$PYTHON" -m pip wheel --no-deps --wheel-dir "$DIST" ./python
ls -l "$DIST"/gshmem-*.whl
