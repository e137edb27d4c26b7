// Native device API: ordering (quiet, fence) and the all-PE barrier.
#pragma once

#if defined(__CUDACC__)
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace dev {

// Completes and makes visible every put this thread issued (see ordering.cuh).
__device__ __forceinline__ void quiet() { gshmem::detail::fence_sc_sys(); }
// Orders this thread's puts to each PE.
__device__ __forceinline__ void fence() { gshmem::detail::fence_sc_sys(); }

// Barrier over all PEs, with quiet first: when it returns, every PE has entered it and every put
// issued before it by any PE is visible. Collective: every PE calls it once per barrier, from one
// thread (kThread), one warp (kWarp) or one block (kBlock); a kernel that calls it needs all PEs'
// kernels to be running (launch it as a collective launch, or one block per GPU).
//
// Algorithm: each PE keeps a sequence number and writes it into its slot of every peer's flag
// array (a release), then waits until every peer's slot in its own array reached it (an acquire).
// The threads of a warp or block share the peers between them.
template <Scope S = Scope::kThread>
__device__ __forceinline__ void barrier_all() {
  const auto& st = gshmem::detail::state();
  gshmem::detail::group_sync<S>();
  const int rank = gshmem::detail::group_rank<S>();
  const int size = gshmem::detail::group_size<S>();
  if (rank == 0) {
    gshmem::detail::fence_sc_sys();
    *st.barrier_seq += 1;
  }
  gshmem::detail::group_sync<S>();
  const uint64_t seq = *const_cast<volatile uint64_t*>(st.barrier_seq);
  for (int pe = rank; pe < st.npes; pe += size) {
    if (pe == st.mype) continue;
    uint64_t* slot = reinterpret_cast<uint64_t*>(peer_address(st.barrier_flags + st.mype, pe));
    gshmem::detail::store_release_sys(slot, seq);
  }
  for (int pe = rank; pe < st.npes; pe += size) {
    if (pe == st.mype) continue;
    gshmem::detail::wait_at_least(st.barrier_flags + pe, seq);
  }
  gshmem::detail::group_sync<S>();
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
