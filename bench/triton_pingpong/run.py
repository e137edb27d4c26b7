#!/usr/bin/env python3
"""Put with signal from Triton against CUDA C++: the round-trip latency of an 8-byte
nvshmemx_putmem_signal_nbi_block ping-pong from a Triton kernel (triton_put_signal.py, through gshmem.triton and
the bitcode device library) and from the perftest shmem_put_signal_ping_pong_latency at block scope (CUDA C++, the
device headers), alternated for several rounds in one run on 2 PEs; the medians and their ratio.
    bench/triton_pingpong/run.py --build-dir build-gpu [--size 8] [--rounds 3] [--iters 1000]"""

import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    build = os.path.abspath(a.build_dir)
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    gshmrun = os.path.join(build, "bin", "gshmrun")
    perftest = os.path.join(build, "perftest", "device", "pt-to-pt", "shmem_put_signal_ping_pong_latency")
    cpp_cmd = [gshmrun, "-n", "2", perftest, "-b", str(a.size), "-e", str(a.size), "-n", str(a.iters), "-w", "100",
               "-s", "block"]
    tri_cmd = [gshmrun, "-n", "2", a.python, os.path.join(HERE, "triton_put_signal.py"), str(a.size), str(a.iters)]
    cpp, tri = [], []
    for _ in range(a.rounds):
        out = subprocess.run(cpp_cmd, env=env, check=True, capture_output=True, text=True, timeout=600).stdout
        rows = re.findall(rf"^\s*{a.size}\s+block\s+([0-9.]+)\s*$", out, re.M)
        if not rows:
            sys.exit(f"run.py: no {a.size}-byte block row in the perftest's output:\n{out}")
        cpp.append(float(rows[-1]))
        out = subprocess.run(tri_cmd, env=env, check=True, capture_output=True, text=True, timeout=600).stdout
        m = re.search(rf"triton_put_signal {a.size} ([0-9.]+)", out)
        if not m:
            sys.exit(f"run.py: no result from the Triton program:\n{out}")
        tri.append(float(m.group(1)))
    c, t = statistics.median(cpp), statistics.median(tri)
    print(f"# put with signal ping-pong, {a.size} B, block scope, 2 PEs, {a.rounds} alternated rounds of {a.iters} "
          "(medians, us per round trip)")
    print(f"{'CUDA C++ (perftest)':<24}{c:>10.3f}")
    print(f"{'Triton (gshmem.triton)':<24}{t:>10.3f}")
    print(f"{'ratio Triton / C++':<24}{t / c:>10.2f}")


if __name__ == "__main__":
    main()
