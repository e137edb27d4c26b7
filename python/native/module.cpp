// gshmem._native: the Python binding of the native host API (gshmem/host.hpp). Arrays of any framework
// come in through DLPack or the buffer protocol (nanobind's ndarray); symmetric arrays go out as the
// framework's own type over the heap, without a copy. Every check that can fail raises gshmem.UsageError
// (a ValueError) with the library's message; a failed collective or team call raises gshmem.Error.
// The pure-Python layer (gshmem/__init__.py) adds launch detection, dtypes by name and the Team class.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <vector>

#include "array_arg.h"
#include "arrays.h"
#include "bindings.h"
#include "gshmem/error.hpp"
#include "gshmem/host.hpp"
#include "gshmem/version.h"
#include "scalars.h"
#include "team_arg.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace gshmem {
namespace py {
namespace {

namespace host = gshmem::host;

PyObject* g_error = nullptr;        // gshmem.Error (RuntimeError)
PyObject* g_usage_error = nullptr;  // gshmem.UsageError (gshmem.Error and ValueError)

// A call that returned a failed status: gshmem.Error with the library's message.
struct StatusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(host::Status s, const char* api) {
  if (s == GSHMEM_SUCCESS) return;
  const std::string why = host::last_error();
  throw StatusError(std::string(api) + " failed (status " + std::to_string(static_cast<int>(s)) + ")" +
                    (why.empty() ? std::string() : ": " + why));
}

// ---- Arguments by name or number ----

int comparison(nb::handle cmp, const char* api) {
  int v = 0;
  if (nb::try_cast(cmp, v, false)) {
    if (v >= GSHMEM_CMP_EQ && v <= GSHMEM_CMP_GE) return v;
  } else if (nb::isinstance<nb::str>(cmp)) {
    const std::string s = nb::cast<std::string>(cmp);
    if (s == "eq" || s == "==") return GSHMEM_CMP_EQ;
    if (s == "ne" || s == "!=") return GSHMEM_CMP_NE;
    if (s == "gt" || s == ">") return GSHMEM_CMP_GT;
    if (s == "le" || s == "<=") return GSHMEM_CMP_LE;
    if (s == "lt" || s == "<") return GSHMEM_CMP_LT;
    if (s == "ge" || s == ">=") return GSHMEM_CMP_GE;
  }
  fail(api, "the comparison " + nb::cast<std::string>(nb::repr(cmp)) +
                " is none of 'eq', 'ne', 'gt', 'ge', 'lt', 'le' (or gshmem.CMP_EQ ... gshmem.CMP_GE)");
}

int signal_operation(nb::handle op, const char* api) {
  int v = 0;
  if (nb::try_cast(op, v, false)) {
    if (v == GSHMEM_SIGNAL_SET || v == GSHMEM_SIGNAL_ADD) return v;
  } else if (nb::isinstance<nb::str>(op)) {
    const std::string s = nb::cast<std::string>(op);
    if (s == "set") return GSHMEM_SIGNAL_SET;
    if (s == "add") return GSHMEM_SIGNAL_ADD;
  }
  fail(api, "the signal operation " + nb::cast<std::string>(nb::repr(op)) +
                " is neither 'set' nor 'add' (gshmem.SIGNAL_SET, gshmem.SIGNAL_ADD)");
}

ReduceOp reduce_operation(nb::handle op, const char* api) {
  static const char* const names[] = {"and", "or", "xor", "min", "max", "sum", "prod"};
  int v = -1;
  if (nb::try_cast(op, v, false)) {
    if (v >= 0 && v < 7) return static_cast<ReduceOp>(v);
  } else if (PyUnicode_Check(op.ptr())) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(op.ptr(), &n);  // the str's own UTF-8, no copy
    for (int i = 0; s && i < 7; ++i) {
      if (std::strlen(names[i]) == static_cast<size_t>(n) && std::memcmp(s, names[i], n) == 0) {
        return static_cast<ReduceOp>(i);
      }
    }
    if (!s) PyErr_Clear();
  }
  fail(api, "the reduction " + nb::cast<std::string>(nb::repr(op)) +
                " is none of 'sum', 'prod', 'min', 'max', 'and', 'or', 'xor'");
}

// The stream of an on-stream call: None (not on a stream), a raw handle (int), or an object that carries one
// (torch.cuda.Stream's cuda_stream, cupy's ptr, cuda.core's __cuda_stream__()).
// The CUDA device of a stream object, where it says (torch's device_index, cupy's device_id, cuda.core's
// device.device_id); -1 for a raw handle or an object that does not say.
int stream_device(nb::handle s) {
  int d = -1;
  for (const char* attr : {"device_index", "device_id"}) {
    if (nb::hasattr(s, attr) && nb::try_cast(s.attr(attr), d, false)) return d;
  }
  if (nb::hasattr(s, "device")) {
    nb::object dev = s.attr("device");
    if (nb::hasattr(dev, "device_id") && nb::try_cast(dev.attr("device_id"), d, false)) return d;
  }
  return -1;
}

// A stream object's handle, after checking that it belongs to this PE's GPU: work queued on another device's
// stream would run in another context, where the heap's pointers are not this PE's.
Stream checked_stream(nb::handle s, uintptr_t h, const char* api) {
  const int mine = host::cuda_device();
  const int its = mine >= 0 ? stream_device(s) : -1;
  if (its >= 0 && its != mine) {
    fail(api, "the stream " + nb::cast<std::string>(nb::repr(s)) + " is on CUDA device " + std::to_string(its) +
                  ", but this PE's heap is on device " + std::to_string(mine) + ": pass a stream of device " +
                  std::to_string(mine));
  }
  return reinterpret_cast<Stream>(h);
}

bool stream_of(nb::handle s, Stream* out, const char* api) {
  if (s.is_none()) return false;
  uintptr_t h = 0;
  if (nb::try_cast(s, h, false)) {
    *out = reinterpret_cast<Stream>(h);
    return true;
  }
  if (nb::hasattr(s, "__cuda_stream__")) {
    nb::object t = s.attr("__cuda_stream__")();
    *out = checked_stream(s, nb::cast<uintptr_t>(t[1]), api);
    return true;
  }
  for (const char* attr : {"cuda_stream", "ptr", "handle"}) {
    if (nb::hasattr(s, attr) && nb::try_cast(s.attr(attr), h, true)) {
      *out = checked_stream(s, h, api);
      return true;
    }
  }
  fail(api, "the stream " + nb::cast<std::string>(nb::repr(s)) +
                " is not a CUDA stream: pass a torch.cuda.Stream, a cupy stream, a cuda.core Stream or a raw "
                "handle (int)");
}

// How an operation completes: on `stream` when one is given, else non-blocking when `nbi`, else blocking.
host::Mode mode_of(bool nbi, nb::handle stream, const char* api) {
  Stream s = nullptr;
  if (stream_of(stream, &s, api)) {
    if (nbi) fail(api, "nbi=True and a stream: an operation on a stream is already asynchronous; pass one of them");
    return host::on(s);
  }
  return nbi ? host::kNbi : host::kBlocking;
}

// A call that does not run on a stream reads its arrays at once, while the program's library (torch, cupy) may
// still be writing them on the GPU: where an array is GPU memory, the work on the default stream (torch's and
// cupy's unless the program chose another) is waited for first. Work on other streams needs stream= (or the
// program's own synchronisation), as in C.
void after_default_stream(const host::Mode& mode, const ConstArray& a, const ConstArray& b, const char* api) {
  if (mode.completion == Completion::kStream) return;
  const int cuda = nb::device::cuda::value;
  if (a.device_type() == cuda || b.device_type() == cuda) host::synchronize(nullptr, api);
}

int pe_of(int pe, const char* api) {
  const int n = host::n_pes();
  if (host::init_state() == 0) fail(api, "gshmem is not initialised: call gshmem.init() first");
  if (pe < 0 || pe >= n) {
    fail(api, "PE " + std::to_string(pe) + " is out of range: valid PEs are 0 to " + std::to_string(n - 1));
  }
  return pe;
}

// ---- Symmetric arrays ----

enum class Framework { kNumpy, kTorch, kCupy };

Framework framework_of(const std::string& like, const char* api) {
  if (like == "numpy") return Framework::kNumpy;
  if (like == "torch") return Framework::kTorch;
  if (like == "cupy") return Framework::kCupy;
  fail(api, "like='" + like + "': the array library must be 'numpy', 'torch' or 'cupy'");
}

template <class Fw>
nb::object wrap(void* data, const std::vector<size_t>& shape, nb::handle owner, nb::dlpack::dtype t, int device_type,
                int device_id) {
  nb::ndarray<Fw> a(data, shape.size(), shape.data(), owner, nullptr, t, device_type, device_id);
  return a.cast();
}

// A symmetric array of `shape` and dtype (code, bits) as the framework's type. Collective.
// zeroed: the memory is zero before the allocation's closing barrier, so that no PE's put can land before it.
nb::object alloc(const std::vector<size_t>& shape, uint8_t code, uint8_t bits, const std::string& like, bool zeroed,
                 const char* api) {
  const Framework fw = framework_of(like, api);
  size_t n = 1;
  for (size_t d : shape) n = host::elem_bytes(n, d, api);
  const size_t bytes = host::elem_bytes(n, (bits + 7u) / 8u, api);
  if (host::init_state() == 0) fail(api, "gshmem is not initialised: call gshmem.init() first");
  void* p = zeroed ? host::calloc(1, bytes, api) : host::malloc(bytes, api);
  if (!p && bytes != 0) check(GSHMEM_ERROR_OUT_OF_MEMORY, api);
  // NVSHMEM returns nullptr for 0 bytes; an empty array still needs an address the registry can name.
  if (!p) p = host::malloc(1, api);
  if (!p) check(GSHMEM_ERROR_OUT_OF_MEMORY, api);
  auto* holder = new std::shared_ptr<Allocation>(Registry::instance().add(p, bytes));
  nb::capsule owner(holder, [](void* h) noexcept { delete static_cast<std::shared_ptr<Allocation>*>(h); });
  const int dev = host::cuda_device();
  const int device_type = dev >= 0 ? nb::device::cuda::value : nb::device::cpu::value;
  const nb::dlpack::dtype t{code, bits, 1};
  if (dev < 0 && fw == Framework::kCupy) {
    host::free(p, api);
    Registry::instance().release(p);
    fail(api, "like='cupy' needs the GPU backend: this job runs on the CPU backend (use numpy or torch)");
  }
  switch (fw) {
    case Framework::kNumpy:
      if (dev >= 0) {
        host::free(p, api);
        Registry::instance().release(p);
        fail(api, "like='numpy' on the GPU backend: the heap is GPU memory (use torch or cupy)");
      }
      return wrap<nb::numpy>(p, shape, owner, t, device_type, 0);
    case Framework::kTorch:
      return wrap<nb::pytorch>(p, shape, owner, t, device_type, dev < 0 ? 0 : dev);
    case Framework::kCupy:
      return wrap<nb::cupy>(p, shape, owner, t, device_type, dev);
  }
  return nb::none();
}

void free_array(const ConstArray& a) {
  const char* api = "gshmem.free";
  void* p = const_cast<void*>(a.data());
  Allocation* al = Registry::instance().find(p, 0);
  if (!al) {
    if (Registry::instance().was_freed(p)) fail(api, "the array was freed already");
    fail(api, "the array is not a symmetric array (gshmem.empty, zeros or full make them)");
  }
  if (al->base != reinterpret_cast<uintptr_t>(p)) {
    fail(api, "the array is a view inside a symmetric array: free the array that gshmem.empty (zeros, full) returned");
  }
  host::free(p, api);
  Registry::instance().release(p);
}

// ---- One-sided operations ----

// The copy of a put or get: both arrays the same dtype and number of elements, both contiguous, or both 1-D
// (strided). `sym` is the symmetric side.
void rma(bool put, const ConstArray& dest, const ConstArray& src, int pe, bool nbi, nb::handle stream,
         const char* api) {
  pe_of(pe, api);
  require_same_dtype(dest, "dest", src, "src", api);
  const size_t n = count(src);
  if (count(dest) != n) {
    fail(api, "dest has " + std::to_string(count(dest)) + " elements but src " + std::to_string(n) +
                  ": pass arrays of one size (slice the larger one)");
  }
  require_symmetric(put ? dest : src, put ? "dest" : "src", api);
  const host::Mode mode = mode_of(nbi, stream, api);
  after_default_stream(mode, dest, src, api);
  void* d = const_cast<void*>(dest.data());
  const void* s = src.data();
  const size_t elem = src.itemsize();
  // (A stride means nothing for fewer than two elements; numpy 2 gives an empty array stride 0.)
  if (n > 1 && dest.ndim() == 1 && src.ndim() == 1 && (dest.stride(0) != 1 || src.stride(0) != 1)) {
    if (dest.stride(0) < 1 || src.stride(0) < 1) fail(api, "strided views must have positive strides");
    if (put) {
      host::iputmem(d, s, dest.stride(0), src.stride(0), elem, n, pe, mode, api);
    } else {
      host::igetmem(d, s, dest.stride(0), src.stride(0), elem, n, pe, mode, api);
    }
    return;
  }
  require_contiguous(dest, "dest", api);
  require_contiguous(src, "src", api);
  if (put) {
    host::putmem(d, s, n * elem, pe, mode, api);
  } else {
    host::getmem(d, s, n * elem, pe, mode, api);
  }
}

// Element `index` of a symmetric array, for p, g and atomics.
void* sym_element(const ConstArray& a, size_t index, const char* what, const char* api) {
  require_symmetric(a, what, api);
  return element(a, index, what, api);
}

uint64_t* signal_word(const ConstArray& sig, size_t index, const char* api) {
  const auto t = sig.dtype();
  if (t.bits != 64 || (t.code != static_cast<uint8_t>(nb::dlpack::dtype_code::UInt) &&
                       t.code != static_cast<uint8_t>(nb::dlpack::dtype_code::Int))) {
    fail(api, "the signal array is " + dtype_name(t) + ": signals are uint64 (or int64) elements");
  }
  return static_cast<uint64_t*>(sym_element(sig, index, "signal", api));
}

// The atomic `op` on element `index` of `dest` at `pe`; the previous value when `fetch`.
nb::object atomic(AmoOp op, const ConstArray& dest, nb::handle value, nb::handle compare, int pe, size_t index,
                  bool fetch, const char* api) {
  pe_of(pe, api);
  const auto t = dest.dtype();
  const bool is_float = t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) ||
                        t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat);
  const bool is_int = t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int) ||
                      t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
  const int bytes = t.bits / 8;
  bool ok = t.lanes == 1 &&
            ((is_int && (bytes == 4 || bytes == 8)) || (is_float && (bytes == 2 || bytes == 4 || bytes == 8)));
  if (ok && is_float) {
    ok = op == AmoOp::kLoad || op == AmoOp::kStore || op == AmoOp::kSwap || op == AmoOp::kFloatAdd;
    if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat)) ok = ok && op != AmoOp::kFloatAdd;
  }
  if (ok) ok = amo_applies(op, bytes);
  if (!ok)
    fail(api, "no such atomic on " + dtype_name(t) +
                  " elements (NVSHMEM's atomic types: 32- and 64-bit "
                  "integers; float, double and half for fetch, set, swap and add)");
  void* word = sym_element(dest, index, "dest", api);
  const uint64_t operand = value.is_none() ? 0 : to_bits(value, t, api);
  const uint64_t cmp = compare.is_none() ? 0 : to_bits(compare, t, api);
  const uint64_t old = host::atomic(word, op, bytes, operand, cmp, fetch, pe, api);
  return fetch ? from_bits(old, t) : nb::none();
}

