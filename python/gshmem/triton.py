"""gshmem's device API in Triton kernels: NVSHMEM's device functions as Triton extern functions over the bitcode device
library (gshmem.devlib), with nothing to call after a kernel compiles.

    import gshmem.triton as nvshmem          # torch's wrappers: import torch...._nvshmem_triton as nvshmem

    @gshmem.triton.jit                       # triton.jit, and the library linked into every launch
    def ring(dst, src, sig, nbytes, BLOCK: tl.constexpr):
        me = nvshmem.my_pe()
        nvshmem.putmem_signal_block(dst, src, nbytes, sig, 1, nvshmem.SIGNAL_SET, (me + 1) % nvshmem.n_pes())
        nvshmem.signal_wait_until(sig, nvshmem.CMP_EQ, 1)

Every device name of the library is here under its NVSHMEM name (gshmem.triton.nvshmemx_putmem_signal_block), and
the names torch's and Triton-distributed's wrappers use without the prefix (putmem_signal_block, signal_wait_until,
...), resolved in that order: `nvshmemx_<name>`, then `nvshmem_<name>`. torch's element-count calls are here as
torch defines them: put, get, put_nbi, get_nbi (nelems of the pointers' type, block scope), wait_until (by ivar's
type), barrier_all, sync_all, barrier, sync, alltoall, fcollect, broadcast and reduce (block scope: one per
program). Arguments follow the C signature, converted as those wrappers pass them: a pointer as a Triton pointer or
an int64 address, a PE or team as any integer; a function that returns void gives an int32 to ignore. Triton calls
a scalar extern function in every thread of the program (the block), so the _block forms are the ones to call for
data; a thread-scope call (nvshmem_putmem) is made by every thread.

Set-up: importing this module adds a hook to Triton's module loading (triton.knobs.runtime.kernel_load_end_hook;
older Triton: CompiledKernel._init_handles) that sets up each module linking the library (gshmem.devlib.module_init)
as it loads, before its first launch; a kernel in a module that was not set up (loaded some other way) stops with
a message that says so. `extern_libs()` gives the launch argument for kernels launched without gshmem.triton.jit.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Tuple

try:
    import triton
    import triton.language as tl
    from triton.language import core
except ImportError as e:  # pragma: no cover - the message is the test
    raise ImportError("gshmem.triton needs Triton: pip install triton") from e

from . import devlib

LIB_NAME = "libnvshmem_device"  # the extern_libs key torch's wrappers use

# NVSHMEM's enumerations, as the device library takes them.
CMP_EQ, CMP_NE, CMP_GT, CMP_LE, CMP_LT, CMP_GE = 0, 1, 2, 3, 4, 5
SIGNAL_SET, SIGNAL_ADD = 9, 10
TEAM_WORLD, TEAM_SHARED, TEAM_NODE = 0, 1, 2  # NVSHMEM_TEAM_WORLD, _SHARED, NVSHMEMX_TEAM_NODE

_POINTER = "pointer"


def _triton_type(t: Any) -> Any:
    """A C type as gshmem.devlib.c_type gives it: a Triton scalar dtype, _POINTER, None (void), or the type's text
    when Triton cannot carry it (a structure by value)."""
    if isinstance(t, devlib.Pointer):
        return _POINTER
    if t is None or t not in devlib.TYPE_NAMES:
        return t
    return getattr(core, t)


@functools.lru_cache(maxsize=None)
def _signatures() -> Dict[str, Tuple[Any, Tuple[Any, ...]]]:
    return {name: (_triton_type(ret), tuple(_triton_type(p) for p in params))
            for name, (ret, params) in devlib.signatures().items()}


def _require_semantic(semantic: Any) -> Any:
    if semantic is None:
        raise RuntimeError("gshmem.triton functions are called from inside a @triton.jit kernel (Triton 3.4 or newer)")
    return semantic


def _convert(value: Any, want: Any, semantic: Any, name: str, index: int) -> Any:
    v = semantic.to_tensor(value) if not isinstance(value, core.tensor) else value
    if v.type.is_block():  # a block would make one call per element, each a collective of the program's threads
        raise TypeError(f"{name}: argument {index + 1} is a block of {v.type}: pass a scalar")
    if want is _POINTER:
        # A Triton pointer or an integer address, passed as an int64 (as torch's wrappers pass them): LLVM matches
        # it to the C function's pointer when it links the library, whatever address spaces Triton names.
        if not v.type.is_ptr() and not v.dtype.is_int():
            raise TypeError(f"{name}: argument {index + 1} is a pointer: pass a pointer or an int64 address, "
                            f"not {v.dtype}")
        return core.cast(v, core.int64, _semantic=semantic)
    if not isinstance(want, core.dtype):
        raise TypeError(f"{name}: argument {index + 1} is a {want} by value, which Triton cannot pass")
    if v.type.is_ptr():
        raise TypeError(f"{name}: argument {index + 1} is a {want}, not a pointer")
    return core.cast(v, want, _semantic=semantic)


def _call(name: str, args: Tuple[Any, ...], semantic: Any) -> Any:
    semantic = _require_semantic(semantic)
    ret, params = _signatures()[name]
    if len(args) != len(params):
        raise TypeError(f"{name} takes {len(params)} arguments, {len(args)} given")
    handles = [_convert(a, p, semantic, name, i).handle for i, (a, p) in enumerate(zip(args, params))]
    if ret is None:
        result_type = core.int32  # Triton's extern calls return a value: void is an int32 to ignore
    elif ret is _POINTER:
        result_type = core.int64  # an address: .to(tl.pointer_type(...)) to use it
    elif isinstance(ret, core.dtype):
        result_type = ret
    else:
        raise TypeError(f"{name} returns a {ret} by value, which Triton cannot take")
    builder = semantic.builder
    out = core.tensor(builder.create_extern_elementwise(LIB_NAME, "", name, handles, result_type.to_ir(builder),
                                                        False), result_type)
    return out


@functools.lru_cache(maxsize=None)
def _extern(name: str) -> Callable[..., Any]:
    # Triton passes _semantic to the builtins whose signature names it (Triton 3.4 and newer).
    def call(*args: Any, _semantic: Any = None) -> Any:
        return _call(name, args, _semantic)

    call.__name__ = call.__qualname__ = name
    ret, params = _signatures()[name]
    call.__doc__ = f"{name}: the device library's function ({len(params)} arguments)."
    return core.extern(call)


# ---- The calls as torch's wrappers make them: counts in elements of the pointers' type, one call per program ----
#
# Triton runs a program's scalar calls in every thread of it, so these take the _block forms: one collective or copy
# per program, made by its threads together (a thread-scope barrier made by every thread would be many barriers).

_TYPE_NAMES = {"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
               "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "fp16": "half", "bf16": "bfloat16",
               "fp32": "float", "fp64": "double"}


def _element(ptr: Any, semantic: Any, what: str) -> Any:
    v = ptr if isinstance(ptr, core.tensor) else semantic.to_tensor(ptr)
    if not v.type.is_ptr():
        raise TypeError(f"{what}: pass a pointer (a tensor argument of the kernel), not {v.type}: its element type "
                        "gives the size of an element")
    return v.type.element_ty


def _bytes(nelems: Any, ptr: Any, semantic: Any, what: str) -> Any:
    size = (_element(ptr, semantic, what).primitive_bitwidth + 7) // 8  # a bool (i1) is a byte in memory
    n = nelems if isinstance(nelems, core.tensor) else semantic.to_tensor(nelems)
    return core.mul(core.cast(n, core.int64, _semantic=semantic), size, _semantic=semantic)


def _same_type(dest: Any, source: Any, semantic: Any, what: str) -> None:
    a, b = _element(dest, semantic, what), _element(source, semantic, what)
    if a != b:
        raise TypeError(f"{what}: dest holds {a} and source {b}: they must be of one type")


def _type_name(ptr: Any, semantic: Any, what: str) -> str:
    t = _element(ptr, semantic, what)
    name = _TYPE_NAMES.get(t.name)
    if name is None:
        raise TypeError(f"{what}: no NVSHMEM type for elements of {t}")
    return name


def _copy(what: str, c_name: str, dest: Any, source: Any, nelems: Any, pe: Any, semantic: Any) -> Any:
    """A block copy of nelems elements of the pointers' type (both of one type): torch's put/get and their nbi."""
    _same_type(dest, source, semantic, what)
    return _call(c_name, (dest, source, _bytes(nelems, dest, semantic, what), pe), semantic)


@core.extern
def put(dest, source, nelems, pe, _semantic=None):
    """nelems elements of source into PE pe's dest (nvshmemx_putmem_block)."""
    return _copy("put", "nvshmemx_putmem_block", dest, source, nelems, pe, _semantic)


