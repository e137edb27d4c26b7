"""gshmem's device API in numba-cuda kernels: NVSHMEM's device functions over the device library as LTO-IR
(gshmem.devlib.lto_path), linked into each kernel that calls one, with nothing to call after a kernel compiles.

    import gshmem.numba as shm

    @cuda.jit
    def ring(dst, src, sig):
        me, n = shm.my_pe(), shm.n_pes()
        shm.put_signal_block(dst, src, sig, 1, shm.SIGNAL_SET, (me + 1) % n)
        shm.signal_wait(sig, shm.CMP_EQ, 1)

Two levels:
- nvshmem4py's array functions (``nvshmem.core.device.numba``, which is this module under its names): put, get,
  put_signal and their _nbi/_warp/_block forms, p, g, atomic_*, signal_op, signal_wait, barrier/sync (team, all;
  thread, warp, block), reduce and reducescatter (op a constant string: "sum", "prod", "min", "max", "and", "or",
  "xor"), fcollect, broadcast, alltoall, my_pe/n_pes/team_my_pe/team_n_pes, get_peer_array,
  get_multicast_array, ask_smem/give_smem/release_smem; and beyond it quiet, fence, signal_fetch, wait_until, test
  and ptr. Arrays are numba's (a torch, cupy or gshmem array passed to the kernel); the sizes come from them:
  min(dst.size, src.size) elements for copies, broadcasts and reductions, src.size for fcollect, src.size / the
  team's size for alltoall, dst.size for reducescatter. Atomics act on element 0. Every thread of the scope calls
  the _warp and _block forms with the same arguments.
- every C function of the library under its NVSHMEM name (shm.nvshmemx_putmem_signal_block, shm.nvshmem_int_p,
  ...), called with the C signature's arguments: a pointer as an array (its data), a CPointer or an integer address,
  scalars as numbers. A function returning a pointer returns its address as a uint64. Functions passing a half or
  bfloat16 by value are not declared (p and g carry those as their 16-bit patterns).

Kernels are compiled with LTO (numba-cuda's default where nvJitLink is installed: pip install numba-cuda[cu13]);
linking the library registers a set-up callback, which gives each loaded module gshmem's state before its first
launch, and a kernel in a module that was not set up stops with a message that says so.
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import Any, Callable, Dict, Optional

try:  # numba-cuda on a path whose .pth files were not read (PYTHONPATH): its redirection of numba.cuda to itself
    import _numba_cuda_redirector  # noqa: F401
except ImportError:
    pass
try:
    from llvmlite import ir
    from numba import cuda, types
except ImportError as e:  # pragma: no cover - the message is the test
    raise ImportError("gshmem.numba needs numba-cuda: pip install 'numba-cuda[cu13]'") from e
if getattr(cuda, "implementation", "NVIDIA") != "NVIDIA" or not hasattr(cuda, "Fatbin"):
    raise ImportError("gshmem.numba needs numba-cuda 0.20 or newer (NVIDIA's package: pip install 'numba-cuda[cu13]'); "
                      "this numba.cuda is numba's own older target, which links no LTO-IR")
try:  # the CUDA target's implementations, which numba-cuda loads at the first kernel: refuse here, by name, a numpy
    # it cannot load them with (numba-cuda 0.30 registers numpy.row_stack, which numpy 2.5 removed)
    importlib.import_module("numba.cuda.cudaimpl")
except ModuleNotFoundError as e:  # pragma: no cover - a numba-cuda laid out otherwise loads it its own way
    if e.name != "numba.cuda.cudaimpl":
        raise
except AttributeError as e:
    import numba_cuda
    import numpy

    raise ImportError(f"gshmem.numba: numba-cuda {numba_cuda.__version__} cannot load its CUDA target with numpy "
                      f"{numpy.__version__} ({e}): install a numpy it supports (for example pip install 'numpy<2.5') "
                      "or a numba-cuda that supports this numpy") from e
try:  # numba-cuda 0.20 and newer: the CUDA target's own extension API
    from numba.cuda import cgutils
    from numba.cuda.extending import intrinsic, overload
except ImportError:  # pragma: no cover
    from numba.core import cgutils
    from numba.core.extending import intrinsic, overload

from . import devlib

# NVSHMEM's enumerations, as the device library takes them.
CMP_EQ, CMP_NE, CMP_GT, CMP_LE, CMP_LT, CMP_GE = 0, 1, 2, 3, 4, 5
SIGNAL_SET, SIGNAL_ADD = 9, 10
TEAM_WORLD, TEAM_SHARED, TEAM_NODE = 0, 1, 2
SMEM_RECOMMENDED, SMEM_MINIMUM, SMEM_BARRIERS_ONLY = 0, 1, 2

_NUMBA_TYPES = {name: getattr(types, name) for name in devlib.TYPE_NAMES if hasattr(types, name)}
try:
    from numba.cuda.types import bfloat16 as _bfloat16

    _NUMBA_TYPES["bfloat16"] = _bfloat16
except ImportError:  # pragma: no cover - numba-cuda without bfloat16
    pass
_SCALAR_NAMES = {t: name for name, t in _NUMBA_TYPES.items()}
# Passed by value only as their bits: numba's half is LLVM's half, nvcc's __half a structure.
_BITS_ONLY = ("float16", "bfloat16")


# ---- The library, as numba-cuda links it ----


def _handle(object_code: Any) -> tuple:
    """A loaded module's handle as module_init takes it: numba-cuda passes cuda.core's ObjectCode (a CUlibrary)."""
    h = getattr(object_code, "handle", object_code)
    return int(h), type(h).__name__ == "CUlibrary"


_set_up: set = set()  # the modules set up here (numba-cuda may call the callbacks once per link of the library)


def _setup(object_code: Any) -> None:
    handle, is_library = _handle(object_code)
    if handle not in _set_up:
        devlib.module_init(handle, is_library)
        _set_up.add(handle)


def _teardown(object_code: Any) -> None:
    handle, is_library = _handle(object_code)
    if handle in _set_up:
        _set_up.discard(handle)
        try:
            devlib.module_finalize(handle, is_library)
        except Exception:  # the process is ending: nothing is left to stop writing into it
            pass


@functools.lru_cache(maxsize=None)
def library() -> Any:
    """The device library as a numba-cuda link item (cuda.Fatbin of LTO-IR) with the set-up callbacks: what every
    kernel calling this module's functions links (cuda.jit(link=[gshmem.numba.library()]) links it by hand)."""
    path = devlib.lto_path()
    with open(path, "rb") as f:
        data = f.read()
    return cuda.Fatbin(data, name=os.path.basename(path), setup_callback=_setup, teardown_callback=_teardown)


