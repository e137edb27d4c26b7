// Native device API: ordering (quiet, fence), the all-PE barrier and sync (those of NVSHMEM_TEAM_WORLD),
// and global_exit.
#pragma once

#if defined(__CUDACC__)
#include <cstdint>
#include <cstdio>

#include "gshmem/constants.h"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"
#include "gshmem/device/team.cuh"

namespace gshmem {
namespace dev {

// Completes and makes visible every put this thread issued (see ordering.cuh), and every copy handed
// to the copy engines before (ce.cuh).
__device__ __forceinline__ void quiet() { gshmem::detail::quiet_all(); }
// Orders this thread's puts to each PE. A copy still with the copy engines cannot be ordered with a
// later put but by completing it, so fence() is quiet().
__device__ __forceinline__ void fence() { gshmem::detail::quiet_all(); }

// The source buffers of every put the group's threads issued before may be reused when it returns (NVSHMEM
// 3.7's flush); unlike quiet(), their arrival at the targets is not promised. Collective over the group.
template <Scope S = Scope::kThread>
__device__ __forceinline__ void flush() {
  gshmem::detail::by_first_thread<S>([] { gshmem::detail::flush_all(); });
}

// Barrier over all PEs, with quiet first: when it returns, every PE has entered it and every put
// issued before it by any PE is visible. Collective: every PE calls it once per barrier, from one
// thread (kThread), one warp (kWarp) or one block (kBlock); a kernel that calls it needs all PEs'
// kernels to be running (launch it as a collective launch, or one block per GPU).
// It is the barrier of NVSHMEM_TEAM_WORLD (team.cuh): one flag store and one count with the team's
// barrier and the host's nvshmem_barrier_all.
template <Scope S = Scope::kThread>
__device__ __forceinline__ void barrier_all() {
  detail_team::barrier<S, true>(detail_team::member_slot(GSHMEM_TEAM_WORLD, "nvshmem_barrier_all"));
}

// nvshmem_sync_all: like barrier_all, but without completing earlier puts first; it orders only
// the PEs' arrival (and the memory accesses that arrival itself orders).
template <Scope S = Scope::kThread>
__device__ __forceinline__ void sync_all() {
  detail_team::barrier<S, false>(detail_team::member_slot(GSHMEM_TEAM_WORLD, "nvshmem_sync_all"));
}

// nvshmem_global_exit from a kernel: asks the host library to end every PE of the job with exit
// status `status`, then waits here for that to happen (the calling kernel never finishes). The
// first call on a PE wins; later calls only wait.
static __device__ __noinline__ void global_exit(int status) {
  const auto& st = gshmem::detail::state();
  int32_t* req = st.exit_request;
  if (req == nullptr) {
    printf("gshmem: nvshmem_global_exit(%d) was called from a kernel before the GPU was bound\n", status);
    __trap();
  }
  if (atomicCAS_system(reinterpret_cast<int*>(req + 1), 0, 1) == 0) {
    gshmem::detail::store_relaxed_sys(req, status);
    gshmem::detail::fence_sc_sys();
    gshmem::detail::store_relaxed_sys(req + 1, 2);
  }
  // The host ends the process; until then this thread sleeps. (The loop reads the request so that
  // the compiler sees an ordinary loop; nothing ever sets state 3.)
  while (gshmem::detail::load_relaxed_sys(req + 1) != 3) __nanosleep(1000000);
  __trap();
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