@core.extern
def get(dest, source, nelems, pe, _semantic=None):
    """nelems elements of PE pe's source into dest (nvshmemx_getmem_block)."""
    return _copy("get", "nvshmemx_getmem_block", dest, source, nelems, pe, _semantic)


@core.extern
def put_nbi(dest, source, nelems, pe, _semantic=None):
    """put without waiting: complete it with quiet (nvshmemx_putmem_nbi_block)."""
    return _copy("put_nbi", "nvshmemx_putmem_nbi_block", dest, source, nelems, pe, _semantic)


@core.extern
def get_nbi(dest, source, nelems, pe, _semantic=None):
    """get without waiting: complete it with quiet (nvshmemx_getmem_nbi_block)."""
    return _copy("get_nbi", "nvshmemx_getmem_nbi_block", dest, source, nelems, pe, _semantic)


@core.extern
def wait_until(ivar, cmp, cmp_value, _semantic=None):
    """Waits until this PE's ivar compares true (nvshmem_<T>_wait_until for ivar's element type)."""
    name = f"nvshmem_{_type_name(ivar, _semantic, 'wait_until')}_wait_until"
    if name not in _signatures():
        raise TypeError(f"wait_until: NVSHMEM waits on no {_element(ivar, _semantic, 'wait_until')} variable")
    return _call(name, (ivar, cmp, cmp_value), _semantic)


