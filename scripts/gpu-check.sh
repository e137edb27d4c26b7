#!/usr/bin/env bash
# Builds gshmem on a machine with GPUs, runs the GPU tests, then bench/compare (the perftests
# against gshmem and NVSHMEM side by side). Logs and results go to $LOG; at the end the bench table,
# results.json and all logs packed as logs.tgz are copied to $OUT (a few files, easy to fetch).
# The summaries are printed, the table last.
#   OUT=/tmp/out [LOG=/tmp/gpu-check] [REPS=3] [TESTS=put_bw_c4,...] [DEADLINE=s] [BASE=rev|dir] \
#     scripts/gpu-check.sh [STAGE ...]
# BASE: a git revision, or a folder of another revision's sources, to measure against: build builds its
# gshmrun and perftests too (into $BUILD-base), and bench runs them beside the two libraries (bench/compare
# --baseline-build-dir), so that a change is measured against what it replaces in the same run.
# UCX_WHEEL: the libucx-cu13 wheel (a .whl file): build unpacks it and builds the network transport against
# it (GSHMEM_UCX_ROOT), so that the GPU tests across the network (net_gpu_*) run; GSHMEM_UCX_ROOT names an
# unpacked UCX instead. CTEST_R / CTEST_E: the gpu stage runs only the tests that match / do not match;
# J: how many at once (2; the network tests slow each other down on one GPU: 3 at most).
# Stages, in this order whatever order they are named in (default: build gpu bench):
#   build  configure and build everything, and the perftests against NVSHMEM beside it
#   gpu    ctest -L gpu
#   rest   ctest of everything else (what CI runs, on this machine's build)
#   netfigs  MODE=gpu scripts/network-figures.sh (needs UCX_WHEEL or GSHMEM_UCX_ROOT)
#   bench  bench/compare on what build built
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gshmem-gpu-check}
LOG=${LOG:-/tmp/gshmem-gpu-check-logs}
REPS=${REPS:-3}
BUILD=${BUILD:-build-gpu}
mkdir -p "$OUT" "$LOG"
stages=" ${*:-build gpu bench} "
want() { [[ "$stages" == *" $1 "* ]]; }
step() { echo "== $(date +%T) $*"; }
pack() {
  cp "$LOG"/bench/table.txt "$LOG"/bench/results.json "$OUT"/ 2>/dev/null
  tar czf "$OUT/logs.tgz" -C "$LOG" --exclude='*.o' --exclude=nvshmem-bin --exclude=base-src --exclude=ucx . 2>/dev/null
}
trap pack EXIT
status=0

step "machine"
{ nvidia-smi -L; nvidia-smi topo -m; nvcc --version | tail -2; } > "$LOG/machine.txt" 2>&1
head -3 "$LOG/machine.txt"

if [ -n "${UCX_WHEEL:-}" ]; then
  [ -d "$LOG/ucx/libucx" ] || python3 -m zipfile -e "$UCX_WHEEL" "$LOG/ucx" || { echo "gpu-check: cannot unpack $UCX_WHEEL"; exit 1; }
  chmod +x "$LOG/ucx/libucx/bin/"* && export PATH=$LOG/ucx/libucx/bin:$PATH  # ucx_perftest (network-figures.sh)
  GSHMEM_UCX_ROOT=$LOG/ucx/libucx
fi
ucx_root=()
if [ -n "${GSHMEM_UCX_ROOT:-}" ]; then
  ucx_root=(-DGSHMEM_UCX_ROOT="$GSHMEM_UCX_ROOT")
  export LD_LIBRARY_PATH=$GSHMEM_UCX_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
if want build; then
  step "build (gshmem, and the perftests against NVSHMEM beside it)"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${ucx_root[@]}" \
    > "$LOG/configure.log" 2>&1 ||
    { tail -30 "$LOG/configure.log"; exit 1; }
  python3 bench/compare "$LOG/bench-build" --build-dir "$BUILD" --build nvshmem --build-only > "$LOG/nvshmem-build.log" 2>&1 &
  nv_pid=$!
  ninja -C "$BUILD" > "$LOG/build.log" 2>&1 || { grep -E "error|FAILED" "$LOG/build.log" | head -30; exit 1; }
  wait $nv_pid || status=1
  tail -1 "$LOG/nvshmem-build.log"
  if [ -n "${BASE:-}" ]; then
    step "build the baseline $BASE (gshmrun and the perftests)"
    base_src=$BASE
    if [ ! -d "$BASE" ]; then
      base_src=$LOG/base-src
      rm -rf "$base_src" && mkdir -p "$base_src" &&
        git archive "$BASE" | tar -x -C "$base_src" || { echo "BASE=$BASE: not a folder, nor a git revision here"; exit 1; }
    fi
    { cmake -S "$base_src" -B "$BUILD-base" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
      ninja -C "$BUILD-base" gshmrun perftest/all; } > "$LOG/base-build.log" 2>&1 ||
      { grep -E "error|FAILED" "$LOG/base-build.log" | head -30; exit 1; }
  fi
fi

export GSHMEM_WAIT_WARN=${GSHMEM_WAIT_WARN:-10}
# The tests run 2 PEs. On a machine of one GPU they share it, taking turns on it (limited MPG: the
# collective-launch tests report skipped). No MPS daemon: under MPS a kernel that faults on purpose
# (the error tests) takes down every client of the GPU, and gshmem is not validated there.
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -lt 2 ] && step "$ngpu GPU: the 2 PEs of each test share it"
if want gpu; then
  step "ctest -L gpu"
  gpu_log=$LOG/ctest-gpu-$(date +%H%M%S).log
  (cd "$BUILD" && ctest -L gpu ${CTEST_R:+-R "$CTEST_R"} ${CTEST_E:+-E "$CTEST_E"} --output-on-failure --timeout 90 \
    -j "${J:-2}") > "$gpu_log" 2>&1 || status=1
  grep -E "Test +#|tests passed" "$gpu_log" | tail -60
fi
if want rest; then
  step "ctest (everything else)"
  (cd "$BUILD" && ctest -LE gpu --timeout 300 -j 8) > "$LOG/ctest-rest.log" 2>&1 || status=1
  grep -E "tests passed|\(Failed\)|\(Timeout\)" "$LOG/ctest-rest.log" | head -20
fi
if want netfigs; then
  step "the network's figures on this machine (network-figures.sh MODE=gpu)"
  BUILD=$BUILD MODE=gpu ROUNDS=${ROUNDS:-2} scripts/network-figures.sh > "$LOG/netfigs.log" 2>&1 || status=1
  cp "$LOG/netfigs.log" "$OUT"/
  grep -vE "^$" "$LOG/netfigs.log" | tail -60
fi
if want bench; then
  step "perftests against NVSHMEM: bench/compare"
  # bench/compare draws its plots with matplotlib (from PyPI when missing; without it, no plots).
  python3 -c "import matplotlib" 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check matplotlib >/dev/null 2>&1 ||
    echo "gpu-check: matplotlib could not be installed: bench/compare skips its plots" >&2
  python3 bench/compare "$LOG/bench" --no-build --build-dir "$BUILD" --reps "$REPS" ${TESTS:+--tests "$TESTS"} \
    ${DEADLINE:+--deadline "$DEADLINE"} ${BASE:+--baseline-build-dir "$BUILD-base"} \
    > "$LOG/bench.log" 2>&1 || status=1
  grep -vE "^  \[" "$LOG/bench.log"
fi
step "done (status $status)"
exit $status
