// gshmem's native device API (header-only; no -rdc and no device library needed):
//
//   gshmem::dev::put<Scope>(dest, source, nelems, pe)   and get, put_nbi, get_nbi, putmem, getmem
//   gshmem::dev::p(dest, value, pe), g(source, pe)
//   gshmem::dev::quiet(), fence(), barrier_all<Scope>()
//   gshmem::dev::my_pe(), n_pes(), team_my_pe(team), team_n_pes(team), ptr(ptr, pe)
//
// Scope is gshmem::Scope::kThread, kWarp or kBlock. The NVSHMEM names (nvshmem.h) forward here.
#pragma once

#include "gshmem/device/copy.cuh"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/query.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"
#include "gshmem/device/sync.cuh"