def _link(context: Any) -> None:
    # Added to the code library of the function being compiled, once (each addition also adds the callbacks);
    # numba-cuda passes a device function's link items on to the kernels that call it.
    code = context.active_code_library
    if library() not in getattr(code, "_linking_files", ()):
        code.add_linking_file(library())


# ---- The C functions ----


def _host_call(name: str) -> RuntimeError:
    return RuntimeError(f"gshmem.numba.{name} is a device function: call it inside a numba.cuda.jit kernel")


def _scalar(t: Any) -> Any:
    """A numba scalar type for a C scalar's name, or None where numba has none."""
    return _NUMBA_TYPES.get(t) if isinstance(t, str) else None


def _check_arg(name: str, index: int, got: Any, want: Any) -> None:
    where = f"gshmem.numba.{name}: argument {index + 1}"
    if isinstance(want, devlib.Pointer):
        if isinstance(got, types.Array):
            if want.to is not None and got.dtype != _NUMBA_TYPES.get(want.to):
                raise TypeError(f"{where} points to {want.to}: pass an array of {want.to}, not of {got.dtype}")
        elif not isinstance(got, (types.CPointer, types.RawPointer, types.Integer)):
            raise TypeError(f"{where} is a pointer: pass an array, a CPointer or an integer address, not {got}")
    elif not isinstance(got, (types.Number, types.Boolean, types.EnumMember)):
        raise TypeError(f"{where} is a {want}: pass a number, not {got}")


