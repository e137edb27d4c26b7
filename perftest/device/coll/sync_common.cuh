// The device barrier and sync perftests, barrier_latency and sync_latency, written once for both.
//
// Each measures, at thread, warp and block scope (see coll_common.cuh), the latency of
//  - barrier_latency: nvshmem_barrier(NVSHMEM_TEAM_WORLD) / nvshmemx_barrier_{warp,block}, then
//    nvshmem_barrier_all / nvshmemx_barrier_all_{warp,block};
//  - sync_latency: nvshmem_team_sync(NVSHMEM_TEAM_WORLD) / nvshmemx_team_sync_{warp,block}, then
//    nvshmem_sync_all / nvshmemx_sync_all_{warp,block}.
// Output: one basic table per operation and scope, jobs "barrier_device" and "barrier_all_device"
// (or "sync_device" and "sync_all_device"), subjobs "thread", "warp", "block", one row whose size
// column is the number of threads of the CTA (1, 32, -t) and whose value is the latency in us. Any
// number of PEs, 1 included.
#pragma once

#include "coll_common.cuh"

namespace {

// One iteration = one call of the operation by every thread of the CTA. Barrier: barrier (true) or
// sync (false); All: the _all form (true) or the team form on `team` (false).
template <bool Barrier, bool All, int Scope>
__global__ void sync_kernel(nvshmem_team_t team, int iters, int *status) {
  for (int i = 0; i < iters; ++i) {
    if constexpr (All) {
      if constexpr (Barrier) {
        if constexpr (Scope == kScopeThread) {
          nvshmem_barrier_all();
        } else if constexpr (Scope == kScopeWarp) {
          nvshmemx_barrier_all_warp();
        } else {
          nvshmemx_barrier_all_block();
        }
      } else {
        if constexpr (Scope == kScopeThread) {
          nvshmem_sync_all();
        } else if constexpr (Scope == kScopeWarp) {
          nvshmemx_sync_all_warp();
        } else {
          nvshmemx_sync_all_block();
        }
      }
    } else {
      int rc = 0;
      if constexpr (Barrier) {
        if constexpr (Scope == kScopeThread) {
          rc = nvshmem_barrier(team);
        } else if constexpr (Scope == kScopeWarp) {
          rc = nvshmemx_barrier_warp(team);
        } else {
          rc = nvshmemx_barrier_block(team);
        }
      } else {
        if constexpr (Scope == kScopeThread) {
          rc = nvshmem_team_sync(team);
        } else if constexpr (Scope == kScopeWarp) {
          rc = nvshmemx_team_sync_warp(team);
        } else {
          rc = nvshmemx_team_sync_block(team);
        }
      }
      note_status(status, rc);
    }
  }
}

// One operation at one scope: measures and prints its table. Returns the PEs that found an error.
template <bool Barrier, bool All, int Scope>
int sync_scope(CollTest &t, const char *job) {
  if (!scope_selected(t.opts, Scope)) return 0;
  nvshmem_team_t team = NVSHMEM_TEAM_WORLD;
  const int threads = scope_threads(t, Scope);
  const double latency_us = time_iterations(t, [&](int iters) {
    void *args[] = {&team, &iters, &t.status};
    collective_launch(t, reinterpret_cast<const void *>(&sync_kernel<Barrier, All, Scope>), threads, args);
  });
  static const char *const kApis[2][2][3] = {
      {{"nvshmem_team_sync", "nvshmemx_team_sync_warp", "nvshmemx_team_sync_block"},
       {"nvshmem_sync_all", "nvshmemx_sync_all_warp", "nvshmemx_sync_all_block"}},
      {{"nvshmem_barrier", "nvshmemx_barrier_warp", "nvshmemx_barrier_block"},
       {"nvshmem_barrier_all", "nvshmemx_barrier_all_warp", "nvshmemx_barrier_all_block"}}};
  const char *what = kApis[Barrier ? 1 : 0][All ? 1 : 0][Scope];
  const int errors = total_errors(t, status_ok(t, what) ? 0 : 1);
  if (errors == 0) {
    const size_t size = static_cast<size_t>(threads);
    print_table_basic(job, scope_label(Scope), "latency", "us", '-', &size, &latency_us, 1);
  }
  return errors;
}

template <bool Barrier>
int sync_main(int argc, char **argv, const char *name) {
  CollTest t;
  coll_test_start(&t, argc, argv, name);
  const char *team_job = Barrier ? "barrier_device" : "sync_device";
  const char *all_job = Barrier ? "barrier_all_device" : "sync_all_device";
  int errors = 0;
  errors += sync_scope<Barrier, false, kScopeThread>(t, team_job);
  errors += sync_scope<Barrier, false, kScopeWarp>(t, team_job);
  errors += sync_scope<Barrier, false, kScopeBlock>(t, team_job);
  errors += sync_scope<Barrier, true, kScopeThread>(t, all_job);
  errors += sync_scope<Barrier, true, kScopeWarp>(t, all_job);
  errors += sync_scope<Barrier, true, kScopeBlock>(t, all_job);
  return coll_test_finish(&t, errors);
}

}  // namespace