// ---- Waits ----

WaitKind wait_kind_of(nb::dlpack::dtype t, const char* api) {
  const bool is_signed = t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int);
  const bool is_unsigned = t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
  if ((is_signed || is_unsigned) && t.lanes == 1 && (t.bits == 16 || t.bits == 32 || t.bits == 64)) {
    const int width = t.bits == 16 ? 0 : (t.bits == 32 ? 2 : 4);
    return static_cast<WaitKind>(width + (is_signed ? 0 : 1));
  }
  fail(api, "waits take 16-, 32- or 64-bit integer arrays, not " + dtype_name(t));
}

// A wait's arguments, checked: the symmetric `ivars`, each compared with `value` (a scalar, or an array of one
// value per element); `status` (int32, nonzero: left out) is optional.
struct WaitArgs {
  WaitKind kind{};
  size_t n = 0;
  int cmp = 0;
  const int* status = nullptr;
  const void* values = nullptr;  // per element, else `scalar` for all
  uint64_t scalar = 0;
  ConstArray keep;  // holds the values' array while the wait runs
};

WaitArgs wait_args(const ConstArray& ivars, nb::handle cmp, nb::handle value, const std::optional<ConstArray>& status,
                   const char* api) {
  WaitArgs w;
  w.kind = wait_kind_of(ivars.dtype(), api);
  w.n = count(ivars);
  w.cmp = comparison(cmp, api);
  require_symmetric(ivars, "ivars", api);
  require_contiguous(ivars, "ivars", api);
  if (status) {
    const auto t = status->dtype();
    if (t.code != static_cast<uint8_t>(nb::dlpack::dtype_code::Int) || t.bits != 32 || count(*status) != w.n) {
      fail(api, "status must be an int32 array of one element per ivar (" + std::to_string(w.n) + ")");
    }
    require_contiguous(*status, "status", api);
    w.status = static_cast<const int*>(status->data());
  }
  if (nb::try_cast(value, w.keep, false) && w.keep.ndim() > 0) {
    require_same_dtype(ivars, "ivars", w.keep, "values", api);
    if (count(w.keep) != w.n) fail(api, "values must hold one value per ivar (" + std::to_string(w.n) + ")");
    require_contiguous(w.keep, "values", api);
    w.values = w.keep.data();
  } else {
    w.scalar = to_bits(value, ivars.dtype(), api);
  }
  return w;
}

