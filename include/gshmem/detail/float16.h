// The 16-bit floats (half and bfloat16) as bits, and their conversions to and from float, for host
// and device code that must not depend on cuda_fp16.h (the CPU backend, the host library): widening is
// exact; narrowing rounds to nearest even (NaN stays NaN). The reductions and the float atomics use them.
#ifndef GSHMEM_DETAIL_FLOAT16_H_
#define GSHMEM_DETAIL_FLOAT16_H_

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define GSHMEMI_F16_FN __host__ __device__ __forceinline__
#else
#define GSHMEMI_F16_FN inline
#endif

namespace gshmem {
namespace detail {

// Storage of the 16-bit floats (the same bits as __half and __nv_bfloat16).
struct F16 {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};

template <class To, class From>
GSHMEMI_F16_FN To bit_cast_value(const From& f) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To t;
  memcpy(&t, &f, sizeof(To));
  return t;
}

GSHMEMI_F16_FN float widen(F16 h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
#else
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exp = (h.bits >> 10) & 0x1fu;
  const uint32_t mant = h.bits & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return bit_cast_value<float>(bit_cast_value<uint32_t>(v) | sign);
  }
  if (exp == 31) return bit_cast_value<float>(sign | 0x7f800000u | (mant << 13));
  return bit_cast_value<float>(sign | ((exp + 112) << 23) | (mant << 13));
#endif
}

GSHMEMI_F16_FN F16 narrow_f16(float f) {
#if defined(__CUDA_ARCH__)
  F16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
#else
  uint32_t x = bit_cast_value<uint32_t>(f);
  const uint32_t sign = x & 0x80000000u;
  x ^= sign;
  uint32_t o;
  if (x >= (143u << 23)) {  // |f| >= 65536 (or Inf/NaN): Inf, or a quiet NaN
    o = x > (255u << 23) ? 0x7e00u : 0x7c00u;
  } else if (x < (113u << 23)) {                            // below the smallest normal half: let float addition round
    const float magic = bit_cast_value<float>(126u << 23);  // 0.5: aligns bit 0 of the sum with 2^-24
    o = bit_cast_value<uint32_t>(bit_cast_value<float>(x) + magic) - (126u << 23);
  } else {  // normal: rebias, round to nearest even on bit 13
    const uint32_t odd = (x >> 13) & 1u;
    x += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;
    o = x >> 13;  // a carry into the exponent gives the next binade or Inf, as rounding should
  }
  return F16{static_cast<uint16_t>(o | (sign >> 16))};
#endif
}

GSHMEMI_F16_FN float widen(BF16 b) { return bit_cast_value<float>(static_cast<uint32_t>(b.bits) << 16); }

GSHMEMI_F16_FN BF16 narrow_bf16(float f) {
  uint32_t x = bit_cast_value<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return BF16{static_cast<uint16_t>((x >> 16) | 0x40u)};  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return BF16{static_cast<uint16_t>(x >> 16)};
}

// The float atomics' sum (AmoOp::kFloatAdd) on the bits of a half (2 bytes), float or double, rounded to
// nearest even. A half goes through float: one addition of two halves rounded twice (to float, then to
// half) equals the sum rounded once, float having more than twice half's precision plus two bits.
template <class W>
GSHMEMI_F16_FN W add_as_float(W a, W b) {
  static_assert(sizeof(W) == 2 || sizeof(W) == 4 || sizeof(W) == 8, "half, float or double bits");
  if constexpr (sizeof(W) == 2) {
    return narrow_f16(widen(F16{a}) + widen(F16{b})).bits;
  } else if constexpr (sizeof(W) == 4) {
    return bit_cast_value<W>(bit_cast_value<float>(a) + bit_cast_value<float>(b));
  } else {
    return bit_cast_value<W>(bit_cast_value<double>(a) + bit_cast_value<double>(b));
  }
}

}  // namespace detail
}  // namespace gshmem

#endif  // GSHMEM_DETAIL_FLOAT16_H_