def _pointer_value(context: Any, builder: Any, got: Any, value: Any) -> Any:
    want = context.get_value_type(types.voidptr)
    if isinstance(got, types.Array):
        value = cgutils.create_struct_proxy(got)(context, builder, value=value).data
    elif isinstance(got, types.Integer):
        return builder.inttoptr(context.cast(builder, value, got, types.uint64), want)
    return builder.bitcast(value, want)


def _make_function(name: str) -> Callable[..., Any]:
    ret, params = devlib.signatures()[name]
    for t in (ret,) + params:
        if t is not None and not isinstance(t, devlib.Pointer) and (_scalar(t) is None or t in _BITS_ONLY):
            raise AttributeError(f"gshmem.numba does not declare {name}: it passes a {t} by value, which numba's "
                                 "calls do not carry as nvcc's do (p and g take half and bfloat16 as their bits)")
    result = types.none if ret is None else types.uint64 if isinstance(ret, devlib.Pointer) else _scalar(ret)

    def typer(typingctx: Any, *args: Any) -> Any:
        for i, (got, want) in enumerate(zip(args, params)):
            _check_arg(name, i, got, want)

        def codegen(context: Any, builder: Any, sig: Any, values: Any) -> Any:
            _link(context)
            lltypes = [context.get_value_type(types.voidptr if isinstance(p, devlib.Pointer) else _scalar(p))
                       for p in params]
            llret = ir.VoidType() if ret is None else context.get_value_type(result)
            if isinstance(ret, devlib.Pointer):
                llret = context.get_value_type(types.voidptr)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(llret, lltypes), name)
            llargs = []
            for p, got, v in zip(params, sig.args, values):
                if isinstance(p, devlib.Pointer):
                    llargs.append(_pointer_value(context, builder, got, v))
                else:
                    llargs.append(context.cast(builder, v, got, _scalar(p)))
            out = builder.call(fn, llargs)
            if ret is None:
                return context.get_dummy_value()
            if isinstance(ret, devlib.Pointer):
                return builder.ptrtoint(out, context.get_value_type(types.uint64))
            return out

        return result(*args), codegen

    # numba's intrinsics take their arguments by name: a definition with as many as the C function has.
    arg_names = "".join(f", a{i}" for i in range(len(params)))
    namespace: Dict[str, Any] = {"typer": typer}
    exec(f"def {name}(typingctx{arg_names}):\n    return typer(typingctx{arg_names})\n", namespace)
    fn = intrinsic(namespace[name])
    fn.__doc__ = f"{name}: the device library's function ({len(params)} arguments)."
    return fn


@functools.lru_cache(maxsize=None)
def c_function(name: str) -> Callable[..., Any]:
    """The library's C function `name` (nvshmem_int_p, nvshmemx_putmem_signal_block, ...), callable in kernels."""
    if name not in devlib.signatures():
        raise AttributeError(f"gshmem.numba has no {name!r}: not a device function of the library nor a name of "
                             "this module")
    return _make_function(name)


def __getattr__(attr: str) -> Any:
    if attr.startswith("nvshmem"):
        fn = c_function(attr)
        globals()[attr] = fn
        return fn
    raise AttributeError(f"gshmem.numba has no {attr!r}")


# ---- Helpers of the array functions (run while numba types a call) ----


@intrinsic
def _view(typingctx: Any, arr: Any, address: Any) -> Any:
    """arr's shape and strides over the memory at address (a peer's or multicast copy of it)."""
    if not isinstance(arr, types.Array) or not isinstance(address, types.Integer):
        return None

    def codegen(context: Any, builder: Any, sig: Any, values: Any) -> Any:
        src = cgutils.create_struct_proxy(arr)(context, builder, value=values[0])
        out = cgutils.create_struct_proxy(arr)(context, builder)
        for field in ("meminfo", "parent", "nitems", "itemsize", "shape", "strides"):
            setattr(out, field, getattr(src, field))
        out.data = builder.inttoptr(values[1], src.data.type)
        return out._getvalue()

    return arr(arr, address), codegen


