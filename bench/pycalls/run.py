#!/usr/bin/env python3
"""What a Python call adds to the C++ call it wraps: host_calls (C++) and python_calls.py (the same calls through
`import gshmem`) under gshmrun, alternated for several rounds in one run; the medians, side by side.
    bench/pycalls/run.py --build-dir build [--np 2] [--rounds 3] [--iters 20000] [--backend auto|cpu|gpu]
--backend: the library's (GSHMEM_BACKEND; auto: the GPU backend where a GPU is visible, as the library chooses);
the table's first line names the one that ran. Prints a table: op, C++ us/call, Python us/call, added us, ratio. The Python loop calls through a lambda, as
a program's loop calls a function: that cost is in the Python column."""

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env, backends):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, timeout=900).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "backend":
            backends.add(parts[1])
        elif len(parts) == 2:
            try:
                rows[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20000)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto")
    a = ap.parse_args()
    build = os.path.abspath(a.build_dir)
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    if a.backend != "auto":
        env["GSHMEM_BACKEND"] = a.backend
    gshmrun = os.path.join(build, "bin", "gshmrun")
    cpp_cmd = [gshmrun, "-n", str(a.np), os.path.join(build, "python", "host_calls"), str(a.iters)]
    py_cmd = [gshmrun, "-n", str(a.np), a.python, os.path.join(HERE, "python_calls.py"), str(a.iters)]
    cpp, py, backends = {}, {}, set()
    for r in range(a.rounds):
        for rows, cmd in ((cpp, cpp_cmd), (py, py_cmd)) if r % 2 == 0 else ((py, py_cmd), (cpp, cpp_cmd)):
            for op, us in run(cmd, env, backends).items():
                rows.setdefault(op, []).append(us)
    ran = "/".join(sorted(backends)) or "unknown"
    print(f"# per-call cost, {ran} backend, {a.np} PEs, {a.rounds} alternated rounds of {a.iters} calls (medians)")
    print(f"{'op':<22}{'C++ us':>10}{'Python us':>12}{'added us':>10}{'ratio':>8}")
    for op in cpp:
        c, p = statistics.median(cpp[op]), statistics.median(py.get(op, [float("nan")]))
        print(f"{op:<22}{c:>10.3f}{p:>12.3f}{p - c:>10.3f}{p / c if c else float('nan'):>8.2f}")


if __name__ == "__main__":
    main()
