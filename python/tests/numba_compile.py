"""gshmem.numba without a GPU: numba-cuda kernels that call every function of nvshmem4py's numba API (and gshmem's
additions, and C functions by name) compile to LTO-IR and link with the device library into cubins for sm_80 and
sm_90 (no function left unresolved, the module state present for the set-up callback to fill); nvshmem4py's enums
are accepted as arguments, and wrong calls (and a numpy numba-cuda cannot load with) are refused by name.
    PYTHONPATH=<build>/python python3 numba_compile.py
Prints "numba_compile: ok (...)"; exits 77 ("skipped") where numba-cuda, nvJitLink or the LTO-IR library is missing.

numba-cuda compiles each @overload's implementation for the current GPU's architecture; with no GPU here, the test
gives it a stand-in device of the target's compute capability (only that number is read)."""

import importlib
import shutil
import subprocess
import sys
import tempfile
import time

try:  # numba-cuda installed into a folder of its own (PYTHONPATH) has its .pth redirector unprocessed
    import _numba_cuda_redirector  # noqa: F401
except ImportError:
    pass
try:
    import numba.cuda.dispatcher as _dispatcher
    from cuda.bindings import nvjitlink
    from numba import cuda
except ImportError as e:
    print(f"numba_compile: skipped (no numba-cuda with nvJitLink: {e})")
    sys.exit(77)

import gshmem.devlib as devlib  # noqa: E402

try:
    devlib.lto_path()
except devlib.DeviceLibraryNotFound as e:
    print(f"numba_compile: skipped ({e})")
    sys.exit(77)

import gshmem.numba as shm  # noqa: E402
from gshmem.nvshmem4py.core import ComparisonType, SignalOp  # noqa: E402
from gshmem.nvshmem4py.bindings.device import numba as bindings_numba  # noqa: E402
from gshmem.nvshmem4py.core.device import numba as nvshmem_numba  # noqa: E402


class _StandIn:
    compute_capability = (8, 0)


_dispatcher.get_current_device = lambda: _StandIn()


def rma(dst, src, sig, h, team):
    me = shm.my_pe()
    peer = (me + 1) % shm.n_pes()
    shm.put(dst, src, peer)
    shm.get(dst, src, peer)
    shm.put_nbi(dst, src, peer)
    shm.get_nbi(dst, src, peer)
    shm.put_block(dst, src, peer)
    shm.get_nbi_block(dst, src, peer)
    shm.put_warp(dst, src, peer)
    shm.get_nbi_warp(dst, src, peer)
    shm.put_signal(dst, src, sig, 1, SignalOp.SIGNAL_SET, peer)  # nvshmem4py's enums, as globals
    shm.put_signal_nbi_block(dst, src, sig, 1, shm.SIGNAL_ADD, peer)
    shm.put_signal_warp(dst, src, sig, 1, shm.SIGNAL_ADD, peer)
    shm.signal_op(sig, 2, shm.SIGNAL_SET, peer)
    v = shm.signal_wait(sig, ComparisonType.CMP_GE, 1)
    v += shm.signal_fetch(sig)
    shm.p(dst, 7, peer)
    dst[1] = shm.g(src, peer) + shm.test(dst, shm.CMP_EQ, 7)
    shm.p(h, 1.5, peer)  # a half, as its bits
    h[0] = shm.g(h, peer)
    shm.wait_until(dst, shm.CMP_NE, 0)
    shm.quiet()
    shm.fence()
    if shm.ptr(dst, peer) != 0:
        view = shm.get_peer_array(dst, peer)
        view[0] = v
    dst[2] = shm.team_my_pe(team) + shm.team_n_pes(team)


def atomics(i32, u64, f64, pe):
    old = shm.atomic_fetch_add(i32, 1, pe)
    shm.atomic_compare_swap(i32, old, 3, pe)
    shm.atomic_inc(i32, pe)
    i32[1] = shm.atomic_fetch_inc(i32, pe) + shm.atomic_fetch(i32, pe) + shm.atomic_swap(i32, 5, pe)
    shm.atomic_set(i32, 1, pe)
    shm.atomic_add(u64, 2, pe)
    shm.atomic_and(u64, 3, pe)
    shm.atomic_or(i32, 4, pe)
    shm.atomic_xor(u64, 5, pe)
    u64[1] = shm.atomic_fetch_and(u64, 1, pe) + shm.atomic_fetch_or(u64, 2, pe) + shm.atomic_fetch_xor(u64, 3, pe)
    f64[1] = shm.atomic_fetch_add(f64, 0.5, pe) + shm.atomic_fetch(f64, pe)