@intrinsic
def _data(typingctx: Any, arr: Any) -> Any:
    """arr's data as a void pointer (to pass a half or bfloat16 array where the C function takes uint16s)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context: Any, builder: Any, sig: Any, values: Any) -> Any:
        return _pointer_value(context, builder, arr, values[0])

    return types.voidptr(arr), codegen


def _scalar_class(t: Any) -> Any:
    return getattr(t, "instance_type", None)


@intrinsic
def _to_bits(typingctx: Any, value: Any, elem: Any) -> Any:
    """value as a scalar of type elem (a half or bfloat16), as a uint16 of its bits."""
    source = _scalar_class(elem)
    if not isinstance(value, (types.Number, types.Boolean)) or source is None:
        return None

    def codegen(context: Any, builder: Any, sig: Any, values: Any) -> Any:
        v = context.cast(builder, values[0], value, source)
        return builder.bitcast(v, context.get_value_type(types.uint16))

    return types.uint16(value, elem), codegen


@intrinsic
def _from_bits(typingctx: Any, bits: Any, elem: Any) -> Any:
    """A uint16's bits as a scalar of type elem (a half or bfloat16)."""
    target = _scalar_class(elem)
    if not isinstance(bits, types.Integer) or target is None:
        return None

    def codegen(context: Any, builder: Any, sig: Any, values: Any) -> Any:
        return builder.bitcast(values[0], context.get_value_type(target))

    return target(bits, elem), codegen


def _impl(params: str, body: str, **env: Any) -> Callable[..., Any]:
    """An implementation for numba with the stub's parameters (an overload's must match them): def impl(params):
    return body, with env as its globals."""
    namespace: Dict[str, Any] = dict(env)
    exec(f"def impl({params}):\n    return {body}\n", namespace)
    return namespace["impl"]


def _array(fn: str, what: str, t: Any) -> None:
    if not isinstance(t, types.Array):
        raise TypeError(f"gshmem.numba.{fn}: {what} is an array (a symmetric one where it is a PE's), not {t}")


def _type_name(fn: str, what: str, t: Any) -> str:
    _array(fn, what, t)
    name = _SCALAR_NAMES.get(t.dtype)
    if name is None:
        raise TypeError(f"gshmem.numba.{fn}: no NVSHMEM type for {what}'s elements ({t.dtype})")
    return name


def _pair(fn: str, dst: Any, src: Any) -> str:
    a, b = _type_name(fn, "dst", dst), _type_name(fn, "src", src)
    if a != b:
        raise TypeError(f"gshmem.numba.{fn}: dst holds {a} and src {b}: they must be of one type")
    return a


def _integer(fn: str, what: str, t: Any) -> None:
    if not isinstance(t, (types.Integer, types.IntEnumMember, types.Omitted)):
        raise TypeError(f"gshmem.numba.{fn}: {what} is an integer, not {t}")


def _typed(fn: str, elem: str, pattern: str) -> Callable[..., Any]:
    """The C function `pattern` names for elements of `elem` (pattern holds {T}: nvshmem_{T}_atomic_add)."""
    name = pattern.format(T=devlib.TYPE_NAMES[elem])
    extension = name.replace("nvshmem_", "nvshmemx_", 1)  # NVSHMEM 3.7's floating-point atomics are nvshmemx_
    for candidate in (name, extension):
        if candidate in devlib.signatures():
            return c_function(candidate)
    raise TypeError(f"gshmem.numba.{fn}: NVSHMEM has no {fn} of {elem} ({name})")


def _itemsize(elem: str) -> int:
    return _NUMBA_TYPES[elem].bitwidth // 8


def _device_function(name: str, params: str, doc: str, typer: Callable[..., Any]) -> Callable[..., Any]:
    """A function of this module: a Python stub named `name` with `params`, and its overload for kernels (typer
    checks the argument types and returns the implementation)."""
    namespace: Dict[str, Any] = {"_host_call": _host_call}
    exec(f"def {name}({params}):\n    raise _host_call({name!r})\n", namespace)
    stub = namespace[name]
    stub.__doc__ = doc
    stub.__module__ = __name__
    overload(stub, prefer_literal=True, inline="always", strict=False)(typer)  # inlined: no device function of its own
    globals()[name] = stub
    return stub


