#!/usr/bin/env python3
"""Barrier and small reductions across the network: gshmem against Open MPI, side by side.

Runs bench/netcoll/coll_latency (built twice: against gshmem, and against MPI) at each PE count, in
alternated rounds so that both libraries see the same minutes of the machine:
  gshmem   gshmrun -n N, GSHMEM_BACKEND=cpu, NVSHMEM_DISABLE_P2P=1 (every other PE through the network
           transport, UCX with UCX_TLS as given: all by default)
  mpi-tcp  mpirun -np N --mca pml ob1 --mca btl tcp,self (Open MPI over its TCP transport)
  mpi-shm  mpirun -np N --mca pml ob1 --mca btl vader,self (Open MPI over shared memory)
Each run gives rank 0's mean over -n calls after -w; the table holds the median of the rounds' means
and gshmem's ratio to each MPI (below 1: gshmem is faster).

  net_collectives.py --build-dir build [--np 2,4] [--rounds 5] [-n 500] [-w 50] [--ucx-tls all]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"^(gshmem|mpi) (\S+) (\d+) mean_us ([0-9.]+) max_rank_mean_us ([0-9.]+)$")
MPI_TRANSPORTS = {"mpi-tcp": "tcp,self", "mpi-shm": "vader,self"}


def parse(text):
    """{operation: mean_us} from coll_latency's output."""
    out = {}
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m:
            out[m.group(2)] = float(m.group(4))
    return out


def command(kind, np, build, iters, warm):
    if kind == "gshmem":
        return [os.path.join(build, "bin", "gshmrun"), "-n", str(np),
                os.path.join(build, "bench", "netcoll_gshmem"), "-n", str(iters), "-w", str(warm)]
    mpirun = "mpirun.openmpi" if subprocess.run(["which", "mpirun.openmpi"], capture_output=True).returncode == 0 \
        else "mpirun"
    return [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", str(np), "--mca", "pml", "ob1",
            "--mca", "btl", MPI_TRANSPORTS[kind], os.path.join(build, "bench", "netcoll_mpi"),
            "-n", str(iters), "-w", str(warm)]


def run_once(kind, np, args):
    env = dict(os.environ)
    if kind == "gshmem":
        env.update(GSHMEM_BACKEND="cpu", NVSHMEM_DISABLE_P2P="1", UCX_TLS=args.ucx_tls)
    cmd = command(kind, np, args.build_dir, args.iters, args.warm)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    result = parse(p.stdout)
    if p.returncode != 0 or not result:
        sys.stderr.write("net_collectives: %s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                                          p.stderr))
        return None
    return result


def table(results, nps, kinds):
    """The report: one row per (operation, PEs), medians and ratios."""
    rows = ["%-20s %4s %12s %12s %12s %10s %10s" % ("operation", "PEs", "gshmem_us", "mpi-tcp_us", "mpi-shm_us",
                                                     "vs_tcp", "vs_shm")]
    ops = sorted({op for (_, _, op) in results})
    for op in ops:
        for np in nps:
            med = {}
            for kind in kinds:
                vals = results.get((kind, np, op), [])
                med[kind] = statistics.median(vals) if vals else None

            def cell(v):
                return "%12.2f" % v if v is not None else "%12s" % "-"

            def ratio(a, b):
                return "%10.2f" % (a / b) if a is not None and b else "%10s" % "-"

            rows.append("%-20s %4d %s %s %s %s %s" % (op, np, cell(med.get("gshmem")), cell(med.get("mpi-tcp")),
                                                      cell(med.get("mpi-shm")),
                                                      ratio(med.get("gshmem"), med.get("mpi-tcp")),
                                                      ratio(med.get("gshmem"), med.get("mpi-shm"))))
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--np", default="2,4")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("-n", dest="iters", type=int, default=500)
    ap.add_argument("-w", dest="warm", type=int, default=50)
    ap.add_argument("--ucx-tls", default="all")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    nps = [int(x) for x in args.np.split(",")]
    kinds = ["gshmem"]
    if os.path.exists(os.path.join(args.build_dir, "bench", "netcoll_mpi")):
        kinds += ["mpi-tcp", "mpi-shm"]
    else:
        print("net_collectives: netcoll_mpi was not built (no MPI found): gshmem alone")
    results = {}
    failed = False
    for r in range(args.rounds):
        for np in nps:
            for kind in kinds:
                res = run_once(kind, np, args)
                if res is None:
                    failed = True
                    continue
                for op, v in res.items():
                    results.setdefault((kind, np, op), []).append(v)
        print("round %d of %d done" % (r + 1, args.rounds), flush=True)
    print(table(results, nps, kinds))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
