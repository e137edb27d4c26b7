#include "scalars.h"

#include <cstring>
#include <string>

#include "arrays.h"
#include "gshmem/detail/float16.h"

namespace gshmem {
namespace py {

namespace nb = nanobind;
using nb::dlpack::dtype_code;

uint64_t to_bits(nb::handle value, nb::dlpack::dtype t, const char* api) {
  const int bits = t.bits;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Int: {
      int64_t v = 0;
      if (!nb::try_cast(value, v, true)) {
        fail(api, "the value must be an integer for an " + dtype_name(t) + " array");
      }
      if (bits < 64) {
        const int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
        if (v < lo || v > hi) fail(api, std::to_string(v) + " does not fit an " + dtype_name(t) + " element");
      }
      return bits < 64 ? static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1) : static_cast<uint64_t>(v);
    }
    case dtype_code::UInt: {
      uint64_t v = 0;
      if (!nb::try_cast(value, v, true)) {
        fail(api, "the value must be a non-negative integer that fits a " + dtype_name(t) + " element");
      }
      if (bits < 64 && v >> bits) fail(api, std::to_string(v) + " does not fit a " + dtype_name(t) + " element");
      return v;
    }
    case dtype_code::Float:
    case dtype_code::Bfloat: {
      double d = 0;
      if (!nb::try_cast(value, d, true)) fail(api, "the value must be a number for a " + dtype_name(t) + " array");
      if (bits == 64) {
        uint64_t b;
        std::memcpy(&b, &d, sizeof b);
        return b;
      }
      const float f = static_cast<float>(d);
      if (bits == 32) {
        uint32_t b;
        std::memcpy(&b, &f, sizeof b);
        return b;
      }
      if (t.code == static_cast<uint8_t>(dtype_code::Bfloat)) return detail::narrow_bf16(f).bits;
      return detail::narrow_f16(f).bits;
    }
    case dtype_code::Bool: {
      bool b = false;
      if (!nb::try_cast(value, b, true)) fail(api, "the value must be a bool for a bool array");
      return b ? 1 : 0;
    }
    default:
      fail(api, "arrays of " + dtype_name(t) + " take no scalar values");
  }
}

nb::object from_bits(uint64_t bits, nb::dlpack::dtype t) {
  const int n = t.bits;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Int: {
      int64_t v = static_cast<int64_t>(bits);
      if (n < 64) v = static_cast<int64_t>(bits << (64 - n)) >> (64 - n);  // sign-extend
      return nb::int_(v);
    }
    case dtype_code::UInt:
      return nb::int_(n < 64 ? bits & ((uint64_t{1} << n) - 1) : bits);
    case dtype_code::Float:
    case dtype_code::Bfloat: {
      if (n == 64) {
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return nb::float_(d);
      }
      if (n == 32) {
        const uint32_t b = static_cast<uint32_t>(bits);
        float f;
        std::memcpy(&f, &b, sizeof f);
        return nb::float_(f);
      }
      if (t.code == static_cast<uint8_t>(dtype_code::Bfloat)) {
        return nb::float_(detail::widen(detail::BF16{static_cast<uint16_t>(bits)}));
      }
      return nb::float_(detail::widen(detail::F16{static_cast<uint16_t>(bits)}));
    }
    case dtype_code::Bool:
      return nb::bool_((bits & 0xff) != 0);
    default:
      return nb::int_(bits);
  }
}

}  // namespace py
}  // namespace gshmem