_SCOPES = (("", "thread"), ("_warp", "warp"), ("_block", "block"))


def _c_name(base: str, scope: str) -> str:
    return f"nvshmem{'x' if scope else ''}_{base}{scope}"


# ---- RMA ----


def _copy_family(kind: str, nbi: str, scope: str, who: str) -> None:
    c = c_function(_c_name(f"{kind}mem{nbi}", scope))
    name = f"{kind}{nbi}{scope}"
    direction = "local src into PE pe's symmetric dst" if kind == "put" else "PE pe's symmetric src into local dst"

    def typer(dst: Any, src: Any, pe: Any) -> Any:
        size = _itemsize(_pair(name, dst, src))
        _integer(name, "pe", pe)

        return _impl("dst, src, pe", "c(dst, src, min(dst.size, src.size) * size, pe)", c=c, size=size)

    later = " without waiting (quiet completes it)" if nbi else ""
    _device_function(name, "dst, src, pe", f"Copies min(dst.size, src.size) elements: {direction}{later}; {who}.",
                     typer)


def _put_signal_family(nbi: str, scope: str, who: str) -> None:
    c = c_function(_c_name(f"putmem_signal{nbi}", scope))
    name = f"put_signal{nbi}{scope}"

    def typer(dst: Any, src: Any, signal_var: Any, signal_val: Any, signal_op: Any, pe: Any) -> Any:
        size = _itemsize(_pair(name, dst, src))
        if _type_name(name, "signal_var", signal_var) != "uint64":
            raise TypeError(f"gshmem.numba.{name}: signal_var is an array of uint64, not of {signal_var.dtype}")
        _integer(name, "signal_op", signal_op)
        _integer(name, "pe", pe)

        return _impl("dst, src, signal_var, signal_val, signal_op, pe",
                     "c(dst, src, min(dst.size, src.size) * size, signal_var, signal_val, signal_op, pe)", c=c,
                     size=size)

    _device_function(name, "dst, src, signal_var, signal_val, signal_op, pe",
                     f"Puts min(dst.size, src.size) elements of src into PE pe's dst, then updates signal_var[0] there "
                     f"with signal_val by signal_op (SIGNAL_SET, SIGNAL_ADD){' without waiting' if nbi else ''}; "
                     f"{who}.", typer)


for _scope, _who in _SCOPES:
    _who = "one thread" if _who == "thread" else f"every thread of the {_who}, with the same arguments"
    for _nbi in ("", "_nbi"):
        _copy_family("put", _nbi, _scope, _who)
        _copy_family("get", _nbi, _scope, _who)
        _put_signal_family(_nbi, _scope, _who)


def _p_typer(dst: Any, value: Any, pe: Any) -> Any:
    elem = _type_name("p", "dst", dst)
    _integer("p", "pe", pe)
    if elem in _BITS_ONLY:
        return _impl("dst, value, pe", "c(_data(dst), _to_bits(value, t), pe)", c=c_function("nvshmem_uint16_p"),
                     _data=_data, _to_bits=_to_bits, t=_NUMBA_TYPES[elem])
    return _impl("dst, value, pe", "c(dst, value, pe)", c=_typed("p", elem, "nvshmem_{T}_p"))


def _g_typer(src: Any, pe: Any) -> Any:
    elem = _type_name("g", "src", src)
    _integer("g", "pe", pe)
    if elem in _BITS_ONLY:
        return _impl("src, pe", "_from_bits(c(_data(src), pe), t)", c=c_function("nvshmem_uint16_g"), _data=_data,
                     _from_bits=_from_bits, t=_NUMBA_TYPES[elem])
    return _impl("src, pe", "c(src, pe)", c=_typed("g", elem, "nvshmem_{T}_g"))


_device_function("p", "dst, value, pe", "Writes value into PE pe's dst[0].", _p_typer)
_device_function("g", "src, pe", "PE pe's src[0].", _g_typer)


# ---- Atomics (on element 0 of a symmetric array) ----


