// The device collectives that move data, bcast_latency, fcollect_latency and alltoall_latency,
// written once for the three.
//
// Each measures, for 32-bit (int32) and 64-bit (int64) elements and at thread, warp and block scope
// (see coll_common.cuh), the latency of one operation on NVSHMEM_TEAM_WORLD:
//  - bcast_latency:    nvshmem_<T>_broadcast / nvshmemx_<T>_broadcast_{warp,block}, root PE 0;
//  - fcollect_latency: nvshmem_<T>_fcollect / nvshmemx_<T>_fcollect_{warp,block};
//  - alltoall_latency: nvshmem_<T>_alltoall / nvshmemx_<T>_alltoall_{warp,block}.
// The sizes -b, -b*f, ... -e are bytes per PE: nelems = size / sizeof(T) (sizes below one element
// are skipped); thread and warp scope stop at kSmallScopeMaxBytes. Source and destination are
// symmetric; an alltoall's source holds nelems elements for each PE.
// Output: one v1 table per type and scope, job "bcast_device" / "fcollect_device" /
// "alltoall_device", type "32-bit" or "64-bit", scope "thread", "warp" or "block". Its size column is
// NVSHMEM's collective size: nelems * sizeof(T), times the number of PEs for fcollect and alltoall;
// count = size / sizeof(T); busbw = algbw * 1 (broadcast) or (npes-1)/npes (fcollect, alltoall).
// Each table's data of its largest size is checked on every PE (a broadcast's root excepted), and
// every status the operations return must be 0. Any number of PEs, 1 included.
#pragma once

#include "coll_common.cuh"