// The wait or test of `what`; indices: where kSome stores the indices that hold.
size_t wait(WaitFor what, bool block, const ConstArray& ivars, nb::handle cmp, nb::handle value,
            std::optional<ConstArray> status, std::vector<size_t>* indices, const char* api) {
  const WaitArgs w = wait_args(ivars, cmp, value, status, api);
  if (indices) indices->resize(w.n);
  size_t r = 0;
  {
    nb::gil_scoped_release unlocked;  // other Python threads run while this one waits
    r = host::wait(w.kind, what, block, ivars.data(), w.n, indices ? indices->data() : nullptr, w.status, w.cmp,
                   w.values, w.scalar, api);
  }
  if (indices) indices->resize(r);
  return r;
}

// ---- Collectives ----

ReduceType reduce_type_of(nb::dlpack::dtype t, const char* api) {
  using nb::dlpack::dtype_code;
  if (t.lanes == 1) {
    switch (static_cast<dtype_code>(t.code)) {
      case dtype_code::Int:
      case dtype_code::UInt: {
        const bool s = t.code == static_cast<uint8_t>(dtype_code::Int);
        switch (t.bits) {
          case 8:
            return s ? ReduceType::kI8 : ReduceType::kU8;
          case 16:
            return s ? ReduceType::kI16 : ReduceType::kU16;
          case 32:
            return s ? ReduceType::kI32 : ReduceType::kU32;
          case 64:
            return s ? ReduceType::kI64 : ReduceType::kU64;
        }
        break;
      }
      case dtype_code::Float:
        if (t.bits == 16) return ReduceType::kF16;
        if (t.bits == 32) return ReduceType::kF32;
        if (t.bits == 64) return ReduceType::kF64;
        break;
      case dtype_code::Bfloat:
        if (t.bits == 16) return ReduceType::kBF16;
        break;
      default:
        break;
    }
  }
  fail(api, "no reduction on " + dtype_name(t) +
                " elements (integers of 8 to 64 bits, float16, bfloat16, "
                "float32, float64)");
}

