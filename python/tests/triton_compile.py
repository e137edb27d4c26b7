"""gshmem.triton without a GPU: Triton kernels that call the device library compile to PTX and a cubin for sm_80 and
sm_90, the library linked in (no function of it left unresolved, the module state present for the set-up hook to
find), both argument conventions (Triton pointers, int64 addresses) accepted, and wrong calls refused by name.
    PYTHONPATH=<build>/python python3 triton_compile.py
Prints "triton_compile: ok (...)"; exits 77 ("skipped") where Triton or the device library is missing."""

import os
import re
import sys
import tempfile

# A cache of this run's own: Triton's cache key does not cover gshmem.triton's Python, so a kernel compiled by an
# earlier version of it would be taken from the cache and the test would not compile anything.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="gshmem-triton-cache-")

try:
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
except ImportError as e:
    print(f"triton_compile: skipped (no Triton: {e})")
    sys.exit(77)

import gshmem.devlib as devlib  # noqa: E402

try:
    built = devlib.files()
except devlib.DeviceLibraryNotFound as e:
    print(f"triton_compile: skipped ({e})")
    sys.exit(77)

import gshmem.triton as nvshmem  # noqa: E402


@triton.jit
def ring(dst, src, sig, out, nbytes, BLOCK: tl.constexpr):
    me = nvshmem.my_pe()
    peer = (me + 1) % nvshmem.n_pes()
    nvshmem.putmem_signal_block(dst, src, nbytes, sig, 1, nvshmem.SIGNAL_SET, peer)
    v = nvshmem.signal_wait_until(sig, nvshmem.CMP_EQ, 1)
    nvshmem.quiet()
    nvshmem.barrier_all_block()
    p = nvshmem.ptr(dst, peer).to(tl.pointer_type(tl.int8))
    q = nvshmem.remote_ptr(dst, peer)  # Triton-distributed's form: a pointer of dst's type
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(p + offs) + tl.load(q + offs) + v.to(tl.int8))


@triton.jit
def collectives(dst, src, team, n, root):
    # torch's wrappers' convention: addresses as int64, sizes and PEs as any integer
    d = dst.to(tl.int64, bitcast=True)
    s = src.to(tl.int64, bitcast=True)
    nvshmem.float_sum_reduce_block(team, dst, src, n)
    nvshmem.alltoallmem_block(team, d, s, n * 4)
    nvshmem.fcollectmem_block(team, d, s, n * 4)
    nvshmem.broadcastmem_block(team, d, s, n * 4, root)
    nvshmem.sync_all_block()
    nvshmem.fence()
    nvshmem.getmem_block(d, s, n * 4, root)
    nvshmem.signal_op(s, 5, nvshmem.SIGNAL_ADD, root)


@triton.jit
def torch_style(dst, src, flags, team, n, root, OP: tl.constexpr):
    # torch's element-count forms: counts in elements of the pointers' type, one call per program
    nvshmem.put(dst, src, n, root)
    nvshmem.get_nbi(dst, src, n, root)
    nvshmem.quiet()
    nvshmem.wait_until(flags, nvshmem.CMP_GE, 1)
    nvshmem.barrier_all()
    nvshmem.alltoall(team, dst, src, n)
    nvshmem.fcollect(team, dst, src, n)
    nvshmem.broadcast(team, dst, src, n, root)
    nvshmem.reduce(team, dst, src, n, OP)
    nvshmem.sync(team)


@triton.jit
def handles(x, qp, region):
    # NVSHMEM's handles by value: a queue pair's put, a region's stop
    nvshmem.qp_int_p(x, 5, 0, qp)
    nvshmem.region_stop_block(region)


@triton.jit
def block_argument(x):
    offs = tl.arange(0, 16)
    nvshmem.putmem_block(x, x, offs, 0)


@triton.jit
def mixed_types(a, b):
    nvshmem.put(a, b, 4, 0)


@triton.jit
def float_and(a, b):
    nvshmem.reduce(0, a, a, 4, "and")


def compile_for(fn, signature, constexprs, arch):
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"extern_libs": nvshmem.extern_libs(arch)})


def check_linked(ck, what):
    ptx = ck.asm["ptx"]
    assert re.search(rf"\.visible \.const [^;]*\b{devlib.STATE_SYMBOL}\b", ptx), \
        f"{what}: the module state is not an exported constant of the PTX (the set-up could not find it)"
    unresolved = re.findall(r"\.extern \.func[^;]*?\b(nvshmem\w*)", ptx)
    assert not unresolved, f"{what}: unresolved library functions {unresolved}"
    assert len(ck.asm["cubin"]) > 0, f"{what}: no cubin"