namespace {

enum CollKind { kBcast, kFcollect, kAlltoall };

// The typed operation of kind Kind at scope Scope, for the two element types measured.
#define PERFTEST_DATA_COLL_CALL(T, NAME)                                                                          \
  template <int Kind, int Scope>                                                                                  \
  __device__ __forceinline__ int coll_call(nvshmem_team_t team, T *dest, const T *src, size_t nelems, int root) { \
    if constexpr (Kind == kBcast) {                                                                               \
      if constexpr (Scope == kScopeThread) {                                                                      \
        return nvshmem_##NAME##_broadcast(team, dest, src, nelems, root);                                         \
      } else if constexpr (Scope == kScopeWarp) {                                                                 \
        return nvshmemx_##NAME##_broadcast_warp(team, dest, src, nelems, root);                                   \
      } else {                                                                                                    \
        return nvshmemx_##NAME##_broadcast_block(team, dest, src, nelems, root);                                  \
      }                                                                                                           \
    } else if constexpr (Kind == kFcollect) {                                                                     \
      if constexpr (Scope == kScopeThread) {                                                                      \
        return nvshmem_##NAME##_fcollect(team, dest, src, nelems);                                                \
      } else if constexpr (Scope == kScopeWarp) {                                                                 \
        return nvshmemx_##NAME##_fcollect_warp(team, dest, src, nelems);                                          \
      } else {                                                                                                    \
        return nvshmemx_##NAME##_fcollect_block(team, dest, src, nelems);                                         \
      }                                                                                                           \
    } else {                                                                                                      \
      if constexpr (Scope == kScopeThread) {                                                                      \
        return nvshmem_##NAME##_alltoall(team, dest, src, nelems);                                                \
      } else if constexpr (Scope == kScopeWarp) {                                                                 \
        return nvshmemx_##NAME##_alltoall_warp(team, dest, src, nelems);                                          \
      } else {                                                                                                    \
        return nvshmemx_##NAME##_alltoall_block(team, dest, src, nelems);                                         \
      }                                                                                                           \
    }                                                                                                             \
  }
PERFTEST_DATA_COLL_CALL(int32_t, int32)
PERFTEST_DATA_COLL_CALL(int64_t, int64)
#undef PERFTEST_DATA_COLL_CALL

// One iteration = one call of the operation by every thread of the CTA.
template <int Kind, int Scope, class T>
__global__ void data_coll_kernel(nvshmem_team_t team, T *dest, const T *src, size_t nelems, int root, int iters,
                                 int *status) {
  for (int i = 0; i < iters; ++i) note_status(status, coll_call<Kind, Scope>(team, dest, src, nelems, root));
}

constexpr int kRoot = 0;

// Element i of PE pe's source buffer (whatever nelems is, so one fill serves every size).
template <class T>
T source_value(int pe, size_t i) {
  return coll_value<T>(pe, 0, i);
}

// The destination this PE expects after the operation of nelems elements.
template <class T>
std::vector<T> expected_dest(int kind, const CollTest &t, size_t nelems) {
  std::vector<T> want;
  if (kind == kBcast) {
    for (size_t j = 0; j < nelems; ++j) want.push_back(source_value<T>(kRoot, j));
  } else {
    for (int pe = 0; pe < t.npes; ++pe) {
      const size_t offset = kind == kAlltoall ? static_cast<size_t>(t.mype) * nelems : 0;
      for (size_t j = 0; j < nelems; ++j) want.push_back(source_value<T>(pe, offset + j));
    }
  }
  return want;
}

template <int Kind>
const char *data_coll_job() {
  return Kind == kBcast ? "bcast_device" : Kind == kFcollect ? "fcollect_device" : "alltoall_device";
}

template <int Kind>
const char *data_coll_op() {
  return Kind == kBcast ? "broadcast" : Kind == kFcollect ? "fcollect" : "alltoall";
}

// One type at one scope: the sweep over the sizes, its check and its table. Returns the PEs that
// found an error.
template <int Kind, int Scope, class T>
int data_coll_sweep(CollTest &t, void *dest_mem, void *src_mem, const char *type_label) {
  if (!scope_selected(t.opts, Scope)) return 0;
  T *dest = static_cast<T *>(dest_mem);
  T *src = static_cast<T *>(src_mem);
  const int blocks = Kind == kBcast ? 1 : t.npes;  // destination blocks, one per PE (fcollect, alltoall)
  const size_t src_blocks = Kind == kAlltoall ? static_cast<size_t>(t.npes) : 1;
  const size_t max_nelems = t.opts.max_size / sizeof(T);

  // The data: every PE's source, an empty destination.
  std::vector<T> fill(max_nelems * src_blocks);
  for (size_t i = 0; i < fill.size(); ++i) fill[i] = source_value<T>(t.mype, i);
  from_host(src, fill);
  CUDA_CHECK(cudaMemset(dest, 0, max_nelems * blocks * sizeof(T)));
  CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();

  std::vector<size_t> sizes;
  std::vector<double> latency_us;
  size_t last_nelems = 0;
  for (size_t bytes : perftest_sizes(t.opts)) {
    size_t nelems = bytes / sizeof(T);
    if (nelems == 0) continue;
    if (Scope != kScopeBlock && nelems * sizeof(T) > kSmallScopeMaxBytes) break;
    nvshmem_team_t team = NVSHMEM_TEAM_WORLD;
    int root = kRoot;
    const double us = time_iterations(t, [&](int iters) {
      void *args[] = {&team, &dest, &src, &nelems, &root, &iters, &t.status};
      collective_launch(t, reinterpret_cast<const void *>(&data_coll_kernel<Kind, Scope, T>), scope_threads(t, Scope),
                        args);
    });
    sizes.push_back(nelems * sizeof(T) * static_cast<size_t>(blocks));
    latency_us.push_back(us);
    last_nelems = nelems;
  }
  if (sizes.empty()) return 0;

  char what[96];
  std::snprintf(what, sizeof what, "nvshmem%s_%s_%s%s", Scope == kScopeThread ? "" : "x",
                sizeof(T) == 4 ? "int32" : "int64", data_coll_op<Kind>(),
                Scope == kScopeThread ? ""
                : Scope == kScopeWarp ? "_warp"
                                      : "_block");
  size_t bad = status_ok(t, what) ? 0 : 1;
  if (Kind != kBcast || t.mype != kRoot) {
    const std::vector<T> got = to_host(dest, last_nelems * blocks);
    bad += compare(t, what, got, expected_dest<T>(Kind, t, last_nelems));
  }
  const int errors = total_errors(t, bad);
  if (errors == 0) {
    print_table_v1(data_coll_job<Kind>(), type_label, nullptr, scope_label(Scope), sizeof(T),
                   perftest_busbw_factor(data_coll_job<Kind>(), t.npes), sizes.data(), latency_us.data(),
                   static_cast<int>(sizes.size()));
  }
  return errors;
}

template <int Kind>
int data_coll_main(int argc, char **argv, const char *name) {
  CollTest t;
  coll_test_start(&t, argc, argv, name);
  // Room for the largest size of either type: max_size bytes per block.
  const size_t npes = static_cast<size_t>(t.npes);
  const size_t src_bytes = t.opts.max_size * (Kind == kAlltoall ? npes : 1);
  const size_t dest_bytes = t.opts.max_size * (Kind == kBcast ? 1 : npes);
  void *src = sym_alloc<char>(t, src_bytes);
  void *dest = sym_alloc<char>(t, dest_bytes);

  int errors = 0;
  errors += data_coll_sweep<Kind, kScopeThread, int32_t>(t, dest, src, "32-bit");
  errors += data_coll_sweep<Kind, kScopeWarp, int32_t>(t, dest, src, "32-bit");
  errors += data_coll_sweep<Kind, kScopeBlock, int32_t>(t, dest, src, "32-bit");
  errors += data_coll_sweep<Kind, kScopeThread, int64_t>(t, dest, src, "64-bit");
  errors += data_coll_sweep<Kind, kScopeWarp, int64_t>(t, dest, src, "64-bit");
  errors += data_coll_sweep<Kind, kScopeBlock, int64_t>(t, dest, src, "64-bit");

  nvshmem_barrier_all();
  nvshmem_free(dest);
  nvshmem_free(src);
  return coll_test_finish(&t, errors);
}

}  // namespace
