// Native device API: the collectives that move data (broadcast, fcollect, alltoall) on any team, at
// every scope. The algorithms are those of gshmem/detail/coll_algo.h; here they get the device's
// memory operations (DeviceOps, which the reductions of reduce.cuh use too): group copies into and
// loads from the members' mapped heaps, and the team's sync and barrier.
//
// Contracts (NVSHMEM's): every member calls with the same sizes (and root); `dest` and `src` are
// symmetric; every member's `dest` is ready to receive when any member calls; on return this PE's
// `dest` holds the result and its `src` may be reused. Counts are in elements of T (bytes for the
// *mem forms); root is an index in the team. Each returns 0.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "gshmem/detail/coll_algo.h"
#include "gshmem/device/copy.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/team.cuh"

namespace gshmem {
namespace dev {
namespace detail_coll {

#if defined(__clang__)
// clang's CUDA headers (which build the device library, devlib/) declare no __ldcg for plain words: the
// same load, ld.global.cg, written out.
__device__ __forceinline__ unsigned char ldcg_word(const unsigned char* p) {
  unsigned short v;
  asm volatile("ld.global.cg.u8 %0, [%1];" : "=h"(v) : "l"(p));
  return static_cast<unsigned char>(v);
}
__device__ __forceinline__ unsigned short ldcg_word(const unsigned short* p) {
  unsigned short v;
  asm volatile("ld.global.cg.u16 %0, [%1];" : "=h"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ unsigned int ldcg_word(const unsigned int* p) {
  unsigned int v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ unsigned long long ldcg_word(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ uint4 ldcg_word(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
#else
template <class W>
__device__ __forceinline__ W ldcg_word(const W* p) {
  return __ldcg(p);
}
#endif

// A load of a peer's element through L2 only (a peer's data changes between collectives).
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "elements of 1, 2, 4, 8 or 16 bytes");
  using Word = typename std::conditional<
      sizeof(T) == 1, unsigned char,
      typename std::conditional<sizeof(T) == 2, unsigned short,
                                typename std::conditional<sizeof(T) == 4, unsigned int,
                                                          typename std::conditional<sizeof(T) == 8, unsigned long long,
                                                                                    uint4>::type>::type>::type>::type;
  const Word w = ldcg_word(reinterpret_cast<const Word*>(p));
  T v;
  memcpy(&v, &w, sizeof v);
  return v;
}

// The memory operations of the collective algorithms (coll_algo.h, reduce_algo.h) for a group of
// scope S: copies into and loads from the members' mapped heaps, and the team's sync and barrier. A
// copy to a member across the network is one request of the group's first thread, completed by the
// barrier that follows every copy of the algorithms; such a team sends no flag-in-data packets (a
// packet must land as one store).
template <Scope S>
struct DeviceOps {
  const gshmem::detail::TeamSlot& t;
  __device__ __forceinline__ void put(int i, char* dest, const char* src, size_t bytes) const {
    gshmem::detail::route::copy<S, gshmem::detail::route::Dir::kPut, gshmem::detail::route::Done::kPosted>(
        dest, src, bytes, t.pe(i));
  }
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
  // The flag-in-data packets of detail/ll_algo.h: one 8-byte store each, polled with relaxed loads
  // (the data travels in the word that is polled, so no fence orders it).
  static constexpr bool kPackets = true;
  static constexpr bool kMessages = false;  // a team with a member across the network uses no packets
  __device__ __forceinline__ bool packets() const { return gshmem::detail::route::all_mapped(t); }
  __device__ __forceinline__ char* heap() const { return gshmem::detail::state().heap_base; }
  __device__ __forceinline__ void group_sync() const { gshmem::detail::group_sync<S>(); }
  __device__ __forceinline__ void ll_store(uint64_t* p, uint64_t word) const {
    gshmem::detail::store_relaxed_sys(p, word);
  }
  __device__ __forceinline__ uint64_t ll_wait(const uint64_t* p, uint64_t target, int) const {
    gshmem::detail::Backoff backoff;
    uint64_t w;
    while ((w = gshmem::detail::load_relaxed_sys(p)) < target) backoff.pause();
    return w;
  }
};

// The group's copies of the collective start after every thread of it has arrived (its source may
// have been written by other threads of the group just before).
template <Scope S>
__device__ __forceinline__ DeviceOps<S> ops(int team, const char* api) {
  const gshmem::detail::TeamSlot& t = detail_team::member_slot(team, api);
  gshmem::detail::group_sync<S>();
  return DeviceOps<S>{t};
}

}  // namespace detail_coll

template <Scope S = Scope::kThread>
__device__ __forceinline__ int broadcastmem(int team, void* dest, const void* src, size_t bytes, int root) {
  auto o = detail_coll::ops<S>(team, "nvshmem_broadcast");
  gshmem::detail::broadcast(o, o.t, static_cast<char*>(dest), static_cast<const char*>(src), bytes, root);
  return 0;
}
template <Scope S = Scope::kThread>
__device__ __forceinline__ int fcollectmem(int team, void* dest, const void* src, size_t bytes) {
  auto o = detail_coll::ops<S>(team, "nvshmem_fcollect");
  gshmem::detail::fcollect(o, o.t, static_cast<char*>(dest), static_cast<const char*>(src), bytes);
  return 0;
}
template <Scope S = Scope::kThread>
__device__ __forceinline__ int alltoallmem(int team, void* dest, const void* src, size_t bytes) {
  auto o = detail_coll::ops<S>(team, "nvshmem_alltoall");
  gshmem::detail::alltoall(o, o.t, static_cast<char*>(dest), static_cast<const char*>(src), bytes);
  return 0;
}

template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ int broadcast(int team, T* dest, const T* src, size_t nelems, int root) {
  return broadcastmem<S>(team, dest, src, nelems * sizeof(T), root);
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ int fcollect(int team, T* dest, const T* src, size_t nelems) {
  return fcollectmem<S>(team, dest, src, nelems * sizeof(T));
}
template <Scope S = Scope::kThread, class T>
__device__ __forceinline__ int alltoall(int team, T* dest, const T* src, size_t nelems) {
  return alltoallmem<S>(team, dest, src, nelems * sizeof(T));
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
