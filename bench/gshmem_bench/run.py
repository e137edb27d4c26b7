"""Building the perftests against each library and running them under each library's launcher."""
import glob
import os
import shutil
import subprocess
import sys

from . import runlist

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sh(cmd, log, timeout=None, env=None, cwd=None):
    """Runs `cmd` (a list), appending its output to `log`; returns (returncode, output)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env,
                           cwd=cwd)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += f"\n[timed out after {timeout} s]\n"
        rc = 124
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}\n{out}\n[exit {rc}]\n")
    return rc, out


def find_nvshmem(explicit):
    """An NVSHMEM prefix (include/, lib/): the one given, else the nvidia-nvshmem Python package."""
    if explicit:
        return explicit if os.path.isdir(os.path.join(explicit, "include")) else None
    try:
        import nvidia.nvshmem as m  # the nvidia-nvshmem-cu13 wheel
        path = list(m.__path__)[0]
        return path if os.path.isdir(os.path.join(path, "include")) else None
    except ImportError:
        return None


def build_gshmem(build_dir, arch, log):
    """Configures and builds gshmrun and the perftests; returns {program: path}."""
    rc, _ = sh(["cmake", "-S", REPO, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_CUDA_ARCHITECTURES={arch}"], log)
    if rc != 0:
        raise RuntimeError(f"configuring gshmem failed: see {log}")
    targets = ["gshmrun"] + [f"perftest_{kind}_{name}" for name, (_, kind) in runlist.PROGRAMS.items()]
    rc, _ = sh(["ninja", "-C", build_dir] + targets, log)
    if rc != 0:
        raise RuntimeError(f"building gshmem's perftests failed: see {log}")
    return {name: os.path.join(build_dir, "perftest", os.path.dirname(src), name)
            for name, (src, _) in runlist.PROGRAMS.items()}


def build_nvshmem(prefix, out_dir, arch, log):
    """Builds the same perftest sources against NVSHMEM (which needs -rdc and its device library);
    returns {program: path} of those that built."""
    os.makedirs(out_dir, exist_ok=True)
    host_libs = sorted(glob.glob(os.path.join(prefix, "lib", "libnvshmem_host.so*")))
    if not host_libs:
        raise RuntimeError(f"no libnvshmem_host.so in {prefix}/lib")
    common = ["nvcc", "-std=c++17", "-O3", f"-arch=sm_{arch}", "-rdc=true", "-w", "-DPERFTEST_HAVE_CUDA=1",
              f"-I{prefix}/include", f"-I{REPO}/perftest/common"]
    # Every compile, then every device link (nvcc -rdc against libnvshmem_device.a, the slow part),
    # runs side by side.
    compiles = {"common": common + ["-c", "-x", "c++", f"{REPO}/perftest/common/perftest.cpp", "-o", f"{out_dir}/common.o"]}
    for name, (src, _) in runlist.nvshmem_programs().items():
        compiles[name] = common + ["-c", "-x", "cu", f"{REPO}/perftest/{src}", "-o", f"{out_dir}/{name}.o"]
    compiled = _run_side_by_side(compiles, log)
    if "common" not in compiled:
        return {}
    links = {}
    for name in compiled - {"common"}:
        exe = f"{out_dir}/{name}"
        if os.path.exists(exe):
            os.remove(exe)
        links[name] = common + [f"{out_dir}/{name}.o", f"{out_dir}/common.o", f"-L{prefix}/lib",
                                f"-l:{os.path.basename(host_libs[0])}", "-lnvshmem_device", "-lcuda", "-Xlinker",
                                "-rpath", "-Xlinker", f"{prefix}/lib", "-o", exe]
    return {name: f"{out_dir}/{name}" for name in _run_side_by_side(links, log)}


def _run_side_by_side(commands, log):
    """Runs {name: command} all at once, appending each output to `log`; returns the names that succeeded."""
    procs = {name: subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for name, cmd in commands.items()}
    ok = set()
    for name, p in procs.items():
        out, _ = p.communicate()
        with open(log, "a") as f:
            f.write(f"$ {' '.join(commands[name])}\n{out}\n[exit {p.returncode}]\n")
        if p.returncode == 0:
            ok.add(name)
    return ok


def built_nvshmem(out_dir):
    """The NVSHMEM perftests an earlier build_nvshmem left in out_dir: {program: path}."""
    return {name: f"{out_dir}/{name}" for name in runlist.nvshmem_programs() if os.path.exists(f"{out_dir}/{name}")}


def launch_command(library, program, args, gshmrun, nvshmem_prefix):
    """The command line of one 2-PE run: gshmrun for gshmem, NVSHMEM's MPI bootstrap under mpirun
    for NVSHMEM; the plain-CUDA ceilings ("cuda") run as one process."""
    if library == "cuda":
        return [program] + list(args), None
    if library == "gshmem":
        return [gshmrun, "-n", "2", program] + list(args), None
    mpirun = shutil.which("mpirun")
    env = dict(os.environ, NVSHMEM_BOOTSTRAP="MPI",
               LD_LIBRARY_PATH=f"{nvshmem_prefix}/lib:" + os.environ.get("LD_LIBRARY_PATH", ""))
    passed = ["NVSHMEM_BOOTSTRAP", "LD_LIBRARY_PATH"] + [k for k in os.environ if k.startswith("NVSHMEM_")]
    cmd = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2"]
    for k in dict.fromkeys(passed):
        cmd += ["-x", k]
    return cmd + [program] + list(args), env


def machine_info():
    """GPU model, driver, CUDA version, as the machine reports them."""
    info = {"python": sys.version.split()[0]}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           stdout=subprocess.PIPE, text=True, timeout=30).stdout.strip().splitlines()
        info["gpus"] = q
    except (OSError, subprocess.TimeoutExpired):
        info["gpus"] = []
    try:
        v = subprocess.run(["nvcc", "--version"], stdout=subprocess.PIPE, text=True, timeout=30).stdout
        info["cuda"] = v.strip().splitlines()[-1] if v else ""
    except (OSError, subprocess.TimeoutExpired):
        info["cuda"] = ""
    return info


def nvshmem_version(prefix):
    """NVSHMEM's version from its header (NVSHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION)."""
    parts = {}
    for header in glob.glob(os.path.join(prefix, "include", "**", "*.h"), recursive=True):
        with open(header, errors="replace") as f:
            for line in f:
                for key in ("MAJOR", "MINOR", "PATCH"):
                    tag = f"#define NVSHMEM_VENDOR_{key}_VERSION"
                    if line.startswith(tag):
                        parts[key] = line.split()[-1]
        if len(parts) == 3:
            break
    return ".".join(parts.get(k, "?") for k in ("MAJOR", "MINOR", "PATCH"))
