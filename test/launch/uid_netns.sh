#!/bin/sh
# Starts a unique-ID job of 4 PEs, two in each of two network namespaces; the ID travels in a file.
#   uid_netns.sh NSA NSB launch_test IDFILE [VAR=VALUE...]
nsa=$1 nsb=$2 prog=$3 file=$4
shift 4
rm -f "$file"
pids=""
for spec in "$nsa 0" "$nsa 1" "$nsb 2" "$nsb 3"; do
  set -- $spec "$@"
  ns=$1 rank=$2
  shift 2
  env "$@" ip netns exec "$ns" "$prog" --uid-file "$file" --rank "$rank" --size 4 --expect-node-pes 2 &
  pids="$pids $!"
done
status=0
for p in $pids; do wait "$p" || status=1; done
rm -f "$file"
exit $status
