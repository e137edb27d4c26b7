#include "args.h"

#include <nanobind/stl/string.h>

#include <cstring>
#include <string>

namespace gshmem {
namespace py {

namespace host = gshmem::host;

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

namespace {

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

}  // namespace

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
void require_count(const char* what, size_t got, size_t want, const std::string& why, const char* api) {
  if (got != want) {
    fail(api, std::string(what) + " has " + std::to_string(got) + " elements but must have " + std::to_string(want) +
                  " (" + why + ")");
  }
}

}  // namespace py
}  // namespace gshmem
