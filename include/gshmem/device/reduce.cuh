// Native device API: the reductions on any team, at every scope. The algorithms and the semantics
// of each operation are those of gshmem/detail/reduce_algo.h; here they get the device's memory
// operations: loads from the members' mapped heaps that bypass the SM's L1 (a peer's source changes
// between calls), stores into them, and the team's sync and barrier.
//
// Contracts (NVSHMEM's): every member calls with the same count; `dest` and `src` are symmetric;
// reduce: dest == src is allowed (in place), other overlap is not; reducescatter: `src` holds
// nreduce * team size elements and must not overlap `dest`. On return this PE's `dest` holds the
// result and its `src` may be reused. Counts are in elements. Each returns 0.
//
// Types: the integer, float and double types as they are; the 16-bit floats as detail::F16 and
// detail::BF16 (the bits of __half and __nv_bfloat16: the NVSHMEM names cast their pointers).
#pragma once

#if defined(__CUDACC__)
#include <cstddef>

#include "gshmem/detail/reduce_algo.h"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/team.cuh"

namespace gshmem {
namespace dev {
namespace detail_reduce {

// A load of a peer's element through L2 only.
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  using gshmem::detail::bit_cast_value;
  if constexpr (sizeof(T) == 1) {
    return bit_cast_value<T>(__ldcg(reinterpret_cast<const unsigned char*>(p)));
  } else if constexpr (sizeof(T) == 2) {
    return bit_cast_value<T>(__ldcg(reinterpret_cast<const unsigned short*>(p)));
  } else if constexpr (sizeof(T) == 4) {
    return bit_cast_value<T>(__ldcg(reinterpret_cast<const unsigned int*>(p)));
  } else if constexpr (sizeof(T) == 8) {
    return bit_cast_value<T>(__ldcg(reinterpret_cast<const unsigned long long*>(p)));
  } else {
    static_assert(sizeof(T) == 16, "elements of 1, 2, 4, 8 or 16 bytes");
    return bit_cast_value<T>(__ldcg(reinterpret_cast<const uint4*>(p)));
  }
}

template <Scope S>
struct DeviceOps {
  const gshmem::detail::TeamSlot& t;
  template <class T>
  __device__ __forceinline__ T* peer(int i, T* p) const {
    return reinterpret_cast<T*>(peer_address(p, t.pe(i)));
  }
  template <class T>
  __device__ __forceinline__ T load(const T* p) const {
    return load_cg(p);
  }
  __device__ __forceinline__ int rank() const { return gshmem::detail::group_rank<S>(); }
  __device__ __forceinline__ int threads() const { return gshmem::detail::group_size<S>(); }
  __device__ __forceinline__ void sync() const { detail_team::barrier<S, false>(t); }
  __device__ __forceinline__ void barrier() const { detail_team::barrier<S, true>(t); }
};

// nvshmemx_double2_maxloc_reduce_block: the larger .x with its .y; on equal .x the smaller .y.
struct Maxloc {
  using Acc = double2;
  static __device__ __forceinline__ double2 in(double2 v) { return v; }
  static __device__ __forceinline__ double2 out(double2 a) { return a; }
  static __device__ __forceinline__ double2 apply(double2 a, double2 b) {
    return (b.x > a.x || (b.x == a.x && b.y < a.y)) ? b : a;
  }
};

}  // namespace detail_reduce

// dest[e] = op over the team's members of src[e], for e < nreduce, on every member.
template <Scope S, gshmem::detail::ReduceOp Op, class T>
__device__ __forceinline__ int reduce(int team, T* dest, const T* src, size_t nreduce) {
  detail_reduce::DeviceOps<S> o{detail_team::member_slot(team, "nvshmem_reduce")};
  gshmem::detail::reduce<Op>(o, o.t, dest, src, nreduce);
  return 0;
}

// This member's dest[e] = op over the members of src[my_index * nreduce + e], for e < nreduce.
template <Scope S, gshmem::detail::ReduceOp Op, class T>
__device__ __forceinline__ int reducescatter(int team, T* dest, const T* src, size_t nreduce) {
  detail_reduce::DeviceOps<S> o{detail_team::member_slot(team, "nvshmem_reducescatter")};
  gshmem::detail::reducescatter<Op>(o, o.t, dest, src, nreduce);
  return 0;
}

template <Scope S = Scope::kBlock>
__device__ __forceinline__ int maxloc_reduce(int team, double2* dest, const double2* src, size_t nreduce) {
  detail_reduce::DeviceOps<S> o{detail_team::member_slot(team, "nvshmemx_double2_maxloc_reduce_block")};
  gshmem::detail::reduce_with<detail_reduce::Maxloc>(o, o.t, dest, src, nreduce);
  return 0;
}

namespace detail_reduce {
template <Scope S>
struct ByValue {
  int team;
  bool scatter;
  void* dest;
  const void* src;
  size_t n;
  template <gshmem::detail::ReduceOp Op, class T>
  __device__ void run() {
    if (scatter) {
      reducescatter<S, Op>(team, static_cast<T*>(dest), static_cast<const T*>(src), n);
    } else {
      reduce<S, Op>(team, static_cast<T*>(dest), static_cast<const T*>(src), n);
    }
  }
};
}  // namespace detail_reduce

// The reduction of (type, op) given as values: what the library's collective kernel runs. False for
// a pair that has no reduction.
template <Scope S>
__device__ __forceinline__ bool reduce_by_value(int team, gshmem::detail::ReduceType type, gshmem::detail::ReduceOp op,
                                                bool scatter, void* dest, const void* src, size_t nreduce) {
  detail_reduce::ByValue<S> r{team, scatter, dest, src, nreduce};
  return gshmem::detail::reduce_dispatch(type, op, r);
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
