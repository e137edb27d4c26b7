// Native device API: remote atomic memory operations.
//
//   gshmem::dev::atomic_add(dest, value, pe)            atomic_fetch_add, atomic_inc, atomic_fetch_inc (add: floats
//   too) gshmem::dev::atomic_fetch(dest, pe)                 atomic_set, atomic_swap, atomic_compare_swap
//   gshmem::dev::atomic_and(dest, value, pe)            atomic_or, atomic_xor and their fetch_ forms
//
// Contracts (NVSHMEM's):
//  - `dest` is a symmetric address of the calling PE; the operation applies to `pe`'s copy. Every
//    operation is atomic with respect to every other atomic on the same object from any PE and from
//    the host API, and to the wait and signal operations.
//  - Atomics are relaxed: they order nothing else. fence() orders them with later puts and atomics to
//    the same PE, quiet() completes them.
//  - T is 4 or 8 bytes (the standard, extended and bitwise AMO types of NVSHMEM), or __half; signed
//    arithmetic wraps as in two's complement. float, double and __half have fetch, set, swap and add
//    (NVSHMEM's extended types and its float atomics: the sum rounded to nearest even, as the GPU's
//    atomic float add rounds it); the native compare_swap would compare their bits.
//
// Each is one operation of route.cuh (route::amo): on a mapped peer one system-scope instruction on the
// peer's word, through the network proxy one request (a fetching one waits for its result).
#pragma once

#if defined(__CUDACC__)
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "gshmem/device/ordering.cuh"
#include "gshmem/device/rma.cuh"

namespace gshmem {
namespace dev {
namespace detail_amo {

// The unsigned word an AMO on T operates on.
template <class T>
using Word = std::conditional_t<sizeof(T) == 2, unsigned short,
                                std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>>;

template <class T>
__device__ __forceinline__ Word<T> bits(T v) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "atomics operate on 2-, 4- or 8-byte types");
  Word<T> w;
  __builtin_memcpy(&w, &v, sizeof w);
  return w;
}
template <class T>
__device__ __forceinline__ T value(Word<T> w) {
  T v;
  __builtin_memcpy(&v, &w, sizeof v);
  return v;
}
template <class T>
inline constexpr bool kArithmetic = std::is_integral_v<T>;
// The types whose add is a floating-point add (NVSHMEM's float atomics).
template <class T>
inline constexpr bool kFloat = std::is_floating_point_v<T> || std::is_same_v<T, __half>;
template <class T>
inline constexpr int32_t kAddOp = kFloat<T> ? gshmem::detail::kProxyAmoFloatAdd : gshmem::detail::kProxyAmoAdd;

// Operation Op on `pe`'s copy of `dest`, through its route; the old value when Fetch.
template <int32_t Op, bool Fetch, class T>
__device__ __forceinline__ T run(const T* dest, T operand, T compare, int pe) {
  return value<T>(
      gshmem::detail::route::amo<Op, Fetch>(reinterpret_cast<const Word<T>*>(dest), bits(operand), bits(compare), pe));
}

}  // namespace detail_amo

// The read-modify-writes of integer types: add, and, or, xor, each with a fetching form.
#define GSHMEMI_DEFINE_AMO(name, op)                                           \
  template <class T>                                                           \
  __device__ __forceinline__ T atomic_fetch_##name(T* dest, T value, int pe) { \
    static_assert(detail_amo::kArithmetic<T>, #name " needs an integer type"); \
    return detail_amo::run<gshmem::detail::op, true>(dest, value, T(), pe);    \
  }                                                                            \
  template <class T>                                                           \
  __device__ __forceinline__ void atomic_##name(T* dest, T value, int pe) {    \
    static_assert(detail_amo::kArithmetic<T>, #name " needs an integer type"); \
    detail_amo::run<gshmem::detail::op, false>(dest, value, T(), pe);          \
  }
GSHMEMI_DEFINE_AMO(and, kProxyAmoAnd)
GSHMEMI_DEFINE_AMO(or, kProxyAmoOr)
GSHMEMI_DEFINE_AMO(xor, kProxyAmoXor)
#undef GSHMEMI_DEFINE_AMO

// add and fetch_add: an integer's wraps; a float's, double's or half's is a floating-point add.
template <class T>
__device__ __forceinline__ T atomic_fetch_add(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T> || detail_amo::kFloat<T>, "add needs an integer or floating-point type");
  return detail_amo::run<detail_amo::kAddOp<T>, true>(dest, value, T(), pe);
}
template <class T>
__device__ __forceinline__ void atomic_add(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T> || detail_amo::kFloat<T>, "add needs an integer or floating-point type");
  detail_amo::run<detail_amo::kAddOp<T>, false>(dest, value, T(), pe);
}

template <class T>
__device__ __forceinline__ T atomic_fetch_inc(T* dest, int pe) {
  return atomic_fetch_add<T>(dest, T(1), pe);
}
template <class T>
__device__ __forceinline__ void atomic_inc(T* dest, int pe) {
  atomic_add<T>(dest, T(1), pe);
}

template <class T>
__device__ __forceinline__ T atomic_fetch(const T* dest, int pe) {
  return detail_amo::run<gshmem::detail::kProxyAmoLoad, true>(dest, T(), T(), pe);
}
template <class T>
__device__ __forceinline__ void atomic_set(T* dest, T value, int pe) {
  detail_amo::run<gshmem::detail::kProxyAmoStore, false>(dest, value, T(), pe);
}
template <class T>
__device__ __forceinline__ T atomic_swap(T* dest, T value, int pe) {
  return detail_amo::run<gshmem::detail::kProxyAmoSwap, true>(dest, value, T(), pe);
}
template <class T>
__device__ __forceinline__ T atomic_compare_swap(T* dest, T cond, T value, int pe) {
  return detail_amo::run<gshmem::detail::kProxyAmoCompareSwap, true>(dest, value, cond, pe);
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
