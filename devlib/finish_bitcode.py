#!/usr/bin/env python3
"""Finishes clang's bitcode of the device library for the compilers that link it (devlib/CMakeLists.txt):

  - drops the module flag nvvm-reflect-ftz: clang records its flush-to-zero choice there, and a compiler that
    links the library with the other choice stops ("conflicting override values": Triton's default is 1,
    clang's 0); the library itself reads no such flag, so each kernel keeps its compiler's;
  - drops @llvm.compiler.used, through which clang keeps every __constant__ variable: it would bring the
    module state into each kernel that links any library, while a kernel that calls the device library gets
    it through the calls;
  - checks that the state remains an exported, externally initialised constant (the host library writes it by
    name: a folded or renamed state would leave the kernels reading zeros).

  - writes one file per architecture: the device headers hold no code that depends on the architecture (devlib/
    CMakeLists.txt checks it), so the files differ only in their functions' target attributes, which are
    rewritten from the one compiled architecture's (a compiler inlines a library function only into a kernel of
    a compatible target).

    finish_bitcode.py --llvm-dis llvm-dis-19 --llvm-as llvm-as-19 [--arch 80 --arch 90 ...] raw.bc OUT_PATTERN
OUT_PATTERN holds {arch} where there are several architectures (libgshmem_device_sm_{arch}.bc).
"""
import argparse
import re
import subprocess
import sys

STATE = "gshmemi_device_state_d"


def finish(text: str) -> str:
    lines = text.split("\n")
    out = []
    ftz_ids = set()
    for line in lines:
        m = re.match(r'^(![0-9]+) = !\{i32 [0-9]+, !"nvvm-reflect-ftz", i32 [0-9]+\}$', line)
        if m:
            ftz_ids.add(m.group(1))
            continue
        if line.startswith("@llvm.compiler.used = "):
            kept = re.findall(r"@([\w.$]+)", line[len("@llvm.compiler.used = "):])
            if kept != [STATE]:
                sys.exit(f"finish_bitcode: @llvm.compiler.used holds {kept}, expected only {STATE}: review the change")
            continue
        out.append(line)
    result = []
    for line in out:
        if line.startswith("!llvm.module.flags = !{"):
            ids = [i.strip() for i in line[len("!llvm.module.flags = !{"):-1].split(",")]
            line = "!llvm.module.flags = !{" + ", ".join(i for i in ids if i not in ftz_ids) + "}"
        result.append(line)
    state = [line for line in result if line.startswith(f"@{STATE} = ")]
    if len(state) != 1 or "externally_initialized" not in state[0] or " internal " in state[0]:
        sys.exit(f"finish_bitcode: the module state @{STATE} is missing, internal or not externally initialised: "
                 f"{state}")
    return "\n".join(result)


def retarget(text: str, arch: str) -> str:
    """The functions' target attributes (the `attributes #N = { ... }` lines) made those of sm_<arch> (sm_100 and
    newer need PTX 8.6); nothing else of the module changes."""
    cpus = set(re.findall(r'"target-cpu"="sm_([0-9a-z]+)"', text))
    if len(cpus) != 1:
        sys.exit(f"finish_bitcode: expected one target-cpu in the compiled bitcode, found {sorted(cpus)}")
    (built,) = cpus
    if built == arch:
        return text
    newer = int(re.sub(r"[a-z]+$", "", arch)) >= 100

    def attributes(line: str) -> str:
        if not line.startswith("attributes #"):
            return line
        line = line.replace(f'"target-cpu"="sm_{built}"', f'"target-cpu"="sm_{arch}"')
        line = line.replace(f"+sm_{built}", f"+sm_{arch}")
        if newer:
            line = re.sub(r"\+ptx([0-9]+)", lambda m: f"+ptx{max(int(m.group(1)), 86)}", line)
        return line

    return "\n".join(attributes(line) for line in text.split("\n"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llvm-dis", required=True)
    ap.add_argument("--llvm-as", required=True)
    ap.add_argument("--arch", action="append", default=[], help="an architecture to write a file for (80, 90, ...)")
    ap.add_argument("input")
    ap.add_argument("output")
    a = ap.parse_args()
    text = finish(subprocess.run([a.llvm_dis, a.input, "-o", "-"], check=True, capture_output=True, text=True).stdout)
    for arch in a.arch or [None]:
        out = a.output.format(arch=arch) if arch else a.output
        subprocess.run([a.llvm_as, "-", "-o", out], input=retarget(text, arch) if arch else text, check=True,
                       text=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