// A team argument: an int (gshmem.Team is one), or an object that converts like one (__index__).
int team_arg(TeamArg t, const char* api) {
  PyObject* o = t.object.ptr();
  nb::object index;  // an object's own int; int subclasses (Team, IntEnum) are ints already
  if (!PyLong_Check(o) && PyIndex_Check(o)) {
    index = nb::steal(PyNumber_Index(o));
    if (index.is_valid()) {
      o = index.ptr();
    } else {
      PyErr_Clear();
    }
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (!overflow && v >= INT32_MIN && v <= INT32_MAX) return static_cast<int>(v);
    if (v == -1 && PyErr_Occurred()) PyErr_Clear();
  }
  fail(api, "the team " + nb::cast<std::string>(nb::repr(t.object)) + " is neither a gshmem.Team nor a team number");
}

int team_size(int team, const char* api) {
  const int n = host::team_n_pes(team);
  if (n < 1) fail(api, "team " + std::to_string(team) + " is not a team this PE is in (invalid or destroyed)");
  return n;
}

host::Mode collective_mode(nb::handle stream, const char* api) { return mode_of(false, stream, api); }

// dest and src: symmetric, contiguous, one dtype.
void collective_arrays(const ConstArray& dest, const ConstArray& src, const char* api) {
  if (host::init_state() == 0) fail(api, "gshmem is not initialised: call gshmem.init() first");
  require_same_dtype(dest, "dest", src, "src", api);
  require_symmetric(dest, "dest", api);
  require_symmetric(src, "src", api);
  require_contiguous(dest, "dest", api);
  require_contiguous(src, "src", api);
}

void require_count(const char* what, size_t got, size_t want, const std::string& why, const char* api) {
  if (got != want) {
    fail(api, std::string(what) + " has " + std::to_string(got) + " elements but must have " + std::to_string(want) +
                  " (" + why + ")");
  }
}

// Initialises and binds the GPU at once (GPU backend): the C library waits for the first allocation or barrier
// where no device was named and no CUDA context is current, so that a C program may pick its device after init;
// a Python program's device is named by init(device=) or torch.cuda.set_device before it, and cuda_device(),
// the stream checks and the arrays' framework must know it from init on. Collective, as init is.
void init_and_bind(const host::InitAttr& a, const char* api) {
  check(host::init(a, api), api);
  check(host::bind_gpu(api), api);
}

}  // namespace
}  // namespace py
}  // namespace gshmem

