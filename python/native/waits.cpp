// gshmem._native: the waits on symmetric arrays.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "args.h"
#include "array_arg.h"
#include "arrays.h"
#include "gshmem/host.hpp"
#include "parts.h"
#include "scalars.h"

namespace gshmem {
namespace py {
namespace {

namespace host = gshmem::host;
using namespace nb::literals;

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

}  // namespace

void def_waits(nb::module_& m) {
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
}

}  // namespace py
}  // namespace gshmem
