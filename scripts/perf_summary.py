#!/usr/bin/env python3
"""Summarises perftest logs written by scripts/gpu-check.sh: for every run tag and size, the median
over repetitions of each library, and the ratio gshmem / NVSHMEM (for latency, NVSHMEM / gshmem,
so that > 1 always means gshmem is better)."""
import os
import re
import statistics
import sys
from collections import defaultdict

ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+([0-9.]+)\s*$")


def parse(path):
    """Yields (job, size, value, higher_is_better, rc_ok) from one log (several repetitions)."""
    job, better_high = "?", True
    for line in open(path, errors="replace"):
        if line.startswith("#"):
            job = line[1:].strip()
        elif line.startswith("size(B)"):
            better_high = "latency" not in line.lower()
        m = ROW.match(line)
        if m:
            yield job, int(m.group(1)), float(m.group(3)), better_high
        if line.startswith("rc=") and not line.startswith("rc=0"):
            yield job, -1, float("nan"), better_high


# The rows TARGETS.md has goals for, printed by --key.
KEY = {
    "put_default": [1 << 20, 32 << 20], "put_c32": [1 << 20, 256 << 20], "put_bidir": [256 << 20],
    "get_default": [1 << 20, 32 << 20], "get_c32": [1 << 20, 256 << 20],
    "host_bw": [1 << 20, 128 << 20], "host_lat": [8, 1 << 20],
}


def main():
    key_only = "--key" in sys.argv
    folder = [a for a in sys.argv[1:] if not a.startswith("--")][0]
    data = defaultdict(lambda: defaultdict(list))  # (tag, size) -> lib -> values
    units = {}
    failures = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".log"):
            continue
        lib, tag = name[:-4].split(".", 1)
        for job, size, value, high in parse(os.path.join(folder, name)):
            if size < 0:
                failures.append(f"{lib} {tag}")
                continue
            data[(tag, size)][lib].append(value)
            units[tag] = high
    print(f"{'test':<12} {'size':>10} {'NVSHMEM':>10} {'gshmem':>10} {'ratio':>7}  (ratio > 1: gshmem better; medians)")
    for (tag, size) in sorted(data):
        if key_only and size not in KEY.get(tag, []):
            continue
        libs = data[(tag, size)]
        g = statistics.median(libs["gshmem"]) if libs.get("gshmem") else float("nan")
        n = statistics.median(libs["nvshmem"]) if libs.get("nvshmem") else float("nan")
        ratio = (g / n if units[tag] else n / g) if g == g and n == n and g and n else float("nan")
        print(f"{tag:<12} {size:>10} {n:>10.3f} {g:>10.3f} {ratio:>7.2f}")
    for f in sorted(set(failures)):
        print("FAILED run:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
