#!/usr/bin/env bash
# Builds gshmem on a machine with GPUs, runs the GPU tests, then bench/compare (the perftests
# against gshmem and NVSHMEM side by side). Logs and results go to $OUT; the table is printed last.
#   OUT=/tmp/gpu-check [REPS=3] [TESTS=put_bw_c4,...] scripts/gpu-check.sh [--quick | --perf-only]
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gshmem-gpu-check}
REPS=${REPS:-3}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
step() { echo "== $(date +%T) $*"; }

step "machine"
{ nvidia-smi -L; nvidia-smi topo -m; nvcc --version | tail -2; } > "$OUT/machine.txt" 2>&1
head -3 "$OUT/machine.txt"

step "build"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
PERF_ONLY=0
[ "${1:-}" = "--perf-only" ] && PERF_ONLY=1
targets=""
[ $PERF_ONLY = 1 ] && targets="gshmrun perftest_device_shmem_put_bw perftest_device_shmem_get_bw perftest_host_bw perftest_host_latency"
ninja -C "$BUILD" $targets > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }

export GSHMEM_WAIT_WARN=${GSHMEM_WAIT_WARN:-10}
if [ $PERF_ONLY = 0 ]; then
step "smoke: gpu_select, example_ring"
if ! (cd "$BUILD" && ctest -R "^(gpu_select|example_ring)$" --output-on-failure --timeout 45) > "$OUT/ctest-smoke.log" 2>&1; then
  tail -60 "$OUT/ctest-smoke.log"
  exit 1
fi
step "ctest -L gpu"
(cd "$BUILD" && ctest -L gpu --output-on-failure --timeout 120 -j 2) > "$OUT/ctest-gpu.log" 2>&1
grep -E "tests passed|Failed|Skipped|\*\*\*" "$OUT/ctest-gpu.log" | head -30
if [ "${1:-}" != "--quick" ]; then
  step "ctest (everything else)"
  (cd "$BUILD" && ctest -LE gpu --timeout 300 -j 8) > "$OUT/ctest-rest.log" 2>&1
  grep -E "tests passed|\(Failed\)|\(Timeout\)" "$OUT/ctest-rest.log" | head -20
fi
fi

step "perftests against NVSHMEM: bench/compare"
python3 bench/compare "$OUT/bench" --no-build --build-dir "$BUILD" --reps "$REPS" ${TESTS:+--tests "$TESTS"}
