// A team argument of the collectives: taken as given and read by team_arg() in the function's body, so that a
// wrong one gets the library's message (which team, what to pass) rather than nanobind's list of overloads, and
// so that the stubs name its type: an int (gshmem.Team is one).
#pragma once

#include <nanobind/nanobind.h>

namespace gshmem {
namespace py {

struct TeamArg {
  nanobind::handle object;
};

}  // namespace py
}  // namespace gshmem

namespace nanobind {
namespace detail {

template <>
struct type_caster<gshmem::py::TeamArg> {
  NB_TYPE_CASTER(gshmem::py::TeamArg, const_name("int"))

  template <typename Flags>
  bool from_python(handle src, Flags, cleanup_list*) noexcept {
    value.object = src;
    return true;
  }

  static handle from_cpp(const gshmem::py::TeamArg&, rv_policy, cleanup_list*) noexcept { return handle(); }
};

}  // namespace detail
}  // namespace nanobind
