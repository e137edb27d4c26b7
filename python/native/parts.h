// The binding's functions by family, each defined in its own file and added to the module by module.cpp.
#pragma once

#include <nanobind/nanobind.h>

namespace gshmem {
namespace py {

// put, get, p, g, put_signal, signal_op, signal_fetch and the atomics (rma.cpp).
void def_rma(nanobind::module_& m);
// wait_until, test and their _any and _some forms (waits.cpp).
void def_waits(nanobind::module_& m);
// The team calls and the collectives on teams (collectives.cpp).
void def_collectives(nanobind::module_& m);

}  // namespace py
}  // namespace gshmem
