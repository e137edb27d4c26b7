// The device collectives that move data, bcast_latency, fcollect_latency, alltoall_latency,
// reduction_latency and reducescatter_latency, written once for the five.
//
// Each measures, for int32 and int64 elements and at thread, warp and block scope (see
// coll_common.cuh), the latency of one operation on NVSHMEM_TEAM_WORLD:
//  - bcast_latency:         nvshmem_<T>_broadcast / nvshmemx_<T>_broadcast_{warp,block}, root PE 0;
//  - fcollect_latency:      nvshmem_<T>_fcollect / nvshmemx_<T>_fcollect_{warp,block};
//  - alltoall_latency:      nvshmem_<T>_alltoall / nvshmemx_<T>_alltoall_{warp,block};
//  - reduction_latency:     nvshmem_<T>_<op>_reduce / nvshmemx_<T>_<op>_reduce_{warp,block};
//  - reducescatter_latency: nvshmem_<T>_<op>_reducescatter / nvshmemx_<T>_<op>_reducescatter_{warp,block};
// the reductions for each op of NVSHMEM's reduction perftests, in its order: sum, prod, and, or, xor,
// min, max.
// The sizes -b, -b*f, ... -e are bytes per PE: nelems = size / sizeof(T) (sizes below one element
// are skipped); thread and warp scope stop at kSmallScopeMaxBytes. Source and destination are
// symmetric; the source of an alltoall or a reducescatter holds nelems elements for each PE (a
// reducescatter leaves on PE p the reduction of the PEs' blocks p).
// Output: one v1 table per type (and op) and scope:
//  - broadcast, fcollect, alltoall: job "bcast_device" / "fcollect_device" / "alltoall_device", type
//    "32-bit" or "64-bit", scope "thread", "warp" or "block";
//  - reductions: job "device_reduction" / "device_reducescatter", type "int32" or "int64", a redop
//    column, scope "t", "w" or "b" (NVSHMEM's subjobs, e.g. "int32-sum-t").
// Its size column is NVSHMEM's collective size: nelems * sizeof(T), times the number of PEs for
// fcollect, alltoall and reducescatter; count = size / sizeof(T); busbw = algbw * 1 (broadcast),
// 2(npes-1)/npes (reduction) or (npes-1)/npes (the others).
// Each table's data of its largest size is checked on every PE (a broadcast's root excepted), and
// every status the operations return must be 0. Any number of PEs, 1 included.
#pragma once

#include "coll_common.cuh"

