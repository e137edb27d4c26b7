#!/usr/bin/env bash
# Time from process start to the end of nvshmem_init + the first barrier (the slowest PE; the
# GPU backend includes binding the GPU and mapping the heap), and the wall time of the whole
# launch, under each launcher, with 2 and 8 PEs (median of $REPS runs).
#   scripts/launch-times.sh [BUILD_DIR]     (Open MPI as root: sets the OMPI_* variables below)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
REPS=${REPS:-5}
prog=$B/test/launch/launch_test
mpiprog=$B/test/launch/launch_test_mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ "${LAUNCH_LOOPBACK:-1}" = 1 ]; then  # Open MPI 4 on one host: loopback only
  export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
fi
MPIRUN=$(command -v mpirun.openmpi || command -v mpirun || true)

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }

# measure NAME NP COMMAND...: prints NAME, NP, median slowest init (ms), median wall time (ms)
measure() {
  local name=$1 np=$2
  shift 2
  local inits=() walls=()
  for _ in $(seq "$REPS"); do
    local t0 out t1
    t0=$(date +%s%N)
    out=$(timeout 60 "$@" 2>&1) || { echo "$name np=$np FAILED: $(echo "$out" | tail -2)"; return; }
    t1=$(date +%s%N)
    inits+=("$(echo "$out" | sed -n 's/.*init \([0-9.]*\) ms.*/\1/p' | sort -n | tail -1)")
    walls+=("$(( (t1 - t0) / 1000000 ))")
  done
  printf '%-28s %3d %12s %12s\n' "$name" "$np" "$(printf '%s\n' "${inits[@]}" | median)" \
    "$(printf '%s\n' "${walls[@]}" | median)"
}

printf '%-28s %3s %12s %12s\n' launcher PEs "init (ms)" "launch (ms)"
for np in ${NPS:-2 8}; do
  measure gshmrun "$np" "$B/bin/gshmrun" -n "$np" "$prog"
  if [ -n "$MPIRUN" ]; then
    measure "mpirun (PMIx, detected)" "$np" "$MPIRUN" -np "$np" "$prog"
    measure "mpirun NVSHMEM_BOOTSTRAP=MPI" "$np" env NVSHMEM_BOOTSTRAP=MPI "$MPIRUN" -np "$np" "$prog"
    [ -x "$mpiprog" ] && measure "mpirun, MPI communicator" "$np" "$MPIRUN" -np "$np" "$mpiprog" --comm-world
    [ -x "$mpiprog" ] && measure "mpirun, unique ID over MPI" "$np" "$MPIRUN" -np "$np" "$mpiprog" --uid-bcast
  fi
  command -v mpiexec.hydra >/dev/null && measure "mpiexec.hydra (PMI-1)" "$np" mpiexec.hydra -launcher fork -hosts localhost -n "$np" "$prog"
  if sinfo -h -N -o '%T' 2>/dev/null | grep -qE 'idle|mixed'; then
    measure "srun --mpi=pmi2" "$np" srun --mpi=pmi2 --overcommit -n "$np" "$prog"
    measure "srun --mpi=pmix" "$np" srun --mpi=pmix --overcommit -n "$np" "$prog"
  fi
done
