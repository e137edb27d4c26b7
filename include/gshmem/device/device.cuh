// gshmem's native device API (header-only; no -rdc and no device library needed):
//
//   gshmem::dev::put<Scope>(dest, source, nelems, pe)   and get, put_nbi, get_nbi, putmem, getmem,
//                                                       iput, iget (strided)
//   gshmem::dev::p(dest, value, pe), g(source, pe)
//   gshmem::dev::put_signal<Scope>(...), signal_op, signal_fetch, signal_wait_until   (signal.cuh)
//   gshmem::dev::atomic_add(dest, value, pe), ... every AMO                            (atomic.cuh)
//   gshmem::dev::wait_until(ivar, cmp, value), test, and the _all/_any/_some forms     (wait.cuh)
//   gshmem::dev::quiet(), fence(), barrier_all<Scope>(), sync_all<Scope>(), global_exit(status)
//   gshmem::dev::my_pe(), n_pes(), ptr(ptr, pe)
//   gshmem::dev::team_my_pe(team), team_n_pes(team), team_translate_pe(...), team_barrier<Scope>(team),
//                                                       team_sync<Scope>(team)              (team.cuh)
//   gshmem::dev::broadcast<Scope>(team, ...), fcollect, alltoall and their *mem forms     (coll.cuh)
//   gshmem::dev::reduce<Scope, Op>(team, dest, src, n), reducescatter, maxloc_reduce      (reduce.cuh)
//   gshmem::dev::region_start<kBlock>(&handle, hints), region_stop, region_is_active      (region.cuh)
//   gshmem::dev::qp_put<Scope>(..., qp), every qp_ operation, qp_quiet, qp_fence            (qp.cuh)
//   gshmem::dev::ask_smem(amount), give_smem(smem, bytes), release_smem()                  (smem.cuh)
//   gshmem::dev::flush<Scope>(), putmem_signal_counted_nbi<kBlock>, signal_counted_*      (sync, signal.cuh)
//
// Scope is gshmem::Scope::kThread, kWarp, kWarpgroup or kBlock. The NVSHMEM names (nvshmem.h) forward here.
#pragma once

#include "gshmem/device/atomic.cuh"
#include "gshmem/device/coll.cuh"
#include "gshmem/device/copy.cuh"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/qp.cuh"
#include "gshmem/device/query.cuh"
#include "gshmem/device/reduce.cuh"
#include "gshmem/device/region.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/signal.cuh"
#include "gshmem/device/smem.cuh"
#include "gshmem/device/state.cuh"
#include "gshmem/device/sync.cuh"
#include "gshmem/device/team.cuh"
#include "gshmem/device/wait.cuh"
