#!/usr/bin/env bash
# Host-initiated put bandwidth and put/get latency across two "hosts" made of network namespaces joined
# by a veth pair, UCX over TCP: UCX's own ucx_perftest (Debian: ucx-utils) against gshmem's bw and
# latency perftests (CPU backend, one PE in each namespace), alternating, ROUNDS rounds (3), then a
# table of the medians. Needs root, iproute2 and a build with the UCX plugin in $BUILD (build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
# MODE=gpu: on one machine with a GPU (two PEs, every other PE through UCX with NVSHMEM_DISABLE_P2P=1):
# gshmem's device-initiated puts through the network proxy and its host-initiated puts and gets, against
# ucx_perftest between GPU buffers (-m cuda,cuda) with UCX's own choice of transports and with the ones UCX
# takes to gshmem's heap (UCX_TLS=tcp,cuda_copy,self: see docs/network.md), and the protocol UCX reports for
# puts to the heap. Needs a UCX built with CUDA (ucx_perftest from it on the PATH, the libucx-cu13 wheel's
# bin/) and a GPU build in $BUILD. Prints each program's own output, ROUNDS times.
if [ "${MODE:-netns}" = gpu ]; then
  command -v ucx_perftest >/dev/null || { echo "network-figures: ucx_perftest (with CUDA) is missing" >&2; exit 1; }
  pt=$BUILD/perftest/device/pt-to-pt
  hpt=$BUILD/perftest/host/pt-to-pt
  export NVSHMEM_DISABLE_P2P=1 NVSHMEM_SYMMETRIC_SIZE=256M
  ucx_gpu() {  # prints ucx_perftest's "Final:" line, both sides on this machine
    (timeout 60 ucx_perftest -m cuda,cuda >/dev/null 2>&1 &)
    sleep 0.5
    timeout 55 ucx_perftest 127.0.0.1 -m cuda,cuda "$@" 2>&1 | grep Final || echo "Final: failed"
    sleep 0.5
  }
  gsh() {  # a perftest on 2 PEs, its table only
    timeout 120 "$BUILD/bin/gshmrun" -n 2 "$@" 2>&1 | grep -E "^[0-9]+ |^size|failed|rror"
  }
  echo "== the protocol UCX takes for puts to gshmem's heap (UCX_PROTO_INFO)"
  UCX_PROTO_INFO=y timeout 60 "$BUILD/bin/gshmrun" -n 2 "$hpt/latency" -b 8 -e 8 -n 10 -w 1 --issue host --dir write 2>&1 |
    sed 's/^\[[^]]*\] \[[^]]*\] *//' | grep -A4 "remote memory write by ucp_put\* from host memory to cuda |" |
    grep -E "^\| +[0-9]" | sort -u | head -4
  for r in $(seq "$ROUNDS"); do
    echo "== round $r"
    for tls in "" tcp,cuda_copy,self; do
      (
        [ -n "$tls" ] && export UCX_TLS=$tls
        echo "ucx${tls:+ UCX_TLS=$tls} put_lat 8 $(ucx_gpu -t ucp_put_lat -s 8 -n 1000 -w 100)"
        echo "ucx${tls:+ UCX_TLS=$tls} get_lat 8 $(ucx_gpu -t ucp_get -s 8 -n 1000 -w 100 -O 1)"
        for s in 65536 1048576 4194304; do
          echo "ucx${tls:+ UCX_TLS=$tls} put_bw $s $(ucx_gpu -t ucp_put_bw -s $s -n 100 -w 10)"
        done
      )
    done
    echo "gshmem device put latency"
    gsh "$pt/shmem_put_latency" -b 8 -e 65536 -f 8 -n 50 -w 5
    echo "gshmem device put bandwidth (one block)"
    gsh "$pt/shmem_put_bw" -b 65536 -e 4194304 -f 4 -n 20 -w 2 -c 1 -t 32
    for d in write read; do
      echo "gshmem host latency --dir $d"
      gsh "$hpt/latency" -b 8 -e 65536 -f 8192 -n 200 -w 20 --issue host --dir $d
    done
    echo "gshmem host put bandwidth"
    gsh "$hpt/bw" -b 65536 -e 4194304 -f 4 -n 50 -w 5 --issue host
  done
  exit 0