@core.extern
def remote_ptr(ptr, pe, _semantic=None):
    """pe's copy of the symmetric ptr as a pointer of ptr's own type, for loads and stores (nvshmem_ptr; as
    Triton-distributed's remote_ptr). Null where pe's memory is not mapped here."""
    v = ptr if isinstance(ptr, core.tensor) else _semantic.to_tensor(ptr)
    _element(v, _semantic, "remote_ptr")  # a pointer, or the error that says so
    return core.cast(_call("nvshmem_ptr", (v, pe), _semantic), v.type, _semantic=_semantic)


@core.extern
def barrier_all(_semantic=None):
    """Quiet, then wait for every PE (nvshmemx_barrier_all_block: one barrier per program)."""
    return _call("nvshmemx_barrier_all_block", (), _semantic)


@core.extern
def sync_all(_semantic=None):
    """Wait for every PE (nvshmemx_sync_all_block)."""
    return _call("nvshmemx_sync_all_block", (), _semantic)


@core.extern
def barrier(team, _semantic=None):
    """A team's barrier (nvshmemx_barrier_block)."""
    return _call("nvshmemx_barrier_block", (team,), _semantic)


@core.extern
def sync(team, _semantic=None):
    """A team's sync (nvshmemx_team_sync_block)."""
    return _call("nvshmemx_team_sync_block", (team,), _semantic)


@core.extern
def alltoall(team, dest, source, nelems_per_pe, _semantic=None):
    """nelems_per_pe elements to and from each member (nvshmemx_alltoallmem_block)."""
    _same_type(dest, source, _semantic, "alltoall")
    return _call("nvshmemx_alltoallmem_block",
                 (team, dest, source, _bytes(nelems_per_pe, dest, _semantic, "alltoall")), _semantic)


@core.extern
def fcollect(team, dest, source, nelems, _semantic=None):
    """Each member's nelems elements, in member order (nvshmemx_fcollectmem_block)."""
    _same_type(dest, source, _semantic, "fcollect")
    return _call("nvshmemx_fcollectmem_block", (team, dest, source, _bytes(nelems, dest, _semantic, "fcollect")),
                 _semantic)


@core.extern
def broadcast(team, dest, source, nelems, pe_root, _semantic=None):
    """pe_root's nelems elements to every member (nvshmemx_broadcastmem_block)."""
    _same_type(dest, source, _semantic, "broadcast")
    return _call("nvshmemx_broadcastmem_block",
                 (team, dest, source, _bytes(nelems, dest, _semantic, "broadcast"), pe_root), _semantic)


@core.extern
def reduce(team, dest, source, nreduce, operation, _semantic=None):
    """dest = operation ("sum", "max", "min", "prod", "and", "or", "xor": a constexpr) over the members' source, nreduce
    elements (nvshmemx_<T>_<op>_reduce_block for dest's element type)."""
    _same_type(dest, source, _semantic, "reduce")
    op = core._unwrap_if_constexpr(operation)
    name = f"nvshmemx_{_type_name(dest, _semantic, 'reduce')}_{op}_reduce_block"
    if name not in _signatures():
        raise TypeError(f"reduce: no {op!r} reduction of {_element(dest, _semantic, 'reduce')} (sum, max, min, prod; "
                        "and, or, xor for integers)")
    return _call(name, (team, dest, source, nreduce), _semantic)


