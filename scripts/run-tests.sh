#!/usr/bin/env bash
# Sets up and builds gshmem, then runs every test through ctest. As root on Debian/Ubuntu it also
# installs the launchers (Open MPI, MPICH, Slurm, PMIx) and starts a one-node Slurm for the
# launcher tests, and stops it afterwards. Tests whose launcher or GPU is missing report "skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build}
started_slurm=0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && [ "${GSHMEM_SKIP_LAUNCHERS:-0}" != 1 ]; then
  if ! command -v mpirun.openmpi >/dev/null || ! command -v mpiexec.hydra >/dev/null || ! command -v srun >/dev/null ||
     ! pkg-config --exists pmix 2>/dev/null || ! command -v valgrind >/dev/null; then
    scripts/launchers.sh install
  fi
  if ! sinfo -h -N -o '%T' 2>/dev/null | grep -qE 'idle|mixed|allocated'; then
    if scripts/launchers.sh slurm-up; then
      started_slurm=1
    else
      echo "run-tests: Slurm did not start: the srun tests will report skipped" >&2
    fi
  fi
fi
stop() { if [ $started_slurm = 1 ]; then "$ROOT/scripts/launchers.sh" slurm-down; fi; }
trap stop EXIT
BUILD=$BUILD scripts/setup.sh all
cd "$BUILD"
ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@"
