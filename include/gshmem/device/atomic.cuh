// Native device API: remote atomic memory operations.
//
//   gshmem::dev::atomic_add(dest, value, pe)            atomic_fetch_add, atomic_inc, atomic_fetch_inc
//   gshmem::dev::atomic_fetch(dest, pe)                 atomic_set, atomic_swap, atomic_compare_swap
//   gshmem::dev::atomic_and(dest, value, pe)            atomic_or, atomic_xor and their fetch_ forms
//
// Contracts (NVSHMEM's):
//  - `dest` is a symmetric address of the calling PE; the operation applies to `pe`'s copy. Every
//    operation is atomic with respect to every other atomic on the same object from any PE and from
//    the host API, and to the wait and signal operations.
//  - Atomics are relaxed: they order nothing else. fence() orders them with later puts and atomics to
//    the same PE, quiet() completes them.
//  - T is 4 or 8 bytes (the standard, extended and bitwise AMO types of NVSHMEM); signed arithmetic
//    wraps as in two's complement. float and double (the extended types) have only fetch, set and
//    swap, as in NVSHMEM; the native compare_swap would compare their bits.
//
// Through the network proxy (net.cuh), an operation is one request; a fetching one waits for its result.
// On a load/store peer each operation is one system-scope instruction on the peer's mapped word:
// red.relaxed.sys (no result: the thread does not wait for the reply) or atom.sys (with result)
// for the read-modify-writes, ld.relaxed.sys for fetch and st.relaxed.sys for set.
#pragma once

#if defined(__CUDACC__)
#include <cstdint>
#include <type_traits>

#include "gshmem/device/ordering.cuh"
#include "gshmem/device/rma.cuh"

