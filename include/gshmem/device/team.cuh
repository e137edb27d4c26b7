// Native device API: teams. A team id (nvshmem_team_t) made on the host works in any kernel: the
// kernel finds the team's slot in the device state (gshmem/detail/team.h).
//
// Contracts:
//  - team_my_pe / team_n_pes / team_translate_pe return -1 for an id that names no team.
//  - team_barrier<S> / team_sync<S>: every member calls once per barrier, from one thread, warp,
//    warpgroup or block (kThread, kWarp, kWarpgroup, kBlock); all threads of the group call with the
//    same team. barrier completes this PE's earlier puts first (quiet); sync does not. Collectives on
//    one team must not overlap (from different blocks, streams, or host and device at once).
//  - A collective on an id that names no team, or on a team this PE is not in, ends the kernel with a
//    message (a trap).
#pragma once

#if defined(__CUDACC__)
#include <cstdint>
#include <cstdio>

#include "gshmem/detail/flag_barrier.h"
#include "gshmem/detail/team.h"
#include "gshmem/device/ce.cuh"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace dev {

// The slot of `team`, or nullptr when the id names no team (or the GPU is not bound yet).
__device__ __forceinline__ const gshmem::detail::TeamSlot* team_slot(int team) {
  const auto& st = gshmem::detail::state();
  if (static_cast<unsigned>(team) >= static_cast<unsigned>(st.team_capacity)) return nullptr;
  const gshmem::detail::TeamSlot* s = st.teams + team;
  return s->size > 0 ? s : nullptr;
}

__device__ __forceinline__ int team_my_pe(int team) {
  const gshmem::detail::TeamSlot* s = team_slot(team);
  return s ? s->my_index : -1;
}
__device__ __forceinline__ int team_n_pes(int team) {
  const gshmem::detail::TeamSlot* s = team_slot(team);
  return s ? s->size : -1;
}
// The number in `dest_team` of member `src_pe` of `src_team`, or -1 (an invalid team or index, or a
// PE that is not in dest_team).
__device__ __forceinline__ int team_translate_pe(int src_team, int src_pe, int dest_team) {
  const gshmem::detail::TeamSlot* s = team_slot(src_team);
  const gshmem::detail::TeamSlot* d = team_slot(dest_team);
  if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
  return d->index_of(s->pe(src_pe));
}

namespace detail_team {

static __device__ __noinline__ void bad_team(int team, const char* api) {
  printf("gshmem: %s was called with team %d, which %s\n", api, team,
         static_cast<unsigned>(team) < static_cast<unsigned>(gshmem::detail::state().team_capacity)
             ? "names no team (never made, or destroyed), or this PE is not in it"
             : "is not a team id of this job");
  __trap();
}

// The slot of a team this PE is in; ends the kernel on any other id.
__device__ __forceinline__ const gshmem::detail::TeamSlot& member_slot(int team, const char* api) {
  const gshmem::detail::TeamSlot* s = team_slot(team);
  if (s == nullptr || s->my_index < 0) bad_team(team, api);
  return *s;
}

// The memory operations of detail::flag_barrier over a team's sync areas.
struct TeamFlags {
  const gshmem::detail::TeamSlot& t;
  char* heap;
  __device__ __forceinline__ void arrive(int i, uint64_t seq) const {
    char* slot = heap + t.sync_of[i] + static_cast<uint64_t>(t.my_index) * 8;
    gshmem::detail::route::flag(reinterpret_cast<uint64_t*>(slot), seq, t.pe(i));
  }
  __device__ __forceinline__ void wait(int i, uint64_t seq) const {
    gshmem::detail::wait_at_least(reinterpret_cast<const uint64_t*>(heap + t.sync) + i, seq);
  }
};

// The team's barrier (detail/flag_barrier.h) by a group whose threads share the members. With
// `Quiet`, the PE's earlier puts are completed first.
template <Scope S, bool Quiet>
__device__ __forceinline__ void barrier(const gshmem::detail::TeamSlot& t) {
  char* heap = gshmem::detail::state().heap_base;
  uint64_t* seq = reinterpret_cast<uint64_t*>(heap + t.sync + gshmem::detail::SyncLayout(t.size).seq);
  gshmem::detail::group_sync<S>();
  if (gshmem::detail::group_rank<S>() == 0) {
    if (Quiet) gshmem::detail::quiet_all();
    *seq += 1;
  }
  gshmem::detail::group_sync<S>();
  const uint64_t n = *const_cast<volatile uint64_t*>(seq);
  TeamFlags flags{t, heap};
  gshmem::detail::flag_barrier(flags, t.my_index, t.size, n, gshmem::detail::group_rank<S>(),
                               gshmem::detail::group_size<S>());
  gshmem::detail::group_sync<S>();
}

}  // namespace detail_team

// nvshmem_barrier(team): quiet, then wait until every member has arrived. Returns 0.
template <Scope S = Scope::kThread>
__device__ __forceinline__ int team_barrier(int team) {
  detail_team::barrier<S, true>(detail_team::member_slot(team, "nvshmem_barrier"));
  return 0;
}
// nvshmem_team_sync(team): wait until every member has arrived (no quiet). Returns 0.
template <Scope S = Scope::kThread>
__device__ __forceinline__ int team_sync(int team) {
  detail_team::barrier<S, false>(detail_team::member_slot(team, "nvshmem_team_sync"));
  return 0;
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
