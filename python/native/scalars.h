// Python scalars as elements of an array's dtype, and back: what p, g, atomics, signals and waits exchange
// with the native host API (which takes a word's bits).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>

namespace gshmem {
namespace py {

// The bits of `value` stored as an element of `t` (int, uint, float, bfloat, bool of up to 8 bytes). An
// integer that does not fit the dtype, or a value of the wrong kind, raises gshmem.UsageError.
uint64_t to_bits(nanobind::handle value, nanobind::dlpack::dtype t, const char* api);
// The element of `t` held in `bits`, as a Python int, float or bool.
nanobind::object from_bits(uint64_t bits, nanobind::dlpack::dtype t);

}  // namespace py
}  // namespace gshmem
