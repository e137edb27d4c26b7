#!/usr/bin/env python3
"""Builds and runs the README's example programs with the README's own command lines.

The README marks what this test uses with HTML comments before a fenced block:
  <!-- readme-test: file NAME -->   the block is the source file NAME
  <!-- readme-test: install -->     the block installs the package (into /opt/gshmem)
  <!-- readme-test: run KIND -->    the block builds and runs an example (KIND: host, cmake, ...)
  <!-- readme-test: output -->      every line of the block must appear in what each run printed
The test installs the build folder into a fresh prefix with the install block (its `build` is the
build folder, /opt/gshmem the prefix), writes the files, runs the install block and then the run
block named on the command line, with /opt/gshmem replaced by the prefix and LD_LIBRARY_PATH unset,
so that a program that would not start where it was built fails the test.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

PREFIX_IN_README = "/opt/gshmem"


def blocks(readme):
    """Yields (kind, argument, text) for each marked fenced block."""
    pattern = re.compile(r"<!-- readme-test: (\w[\w-]*)(?: ([^ ]+))? -->\n```[^\n]*\n(.*?)```", re.S)
    for m in pattern.finditer(readme):
        yield m.group(1), m.group(2), m.group(3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--run", required=True, help="the run block to execute")
    ap.add_argument("--build-only", action="store_true", help="skip the lines that start PEs (no GPU here)")
    ap.add_argument("--require-gpu", metavar="PROBE", help="skip unless the program PROBE exits 0")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the runs")
    args = ap.parse_args()

    if args.require_gpu and subprocess.run([args.require_gpu], capture_output=True).returncode != 0:
        print("skipped: no usable GPU")
        return 0
    readme = open(args.readme).read()
    found = list(blocks(readme))
    files = {arg: text for kind, arg, text in found if kind == "file"}
    installs = [text for kind, _, text in found if kind == "install"]
    runs = {arg: text for kind, arg, text in found if kind == "run"}
    outputs = [text for kind, _, text in found if kind == "output"]
    if args.run not in runs:
        print(f"the README has no block marked 'readme-test: run {args.run}' (it has: {sorted(runs)})")
        return 1
    if not installs or not outputs:
        print("the README lost its install or output block")
        return 1

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    prefix = os.path.join(args.work, "prefix")
    os.symlink(os.path.abspath(args.build_dir), os.path.join(args.work, "build"))
    for name, text in files.items():
        with open(os.path.join(args.work, name), "w") as f:
            f.write(text)

    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("PKG_CONFIG_PATH", None)
    for kv in args.env:
        name, _, value = kv.partition("=")
        env[name] = value

    def run_block(text, skip_starts):
        printed = ""
        for line in text.splitlines():
            line = line.split("   #")[0].strip()
            if not line:
                continue
            line = line.replace(PREFIX_IN_README, prefix)
            if skip_starts and "gshmrun" in line:
                print(f"(not run, no GPU here: {line})")
                continue
            if line.startswith("export "):
                name, _, value = line[len("export "):].partition("=")
                env[name] = value
                continue
            print(f"$ {line}", flush=True)
            p = subprocess.run(["bash", "-c", line], cwd=args.work, env=env, capture_output=True, text=True,
                               timeout=600)
            sys.stdout.write(p.stdout + p.stderr)
            if p.returncode != 0:
                raise SystemExit(f"the README's line failed with exit status {p.returncode}: {line}")
            printed += p.stdout
        return printed

    run_block(installs[0], False)
    printed = run_block(runs[args.run], args.build_only)
    if args.build_only:
        return 0
    missing = [l for l in outputs[0].splitlines() if l.strip() and l not in printed.splitlines()]
    if missing:
        print(f"the README says the program prints {missing!r}, but it printed:\n{printed}")
        return 1
    print(f"the README's '{args.run}' lines built and ran the example, which printed what the README says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