fi
for p in ip ucx_perftest python3; do
  command -v $p >/dev/null || { echo "network-figures: $p is missing (ucx_perftest: apt-get install ucx-utils)" >&2; exit 1; }
done
[ -f "$BUILD/src/libgshmem_transport_ucx.so" ] || { echo "network-figures: $BUILD has no UCX plugin" >&2; exit 1; }
a=gshnfa$$ b=gshnfb$$
cleanup() { ip netns del $a 2>/dev/null || true; ip netns del $b 2>/dev/null || true; }
trap cleanup EXIT
ip netns add $a && ip netns add $b
ip link add nf$$a type veth peer name nf$$b
ip link set nf$$a netns $a && ip link set nf$$b netns $b
ip -n $a addr add 10.252.0.1/24 dev nf$$a && ip -n $b addr add 10.252.0.2/24 dev nf$$b
for n in $a $b; do ip -n $n link set lo up; done
ip -n $a link set nf$$a up && ip -n $b link set nf$$b up

export UCX_TLS=tcp GSHMEM_BACKEND=cpu
raw=$(mktemp)
ucx() {  # prints ucx_perftest's "Final:" line
  (timeout 120 ip netns exec $b ucx_perftest >/dev/null 2>&1 &)
  sleep 0.5
  timeout 110 ip netns exec $a ucx_perftest 10.252.0.2 "$@" 2>&1 | grep Final || echo "Final: failed"
  sleep 0.5
}
gsh() {  # prints the perftest's row for size $1
  local s=$1
  shift
  timeout 120 ip netns exec $a "$BUILD/bin/gshmrun" --hosts $a:1,$b:1 --rsh "ip netns exec" "$@" 2>&1 |
    grep -E "^$s " || echo "$s failed"
}
for r in $(seq "$ROUNDS"); do
  for s in 8 65536 1048576 4194304; do
    n=2000
    [ $s -ge 1048576 ] && n=300
    [ $s = 8 ] && n=20000
    echo "ucx put_bw $s $(ucx -t ucp_put_bw -s $s -n $n -w $((n / 10)))" >>"$raw"
    echo "gshmem put_bw $s $(gsh $s "$BUILD/perftest/host/pt-to-pt/bw" -b $s -e $s -n $n -w $((n / 10)) --issue host)" >>"$raw"
  done
  for s in 8 65536; do
    echo "ucx get_lat $s $(ucx -t ucp_get -s $s -n 5000 -w 500 -O 1)" >>"$raw"
    echo "ucx put_lat $s $(ucx -t ucp_put_lat -s $s -n 5000 -w 500)" >>"$raw"
    for d in read write; do
      l=get_lat
      [ $d = write ] && l=put_lat
      echo "gshmem $l $s $(gsh $s "$BUILD/perftest/host/pt-to-pt/latency" -b $s -e $s -n 5000 -w 500 --issue host --dir $d)" >>"$raw"
    done
  done
done
python3 - "$raw" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    who, what, size, rest = line.split(None, 3)
    f = rest.split()
    try:
        if who == "ucx":
            # "Final: iters median average overall bw-average bw-overall ...": latencies in us, bandwidth
            # in MiB/s (to GB/s here); the average latency, as gshmem's perftest reports.
            v = float(f[6]) * 1.048576 / 1000 if what == "put_bw" else float(f[3])
        else:
            v = float(f[2])  # "size host value": GB/s or us
    except (IndexError, ValueError):
        continue
    rows.setdefault((what, int(size)), {}).setdefault(who, []).append(v)
print("| measure | size (B) | ucx_perftest | gshmem | ratio (above 1: gshmem better) |")
print("| --- | ---: | ---: | ---: | ---: |")
for (what, size), d in sorted(rows.items()):
    u = statistics.median(d.get("ucx", [float("nan")]))
    g = statistics.median(d.get("gshmem", [float("nan")]))
    unit = "GB/s" if what == "put_bw" else "us"
    ratio = g / u if what == "put_bw" else u / g
    print(f"| {what} | {size} | {u:.3g} {unit} | {g:.3g} {unit} | {ratio:.2f} |")
EOF
rm -f "$raw"