namespace {

// nvshmem_<NAME> ARGS at thread scope, nvshmemx_<NAME>_warp ARGS / nvshmemx_<NAME>_block ARGS at
// warp / block scope (in a function template with the parameter Scope).
#define PERFTEST_SCOPED_CALL(NAME, ARGS)      \
  if constexpr (Scope == kScopeThread) {      \
    return nvshmem_##NAME ARGS;               \
  } else if constexpr (Scope == kScopeWarp) { \
    return nvshmemx_##NAME##_warp ARGS;       \
  } else {                                    \
    return nvshmemx_##NAME##_block ARGS;      \
  }

// The reduction <NAME>_<op>_<COLL> of the op Op (COLL: reduce or reducescatter).
#define PERFTEST_REDUCE_CALL(NAME, COLL)                                \
  if constexpr (Op == PerftestReduceOp::kSum) {                         \
    PERFTEST_SCOPED_CALL(NAME##_sum_##COLL, (team, dest, src, nelems))  \
  } else if constexpr (Op == PerftestReduceOp::kProd) {                 \
    PERFTEST_SCOPED_CALL(NAME##_prod_##COLL, (team, dest, src, nelems)) \
  } else if constexpr (Op == PerftestReduceOp::kAnd) {                  \
    PERFTEST_SCOPED_CALL(NAME##_and_##COLL, (team, dest, src, nelems))  \
  } else if constexpr (Op == PerftestReduceOp::kOr) {                   \
    PERFTEST_SCOPED_CALL(NAME##_or_##COLL, (team, dest, src, nelems))   \
  } else if constexpr (Op == PerftestReduceOp::kXor) {                  \
    PERFTEST_SCOPED_CALL(NAME##_xor_##COLL, (team, dest, src, nelems))  \
  } else if constexpr (Op == PerftestReduceOp::kMin) {                  \
    PERFTEST_SCOPED_CALL(NAME##_min_##COLL, (team, dest, src, nelems))  \
  } else {                                                              \
    PERFTEST_SCOPED_CALL(NAME##_max_##COLL, (team, dest, src, nelems))  \
  }

// The typed operation of kind Kind (and reduction op Op) at scope Scope, for the two element types
// measured.
#define PERFTEST_DATA_COLL_CALL(T, NAME)                                                                          \
  template <int Kind, int Scope, PerftestReduceOp Op>                                                             \
  __device__ __forceinline__ int coll_call(nvshmem_team_t team, T *dest, const T *src, size_t nelems, int root) { \
    if constexpr (Kind == kBcast) {                                                                               \
      PERFTEST_SCOPED_CALL(NAME##_broadcast, (team, dest, src, nelems, root))                                     \
    } else if constexpr (Kind == kFcollect) {                                                                     \
      PERFTEST_SCOPED_CALL(NAME##_fcollect, (team, dest, src, nelems))                                            \
    } else if constexpr (Kind == kAlltoall) {                                                                     \
      PERFTEST_SCOPED_CALL(NAME##_alltoall, (team, dest, src, nelems))                                            \
    } else if constexpr (Kind == kReduce) {                                                                       \
      PERFTEST_REDUCE_CALL(NAME, reduce)                                                                          \
    } else {                                                                                                      \
      PERFTEST_REDUCE_CALL(NAME, reducescatter)                                                                   \
    }                                                                                                             \
  }
PERFTEST_DATA_COLL_CALL(int32_t, int32)
PERFTEST_DATA_COLL_CALL(int64_t, int64)
#undef PERFTEST_DATA_COLL_CALL
#undef PERFTEST_REDUCE_CALL
#undef PERFTEST_SCOPED_CALL

// One iteration = one call of the operation by every thread of the CTA.
template <int Kind, int Scope, PerftestReduceOp Op, class T>
__global__ void data_coll_kernel(nvshmem_team_t team, T *dest, const T *src, size_t nelems, int root, int iters,
                                 int *status) {
  for (int i = 0; i < iters; ++i) note_status(status, coll_call<Kind, Scope, Op>(team, dest, src, nelems, root));
}

constexpr int kRoot = 0;

// Element i of PE pe's source buffer for kind Kind and op Op (whatever nelems is, so one fill serves
// every size).
template <int Kind, PerftestReduceOp Op, class T>
T source_value(const CollTest &t, int pe, size_t i) {
  if constexpr (perftest_is_reduction(Kind)) {
    return static_cast<T>(perftest_reduce_source(Op, pe, t.npes, i));
  } else {
    return coll_value<T>(pe, 0, i);
  }
}

// The destination this PE expects after the operation of nelems elements.
template <int Kind, PerftestReduceOp Op, class T>
std::vector<T> expected_dest(const CollTest &t, size_t nelems) {
  std::vector<T> want;
  if constexpr (perftest_is_reduction(Kind)) {
    const size_t offset = Kind == kReducescatter ? static_cast<size_t>(t.mype) * nelems : 0;
    for (size_t j = 0; j < nelems; ++j) {
      want.push_back(static_cast<T>(perftest_reduce_expected(Op, t.npes, offset + j)));
    }
  } else if constexpr (Kind == kBcast) {
    for (size_t j = 0; j < nelems; ++j) want.push_back(source_value<Kind, Op, T>(t, kRoot, j));
  } else {
    for (int pe = 0; pe < t.npes; ++pe) {
      const size_t offset = Kind == kAlltoall ? static_cast<size_t>(t.mype) * nelems : 0;
      for (size_t j = 0; j < nelems; ++j) want.push_back(source_value<Kind, Op, T>(t, pe, offset + j));
    }
  }
  return want;
}

template <int Kind>
const char *data_coll_job() {
  return Kind == kBcast      ? "bcast_device"
         : Kind == kFcollect ? "fcollect_device"
         : Kind == kAlltoall ? "alltoall_device"
         : Kind == kReduce   ? "device_reduction"
                             : "device_reducescatter";
}

template <int Kind>
const char *data_coll_op() {
  return Kind == kBcast      ? "broadcast"
         : Kind == kFcollect ? "fcollect"
         : Kind == kAlltoall ? "alltoall"
         : Kind == kReduce   ? "reduce"
                             : "reducescatter";
}

// One type (and op) at one scope: the sweep over the sizes, its check and its table. Returns the
// PEs that found an error.
template <int Kind, int Scope, PerftestReduceOp Op, class T>
int data_coll_sweep(CollTest &t, void *dest_mem, void *src_mem, const char *type_label) {
  if (!scope_selected(t.opts, Scope)) return 0;
  T *dest = static_cast<T *>(dest_mem);
  T *src = static_cast<T *>(src_mem);
  const size_t dest_blocks = perftest_dest_blocks(Kind, t.npes);
  const size_t max_nelems = t.opts.max_size / sizeof(T);

  // The data: every PE's source, an empty destination.
  std::vector<T> fill(max_nelems * perftest_src_blocks(Kind, t.npes));
  for (size_t i = 0; i < fill.size(); ++i) fill[i] = source_value<Kind, Op, T>(t, t.mype, i);
  from_host(src, fill);
  CUDA_CHECK(cudaMemset(dest, 0, max_nelems * dest_blocks * sizeof(T)));
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
      collective_launch(t, reinterpret_cast<const void *>(&data_coll_kernel<Kind, Scope, Op, T>),
                        scope_threads(t, Scope), args);
    });
    sizes.push_back(nelems * sizeof(T) * perftest_size_blocks(Kind, t.npes));
    latency_us.push_back(us);
    last_nelems = nelems;
  }
  if (sizes.empty()) return 0;

  const bool reduction = perftest_is_reduction(Kind);
  const char *redop = reduction ? perftest_reduce_op_name(Op) : nullptr;
  char what[96];
  std::snprintf(what, sizeof what, "nvshmem%s_%s_%s%s%s%s", Scope == kScopeThread ? "" : "x",
                sizeof(T) == 4 ? "int32" : "int64", reduction ? redop : "", reduction ? "_" : "", data_coll_op<Kind>(),
                Scope == kScopeThread ? ""
                : Scope == kScopeWarp ? "_warp"
                                      : "_block");
  size_t bad = status_ok(t, what) ? 0 : 1;
  if (Kind != kBcast || t.mype != kRoot) {
    const std::vector<T> got = to_host(dest, last_nelems * dest_blocks);
    bad += compare(t, what, got, expected_dest<Kind, Op, T>(t, last_nelems));
  }
  const int errors = total_errors(t, bad);
  if (errors == 0) {
    // NVSHMEM's reduction tables abbreviate the scope to its initial: subjobs such as "int32-sum-t".
    const char scope_initial[2] = {scope_label(Scope)[0], '\0'};
    const char *scope = reduction ? scope_initial : scope_label(Scope);
    print_table_v1(data_coll_job<Kind>(), type_label, redop, scope, sizeof(T),
                   perftest_busbw_factor(data_coll_job<Kind>(), t.npes), sizes.data(), latency_us.data(),
                   static_cast<int>(sizes.size()));
  }
  return errors;
}

// One type (and op) at the three scopes, in the order thread, warp, block.
template <int Kind, PerftestReduceOp Op, class T>
int data_coll_scopes(CollTest &t, void *dest, void *src, const char *type_label) {
  int errors = data_coll_sweep<Kind, kScopeThread, Op, T>(t, dest, src, type_label);
  errors += data_coll_sweep<Kind, kScopeWarp, Op, T>(t, dest, src, type_label);
  errors += data_coll_sweep<Kind, kScopeBlock, Op, T>(t, dest, src, type_label);
  return errors;
}

// One type: its scopes, and for a reduction each op in NVSHMEM's order.
template <int Kind, class T>
int data_coll_type(CollTest &t, void *dest, void *src) {
  if constexpr (perftest_is_reduction(Kind)) {
    const char *type_label = sizeof(T) == 4 ? "int32" : "int64";
    int errors = data_coll_scopes<Kind, PerftestReduceOp::kSum, T>(t, dest, src, type_label);
    errors += data_coll_scopes<Kind, PerftestReduceOp::kProd, T>(t, dest, src, type_label);
    errors += data_coll_scopes<Kind, PerftestReduceOp::kAnd, T>(t, dest, src, type_label);
    errors += data_coll_scopes<Kind, PerftestReduceOp::kOr, T>(t, dest, src, type_label);
    errors += data_coll_scopes<Kind, PerftestReduceOp::kXor, T>(t, dest, src, type_label);
    errors += data_coll_scopes<Kind, PerftestReduceOp::kMin, T>(t, dest, src, type_label);
    errors += data_coll_scopes<Kind, PerftestReduceOp::kMax, T>(t, dest, src, type_label);
    return errors;
  } else {
    // The op is unused by the collectives that do not reduce.
    return data_coll_scopes<Kind, PerftestReduceOp::kSum, T>(t, dest, src, sizeof(T) == 4 ? "32-bit" : "64-bit");
  }
}

template <int Kind>
int data_coll_main(int argc, char **argv, const char *name) {
  CollTest t;
  coll_test_start(&t, argc, argv, name);
  // Room for the largest size of either type: max_size bytes per block.
  void *src = sym_alloc<char>(t, t.opts.max_size * perftest_src_blocks(Kind, t.npes));
  void *dest = sym_alloc<char>(t, t.opts.max_size * perftest_dest_blocks(Kind, t.npes));

  int errors = data_coll_type<Kind, int32_t>(t, dest, src);
  errors += data_coll_type<Kind, int64_t>(t, dest, src);

  nvshmem_barrier_all();
  nvshmem_free(dest);
  nvshmem_free(src);
  return coll_test_finish(&t, errors);
}

}  // namespace