def collectives(team, f, i, h, b):
    shm.barrier_all()
    shm.barrier_all_block()
    shm.barrier_all_warp()
    shm.sync_all()
    shm.sync_all_block()
    shm.sync_all_warp()
    shm.barrier(team)
    shm.barrier_block(team)
    shm.barrier_warp(team)
    shm.sync(team)
    shm.sync_block(team)
    shm.sync_warp(team)
    shm.reduce(team, f, f, "sum")
    shm.reduce_block(team, i, i, "max")
    shm.reduce_warp(team, h, h, "min")
    shm.reduce_block(team, b, b, "prod")
    shm.reduce(team, i, i, "xor")
    shm.reducescatter(team, f, f, "sum")
    shm.reducescatter_block(team, i, i, "and")
    shm.fcollect(team, f, f)
    shm.fcollect_warp(team, h, h)
    shm.broadcast(team, f, f)
    shm.broadcast_block(team, i, i, 1)
    shm.alltoall(team, f, f)
    shm.alltoall_block(team, b, b)


def by_c_name(dst, src, sig, i, pe):
    # The library's C functions by their NVSHMEM names: arrays, integer addresses and numbers.
    shm.nvshmemx_putmem_signal_block(dst, src, 64, sig, 1, shm.SIGNAL_ADD, pe)
    shm.nvshmem_int_p(i, 3, pe)
    shm.nvshmemx_float_sum_reduce_block(shm.TEAM_WORLD, dst, src, 4)
    addr = shm.nvshmem_ptr(dst, pe)
    if addr != 0:
        shm.nvshmem_putmem(addr, src, 4, shm.nvshmem_my_pe())


def nvshmem4py_kernel(dst, src, sig, team):
    # nvshmem4py's own spelling (nvshmem.core.device.numba)
    me = nvshmem_numba.my_pe()
    nvshmem_numba.put_signal_block(dst, src, sig, 1, SignalOp.SIGNAL_SET, (me + 1) % nvshmem_numba.n_pes())
    nvshmem_numba.signal_wait(sig, ComparisonType.CMP_EQ, 1)
    nvshmem_numba.reduce(team, dst, src, "sum")
    nvshmem_numba.barrier_all()
    # nvshmem.bindings.device.numba: the C functions without their prefix
    bindings_numba.float_put_nbi_block(dst, src, src.size, (me + 1) % nvshmem_numba.n_pes())
    bindings_numba.quiet()


KERNELS = [
    (rma, "void(int32[:], int32[:], uint64[:], float16[:], int32)"),
    (atomics, "void(int32[:], uint64[:], float64[:], int32)"),
    (collectives, "void(int32, float32[:], int32[:], float16[:], uint8[:])"),
    (by_c_name, "void(float32[:], float32[:], uint64[:], int32[:], int64)"),
    (nvshmem4py_kernel, "void(float32[:], float32[:], uint64[:], int32)"),
]


def link(ltoirs: list, arch: str) -> bytes:
    """The kernels' LTO-IR and the library, linked by nvJitLink as numba-cuda links them at launch (all kernels
    into one cubin: one link per architecture)."""
    lib = shm.library().data
    handle = nvjitlink.create(3, [f"-arch={arch}", "-lto", "-O3"])
    try:
        for i, ltoir in enumerate(ltoirs):
            nvjitlink.add_data(handle, nvjitlink.InputType.LTOIR, ltoir, len(ltoir), f"kernel{i}")
        nvjitlink.add_data(handle, nvjitlink.InputType.FATBIN, lib, len(lib), "gshmem")
        try:
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError:
            log = bytearray(nvjitlink.get_error_log_size(handle))
            nvjitlink.get_error_log(handle, log)
            raise SystemExit(f"numba_compile: FAILED to link for {arch}: {log.decode(errors='replace')}")
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)


def state_is_global(cubin: bytes) -> bool:
    """Whether the cubin (an ELF file) defines the module state as a global object, which the set-up finds by name
    (cuLibraryGetGlobal): LTO must not have made it local. readelf reads the symbol table where it is installed."""
    if devlib.STATE_SYMBOL.encode() not in cubin:
        return False
    readelf = shutil.which("readelf")
    if readelf is None:
        return True
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        table = subprocess.run([readelf, "-sW", f.name], capture_output=True, text=True, check=True).stdout
    return any(line.split()[3:5] == ["OBJECT", "GLOBAL"] and line.split()[-1] == devlib.STATE_SYMBOL
               for line in table.splitlines() if len(line.split()) >= 8)


def numpy_registers_row_stack() -> bool:
    """Whether loading this numba-cuda's CUDA target reads numpy.row_stack (numba-cuda 0.30 under numpy 2)."""
    import numpy

    try:  # by name: `import numba.cuda.np.arrayobj as m` would look `np` up as numba.cuda's numpy
        arrayobj = importlib.import_module("numba.cuda.np.arrayobj")
    except ImportError:
        return False
    with open(arrayobj.__file__, encoding="utf-8") as f:
        return int(numpy.__version__.split(".")[0]) >= 2 and "np.row_stack" in f.read()


