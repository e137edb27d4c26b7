#!/usr/bin/env bash
# Sets up and builds gshmem, then runs every test through ctest. GPU tests (label gpu) report
# "skipped" on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BUILD=$BUILD scripts/setup.sh
cd "$BUILD"
exec ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@"