def __getattr__(attr: str) -> Any:
    table = _signatures()
    for name in (attr, f"nvshmemx_{attr}", f"nvshmem_{attr}"):
        if name in table:
            fn = _extern(name)
            globals()[attr] = fn
            return fn
    raise AttributeError(f"gshmem.triton has no {attr!r}: not a device function of the library (nvshmem_{attr}, "
                         f"nvshmemx_{attr}) nor a name of this module")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_signatures()))


def extern_libs(arch: Any = None) -> Dict[str, str]:
    """The launch argument that links the device library: kernel[grid](..., extern_libs=gshmem.triton.extern_libs())
    (gshmem.triton.jit passes it by itself). arch: the GPU architecture (None: the current torch device's)."""
    return {LIB_NAME: devlib.path(arch)}


class _Launcher:
    """A @triton.jit function whose launches link the device library."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn.fn if hasattr(fn, "fn") else fn)

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        launch = self.fn[grid]

        def run(*args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("extern_libs", extern_libs())
            return launch(*args, **kwargs)

        return run

    def run(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("extern_libs", extern_libs())
        return self.fn.run(*args, **kwargs)

    def warmup(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("extern_libs", extern_libs())
        return self.fn.warmup(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.fn, attr)


def jit(fn: Any = None, **options: Any) -> Any:
    """triton.jit, and every launch links the device library (as torch's requires_nvshmem does)."""
    if fn is None:
        return lambda f: jit(f, **options)
    return _Launcher(fn if isinstance(fn, triton.runtime.JITFunction) else triton.jit(fn, **options))


requires_gshmem = jit
requires_nvshmem = jit


# ---- Set-up of the modules Triton loads ----


def _links_library(metadata_group: Dict[str, str]) -> bool:
    """Whether a compiled kernel holds the library's state: its PTX or, where Triton keeps only binaries, its cubin
    names the state's symbol."""
    for key in sorted(metadata_group, key=lambda k: not k.endswith(".ptx")):
        if key.endswith((".ptx", ".cubin")):
            try:
                with open(metadata_group[key], "rb") as f:
                    if devlib.STATE_SYMBOL.encode() in f.read():
                        return True
            except OSError:
                continue
    return False


_set_up: set = set()  # the modules set up here, taken back when Triton unloads them


def _on_load(module: Any, function: Any, name: str, metadata_group: Dict[str, str], hash: Any) -> None:
    """Triton's kernel_load_end_hook: set up a module whose code holds the device library's state."""
    if module and int(module) not in _set_up and _links_library(metadata_group):
        devlib.module_init(int(module))
        _set_up.add(int(module))


def _on_unload(module: Any, function: Any, name: str, metadata_group: Dict[str, str], hash: Any) -> None:
    """Triton's kernel_unload_hook: the library stops writing into a module before Triton unloads it."""
    if module and int(module) in _set_up:
        _set_up.discard(int(module))
        devlib.module_finalize(int(module))


_installed = False


def install() -> None:
    """Adds the set-up hook to Triton's module loading (done on import; again is a no-op)."""
    global _installed
    if _installed:
        return
    knobs = getattr(triton, "knobs", None)
    hooks = getattr(getattr(knobs, "runtime", None), "kernel_load_end_hook", None)
    if hooks is not None and hasattr(hooks, "add"):
        hooks.add(_on_load)
        unload = getattr(knobs.runtime, "kernel_unload_hook", None)
        if unload is not None and hasattr(unload, "add"):
            unload.add(_on_unload)
    else:  # Triton before knobs: wrap the loading of each compiled kernel
        from triton.compiler import compiler as _compiler

        original = _compiler.CompiledKernel._init_handles

        def init_handles(self: Any) -> None:
            first = self.module is None
            original(self)
            if first and self.module is not None and devlib.STATE_SYMBOL in str(self.asm.get("ptx", "")):
                devlib.module_init(int(self.module))
                _set_up.add(int(self.module))

        _compiler.CompiledKernel._init_handles = init_handles
    _installed = True


install()

__all__ = ["LIB_NAME", "extern_libs", "jit", "requires_gshmem", "requires_nvshmem", "install", "remote_ptr", "put",
           "get", "put_nbi", "get_nbi", "wait_until", "barrier_all", "sync_all", "barrier", "sync", "alltoall",
           "fcollect", "broadcast", "reduce", "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_LE", "CMP_LT", "CMP_GE", "SIGNAL_SET",
           "SIGNAL_ADD", "TEAM_WORLD", "TEAM_SHARED", "TEAM_NODE"]
