#!/usr/bin/env python3
"""Checks the bitcode device library's exported symbols against the checked list of device names
(codegen/gen/device_names.txt, which the generator writes and lint_codegen_up_to_date keeps current): every
file exports each name as a defined function, the module state as its one variable, and nothing else.

    check_exports.py --llvm-nm llvm-nm-19 --names codegen/gen/device_names.txt DEVLIB_DIR
"""
import argparse
import glob
import os
import subprocess
import sys

STATE = "gshmemi_device_state_d"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llvm-nm", required=True)
    ap.add_argument("--names", required=True)
    ap.add_argument("dir")
    a = ap.parse_args()
    with open(a.names) as f:
        expected = {line.split("|", 1)[0] for line in f if line.strip()}
    files = sorted(glob.glob(os.path.join(a.dir, "lib*_device*.bc")))
    if not files:
        print(f"check_exports: no bitcode in {a.dir}")
        return 1
    bad = 0
    for path in files:
        out = subprocess.run([a.llvm_nm, "--defined-only", "--extern-only", path], check=True, capture_output=True,
                             text=True).stdout
        functions, variables, other = set(), set(), set()
        for line in out.splitlines():
            parts = line.split()
            kind, name = parts[-2], parts[-1]
            (functions if kind == "T" else variables if kind in ("D", "B", "R") else other).add(name)
        missing = sorted(expected - functions)
        stray = sorted(functions - expected) + sorted(other)
        if missing or stray or variables != {STATE}:
            bad += 1
            print(f"{os.path.basename(path)}: {len(missing)} missing {missing[:8]}, {len(stray)} stray {stray[:8]}, "
                  f"variables {sorted(variables)}")
        else:
            print(f"{os.path.basename(path)}: {len(functions)} functions and {STATE}, as listed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
