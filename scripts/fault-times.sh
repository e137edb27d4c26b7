#!/usr/bin/env bash
# Measures what issue-level figures of the liveness work need, on a built tree ($BUILD, default
# build): the time from a PE's end to the last PE's exit for each fault test that ran (ctest's
# "time to stop"), and the CPU time a PE waiting 10 s in a host barrier uses (GSHMEM_BACKEND as set).
#   [BUILD=build] [FAULTS=ctest-regex] scripts/fault-times.sh
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
(cd "$BUILD" && ctest -V -R "${FAULTS:-fault_|gpu_peer_gone}" --timeout 120 2>&1) |
  awk '/^[0-9]+: time to stop:/ {n = $1; sub(":", "", n); t[n] = $(NF - 1)}
       /Test +#[0-9]+: / {for (i = 1; i <= NF; ++i) if ($i ~ /^#[0-9]+:$/) {n = substr($i, 2); sub(":", "", n); name[n] = $(i + 1); res[n] = $(i + 3)}}
       END {for (n in name) printf "%-40s %-8s %s ms\n", name[n], res[n], (n in t) ? t[n] : "-"}' | sort
# PE 1 of "hang" never arrives; PE 0 waits in a host barrier. CPU time is counted from 2 s after the
# start (init, a GPU context's creation, is not waiting) over the next 10 s.
"$BUILD"/bin/gshmrun -n 2 "$BUILD"/test/mp/mp_faults hang > /dev/null 2>&1 &
sleep 2
declare -A before
for p in $(pgrep -f "mp_faults hang"); do before[$p]=$(awk '{print $14 + $15}' /proc/"$p"/stat); done
sleep 10
for p in $(pgrep -f "mp_faults hang"); do
  ticks=$(($(awk '{print $14 + $15}' /proc/"$p"/stat) - ${before[$p]:-0}))
  echo "cpu in 10 s of waiting: $(cat /proc/"$p"/comm) pid $p: $ticks ticks of $(getconf CLK_TCK) per s"
done
kill %1 2>/dev/null
wait
