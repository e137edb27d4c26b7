#!/usr/bin/env bash
# The main job: sets up (scripts/setup.sh main: cmake, ninja-build and g++ through apt-get when
# missing), builds the library, gshmrun and gshmem-check (about a minute on 2 cores, 3.5 with the CUDA
# toolkit), then runs gshmem-check on 2 PEs started by gshmrun. It says what the job is (version, launcher, backend,
# transport), has every PE report, prints the bandwidth of host puts across sizes and checks the
# data. Without a GPU it runs on the CPU backend (the symmetric heap in host shared memory).
# Arguments go to gshmem-check (-b MIN -e MAX -n ITERS).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BUILD=$BUILD scripts/setup.sh main
exec "$BUILD/bin/gshmrun" -n 2 "$BUILD/bin/gshmem-check" "$@"
