// An array argument of the binding's functions: imported as nanobind imports any array (DLPack, the buffer
// protocol), except a torch.Tensor, which is exported through torch's C function to_dlpack instead of its
// Python method __dlpack__. The method costs about 0.6 us per array (torch 1.13, CPU; more for CUDA tensors,
// where it also orders streams in Python), a third of a put's whole cost with torch tensors; the binding orders
// its work itself (a call not on a stream first waits for CUDA's default stream; a call on a stream is in order
// on it), so the method's stream handling adds nothing. A tensor that torch's exporter refuses takes the usual
// path, with torch's message.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "arrays.h"

namespace gshmem {
namespace py {

struct ArrayArg : ConstArray {};  // is the array it imported, so that it passes wherever a ConstArray does

// torch.utils.dlpack.to_dlpack where `o` is exactly a torch.Tensor (looked up once torch is seen), else null.
nb::handle torch_exporter(nb::handle o) noexcept;

}  // namespace py
}  // namespace gshmem

namespace nanobind {
namespace detail {

template <>
struct type_caster<gshmem::py::ArrayArg> {
  NB_TYPE_CASTER(gshmem::py::ArrayArg, make_caster<gshmem::py::ConstArray>::Name)

  // The flags' type differs between nanobind 2 and 3: taken as given.
  template <typename Flags>
  bool from_python(handle src, Flags flags, cleanup_list* cleanup) noexcept {
    object capsule;
    handle what = src;
    if (handle to_dlpack = gshmem::py::torch_exporter(src)) {
      PyObject* c = PyObject_CallFunctionObjArgs(to_dlpack.ptr(), src.ptr(), nullptr);  // Python 3.8 too
      if (c != nullptr) {
        capsule = steal(c);
        what = capsule;
      } else {
        PyErr_Clear();
      }
    }
    make_caster<gshmem::py::ConstArray> inner;
    if (!inner.from_python(what, flags, cleanup)) return false;
    static_cast<gshmem::py::ConstArray&>(value) = std::move(inner.value);
    return true;
  }

  static handle from_cpp(const gshmem::py::ArrayArg&, rv_policy, cleanup_list*) noexcept { return handle(); }
};

}  // namespace detail
}  // namespace nanobind