NB_MODULE(_native, m) {
  using namespace gshmem::py;
  namespace host = gshmem::host;
  using gshmem::Stream;
  using gshmem::WaitKind;
  m.doc() = "gshmem's native binding (the Python API is the package gshmem)";
  host::set_error_mode(host::ErrorMode::kThrow);

  g_error = PyErr_NewExceptionWithDoc("gshmem.Error", "A gshmem call failed; the message says why.", PyExc_RuntimeError,
                                      nullptr);
  PyObject* bases = PyTuple_Pack(2, g_error, PyExc_ValueError);
  g_usage_error = PyErr_NewExceptionWithDoc(
      "gshmem.UsageError", "A call's arguments (or the library's state) made it invalid; nothing was done.", bases,
      nullptr);
  Py_DECREF(bases);
  m.attr("Error") = nb::handle(g_error);
  m.attr("UsageError") = nb::handle(g_usage_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const gshmem::UsageError& e) {
      PyErr_SetString(g_usage_error, e.what());
    } catch (const StatusError& e) {
      PyErr_SetString(g_error, e.what());
    }
  });

  m.attr("__version__") = GSHMEM_VERSION_STRING;
  m.attr("NVSHMEM_API_VERSION") =
      nb::make_tuple(GSHMEM_NVSHMEM_API_MAJOR, GSHMEM_NVSHMEM_API_MINOR, GSHMEM_NVSHMEM_API_PATCH);
  m.attr("UNIQUE_ID_BYTES") = 124;
  m.attr("TEAM_INVALID") = static_cast<int>(GSHMEM_TEAM_INVALID);
  m.attr("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD);
  m.attr("TEAM_SHARED") = static_cast<int>(GSHMEM_TEAM_SHARED);
  m.attr("TEAM_NODE") = static_cast<int>(GSHMEM_TEAM_NODE);
  m.attr("TEAM_SAME_MYPE_NODE") = static_cast<int>(GSHMEM_TEAM_SAME_MYPE_NODE);
  m.attr("CMP_EQ") = static_cast<int>(GSHMEM_CMP_EQ);
  m.attr("CMP_NE") = static_cast<int>(GSHMEM_CMP_NE);
  m.attr("CMP_GT") = static_cast<int>(GSHMEM_CMP_GT);
  m.attr("CMP_LE") = static_cast<int>(GSHMEM_CMP_LE);
  m.attr("CMP_LT") = static_cast<int>(GSHMEM_CMP_LT);
  m.attr("CMP_GE") = static_cast<int>(GSHMEM_CMP_GE);
  m.attr("SIGNAL_SET") = static_cast<int>(GSHMEM_SIGNAL_SET);
  m.attr("SIGNAL_ADD") = static_cast<int>(GSHMEM_SIGNAL_ADD);

  // ---- Lifecycle ----
  m.def(
      "init_launcher",
      [](int device) {
        host::InitAttr a;
        a.cuda_device = device;
        nb::gil_scoped_release unlocked;
        init_and_bind(a, "gshmem.init");
      },
      "device"_a = -1, "Initialises from the launcher's environment (gshmrun, mpirun, srun, NVSHMEM_BOOTSTRAP).");
  m.def(
      "init_unique_id",
      [](nb::bytes uid, int rank, int nranks, int device) {
        const char* api = "gshmem.init";
        if (nranks < 1 || rank < 0 || rank >= nranks) {
          fail(api, "rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
                        " PEs: the rank must be 0 to nranks - 1");
        }
        host::InitAttr a;
        a.bootstrap = host::InitAttr::Bootstrap::kUniqueId;
        a.unique_id = uid.c_str();
        a.unique_id_bytes = uid.size();
        a.rank = rank;
        a.size = nranks;
        a.cuda_device = device;
        nb::gil_scoped_release unlocked;
        init_and_bind(a, api);
      },
      "unique_id"_a, "rank"_a, "nranks"_a, "device"_a = -1,
      "Initialises as PE `rank` of `nranks` that share `unique_id` (from get_unique_id on one of them).");
  m.def(
      "get_unique_id",
      []() {
        char id[124] = {};
        check(host::make_unique_id(id, sizeof id, "gshmem.get_unique_id"), "gshmem.get_unique_id");
        return nb::bytes(id, sizeof id);
      },
      "A unique ID for a job whose first PE this process will be (call it before init; hand it to the others).");
  m.def(
      "finalize",
      []() {
        // The heap goes whatever finalize reports: the arrays are of an ended session from here on.
        Registry::instance().end_session();
        host::Status status;
        {
          nb::gil_scoped_release unlocked;
          status = host::finalize("gshmem.finalize");
        }
        check(status, "gshmem.finalize");
      },
      "Ends this PE's part of the job (collective). The symmetric arrays become invalid.");
  // ---- NVSHMEM's C host functions by name (gshmem.nvshmem4py.bindings) ----
  m.def(
      "bindings",
      []() {
        nb::list out;
        for (size_t i = 0; i < kBindingCount; ++i) {
          out.append(nb::make_tuple(kBindings[i].name, kBindings[i].result, kBindings[i].params));
        }
        return out;
      },
      "(C name, result code, parameter codes) of every host function that call_binding calls, by index.");
  m.def(
      "call_binding",
      [](size_t index, nb::args args) {
        if (index >= kBindingCount) throw nb::index_error("no such binding");
        return call_binding(kBindings[index], args);
      },
      "index"_a, "args"_a, "Calls the host function `index` of bindings() with `args`.");
  m.def("binding_constants", &binding_constants, "NVSHMEM's enum values by name, and its structures' sizes.");
  m.def("binding_structs", &binding_structs, "The layouts of the structures NVSHMEM's functions take by address.");
  m.def("last_error", &host::last_error, "The last error message of this thread's calls, or ''.");
  m.def("init_state", &host::init_state, "0: not initialised; 1: initialised, no GPU bound yet; 2: ready.");
  m.def("my_pe", &host::my_pe, "This PE's number (0 to n_pes() - 1).");
  m.def("n_pes", &host::n_pes, "The number of PEs of the job.");
  m.def("cuda_device", &host::cuda_device, "The CUDA device of this PE's heap; -1 on the CPU backend.");
  m.def(
      "module_init",
      [](uint64_t handle, bool library) {
        void* h = reinterpret_cast<void*>(static_cast<uintptr_t>(handle));
        if (library) {
          check(host::culibrary_init(h, "gshmem.module_init"), "gshmem.module_init");
        } else {
          check(host::cumodule_init(h, "gshmem.module_init"), "gshmem.module_init");
        }
      },
      "handle"_a, "library"_a = false,
      "Sets up gshmem's state in a CUDA module (a CUmodule handle as an int; library=True: a CUlibrary) that links "
      "the device library; the library writes it again after each change, until module_finalize.");
  m.def(
      "module_finalize",
      [](uint64_t handle, bool library) {
        void* h = reinterpret_cast<void*>(static_cast<uintptr_t>(handle));
        if (library) {
          check(host::culibrary_finalize(h, "gshmem.module_finalize"), "gshmem.module_finalize");
        } else {
          check(host::cumodule_finalize(h, "gshmem.module_finalize"), "gshmem.module_finalize");
        }
      },
      "handle"_a, "library"_a = false, "Stops writing gshmem's state into a module that module_init set up.");
  m.def(
      "live_arrays", []() { return Registry::instance().live_count(); },
      "How many symmetric allocations made through Python are not freed.");

  // ---- Symmetric arrays ----
  m.def(
      "alloc",
      [](const std::vector<size_t>& shape, uint8_t code, uint8_t bits, const std::string& like, bool zeroed) {
        return alloc(shape, code, bits, like, zeroed, zeroed ? "gshmem.zeros" : "gshmem.empty");
      },
      "shape"_a, "code"_a, "bits"_a, "like"_a, "zeroed"_a = false,
      "A symmetric array (collective) of DLPack dtype (code, bits), as the `like` library's type; zeroed: zero "
      "on every PE before any PE returns.");
  m.def("free", &free_array, "array"_a, "Frees a symmetric array (collective).");
  m.def(
      "is_symmetric", [](const ArrayArg& a) { return Registry::instance().find(a.data(), a.nbytes()) != nullptr; },
      "array"_a, "Whether the array lies in a live symmetric allocation.");
  m.def(
      "peer_array",
      [](nb::handle array, int pe, const std::string& like) -> nb::object {
        const char* api = "gshmem.peer_array";
        const ConstArray a = nb::cast<ConstArray>(array);
        pe_of(pe, api);
        require_symmetric(a, "array", api);
        require_contiguous(a, "array", api);
        void* peer = host::ptr(a.data(), pe);
        if (!peer) return nb::none();
        std::vector<size_t> shape(a.ndim());
        for (size_t i = 0; i < a.ndim(); ++i) shape[i] = a.shape(i);
        // The view keeps the array (and with it the allocation's record) alive.
        switch (framework_of(like, api)) {
          case Framework::kNumpy:
            return wrap<nb::numpy>(peer, shape, array, a.dtype(), a.device_type(), a.device_id());
          case Framework::kTorch:
            return wrap<nb::pytorch>(peer, shape, array, a.dtype(), a.device_type(), a.device_id());
          case Framework::kCupy:
            return wrap<nb::cupy>(peer, shape, array, a.dtype(), a.device_type(), a.device_id());
        }
        return nb::none();
      },
      "array"_a, "pe"_a, "like"_a,
      "`pe`'s copy of the symmetric array as a view that loads and stores reach directly (a PE whose heap this "
      "process maps: its node), else None.");

  // ---- RMA ----
  m.def(
      "put",
      [](const ArrayArg& dest, const ArrayArg& src, int pe, bool nbi, nb::handle stream) {
        rma(true, dest, src, pe, nbi, stream, "gshmem.put");
      },
      "dest"_a, "src"_a, "pe"_a, nb::kw_only(), "nbi"_a = false, "stream"_a = nb::none(),
      "Copies src (local) into `pe`'s copy of the symmetric dest. nbi: complete by the next quiet; stream: in "
      "order on that CUDA stream.");
  m.def(
      "get",
      [](const ArrayArg& dest, const ArrayArg& src, int pe, bool nbi, nb::handle stream) {
        rma(false, dest, src, pe, nbi, stream, "gshmem.get");
      },
      "dest"_a, "src"_a, "pe"_a, nb::kw_only(), "nbi"_a = false, "stream"_a = nb::none(),
      "Copies `pe`'s copy of the symmetric src into dest (local).");
  m.def(
      "copy_bytes",
      [](const ArrayArg& dest, const ArrayArg& src, size_t nbytes, int pe, bool get, bool nbi, nb::handle stream) {
        const char* api = get ? "gshmem.get" : "gshmem.put";
        pe_of(pe, api);
        require_contiguous(dest, "dest", api);
        require_contiguous(src, "src", api);
        if (nbytes > dest.nbytes() || nbytes > src.nbytes()) {
          fail(api, std::to_string(nbytes) + " bytes do not fit dest (" + std::to_string(dest.nbytes()) +
                        " bytes) and src (" + std::to_string(src.nbytes()) + " bytes)");
        }
        require_symmetric(get ? src : dest, get ? "src" : "dest", api);
        const host::Mode mode = mode_of(nbi, stream, api);
        after_default_stream(mode, dest, src, api);
        if (get) {
          host::getmem(const_cast<void*>(dest.data()), src.data(), nbytes, pe, mode, api);
        } else {
          host::putmem(const_cast<void*>(dest.data()), src.data(), nbytes, pe, mode, api);
        }
      },
      "dest"_a, "src"_a, "nbytes"_a, "pe"_a, nb::kw_only(), "get"_a = false, "nbi"_a = false, "stream"_a = nb::none(),
      "The first nbytes of src into dest, whatever their dtypes (both contiguous; dest symmetric for a put, src "
      "for a get): the byte form that bindings of NVSHMEM's byte calls use.");
  m.def(
      "p",
      [](const ArrayArg& dest, nb::handle value, int pe, size_t index, nb::handle stream) {
        const char* api = "gshmem.p";
        pe_of(pe, api);
        void* d = sym_element(dest, index, "dest", api);
        const uint64_t bits = to_bits(value, dest.dtype(), api);
        Stream s = nullptr;
        if (stream_of(stream, &s, api)) {
          host::p_on_stream(d, &bits, dest.itemsize(), pe, s, api);
        } else {
          host::putmem(d, &bits, dest.itemsize(), pe, host::kBlocking, api);  // little-endian: the low bytes
        }
      },
      "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "stream"_a = nb::none(),
      "Stores one value into element `index` of `pe`'s copy of the symmetric dest.");
  m.def(
      "g",
      [](const ArrayArg& src, int pe, size_t index) {
        const char* api = "gshmem.g";
        pe_of(pe, api);
        const void* s = sym_element(src, index, "src", api);
        uint64_t bits = 0;
        host::getmem(&bits, s, src.itemsize(), pe, host::kBlocking, api);
        return from_bits(bits, src.dtype());
      },
      "src"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Element `index` of `pe`'s copy of the symmetric src.");

  // ---- Signals ----
  m.def(
      "put_signal",
      [](const ArrayArg& dest, const ArrayArg& src, const ArrayArg& signal, uint64_t value, int pe, nb::handle op,
         bool nbi, nb::handle stream, size_t signal_index) {
        const char* api = "gshmem.put_signal";
        pe_of(pe, api);
        require_same_dtype(dest, "dest", src, "src", api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        require_symmetric(dest, "dest", api);
        require_contiguous(dest, "dest", api);
        require_contiguous(src, "src", api);
        uint64_t* sig = signal_word(signal, signal_index, api);
        const host::Mode mode = mode_of(nbi, stream, api);
        after_default_stream(mode, dest, src, api);
        host::put_signal(const_cast<void*>(dest.data()), src.data(), src.nbytes(), sig, value,
                         signal_operation(op, api), pe, mode, api);
      },
      "dest"_a, "src"_a, "signal"_a, "value"_a, "pe"_a, nb::kw_only(), "op"_a = "set", "nbi"_a = false,
      "stream"_a = nb::none(), "signal_index"_a = 0,
      "Puts src into `pe`'s dest, then updates `pe`'s signal (op 'set' or 'add'): the data lands first.");
  m.def(
      "signal_op",
      [](const ArrayArg& signal, uint64_t value, int pe, nb::handle op, nb::handle stream, size_t index) {
        const char* api = "gshmem.signal_op";
        pe_of(pe, api);
        uint64_t* sig = signal_word(signal, index, api);
        host::signal_op(sig, value, signal_operation(op, api), pe, mode_of(false, stream, api), api);
      },
      "signal"_a, "value"_a, "pe"_a, nb::kw_only(), "op"_a = "set", "stream"_a = nb::none(), "index"_a = 0,
      "Updates `pe`'s signal with `value` (op 'set' or 'add').");
  m.def(
      "signal_fetch",
      [](const ArrayArg& signal, size_t index) {
        const char* api = "gshmem.signal_fetch";
        return host::signal_fetch(signal_word(signal, index, api), api);
      },
      "signal"_a, nb::kw_only(), "index"_a = 0, "This PE's signal value.");
  m.def(
      "signal_wait_until",
      [](const ArrayArg& signal, nb::handle cmp, uint64_t value, nb::handle stream, size_t index) -> nb::object {
        const char* api = "gshmem.signal_wait_until";
        uint64_t* sig = signal_word(signal, index, api);
        const int c = comparison(cmp, api);
        Stream s = nullptr;
        if (stream_of(stream, &s, api)) {
          host::signal_wait_until_on_stream(sig, c, value, s, api);
          return nb::none();
        }
        uint64_t got = 0;
        {
          nb::gil_scoped_release unlocked;
          got = host::signal_wait_until(sig, c, value, api);
        }
        return nb::int_(got);
      },
      "signal"_a, "cmp"_a, "value"_a, nb::kw_only(), "stream"_a = nb::none(), "index"_a = 0,
      "Waits until this PE's signal compares true with value; returns the value that did (None on a stream).");

  // ---- Atomics ----
  auto def_amo = [&m](const char* name, gshmem::AmoOp op, bool fetch, bool takes_value, const char* doc) {
    if (takes_value) {
      m.def(
          name,
          [op, fetch, name](const ArrayArg& dest, nb::handle value, int pe, size_t index) {
            return atomic(op, dest, value, nb::none(), pe, index, fetch, (std::string("gshmem.") + name).c_str());
          },
          "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, doc);
    } else {
      m.def(
          name,
          [op, fetch, name](const ArrayArg& dest, int pe, size_t index) {
            return atomic(op, dest, nb::none(), nb::none(), pe, index, fetch, (std::string("gshmem.") + name).c_str());
          },
          "dest"_a, "pe"_a, nb::kw_only(), "index"_a = 0, doc);
    }
  };
  using gshmem::AmoOp;
  def_amo("atomic_fetch", AmoOp::kLoad, true, false, "The value of element `index` of `pe`'s dest, atomically.");
  def_amo("atomic_set", AmoOp::kStore, false, true, "Sets element `index` of `pe`'s dest, atomically.");
  def_amo("atomic_swap", AmoOp::kSwap, true, true, "Swaps in value; returns the previous one.");
  def_amo("atomic_and", AmoOp::kAnd, false, true, "Bitwise and with value (integers).");
  def_amo("atomic_fetch_and", AmoOp::kAnd, true, true, "Bitwise and with value; returns the previous value.");
  def_amo("atomic_or", AmoOp::kOr, false, true, "Bitwise or with value (integers).");
  def_amo("atomic_fetch_or", AmoOp::kOr, true, true, "Bitwise or with value; returns the previous value.");
  def_amo("atomic_xor", AmoOp::kXor, false, true, "Bitwise xor with value (integers).");
  def_amo("atomic_fetch_xor", AmoOp::kXor, true, true, "Bitwise xor with value; returns the previous value.");
  m.def(
      "atomic_compare_swap",
      [](const ArrayArg& dest, nb::handle cond, nb::handle value, int pe, size_t index) {
        return atomic(AmoOp::kCompareSwap, dest, value, cond, pe, index, true, "gshmem.atomic_compare_swap");
      },
      "dest"_a, "cond"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0,
      "Stores value where the element equals cond; returns the previous value (integers).");
  // add, fetch_add, inc and fetch_inc: an integer add wraps; a float's is a floating-point add.
  auto add_op = [](const ConstArray& dest) {
    const auto code = dest.dtype().code;
    return code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) ||
                   code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat)
               ? AmoOp::kFloatAdd
               : AmoOp::kAdd;
  };
  m.def(
      "atomic_add",
      [add_op](const ArrayArg& dest, nb::handle value, int pe, size_t index) {
        atomic(add_op(dest), dest, value, nb::none(), pe, index, false, "gshmem.atomic_add");
      },
      "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds value to element `index` of `pe`'s dest.");
  m.def(
      "atomic_fetch_add",
      [add_op](const ArrayArg& dest, nb::handle value, int pe, size_t index) {
        return atomic(add_op(dest), dest, value, nb::none(), pe, index, true, "gshmem.atomic_fetch_add");
      },
      "dest"_a, "value"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds value; returns the previous value.");
  m.def(
      "atomic_inc",
      [add_op](const ArrayArg& dest, int pe, size_t index) {
        atomic(add_op(dest), dest, nb::int_(1), nb::none(), pe, index, false, "gshmem.atomic_inc");
      },
      "dest"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds 1.");
  m.def(
      "atomic_fetch_inc",
      [add_op](const ArrayArg& dest, int pe, size_t index) {
        return atomic(add_op(dest), dest, nb::int_(1), nb::none(), pe, index, true, "gshmem.atomic_fetch_inc");
      },
      "dest"_a, "pe"_a, nb::kw_only(), "index"_a = 0, "Adds 1; returns the previous value.");

  // ---- Waits ----
  m.def(
      "wait_until",
      [](const ArrayArg& ivars, nb::handle cmp, nb::handle value, std::optional<ConstArray> status, nb::handle stream) {
        const char* api = "gshmem.wait_until";
        Stream s = nullptr;
        if (stream_of(stream, &s, api)) {
          const WaitArgs w = wait_args(ivars, cmp, value, status, api);
          host::wait_on_stream(w.kind, ivars.data(), w.n, w.status, w.cmp, w.values, w.scalar, s, api);
          return;
        }
        wait(gshmem::WaitFor::kAll, true, ivars, cmp, value, status, nullptr, api);
      },
      "ivars"_a, "cmp"_a, "value"_a, nb::kw_only(), "status"_a = nb::none(), "stream"_a = nb::none(),
      "Waits until every element of the symmetric ivars (but those with a nonzero status) compares true with "
      "value (a scalar, or an array of one value per element).");
  m.def(
      "wait_until_any",
      [](const ArrayArg& ivars, nb::handle cmp, nb::handle value, std::optional<ConstArray> status) -> nb::object {
        const size_t i = wait(gshmem::WaitFor::kAny, true, ivars, cmp, value, status, nullptr, "gshmem.wait_until_any");
        return i == SIZE_MAX ? nb::object(nb::none()) : nb::object(nb::int_(i));
      },
      "ivars"_a, "cmp"_a, "value"_a, nb::kw_only(), "status"_a = nb::none(),
      "Waits until one element compares true; returns its index (None when status excludes every element).");
  m.def(
      "wait_until_some",
      [](const ArrayArg& ivars, nb::handle cmp, nb::handle value, std::optional<ConstArray> status) {
        std::vector<size_t> idx;
        wait(gshmem::WaitFor::kSome, true, ivars, cmp, value, status, &idx, "gshmem.wait_until_some");
        return idx;
      },
      "ivars"_a, "cmp"_a, "value"_a, nb::kw_only(), "status"_a = nb::none(),
      "Waits until at least one element compares true; returns the indices of those that do.");
  m.def(
      "test",
      [](const ArrayArg& ivars, nb::handle cmp, nb::handle value, std::optional<ConstArray> status) {
        return wait(gshmem::WaitFor::kAll, false, ivars, cmp, value, status, nullptr, "gshmem.test") != 0;
      },
      "ivars"_a, "cmp"_a, "value"_a, nb::kw_only(), "status"_a = nb::none(),
      "Whether every element compares true now.");
  m.def(
      "test_any",
      [](const ArrayArg& ivars, nb::handle cmp, nb::handle value, std::optional<ConstArray> status) -> nb::object {
        const size_t i = wait(gshmem::WaitFor::kAny, false, ivars, cmp, value, status, nullptr, "gshmem.test_any");
        return i == SIZE_MAX ? nb::object(nb::none()) : nb::object(nb::int_(i));
      },
      "ivars"_a, "cmp"_a, "value"_a, nb::kw_only(), "status"_a = nb::none(),
      "The index of one element that compares true now, or None.");
  m.def(
      "test_some",
      [](const ArrayArg& ivars, nb::handle cmp, nb::handle value, std::optional<ConstArray> status) {
        std::vector<size_t> idx;
        wait(gshmem::WaitFor::kSome, false, ivars, cmp, value, status, &idx, "gshmem.test_some");
        return idx;
      },
      "ivars"_a, "cmp"_a, "value"_a, nb::kw_only(), "status"_a = nb::none(),
      "The indices of the elements that compare true now.");

  // ---- Ordering and barriers of all PEs ----
  auto def_sync = [&m](const char* name, void (*blocking)(const char*), void (*on_stream)(Stream, const char*),
                       const char* doc) {
    m.def(
        name,
        [blocking, on_stream, name](nb::handle stream) {
          const std::string api = std::string("gshmem.") + name;
          if (host::init_state() == 0) fail(api.c_str(), "gshmem is not initialised: call gshmem.init() first");
          Stream s = nullptr;
          if (stream_of(stream, &s, api.c_str())) {
            if (!on_stream) fail(api.c_str(), "has no stream form");
            on_stream(s, api.c_str());
            return;
          }
          nb::gil_scoped_release unlocked;
          blocking(api.c_str());
        },
        nb::kw_only(), "stream"_a = nb::none(), doc);
  };
  def_sync("quiet", &host::quiet, &host::quiet_on_stream, "Completes this PE's earlier puts, gets and atomics.");
  def_sync("fence", &host::fence, nullptr, "Orders this PE's earlier puts to each PE before its later ones.");
  def_sync("flush", &host::flush, &host::flush_on_stream, "The sources of earlier non-blocking puts may be reused.");
  def_sync("barrier_all", &host::barrier_all, &host::barrier_all_on_stream,
           "Completes this PE's operations, then waits for every PE (collective).");
  def_sync("sync_all", &host::sync_all, &host::sync_all_on_stream, "Waits for every PE (collective); no quiet.");

  // ---- Teams ----
  m.def("team_my_pe", &host::team_my_pe, "team"_a, "This PE's index in the team, or -1.");
  m.def("team_n_pes", &host::team_n_pes, "team"_a, "The team's size, or -1.");
  m.def("team_translate_pe", &host::team_translate_pe, "src_team"_a, "pe"_a, "dest_team"_a,
        "The index in dest_team of member `pe` of src_team, or -1.");
  m.def(
      "team_split_strided",
      [](int parent, int start, int stride, int size) {
        const char* api = "gshmem.Team.split_strided";
        team_size(parent, api);
        int out = GSHMEM_TEAM_INVALID;
        {
          nb::gil_scoped_release unlocked;
          check(host::team_split_strided(parent, start, stride, size, gshmem::TeamConfig(), &out, api), api);
        }
        return out;
      },
      "parent"_a, "start"_a, "stride"_a, "size"_a,
      "A team of the parent's members start + i * stride (collective over the parent); TEAM_INVALID where this "
      "PE is not in it.");
  m.def(
      "team_split_2d",
      [](int parent, int xrange) {
        const char* api = "gshmem.Team.split_2d";
        team_size(parent, api);
        int x = GSHMEM_TEAM_INVALID, y = GSHMEM_TEAM_INVALID;
        {
          nb::gil_scoped_release unlocked;
          check(host::team_split_2d(parent, xrange, gshmem::TeamConfig(), &x, gshmem::TeamConfig(), &y, api), api);
        }
        return nb::make_tuple(x, y);
      },
      "parent"_a, "xrange"_a, "Rows of xrange members and the columns (collective over the parent): (x, y).");
  m.def(
      "team_destroy",
      [](int team) {
        const char* api = "gshmem.Team.destroy";
        nb::gil_scoped_release unlocked;
        check(host::team_destroy(team, api), api);
      },
      "team"_a, "Destroys a team that a split made (collective over its members).");
  m.def(
      "team_uniqueid",
      []() {
        uint64_t id = 0;
        check(host::team_uniqueid(&id, "gshmem.team_uniqueid"), "gshmem.team_uniqueid");
        return id;
      },
      "An ID for a team made by team_init (on one PE; hand it to the members).");
  m.def(
      "team_init",
      [](uint64_t id, int npes, int index) {
        const char* api = "gshmem.team_init";
        int out = GSHMEM_TEAM_INVALID;
        gshmem::TeamConfig c;
        c.uniqueid = id;
        nb::gil_scoped_release unlocked;
        check(host::team_init(id, npes, index, c, &out, api), api);
        return out;
      },
      "uniqueid"_a, "npes"_a, "index"_a, "A team of npes members from a team unique ID; this PE is member `index`.");

  // ---- Collectives ----
  m.def(
      "barrier",
      [](TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.barrier";
        const int team = team_arg(team_object, api);
        team_size(team, api);
        const host::Mode mode = collective_mode(stream, api);
        nb::gil_scoped_release unlocked;
        check(host::barrier(team, mode, api), api);
      },
      nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD), nb::kw_only(), "stream"_a = nb::none(),
      "Completes this PE's operations, then waits for the team's members (collective).");
  m.def(
      "sync",
      [](TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.sync";
        const int team = team_arg(team_object, api);
        team_size(team, api);
        const host::Mode mode = collective_mode(stream, api);
        nb::gil_scoped_release unlocked;
        check(host::team_sync(team, mode, api), api);
      },
      nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD), nb::kw_only(), "stream"_a = nb::none(),
      "Waits for the team's members (collective; no quiet).");
  m.def(
      "broadcast",
      [](const ArrayArg& dest, const ArrayArg& src, int root, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.broadcast";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        if (root < 0 || root >= n) {
          fail(api, "root " + std::to_string(root) + " is not a member index of the team (0 to " +
                        std::to_string(n - 1) + ")");
        }
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::broadcastmem(team, const_cast<void*>(dest.data()), src.data(), src.nbytes(), root, mode, api), api);
      },
      "dest"_a, "src"_a, "root"_a = 0, nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD),
      nb::kw_only(), "stream"_a = nb::none(), "The root's src into every member's dest (root: an index in the team).");
  m.def(
      "fcollect",
      [](const ArrayArg& dest, const ArrayArg& src, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.fcollect";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src) * n, "src's elements times the team's size", api);
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::fcollectmem(team, const_cast<void*>(dest.data()), src.data(), src.nbytes(), mode, api), api);
      },
      "dest"_a, "src"_a, nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD), nb::kw_only(),
      "stream"_a = nb::none(), "Every member's src, in team order, into every member's dest.");
  m.def(
      "alltoall",
      [](const ArrayArg& dest, const ArrayArg& src, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.alltoall";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        if (count(src) % static_cast<size_t>(n) != 0) {
          fail(api, "src has " + std::to_string(count(src)) + " elements, not a block for each of the team's " +
                        std::to_string(n) + " members");
        }
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::alltoallmem(team, const_cast<void*>(dest.data()), src.data(), src.nbytes() / n, mode, api), api);
      },
      "dest"_a, "src"_a, nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD), nb::kw_only(),
      "stream"_a = nb::none(),
      "Block j of member i's src into block i of member j's dest (src and dest hold a block per member).");
  m.def(
      "reduce",
      [](const ArrayArg& dest, const ArrayArg& src, nb::handle op, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.reduce";
        const int team = team_arg(team_object, api);
        team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("dest", count(dest), count(src), "as many as src", api);
        const gshmem::ReduceOp o = reduce_operation(op, api);
        const gshmem::ReduceType t = reduce_type_of(src.dtype(), api);
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::reduce(team, t, o, const_cast<void*>(dest.data()), src.data(), count(src), mode, api), api);
      },
      "dest"_a, "src"_a, "op"_a = "sum", nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD),
      nb::kw_only(), "stream"_a = nb::none(),
      "src combined with op ('sum', 'prod', 'min', 'max', 'and', 'or', 'xor') over the team's members into every "
      "member's dest (collective; team: a gshmem.Team or a team number; stream: on that CUDA stream).");
  m.def(
      "reducescatter",
      [](const ArrayArg& dest, const ArrayArg& src, nb::handle op, TeamArg team_object, nb::handle stream) {
        const char* api = "gshmem.reducescatter";
        const int team = team_arg(team_object, api);
        const int n = team_size(team, api);
        collective_arrays(dest, src, api);
        require_count("src", count(src), count(dest) * n, "a block of dest's size for each member", api);
        const gshmem::ReduceOp o = reduce_operation(op, api);
        const gshmem::ReduceType t = reduce_type_of(src.dtype(), api);
        const host::Mode mode = collective_mode(stream, api);
        after_default_stream(mode, dest, src, api);
        nb::gil_scoped_release unlocked;
        check(host::reducescatter(team, t, o, const_cast<void*>(dest.data()), src.data(), count(dest), mode, api), api);
      },
      "dest"_a, "src"_a, "op"_a = "sum", nb::arg("team").sig("TEAM_WORLD") = static_cast<int>(GSHMEM_TEAM_WORLD),
      nb::kw_only(), "stream"_a = nb::none(), "Block i of the combination over the members into member i's dest.");
}
