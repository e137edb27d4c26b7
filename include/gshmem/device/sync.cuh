// Native device API: ordering (quiet, fence), the all-PE barrier and sync, and global_exit.
#pragma once

#if defined(__CUDACC__)
#include <cstdint>
#include <cstdio>

#include "gshmem/detail/flag_barrier.h"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace dev {

// Completes and makes visible every put this thread issued (see ordering.cuh), and every copy handed
// to the copy engines before (ce.cuh).
__device__ __forceinline__ void quiet() { gshmem::detail::quiet_all(); }
// Orders this thread's puts to each PE. A copy still with the copy engines cannot be ordered with a
// later put but by completing it, so fence() is quiet().
__device__ __forceinline__ void fence() { gshmem::detail::quiet_all(); }

namespace detail_sync {

// The memory operations of detail::flag_barrier between all PEs, through their mapped heaps.
struct AllPesFlags {
  const gshmem::detail::DeviceState& st;
  __device__ __forceinline__ void arrive(int pe, uint64_t seq) const {
    if (gshmem::detail::net_peer(pe)) {
      gshmem::detail::net_flag(st.barrier_flags + st.mype, seq, pe);
      return;
    }
    uint64_t* slot = reinterpret_cast<uint64_t*>(peer_address(st.barrier_flags + st.mype, pe));
    gshmem::detail::store_release_sys(slot, seq);
  }
  __device__ __forceinline__ void wait(int pe, uint64_t seq) const {
    gshmem::detail::wait_at_least(st.barrier_flags + pe, seq);
  }
};

// The barrier of all PEs (detail/flag_barrier.h) from one thread, warp or block, whose threads
// share the peers between them. With `Quiet`, the PE's earlier puts are completed first (barrier);
// without, only arrival is synchronised (sync).
template <Scope S, bool Quiet>
__device__ __forceinline__ void all_pes(const gshmem::detail::DeviceState& st) {
  gshmem::detail::group_sync<S>();
  const int rank = gshmem::detail::group_rank<S>();
  const int size = gshmem::detail::group_size<S>();
  if (rank == 0) {
    if (Quiet) gshmem::detail::quiet_all();
    *st.barrier_seq += 1;
  }
  gshmem::detail::group_sync<S>();
  const uint64_t seq = *const_cast<volatile uint64_t*>(st.barrier_seq);
  AllPesFlags flags{st};
  gshmem::detail::flag_barrier(flags, st.mype, st.npes, seq, rank, size);
  gshmem::detail::group_sync<S>();
}

}  // namespace detail_sync

// Barrier over all PEs, with quiet first: when it returns, every PE has entered it and every put
// issued before it by any PE is visible. Collective: every PE calls it once per barrier, from one
// thread (kThread), one warp (kWarp) or one block (kBlock); a kernel that calls it needs all PEs'
// kernels to be running (launch it as a collective launch, or one block per GPU).
template <Scope S = Scope::kThread>
__device__ __forceinline__ void barrier_all() {
  detail_sync::all_pes<S, true>(gshmem::detail::state());
}

// nvshmem_sync_all: like barrier_all, but without completing earlier puts first; it orders only
// the PEs' arrival (and the memory accesses that arrival itself orders).
template <Scope S = Scope::kThread>
__device__ __forceinline__ void sync_all() {
  detail_sync::all_pes<S, false>(gshmem::detail::state());
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
