#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for gshmem and builds it into ./build (or $BUILD).
#   setup.sh main   installs cmake, ninja-build and g++ if missing; builds only what the main job
#                   needs: libgshmem_host, gshmrun, gshmem-check and gshmem-info
#   setup.sh all    also installs GoogleTest (libgtest-dev), python3, pkg-config and UCX's headers
#                   (libucx-dev, for the network transport plugin); builds everything: the tests,
#                   examples, perftests and the UCX plugin
# Packages are installed as root through apt-get; otherwise the script says what to install.
# The CUDA toolkit is optional: with nvcc on the PATH or in /usr/local/cuda the GPU backend is built
# (and, with `all`, the device tests and device perftests).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
what=${1:-all}
case "$what" in main | all) ;; *) echo "usage: setup.sh main|all" >&2; exit 2 ;; esac

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
if [ "$what" = all ]; then
  command -v python3 >/dev/null || need+=(python3)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  [ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
  # A UCX given through GSHMEM_UCX_ROOT (the libucx-cu13 wheel, for one) replaces Debian's.
  [ -n "${GSHMEM_UCX_ROOT:-}" ] || [ -f /usr/include/ucp/api/ucp.h ] || need+=(libucx-dev)
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
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSHMEM_BUILD_TESTS=ON \
    -DGSHMEM_BUILD_EXAMPLES=ON -DGSHMEM_BUILD_PERFTESTS=ON "${ucx[@]}"
  cmake --build "$BUILD" -j "$(nproc)"
fi