def _atomic(op: str, params: str, doc: str) -> None:
    name = f"atomic_{op}"
    names = params.split(", ")

    def typer(*args: Any) -> Any:
        c = _typed(name, _type_name(name, names[0], args[0]), "nvshmem_{T}_atomic_" + op)
        _integer(name, "pe", args[-1])
        return _impl(params, f"c({params})", c=c)

    _device_function(name, params, doc, _impl(params, f"typer({params})", typer=typer))


_atomic("fetch", "src, pe", "PE pe's src[0], read atomically.")
_atomic("set", "dst, value, pe", "Sets PE pe's dst[0] to value atomically.")
_atomic("swap", "dst, value, pe", "Sets PE pe's dst[0] to value atomically; returns the value it held.")
_atomic("compare_swap", "dst, cond, value, pe",
        "Sets PE pe's dst[0] to value if it holds cond, atomically; returns the value it held.")
_atomic("inc", "dst, pe", "Adds 1 to PE pe's dst[0] atomically.")
_atomic("fetch_inc", "dst, pe", "Adds 1 to PE pe's dst[0] atomically; returns the value it held.")
for _op in ("add", "and", "or", "xor"):
    _atomic(_op, "dst, value, pe", f"PE pe's dst[0] {_op} value, atomically.")
    _atomic(f"fetch_{_op}", "dst, value, pe", f"PE pe's dst[0] {_op} value, atomically; returns the value it held.")


# ---- Signals, waits, ordering, PEs and teams ----


def _plain(name: str, params: str, c_name: str, doc: str, checks: Optional[Callable[..., None]] = None) -> None:
    """A function that passes its arguments to one C function as they are (checks: of their types)."""
    c = c_function(c_name)

    def typer(*args: Any) -> Any:
        if checks is not None:
            checks(*args)
        return _impl(params, f"c({params})", c=c)

    _device_function(name, params, doc, _impl(params, f"typer({params})", typer=typer))


def _signal_checks(name: str) -> Callable[..., None]:
    def check(signal_var: Any, *rest: Any) -> None:
        if _type_name(name, "signal_var", signal_var) != "uint64":
            raise TypeError(f"gshmem.numba.{name}: signal_var is an array of uint64, not of {signal_var.dtype}")

    return check


_plain("my_pe", "", "nvshmem_my_pe", "This PE's number.")
_plain("n_pes", "", "nvshmem_n_pes", "How many PEs run.")
_plain("team_my_pe", "team", "nvshmem_team_my_pe", "This PE's number in team (-1 where it is not a member).")
_plain("team_n_pes", "team", "nvshmem_team_n_pes", "How many PEs team has.")
_plain("signal_op", "signal_var, signal_val, signal_op, pe", "nvshmemx_signal_op",
       "Updates PE pe's signal_var[0] with signal_val by signal_op (SIGNAL_SET, SIGNAL_ADD).",
       _signal_checks("signal_op"))
_plain("signal_wait", "signal_var, cmp, cmp_value", "nvshmem_signal_wait_until",
       "Waits until this PE's signal_var[0] compares true with cmp_value (CMP_EQ, ...); returns its value.",
       _signal_checks("signal_wait"))
_plain("signal_wait_until", "signal_var, cmp, cmp_value", "nvshmem_signal_wait_until",
       "signal_wait under NVSHMEM's name.", _signal_checks("signal_wait_until"))
_plain("signal_fetch", "signal_var", "nvshmem_signal_fetch", "This PE's signal_var[0], read atomically.",
       _signal_checks("signal_fetch"))
_plain("quiet", "", "nvshmem_quiet", "Completes this thread's puts, gets, atomics and signals.")
_plain("fence", "", "nvshmem_fence", "Orders this thread's puts, atomics and signals to each PE.")
_plain("ask_smem", "flag", "nvshmemx_ask_smem",
       "The bytes of shared memory a block lends the bulk-copy (TMA) path (SMEM_RECOMMENDED, SMEM_MINIMUM, "
       "SMEM_BARRIERS_ONLY): NVSHMEM's amounts, so that kernels size their launches alike.")