namespace gshmem {
namespace dev {
namespace detail_amo {

// The unsigned word an AMO on T operates on.
template <class T>
using Word = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

template <class T>
__device__ __forceinline__ Word<T> bits(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics operate on 4- or 8-byte types");
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
// `pe`'s copy of the word at `dest`.
template <class T>
__device__ __forceinline__ Word<T>* target(const T* dest, int pe) {
  detail_rma::check(dest, sizeof(T), pe);
  return reinterpret_cast<Word<T>*>(peer_address(dest, pe));
}
template <class T>
inline constexpr bool kArithmetic = std::is_integral_v<T>;

// The operation through the network proxy (a PE this GPU does not map): its result when `fetch`.
template <class T>
__device__ __forceinline__ T net(int32_t op, const T* dest, T operand, T compare, bool fetch, int pe) {
  detail_rma::check(dest, sizeof(T), pe);
  const uint64_t old = gshmem::detail::net_amo(op, gshmem::detail::heap_offset(dest), sizeof(T), bits(operand),
                                               bits(compare), fetch, pe);
  return value<T>(static_cast<Word<T>>(old));
}

}  // namespace detail_amo

template <class T>
__device__ __forceinline__ T atomic_fetch_add(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "add needs an integer type");
  if (gshmem::detail::net_peer(pe)) return detail_amo::net<T>(gshmem::detail::kNetAmoAdd, dest, value, T(), true, pe);
  return detail_amo::value<T>(atomicAdd_system(detail_amo::target(dest, pe), detail_amo::bits(value)));
}
template <class T>
__device__ __forceinline__ void atomic_add(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "add needs an integer type");
  if (gshmem::detail::net_peer(pe)) {
    detail_amo::net<T>(gshmem::detail::kNetAmoAdd, dest, value, T(), false, pe);
    return;
  }
  gshmem::detail::red_relaxed_sys<gshmem::detail::RedOp::kAdd>(detail_amo::target(dest, pe), detail_amo::bits(value));
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
  if (gshmem::detail::net_peer(pe)) return detail_amo::net<T>(gshmem::detail::kNetAmoLoad, dest, T(), T(), true, pe);
  return detail_amo::value<T>(gshmem::detail::load_relaxed_sys(detail_amo::target(dest, pe)));
}
template <class T>
__device__ __forceinline__ void atomic_set(T* dest, T value, int pe) {
  if (gshmem::detail::net_peer(pe)) {
    detail_amo::net<T>(gshmem::detail::kNetAmoStore, dest, value, T(), false, pe);
    return;
  }
  gshmem::detail::store_relaxed_sys(detail_amo::target(dest, pe), detail_amo::bits(value));
}
template <class T>
__device__ __forceinline__ T atomic_swap(T* dest, T value, int pe) {
  if (gshmem::detail::net_peer(pe)) return detail_amo::net<T>(gshmem::detail::kNetAmoSwap, dest, value, T(), true, pe);
  return detail_amo::value<T>(atomicExch_system(detail_amo::target(dest, pe), detail_amo::bits(value)));
}
template <class T>
__device__ __forceinline__ T atomic_compare_swap(T* dest, T cond, T value, int pe) {
  if (gshmem::detail::net_peer(pe))
    return detail_amo::net<T>(gshmem::detail::kNetAmoCompareSwap, dest, value, cond, true, pe);
  return detail_amo::value<T>(
      atomicCAS_system(detail_amo::target(dest, pe), detail_amo::bits(cond), detail_amo::bits(value)));
}

template <class T>
__device__ __forceinline__ T atomic_fetch_and(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "and needs an integer type");
  if (gshmem::detail::net_peer(pe)) return detail_amo::net<T>(gshmem::detail::kNetAmoAnd, dest, value, T(), true, pe);
  return detail_amo::value<T>(atomicAnd_system(detail_amo::target(dest, pe), detail_amo::bits(value)));
}
template <class T>
__device__ __forceinline__ void atomic_and(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "and needs an integer type");
  if (gshmem::detail::net_peer(pe)) {
    detail_amo::net<T>(gshmem::detail::kNetAmoAnd, dest, value, T(), false, pe);
    return;
  }
  gshmem::detail::red_relaxed_sys<gshmem::detail::RedOp::kAnd>(detail_amo::target(dest, pe), detail_amo::bits(value));
}
template <class T>
__device__ __forceinline__ T atomic_fetch_or(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "or needs an integer type");
  if (gshmem::detail::net_peer(pe)) return detail_amo::net<T>(gshmem::detail::kNetAmoOr, dest, value, T(), true, pe);
  return detail_amo::value<T>(atomicOr_system(detail_amo::target(dest, pe), detail_amo::bits(value)));
}
template <class T>
__device__ __forceinline__ void atomic_or(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "or needs an integer type");
  if (gshmem::detail::net_peer(pe)) {
    detail_amo::net<T>(gshmem::detail::kNetAmoOr, dest, value, T(), false, pe);
    return;
  }
  gshmem::detail::red_relaxed_sys<gshmem::detail::RedOp::kOr>(detail_amo::target(dest, pe), detail_amo::bits(value));
}
template <class T>
__device__ __forceinline__ T atomic_fetch_xor(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "xor needs an integer type");
  if (gshmem::detail::net_peer(pe)) return detail_amo::net<T>(gshmem::detail::kNetAmoXor, dest, value, T(), true, pe);
  return detail_amo::value<T>(atomicXor_system(detail_amo::target(dest, pe), detail_amo::bits(value)));
}
template <class T>
__device__ __forceinline__ void atomic_xor(T* dest, T value, int pe) {
  static_assert(detail_amo::kArithmetic<T>, "xor needs an integer type");
  if (gshmem::detail::net_peer(pe)) {
    detail_amo::net<T>(gshmem::detail::kNetAmoXor, dest, value, T(), false, pe);
    return;
  }
  gshmem::detail::red_relaxed_sys<gshmem::detail::RedOp::kXor>(detail_amo::target(dest, pe), detail_amo::bits(value));
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