def expect_error(fn, sig: str, text: str) -> None:
    try:
        cuda.compile(fn, sig, device=False, output="ltoir", cc=(8, 0), abi="numba")
    except Exception as e:  # numba wraps the overload's TypeError in a TypingError
        if text not in str(e):
            raise SystemExit(f"numba_compile: FAILED: {fn.__name__} was refused, but without {text!r}:\n{e}")
        return
    raise SystemExit(f"numba_compile: FAILED: {fn.__name__} ({sig}) compiled; it must be refused ({text!r})")


def main() -> None:
    start = time.time()
    ltoirs = []
    for fn, sig in KERNELS:
        ltoir, _ = cuda.compile(fn, sig, device=False, output="ltoir", cc=(8, 0), abi="numba")
        ltoirs.append(ltoir)
    sizes = []
    for arch in ("sm_80", "sm_90"):
        cubin = link(ltoirs, arch)
        for fn, _ in KERNELS:
            if fn.__name__.encode() not in cubin:
                raise SystemExit(f"numba_compile: FAILED: the {arch} cubin has no kernel {fn.__name__}")
        if not state_is_global(cubin):
            raise SystemExit(f"numba_compile: FAILED: the {arch} cubin has no global {devlib.STATE_SYMBOL} (the set-up "
                             "callback finds it by name)")
        sizes.append(len(cubin))
    # The library's items: the set-up callbacks are what numba-cuda calls as it loads each module.
    lib = shm.library()
    if lib.setup_callback is None or lib.teardown_callback is None:
        raise SystemExit("numba_compile: FAILED: the library has no set-up callbacks")
    missing = [n for n in nvshmem_numba.__all__ if not hasattr(nvshmem_numba, n)]
    if missing:
        raise SystemExit(f"numba_compile: FAILED: nvshmem.core.device.numba lacks {missing}")

    def mixed(a, b):
        shm.put(a, b, 1)

    def bad_op(a):
        shm.reduce(0, a, a, "mean")

    def float_and(a):
        shm.atomic_and(a, 1, 0)

    def not_array(a):
        shm.p(5, 1, 0)

    def bad_signal(a, s):
        shm.signal_op(s, 1, shm.SIGNAL_SET, 0)

    def wrong_pointee(a):
        shm.nvshmem_int_p(a, 1, 0)

    expect_error(mixed, "void(int32[:], float32[:])", "dst holds int32 and src float")
    expect_error(bad_op, "void(float32[:])", "no reduction 'mean'")
    expect_error(float_and, "void(float32[:])", "NVSHMEM has no atomic_and of float32")
    expect_error(not_array, "void(int32[:])", "dst is an array")
    expect_error(bad_signal, "void(int32[:], int32[:])", "signal_var is an array of uint64, not of int32")
    expect_error(wrong_pointee, "void(float32[:])", "points to int32: pass an array of int32, not of float32")
    try:
        shm.nvshmem_half_p
    except AttributeError as e:
        if "by value" not in str(e):
            raise SystemExit(f"numba_compile: FAILED: nvshmem_half_p refused without the reason: {e}")
    else:
        raise SystemExit("numba_compile: FAILED: nvshmem_half_p is declared (numba cannot pass a half as nvcc does)")
    # A numpy that numba-cuda's CUDA target cannot load with (numpy 2.5 removed row_stack, which numba-cuda 0.30
    # registers under numpy 2) is refused as gshmem.numba is imported, by name, not at the first kernel's compile.
    # Checked where this numba-cuda registers it (another numba-cuda or numpy 1 would import without it).
    numpy_refused = "(not checked: this numba-cuda registers no numpy.row_stack)"
    if numpy_registers_row_stack():
        probe = "import numpy; vars(numpy).pop('row_stack', None); import gshmem.numba"
        run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
        if run.returncode == 0 or "cannot load its CUDA target with numpy" not in run.stderr:
            raise SystemExit(f"numba_compile: FAILED: a numpy without row_stack was not refused by name:\n{run.stderr}")
        numpy_refused = "and an unusable numpy"
    print(f"numba_compile: ok ({len(KERNELS)} kernels, {len(nvshmem_numba.__all__)} nvshmem4py names, cubins of "
          f"{sizes[0]} and {sizes[1]} bytes for sm_80 and sm_90, 6 wrong calls {numpy_refused} refused, "
          f"{time.time() - start:.1f} s)")


if __name__ == "__main__":
    main()
