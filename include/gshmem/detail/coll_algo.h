// The data-moving collectives, written once for kernels (every scope; the host and on-stream forms
// of the GPU backend run them in the library's kernels) and for the CPU backend's host code.
//
// Each is "push, then barrier": the calling PE stores its contribution straight into every member's
// copy of `dest` (a symmetric address), then the team's barrier (quiet, then flag_barrier) makes every
// member's stores visible before anyone returns. Small fcollects and alltoalls send flag-in-data
// packets instead, with no barrier (ll_algo.h), where the operations have them. NVSHMEM's contract makes that safe:
// when a member calls the collective, every member's `dest` is ready to receive (the program ensures it, e.g. by a
// barrier since it last read it). Members start with the next member and end with themselves, so
// that the PEs do not all write to the same peer at once.
//
// The caller provides
//   ops.put(i, dest, src, bytes)  copy `bytes` from local `src` to member i's copy of symmetric `dest`
//                                 (all threads of the cooperating group call it together)
//   ops.barrier()                 the team's barrier with quiet
//   Ops::kPackets, ops.packets()  whether the packet exchanges of ll_algo.h may be used (and what
//                                 they need beyond these)
// Sizes are in bytes; team indices (root) are in team numbering.
#ifndef GSHMEM_DETAIL_COLL_ALGO_H_
#define GSHMEM_DETAIL_COLL_ALGO_H_

#include <stddef.h>
#include <stdint.h>

#include "gshmem/detail/ll_algo.h"
#include "gshmem/detail/team.h"

#if defined(__CUDACC__)
#define GSHMEMI_COLL_FN __host__ __device__ __forceinline__
#else
#define GSHMEMI_COLL_FN inline
#endif

namespace gshmem {
namespace detail {

// The collectives, as the host library and its kernels name them.
enum class CollOp : int32_t { kBarrier = 0, kSync, kBroadcast, kFcollect, kAlltoall, kReduce, kReducescatter };

// Every member's `dest` receives `bytes` from the root's `src` (the root's own too, unless dest is src).
template <class Ops>
GSHMEMI_COLL_FN void broadcast(Ops& ops, const TeamSlot& t, char* dest, const char* src, size_t bytes, int root) {
  if (t.my_index == root && bytes > 0) {
    for (int k = 1; k <= t.size; ++k) {
      const int i = (t.my_index + k) % t.size;
      if (i == t.my_index && dest == src) continue;
      ops.put(i, dest, src, bytes);
    }
  }
  ops.barrier();
}

// Member k's `src` lands at dest + k * bytes on every member.
template <class Ops>
GSHMEMI_COLL_FN void fcollect(Ops& ops, const TeamSlot& t, char* dest, const char* src, size_t bytes) {
  if constexpr (Ops::kPackets) {
    if (ops.packets() && use_ll(t, bytes)) return ll_fcollect(ops, t, dest, src, bytes);
  }
  char* mine = dest + static_cast<size_t>(t.my_index) * bytes;
  if (bytes > 0) {
    for (int k = 1; k <= t.size; ++k) {
      const int i = (t.my_index + k) % t.size;
      if (i == t.my_index && mine == src) continue;
      ops.put(i, mine, src, bytes);
    }
  }
  ops.barrier();
}

// Block j of member i's `src` lands as block i of member j's `dest` (blocks of `bytes`).
template <class Ops>
GSHMEMI_COLL_FN void alltoall(Ops& ops, const TeamSlot& t, char* dest, const char* src, size_t bytes) {
  if constexpr (Ops::kPackets) {
    if (ops.packets() && use_ll(t, bytes)) return ll_alltoall(ops, t, dest, src, bytes);
  }
  char* mine = dest + static_cast<size_t>(t.my_index) * bytes;
  if (bytes > 0) {
    for (int k = 1; k <= t.size; ++k) {
      const int i = (t.my_index + k) % t.size;
      const char* block = src + static_cast<size_t>(i) * bytes;
      if (i == t.my_index && mine == block) continue;
      ops.put(i, mine, block, bytes);
    }
  }
  ops.barrier();
}

}  // namespace detail
}  // namespace gshmem

#undef GSHMEMI_COLL_FN

#endif  // GSHMEM_DETAIL_COLL_ALGO_H_
