// gshmem._native: the Python binding of the native host API (gshmem/host.hpp). Arrays of any framework
// come in through DLPack or the buffer protocol (nanobind's ndarray); symmetric arrays go out as the
// framework's own type over the heap, without a copy. Every check that can fail raises gshmem.UsageError
// (a ValueError) with the library's message; a failed collective or team call raises gshmem.Error.
// The pure-Python layer (gshmem/__init__.py) adds launch detection, dtypes by name and the Team class.
// This file holds the module's set-up, the lifecycle, the symmetric arrays and the all-PE barriers; the other
// families are in their own files (parts.h), the arguments they share in args.h.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <vector>

#include "args.h"
#include "array_arg.h"
#include "arrays.h"
#include "bindings.h"
#include "gshmem/error.hpp"
#include "gshmem/host.hpp"
#include "gshmem/version.h"
#include "parts.h"
#include "scalars.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace gshmem {
namespace py {
namespace {

namespace host = gshmem::host;

PyObject* g_error = nullptr;        // gshmem.Error (RuntimeError)
PyObject* g_usage_error = nullptr;  // gshmem.UsageError (gshmem.Error and ValueError)

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

  def_rma(m);
  def_waits(m);

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

  def_collectives(m);
}
