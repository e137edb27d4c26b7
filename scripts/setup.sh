#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for gshmem and builds it into ./build (or $BUILD).
# Installs what is missing (as root through apt-get); otherwise says what to install.
# The CUDA toolkit is optional: with nvcc on the PATH or in /usr/local/cuda the GPU backend, the
# device API tests and the device perftests are built too.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
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

# bench/compare draws its plots with matplotlib (from PyPI when missing).
if ! python3 -c "import matplotlib" 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check matplotlib 2>/dev/null ||
    echo "setup: matplotlib could not be installed: bench/compare will skip its plots" >&2
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$BUILD" -j "$(nproc)"
