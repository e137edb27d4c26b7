#!/usr/bin/env bash
# Sets up and builds gshmem, then runs the main job: the host bandwidth perftest on 2 PEs started
# by gshmrun. Without a GPU it runs on the CPU backend (the symmetric heap in host shared memory).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BUILD=$BUILD scripts/setup.sh
exec "$BUILD/bin/gshmrun" -n 2 "$BUILD/perftest/host/pt-to-pt/bw" -n 100 -w 10 -b 4 -e 64M "$@"
