// Memory-ordering primitives of the device API, at system scope because peers are other GPUs
// (and, through a host proxy, other hosts).
//
// Rules (tested by the ordering tests):
//  - quiet(): every put and store this thread issued before is complete and visible to every PE
//    before anything the thread issues after (fence.sc.sys).
//  - fence(): puts to one PE issued before are seen by that PE before puts issued after
//    (fence.sc.sys as well; a weaker fence is not enough for stores to two different peers'
//    addresses that a third party may observe).
//  - a barrier's flag store is a release at system scope, its wait an acquire at system scope.
#pragma once

#if defined(__CUDACC__)
#include <cstdint>

namespace gshmem {
namespace detail {

__device__ __forceinline__ void fence_sc_sys() { asm volatile("fence.sc.sys;" ::: "memory"); }

__device__ __forceinline__ void store_release_sys(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint64_t load_acquire_sys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ uint64_t load_relaxed_sys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Waits until *p >= target, polling with relaxed loads and a short sleep after a while so that
// the poll does not flood the link, then makes the value an acquire.
__device__ __forceinline__ void wait_at_least(const uint64_t* p, uint64_t target) {
  int spins = 0;
  while (load_relaxed_sys(p) < target) {
    if (++spins > 64) __nanosleep(64);
  }
  (void)load_acquire_sys(p);
}

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
