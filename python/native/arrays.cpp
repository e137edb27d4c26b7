#include "arrays.h"

#include <cstring>

#include "gshmem/error.hpp"

namespace gshmem {
namespace py {

namespace {

// Whether u lies in one of `ranges` (base -> bytes; an empty allocation covers its base).
bool in_ranges(const std::map<uintptr_t, size_t>& ranges, uintptr_t u) {
  auto it = ranges.upper_bound(u);
  if (it == ranges.begin()) return false;
  --it;
  return u < it->first + (it->second ? it->second : 1);
}

// Forgets the ranges that start inside [base, base + bytes).
void erase_from(std::map<uintptr_t, size_t>* ranges, uintptr_t base, size_t bytes) {
  for (auto it = ranges->lower_bound(base); it != ranges->end() && it->first < base + (bytes ? bytes : 1);) {
    it = ranges->erase(it);
  }
}

}  // namespace

Registry& Registry::instance() {
  static Registry* r = new Registry();  // never destroyed: arrays may outlive the module's teardown
  return *r;
}

std::shared_ptr<Allocation> Registry::add(void* base, size_t bytes) {
  auto a = std::make_shared<Allocation>();
  a->base = reinterpret_cast<uintptr_t>(base);
  a->bytes = bytes;
  // A new allocation over freed memory (or an earlier session's): the old arrays there are no longer told
  // apart from this one's.
  erase_from(&freed_, a->base, bytes);
  erase_from(&ended_, a->base, bytes);
  live_[a->base] = a;
  return a;
}

Allocation* Registry::find(const void* p, size_t bytes) const {
  const uintptr_t u = reinterpret_cast<uintptr_t>(p);
  auto it = live_.upper_bound(u);
  if (it == live_.begin()) return nullptr;
  --it;
  Allocation* a = it->second.get();
  // An empty view at the allocation's end (bytes == 0) still names it.
  if (u < a->base || u - a->base > a->bytes || bytes > a->bytes - (u - a->base)) return nullptr;
  return a;
}

bool Registry::was_freed(const void* p) const { return in_ranges(freed_, reinterpret_cast<uintptr_t>(p)); }

bool Registry::of_ended_session(const void* p) const { return in_ranges(ended_, reinterpret_cast<uintptr_t>(p)); }

bool Registry::release(void* base) {
  auto it = live_.find(reinterpret_cast<uintptr_t>(base));
  if (it == live_.end()) return false;
  it->second->live = false;
  freed_[it->first] = it->second->bytes;
  live_.erase(it);
  return true;
}

void Registry::end_session() {
  for (auto& kv : live_) {
    kv.second->live = false;
    ended_[kv.first] = kv.second->bytes;
  }
  for (auto& kv : freed_) ended_[kv.first] = kv.second;
  live_.clear();
  freed_.clear();
}

void fail(const char* api, const std::string& message) { throw UsageError(std::string(api) + ": " + message); }

size_t count(const ConstArray& a) {
  size_t n = 1;
  for (size_t i = 0; i < a.ndim(); ++i) n *= a.shape(i);
  return n;
}

void require_contiguous(const ConstArray& a, const char* what, const char* api) {
  int64_t expected = 1;
  for (size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) > 1 && a.stride(i) != expected) {  // a dimension of 0 or 1 element has no stride to keep
      fail(api, std::string("the ") + what +
                    " array is not contiguous (C order): pass a contiguous array (numpy.ascontiguousarray, "
                    "tensor.contiguous()) or a 1-D strided view");
    }
    expected *= static_cast<int64_t>(a.shape(i));
  }
}

void* require_symmetric(const ConstArray& a, const char* what, const char* api) {
  void* p = const_cast<void*>(a.data());
  const size_t bytes = a.nbytes();
  if (Registry::instance().find(p, bytes)) return p;
  if (Registry::instance().was_freed(p)) {
    fail(api, std::string("the ") + what + " array was freed by gshmem.free and can no longer be used");
  }
  if (Registry::instance().of_ended_session(p)) {
    fail(api, std::string("the ") + what +
                  " array belongs to an earlier session (before gshmem.finalize), whose heap is gone: make a new "
                  "one in this session");
  }
  fail(api, std::string("the ") + what +
                " array is not a symmetric array: make it with gshmem.empty, zeros or full (on every PE alike)");
}

std::string dtype_name(nb::dlpack::dtype t) {
  using nb::dlpack::dtype_code;
  std::string base;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Int:
      base = "int";
      break;
    case dtype_code::UInt:
      base = "uint";
      break;
    case dtype_code::Float:
      base = "float";
      break;
    case dtype_code::Bfloat:
      base = "bfloat";
      break;
    case dtype_code::Complex:
      base = "complex";
      break;
    case dtype_code::Bool:
      return "bool";
    default:
      base = "dtype" + std::to_string(t.code) + "_";
  }
  std::string s = base + std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

void require_same_dtype(const ConstArray& a, const char* an, const ConstArray& b, const char* bn, const char* api) {
  const auto x = a.dtype(), y = b.dtype();
  if (x.code != y.code || x.bits != y.bits || x.lanes != y.lanes) {
    fail(api, std::string("the ") + an + " array is " + dtype_name(x) + " but the " + bn + " array is " +
                  dtype_name(y) + ": pass arrays of one dtype");
  }
}

void* element(const ConstArray& a, size_t index, const char* what, const char* api) {
  const size_t n = count(a);
  if (index >= n) {
    fail(api, std::string("index ") + std::to_string(index) + " is outside the " + what + " array of " +
                  std::to_string(n) + " elements");
  }
  int64_t offset = 0;
  for (size_t i = a.ndim(); i-- > 0;) {
    offset += static_cast<int64_t>(index % a.shape(i)) * a.stride(i);
    index /= a.shape(i);
  }
  return static_cast<char*>(const_cast<void*>(a.data())) + offset * static_cast<int64_t>(a.itemsize());
}

}  // namespace py
}  // namespace gshmem

namespace gshmem {
namespace py {

nb::handle torch_exporter(nb::handle o) noexcept {
  static PyTypeObject* tensor_type = nullptr;
  static PyObject* to_dlpack = nullptr;
  static bool looked = false;
  PyTypeObject* type = Py_TYPE(o.ptr());
  if (tensor_type != nullptr) return type == tensor_type ? nb::handle(to_dlpack) : nb::handle();
  if (looked || std::strcmp(type->tp_name, "Tensor") != 0) return nb::handle();
  looked = true;  // torch is imported (one of its tensors is here): find its type and exporter, once
  PyObject* dlpack = PyImport_ImportModule("torch.utils.dlpack");
  PyObject* torch = dlpack != nullptr ? PyImport_ImportModule("torch") : nullptr;
  PyObject* tensor = torch != nullptr ? PyObject_GetAttrString(torch, "Tensor") : nullptr;
  PyObject* fn = dlpack != nullptr ? PyObject_GetAttrString(dlpack, "to_dlpack") : nullptr;
  if (tensor != nullptr && fn != nullptr && PyType_Check(tensor)) {
    tensor_type = reinterpret_cast<PyTypeObject*>(tensor);  // kept for the process's life, as torch is
    to_dlpack = fn;
  } else {
    Py_XDECREF(tensor);
    Py_XDECREF(fn);
    PyErr_Clear();
  }
  Py_XDECREF(torch);
  Py_XDECREF(dlpack);
  return type == tensor_type && tensor_type != nullptr ? nb::handle(to_dlpack) : nb::handle();
}

}  // namespace py
}  // namespace gshmem