_plain("release_smem", "", "nvshmemx_release_smem",
       "Takes back the shared memory give_smem lent: one thread calls it, after the block's copies and before the "
       "block exits. Kernels linked with the device library (numba, Triton) have no bulk-copy path, so here it "
       "does nothing.")


def _give_smem_typer(smem: Any) -> Any:
    size = _itemsize(_type_name("give_smem", "smem", smem))
    c = c_function("nvshmemx_give_smem")

    return _impl("smem", "c(smem, smem.size * size)", c=c, size=size)


_device_function("give_smem", "smem",
                 "Lends the bulk-copy (TMA) path a shared array (all of it): one thread of the block calls it, then "
                 "the block synchronises (cuda.syncthreads()). Kernels linked with the device library (numba, "
                 "Triton) have no bulk-copy path: their copies stay the ordinary ones and this does nothing.",
                 _give_smem_typer)


def _wait_family(name: str, pattern: str, doc: str) -> None:
    def typer(ivar: Any, cmp: Any, cmp_value: Any) -> Any:
        c = _typed(name, _type_name(name, "ivar", ivar), pattern)
        _integer(name, "cmp", cmp)
        return _impl("ivar, cmp, cmp_value", "c(ivar, cmp, cmp_value)", c=c)

    _device_function(name, "ivar, cmp, cmp_value", doc, typer)


_wait_family("wait_until", "nvshmem_{T}_wait_until", "Waits until this PE's ivar[0] compares true with cmp_value.")
_wait_family("test", "nvshmem_{T}_test", "1 where this PE's ivar[0] compares true with cmp_value, else 0.")


def _ptr_typer(arr: Any, pe: Any) -> Any:
    _array("ptr", "arr", arr)
    c = c_function("nvshmem_ptr")
    return _impl("arr, pe", "c(arr, pe)", c=c)


def _peer_typer(arr: Any, pe: Any) -> Any:
    _array("get_peer_array", "arr", arr)
    c = c_function("nvshmem_ptr")
    return _impl("arr, pe", "_view(arr, c(arr, pe))", c=c, _view=_view)


def _multicast_typer(team: Any, arr: Any) -> Any:
    _array("get_multicast_array", "arr", arr)
    c = c_function("nvshmemx_mc_ptr")
    return _impl("team, arr", "_view(arr, c(team, arr))", c=c, _view=_view)


_device_function("ptr", "arr, pe", "The address of PE pe's copy of arr where this GPU maps it, else 0.", _ptr_typer)
_device_function("get_peer_array", "arr, pe",
                 "PE pe's copy of the symmetric arr, for loads and stores (its data is null where this GPU does not map "
                 "pe's memory: ptr(arr, pe) == 0).", _peer_typer)
_device_function("get_multicast_array", "team, arr",
                 "team's multicast copy of arr (its data is null where team has no multicast memory).",
                 _multicast_typer)


# ---- Barriers and collectives ----

for _scope, _who in _SCOPES:
    _by = "" if not _scope else f" ({_who} scope: every thread of the {_who} calls it)"
    _plain(f"barrier_all{_scope}", "", _c_name("barrier_all", _scope),
           f"Completes this PE's operations, then waits for every PE{_by}.")
    _plain(f"sync_all{_scope}", "", _c_name("sync_all", _scope), f"Waits for every PE{_by}.")
    _plain(f"barrier{_scope}", "team", _c_name("barrier", _scope),
           f"Completes this PE's operations, then waits for team's PEs{_by}.")
    _plain(f"sync{_scope}", "team", _c_name("team_sync", _scope), f"Waits for team's PEs{_by}.")

_OPS = ("sum", "prod", "min", "max", "and", "or", "xor")


def _literal_op(fn: str, op: Any) -> str:
    value = getattr(op, "literal_value", None)
    if not isinstance(value, str):
        raise TypeError(f"gshmem.numba.{fn}: op is a constant string ({', '.join(map(repr, _OPS))}), not {op}")
    if value not in _OPS:
        raise TypeError(f"gshmem.numba.{fn}: no reduction {value!r} ({', '.join(map(repr, _OPS))})")
    return value


