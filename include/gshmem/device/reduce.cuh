// Native device API: the reductions on any team, at every scope. The algorithms and the semantics
// of each operation are those of gshmem/detail/reduce_algo.h; here they get the device's memory
// operations (detail_coll::DeviceOps of coll.cuh): loads from the members' mapped heaps that bypass
// the SM's L1 (a peer's source changes between calls), stores into them, and the team's sync and barrier.
// On a team with members across the network the sources travel through the team's scratch instead
// (staged_reduce), in rounds of NVSHMEM_REDUCE_SCRATCH_SIZE / team size bytes per member.
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
#include <cstdio>

#include "gshmem/detail/reduce_algo.h"
#include "gshmem/device/coll.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/team.cuh"

namespace gshmem {
namespace dev {
namespace detail_reduce {

// nvshmemx_double2_maxloc_reduce_block: the larger .x with its .y; on equal .x the smaller .y.
struct Maxloc {
  using Acc = double2;
  static __device__ __forceinline__ double2 in(double2 v) { return v; }
  static __device__ __forceinline__ double2 out(double2 a) { return a; }
  static __device__ __forceinline__ double2 apply(double2 a, double2 b) {
    return (b.x > a.x || (b.x == a.x && b.y < a.y)) ? b : a;
  }
};

static __device__ __noinline__ void scratch_too_small(const char* api, int members, unsigned scratch, unsigned elem) {
  printf(
      "gshmem: %s from a kernel on a team of %d PEs with members across the network: each member's part of the "
      "reduction scratch (NVSHMEM_REDUCE_SCRATCH_SIZE = %u bytes, over %d members, in multiples of 16) holds no "
      "element of %u bytes; set NVSHMEM_REDUCE_SCRATCH_SIZE to at least %u\n",
      api, members, scratch, members, elem, static_cast<unsigned>(members) * (elem < 16 ? 16u : elem));
  __trap();
}

// Whether a reduction on `t` goes through the team's scratch (reduce_algo.h, staged_reduce): when some
// member is reached through the network. Ends the kernel with a message when the scratch cannot hold
// one element of `elem` bytes per member.
__device__ __forceinline__ bool staged(const gshmem::detail::TeamSlot& t, size_t elem, const char* api) {
  if (gshmem::detail::route::all_mapped(t)) return false;
  if (gshmem::detail::staged_elements(t, elem) == 0) {
    scratch_too_small(api, t.size, t.scratch_bytes, static_cast<unsigned>(elem));
  }
  return true;
}

}  // namespace detail_reduce

// dest[e] = op over the team's members of src[e], for e < nreduce, on every member.
template <Scope S, gshmem::detail::ReduceOp Op, class T>
__device__ __forceinline__ int reduce(int team, T* dest, const T* src, size_t nreduce) {
  detail_coll::DeviceOps<S> o{detail_team::member_slot(team, "nvshmem_reduce")};
  if (detail_reduce::staged(o.t, sizeof(T), "nvshmem_reduce")) {
    gshmem::detail::staged_reduce<gshmem::detail::Combiner<Op, T>>(o, o.t, dest, src, nreduce, false);
  } else {
    gshmem::detail::reduce<Op>(o, o.t, dest, src, nreduce);
  }
  return 0;
}

// This member's dest[e] = op over the members of src[my_index * nreduce + e], for e < nreduce.
template <Scope S, gshmem::detail::ReduceOp Op, class T>
__device__ __forceinline__ int reducescatter(int team, T* dest, const T* src, size_t nreduce) {
  detail_coll::DeviceOps<S> o{detail_team::member_slot(team, "nvshmem_reducescatter")};
  if (detail_reduce::staged(o.t, sizeof(T), "nvshmem_reducescatter")) {
    gshmem::detail::staged_reduce<gshmem::detail::Combiner<Op, T>>(o, o.t, dest, src, nreduce, true);
  } else {
    gshmem::detail::reducescatter<Op>(o, o.t, dest, src, nreduce);
  }
  return 0;
}

template <Scope S = Scope::kBlock>
__device__ __forceinline__ int maxloc_reduce(int team, double2* dest, const double2* src, size_t nreduce) {
  detail_coll::DeviceOps<S> o{detail_team::member_slot(team, "nvshmemx_double2_maxloc_reduce_block")};
  if (detail_reduce::staged(o.t, sizeof(double2), "nvshmemx_double2_maxloc_reduce_block")) {
    gshmem::detail::staged_reduce<detail_reduce::Maxloc>(o, o.t, dest, src, nreduce, false);
  } else {
    gshmem::detail::reduce_with<detail_reduce::Maxloc>(o, o.t, dest, src, nreduce);
  }
  return 0;
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