ring_sig = {"dst": "*i8", "src": "*i8", "sig": "*u64", "out": "*i8", "nbytes": "i64", "BLOCK": "constexpr"}
coll_sig = {"dst": "*fp32", "src": "*fp32", "team": "i32", "n": "i64", "root": "i32"}
archs = [a for a in (80, 90) if any(b <= a for b in built)]
for arch in archs:
    check_linked(compile_for(ring, ring_sig, {"BLOCK": 128}, arch), f"ring sm_{arch}")
    check_linked(compile_for(collectives, coll_sig, {}, arch), f"collectives sm_{arch}")
    check_linked(compile_for(handles, {"x": "*i32", "qp": "i32", "region": "u64"}, {}, arch), f"handles sm_{arch}")
    for op in ("sum", "max", "min", "prod"):
        ck = compile_for(torch_style, {"dst": "*fp32", "src": "*fp32", "flags": "*i32", "team": "i32", "n": "i32",
                                       "root": "i32", "OP": "constexpr"}, {"OP": op}, arch)
        check_linked(ck, f"torch_style {op} sm_{arch}")

# The examples' kernels (python/examples/triton_*.py) compile too.
try:
    import importlib.util

    import torch  # noqa: F401  (the examples import it)

    def example(name, folder=os.path.join("..", "examples")):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), folder, f"{name}.py")
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    ar, a2a = example("triton_allreduce"), example("triton_alltoall")
    pingpong = example("triton_put_signal", os.path.join("..", "..", "bench", "triton_pingpong"))
    for arch in archs:
        check_linked(compile_for(ar.allreduce_by_loads.fn, {"buf": "*fp32", "out": "*fp32", "n_elements": "i32",
                                                            "NPES": "constexpr", "BLOCK": "constexpr"},
                                 {"NPES": 4, "BLOCK": 1024}, arch), f"example allreduce_by_loads sm_{arch}")
        check_linked(compile_for(ar.allreduce_by_puts.fn, {"buf": "*fp32", "slots": "*fp32", "signals": "*u64",
                                                           "out": "*fp32", "n_elements": "i32", "round": "i32",
                                                           "NPES": "constexpr", "BLOCK": "constexpr"},
                                 {"NPES": 4, "BLOCK": 1024}, arch), f"example allreduce_by_puts sm_{arch}")
        check_linked(compile_for(a2a.alltoall.fn, {"dst": "*u8", "src": "*u8", "signal": "*u64", "chunk_bytes": "i32",
                                                   "round": "i32", "NPES": "constexpr"}, {"NPES": 4}, arch),
                     f"example alltoall sm_{arch}")
        check_linked(compile_for(pingpong.ping_pong.fn, {"dest": "*u8", "src": "*u8", "flag": "*u64", "nbytes": "i32",
                                                         "me": "i32", "peer": "i32", "rounds": "i32", "base": "i32"},
                                 {}, arch), f"bench ping_pong sm_{arch}")
    examples = "the examples' and the benchmark's kernels too; "
except ImportError:
    examples = ""  # no torch here: the examples are not loaded

# The library's files: by architecture, and NVSHMEM's names for code that looks for NVSHMEM's.
assert devlib.path(90) == built[max(a for a in built if a <= 90)]
assert devlib.path("sm_90a") == devlib.path(90)
try:
    devlib.path(min(built) - 10)
    raise AssertionError("an architecture below every built one was given a file")
except devlib.DeviceLibraryNotFound as e:
    assert "none of which" in str(e), e
with tempfile.TemporaryDirectory() as d:
    folder = devlib.nvshmem_lib_dir(d)
    assert os.path.realpath(os.path.join(folder, "libnvshmem_device.bc")) == built[min(built)]
    for a in built:
        assert os.path.realpath(os.path.join(folder, f"libnvshmem_device_sm_{a}.bc")) == built[a]


# Wrong calls: named in the error.
@triton.jit
def float_as_pointer(x):
    nvshmem.quiet()
    nvshmem.putmem_block(1.5, x, 8, 0)


@triton.jit
def wrong_count(x):
    nvshmem.putmem_block(x, x, 8)


for fn, sig, expected in ((float_as_pointer, {"x": "*i8"}, "argument 1 is a pointer"),
                          (wrong_count, {"x": "*i8"}, "takes 4 arguments, 3 given"),
                          (block_argument, {"x": "*i8"}, "argument 3 is a block"),
                          (mixed_types, {"a": "*fp32", "b": "*i32"}, "dest holds fp32 and source int32"),
                          (float_and, {"a": "*fp32", "b": "*fp32"}, "no 'and' reduction of fp32")):
    try:
        compile_for(fn, sig, {}, archs[0])
        raise AssertionError(f"{fn.fn.__name__} compiled")
    except triton.compiler.errors.CompilationError as e:
        assert expected in str(e), str(e)
try:
    nvshmem.no_such_function
    raise AssertionError("an unknown name resolved")
except AttributeError as e:
    assert "not a device function of the library" in str(e), e

import shutil  # noqa: E402

shutil.rmtree(os.environ["TRITON_CACHE_DIR"], ignore_errors=True)
archs_text = ", ".join(f"sm_{a}" for a in archs)
print(f"triton_compile: ok (Triton {triton.__version__}; {examples}{archs_text}; library files for "
      f"sm_{', sm_'.join(map(str, sorted(built)))})")