def _collective_family(kind: str, scope: str, who: str) -> None:
    name = f"{kind}{scope}"
    x = "x" if scope else ""
    by = f"; every thread of the {who} calls it" if scope else ""

    if kind in ("reduce", "reducescatter"):

        def reduce_typer(team: Any, dst: Any, src: Any, op: Any) -> Any:
            elem = _pair(name, dst, src)
            c = _typed(name, elem, f"nvshmem{x}_{{T}}_{_literal_op(name, op)}_{kind}{scope}")
            count = "min(dst.size, src.size)" if kind == "reduce" else "dst.size"
            return _impl("team, dst, src, op", f"c(team, dst, src, {count})", c=c)

        what = ("dst = op over the members' src, min(dst.size, src.size) elements" if kind == "reduce" else
                "dst = this PE's block (dst.size elements) of op over the members' src")
        _device_function(name, "team, dst, src, op", f"{what}{by}.", reduce_typer)
    elif kind == "broadcast":

        def broadcast_typer(team: Any, dst: Any, src: Any, root: Any = 0) -> Any:
            c = _typed(name, _pair(name, dst, src), f"nvshmem{x}_{{T}}_broadcast{scope}")
            return _impl("team, dst, src, root=0", "c(team, dst, src, min(dst.size, src.size), root)", c=c)

        _device_function(name, "team, dst, src, root=0",
                         f"dst = the team's PE root's src, min(dst.size, src.size) elements{by}.", broadcast_typer)
    else:
        count_all = kind == "fcollect"

        def gather_typer(team: Any, dst: Any, src: Any) -> Any:
            c = _typed(name, _pair(name, dst, src), f"nvshmem{x}_{{T}}_{kind}{scope}")
            n_pes = c_function("nvshmem_team_n_pes")
            count = "src.size" if count_all else "src.size // n_pes(team)"
            return _impl("team, dst, src", f"c(team, dst, src, {count})", c=c, n_pes=n_pes)

        what = ("dst = every member's src (src.size elements each), in member order" if count_all else
                "block i of src (src.size / the team's size elements) to member i, whose dst gets this PE's in block "
                "this PE's number")
        _device_function(name, "team, dst, src", f"{what}{by}.", gather_typer)


for _scope, _who in _SCOPES:
    for _kind in ("reduce", "reducescatter", "broadcast", "fcollect", "alltoall"):
        _collective_family(_kind, _scope, _who)

# nvshmem4py's names (nvshmem.core.device.numba's __all__), all of which this module has.
NVSHMEM4PY_NAMES = (
    ["p", "g"] + [f"{k}{n}{s}" for k in ("put", "get", "put_signal") for n in ("", "_nbi") for s in ("", "_block",
                                                                                                    "_warp")]
    + ["atomic_inc", "atomic_fetch_inc", "atomic_fetch", "atomic_set", "atomic_add", "atomic_fetch_add", "atomic_and",
       "atomic_fetch_and", "atomic_or", "atomic_fetch_or", "atomic_xor", "atomic_fetch_xor", "atomic_swap",
       "atomic_compare_swap"]
    + [f"{k}{s}" for k in ("sync", "sync_all", "barrier", "barrier_all", "reduce", "reducescatter", "fcollect",
                           "broadcast", "alltoall") for s in ("", "_block", "_warp")]
    + ["my_pe", "team_my_pe", "team_n_pes", "n_pes", "signal_op", "signal_wait", "ask_smem", "give_smem",
       "release_smem", "get_peer_array", "get_multicast_array"]
)

__all__ = NVSHMEM4PY_NAMES + [
    "quiet", "fence", "signal_fetch", "signal_wait_until", "wait_until", "test", "ptr", "library", "c_function",
    "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_LE", "CMP_LT", "CMP_GE", "SIGNAL_SET", "SIGNAL_ADD", "TEAM_WORLD",
    "TEAM_SHARED", "TEAM_NODE", "SMEM_RECOMMENDED", "SMEM_MINIMUM", "SMEM_BARRIERS_ONLY",
]
