#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for gshmem and builds it into ./build (or $BUILD).
#   setup.sh main   installs cmake, ninja-build and g++ if missing; builds only what the main job
#                   needs: libgshmem_host, gshmrun, gshmem-check and gshmem-info
#   setup.sh all    also installs GoogleTest (libgtest-dev), python3, pkg-config and UCX's headers
#                   (libucx-dev, for the network transport plugin), and for the Python package Debian's
#                   python3-dev, -numpy, -pytest, -pip and -torch (CPU-only) and nanobind from PyPI (into
#                   the build folder), and clang-19 with llvm-19 (the bitcode device library); builds
#                   everything: the tests, examples, perftests, the UCX plugin, the Python package and,
#                   where the CUDA toolkit's headers are, the bitcode device library
# Packages are installed as root through apt-get; otherwise the script says what to install.
# The CUDA toolkit is optional: with nvcc on the PATH or in /usr/local/cuda the GPU backend is built
# (and, with `all`, the device tests and device perftests).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
what=${1:-all}
case "$what" in main | all) ;; *) echo "usage: setup.sh main|all" >&2; exit 2 ;; esac

need=()
optional=()  # installed where possible; without them the Python package's tests report skipped
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
if [ "$what" = all ]; then
  command -v python3 >/dev/null || need+=(python3)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  [ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
  # A UCX given through GSHMEM_UCX_ROOT (the libucx-cu13 wheel, for one) replaces Debian's.
  [ -n "${GSHMEM_UCX_ROOT:-}" ] || [ -f /usr/include/ucp/api/ucp.h ] || need+=(libucx-dev)
  # The Python package (python/) is built for Debian's Python, with its headers, numpy, pytest, pip and the
  # CPU-only torch (PyPI's torch brings gigabytes of CUDA libraries); nanobind comes from PyPI below.
  if [ -z "${GSHMEM_PYTHON:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    ls /usr/include/python3.*/Python.h >/dev/null 2>&1 || optional+=(python3-dev)
    for m in numpy:python3-numpy pytest:python3-pytest pip:python3-pip torch:python3-torch mpi4py:python3-mpi4py; do
      /usr/bin/python3 -c "import ${m%%:*}" 2>/dev/null || optional+=("${m#*:}")
    done
  fi
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "setup: please install: ${need[*]} (Debian/Ubuntu package names)" >&2
    exit 1
  fi
fi
# clang and LLVM's tools build the bitcode device library (devlib/) where the CUDA toolkit's headers are;
# Debian 12 has clang-19. Without them the library is not built and its test reports skipped.
if [ "$what" = all ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v clang++-19 >/dev/null; then
  echo "setup: installing clang-19 and llvm-19 (for the bitcode device library)"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends clang-19 llvm-19 >/dev/null; } ||
    echo "setup: clang-19 could not be installed: the bitcode device library is not built" >&2
fi
if [ ${#optional[@]} -gt 0 ]; then
  echo "setup: installing ${optional[*]} (for the Python package)"
  export DEBIAN_FRONTEND=noninteractive
  [ ${#need[@]} -gt 0 ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${optional[@]}" >/dev/null ||
    echo "setup: ${optional[*]} could not be installed: the Python package's tests will report skipped" >&2
fi

if [ "$what" = main ]; then
  # A folder the tests were configured in keeps them; a new one gets only the main job.
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSHMEM_BUILD_TESTS=OFF \
      -DGSHMEM_BUILD_EXAMPLES=OFF -DGSHMEM_BUILD_PERFTESTS=OFF
  fi
  cmake --build "$BUILD" -j "$(nproc)" --target gshmem_host gshmrun gshmem-check gshmem-info
else
  ucx=()
  [ -z "${GSHMEM_UCX_ROOT:-}" ] || ucx=(-DGSHMEM_UCX_ROOT="$GSHMEM_UCX_ROOT")
  # nanobind (PyPI) for the Python package, into the build folder; GSHMEM_PYTHON picks another Python.
  py=${GSHMEM_PYTHON:-/usr/bin/python3}
  case "$BUILD" in /*) pydeps=$BUILD/pydeps ;; *) pydeps=$PWD/$BUILD/pydeps ;; esac
  python=()
  if [ -x "$py" ]; then
    if [ ! -f "$pydeps/nanobind/cmake/nanobind-config.cmake" ]; then
      "$py" -m pip install -q --disable-pip-version-check --break-system-packages --target "$pydeps" \
        "nanobind>=2,<4" "scikit-build-core>=0.10" ||
        echo "setup: nanobind could not be installed from PyPI: the Python package is not built" >&2
    fi
    python=(-DGSHMEM_PYTHON_EXECUTABLE="$py" -Dnanobind_DIR="$pydeps/nanobind/cmake")
    # Triton (PyPI), for gshmem.triton's test: kernels compiled to PTX without a GPU. As root only: it goes into
    # the system's Python, beside Debian's torch.
    if [ "$(id -u)" = 0 ] && ! "$py" -c "import triton" 2>/dev/null; then
      "$py" -m pip install -q --disable-pip-version-check --break-system-packages "triton>=3.4,<4" ||
        echo "setup: Triton could not be installed from PyPI: gshmem.triton's test reports skipped" >&2
    fi
    # numba-cuda with nvJitLink (PyPI), for gshmem.numba's test: kernels compiled to LTO-IR and linked without a
    # GPU. Where the CUDA toolkit is (the LTO-IR library is built by nvcc), into a folder of the build's own: it
    # brings numpy 2, which must not replace the numpy of Debian's torch; below 2.5, which numba-cuda 0.30 cannot
    # load its CUDA target with.
    if [ "$(id -u)" = 0 ] && { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } &&
      [ ! -d "$BUILD/pydeps-numba/numba_cuda" ]; then
      "$py" -m pip install -q --disable-pip-version-check --break-system-packages --target "$BUILD/pydeps-numba" \
        "numba-cuda[cu13]>=0.20,<1" "numpy<2.5" ||
        echo "setup: numba-cuda could not be installed from PyPI: gshmem.numba's test reports skipped" >&2
    fi
  fi
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSHMEM_BUILD_TESTS=ON \
    -DGSHMEM_BUILD_EXAMPLES=ON -DGSHMEM_BUILD_PERFTESTS=ON "${ucx[@]}" "${python[@]}"
  cmake --build "$BUILD" -j "$(nproc)"
fi
