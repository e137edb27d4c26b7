#!/usr/bin/env bash
# Builds gshmem on a machine with GPUs, runs the GPU tests, and runs the point-to-point perftests
# against gshmem and, where the NVSHMEM Python package (nvidia-nvshmem-cu13) is installed, against
# NVSHMEM built from the same perftest sources, alternating the two. Logs go to $OUT; a short
# table is printed last.
#   OUT=/tmp/gpu-check scripts/gpu-check.sh [--quick]
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

# NVSHMEM from the Python package, if present: the same perftest sources, built with -rdc.
NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null || true)
NVBIN="$OUT/nvshmem-bin"
if [ -n "$NV" ] && [ -d "$NV/include" ]; then
  step "build the perftests against NVSHMEM in $NV"
  mkdir -p "$NVBIN"
  ls "$NV/lib" > "$OUT/nvshmem-lib.txt" 2>&1
  NVHOST=$(ls "$NV"/lib/libnvshmem_host.so* | head -1)
  nvb() { timeout 180 nvcc -std=c++17 -O3 -arch=sm_90 -rdc=true -w "$@" 2>&1 | tail -c 4000 >> "$OUT/nvshmem-build.log"; }
  nvb -c -I"$NV/include" -Iperftest/common -x c++ perftest/common/perftest.cpp -o "$NVBIN/common.o" &
  for t in device/pt-to-pt/shmem_put_bw.cu device/pt-to-pt/shmem_get_bw.cu host/pt-to-pt/bw.cpp host/pt-to-pt/latency.cpp; do
    nvb -c -x cu -DPERFTEST_HAVE_CUDA=1 -I"$NV/include" -Iperftest/common "perftest/$t" -o "$NVBIN/$(basename "${t%.*}").o" &
  done
  wait
  for name in shmem_put_bw shmem_get_bw bw latency; do
    nvb "$NVBIN/$name.o" "$NVBIN/common.o" -L"$NV/lib" -l:"$(basename "$NVHOST")" -lnvshmem_device -lcuda \
      -Xlinker -rpath -Xlinker "$NV/lib" -o "$NVBIN/$name" &
  done
  wait
  for name in shmem_put_bw shmem_get_bw bw latency; do
    [ -x "$NVBIN/$name" ] || echo "   build of $name against NVSHMEM failed (see nvshmem-build.log)"
  done
else
  echo "NVSHMEM not found: gshmem alone" | tee "$OUT/nvshmem-missing.txt"
fi

# run LIB NAME BINARY ARGS...: one perftest run under the library's launcher.
run() {
  local lib=$1 tag=$2 bin=$3
  shift 3
  local log="$OUT/runs/$lib.$tag.log"
  mkdir -p "$OUT/runs"
  if [ "$lib" = gshmem ]; then
    timeout 60 "$BUILD/bin/gshmrun" -n 2 "$bin" "$@" >> "$log" 2>&1
  else
    NVSHMEM_BOOTSTRAP=MPI LD_LIBRARY_PATH="$NV/lib:${LD_LIBRARY_PATH:-}" timeout 60 \
      mpirun --allow-run-as-root --oversubscribe -np 2 -x NVSHMEM_BOOTSTRAP -x LD_LIBRARY_PATH -x NVSHMEM_DISABLE_NVLS \
      "$bin" "$@" >> "$log" 2>&1
  fi
  echo "rc=$? $*" >> "$log"
}

P="$BUILD/perftest"
declare -A ours=(
  [put_default]="$P/device/pt-to-pt/shmem_put_bw -n 200 -w 20 -c 4 -t 1024 -e 32M"
  [put_c32]="$P/device/pt-to-pt/shmem_put_bw -n 200 -w 20 -c 32 -t 1024 -b 1M -e 256M"
  [put_bidir]="$P/device/pt-to-pt/shmem_put_bw -n 200 -w 20 -c 32 -t 1024 -b 256M -e 256M --bidir"
  [get_default]="$P/device/pt-to-pt/shmem_get_bw -n 200 -w 20 -c 4 -t 1024 -e 32M"
  [get_c32]="$P/device/pt-to-pt/shmem_get_bw -n 200 -w 20 -c 32 -t 1024 -b 1M -e 256M"
  [host_bw]="$P/host/pt-to-pt/bw -n 100 -w 10 -b 4 -e 128M --dir write --issue host"
  [host_lat]="$P/host/pt-to-pt/latency -n 100 -w 10 -b 1 -e 1M --dir write --issue host"
)
step "perftests: $REPS alternating repetitions"
for rep in $(seq "$REPS"); do
  for k in put_default put_c32 put_bidir get_default get_c32 host_bw host_lat; do
    set -- ${ours[$k]}
    bin=$1
    shift
    run gshmem "$k" "$bin" "$@"
    nvbin="$NVBIN/$(basename "$bin")"
    if [ -x "$nvbin" ]; then run nvshmem "$k" "$nvbin" "$@"; fi
  done
done
step "summary"
python3 scripts/perf_summary.py "$OUT/runs" > "$OUT/summary.txt"
python3 scripts/perf_summary.py --key "$OUT/runs"
