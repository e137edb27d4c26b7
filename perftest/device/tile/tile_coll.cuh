// The tile-API perftests, tile_allreduce_latency and tile_allgather_latency (NVSHMEM 3.4.5's names), written once
// for both (docs/tile-api.md: the calls and gshmem's way without multicast).
//
// Each measures, on NVSHMEM_TEAM_WORLD, for half, bfloat16 and float elements and at warp, warpgroup and block
// scope (one CTA of 32, 128 or -t threads started with nvshmemx_collective_launch; the thread form where -s thread
// asks for it), the latency of one tile collective followed by its tile_collective_wait:
//  - tile_allreduce_latency: nvshmemx::tile_sum_reduce<_scope> with NVLS_ONE_SHOT_PULL_NBI (every member reduces
//    every member's tile into its own; a team sync after the wait, before the next iteration) and with
//    NVLS_TWO_SHOT_PUSH_NBI (root PE 0 reduces and stores into every member's tile);
//  - tile_allgather_latency: nvshmemx::tile_allgather<_scope> with NVLS_ONE_SHOT_PUSH_NBI (each member stores its
//    tile into its slot of every member's destination).
// A tile is a column of `nelems` elements (dimension 0 contiguous, a run-time extent): the sizes -b ... -e are bytes
// per PE. Output: one v1 table per type, algorithm and scope; job "tile_allreduce" / "tile_allgather", the
// algorithm as the redop column ("sum-one_shot_pull", "sum-two_shot_push", "one_shot_push"), busbw = algbw *
// 2(n-1)/n (all-reduce) or (n-1)/n (allgather). The largest size's result is checked on every PE, and every call
// must return 0.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "../coll/coll_common.cuh"

namespace {

constexpr int kScopeWarpgroup = 3;
enum TileKind { kTileAllreducePull, kTileAllreducePush, kTileAllgather };

// The tile collective of kind Kind through the names of scope Scope, then its wait. SFX: the names' suffix.
#define PERFTEST_TILE_CALLS(SFX)                                                                                   \
  if constexpr (Kind == kTileAllreducePull) {                                                                      \
    int r = nvshmemx::tile_sum_reduce##SFX<Tile, Tile, None, nvshmemx::NVLS_ONE_SHOT_PULL_NBI>(team, s, d, None{}, \
                                                                                               None{}, 0);         \
    return r | nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_ONE_SHOT_PULL_NBI>(team, 0);                     \
  } else if constexpr (Kind == kTileAllreducePush) {                                                               \
    int r = nvshmemx::tile_sum_reduce##SFX<Tile, Tile, None, nvshmemx::NVLS_TWO_SHOT_PUSH_NBI>(team, s, d, None{}, \
                                                                                               None{}, 0, 0);      \
    return r | nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_TWO_SHOT_PUSH_NBI>(team, 0);                     \
  } else {                                                                                                         \
    int r = nvshmemx::tile_allgather##SFX<Tile, Wide, None, nvshmemx::NVLS_ONE_SHOT_PUSH_NBI>(team, s, w, None{},  \
                                                                                              None{}, 0);          \
    return r | nvshmemx::tile_collective_wait##SFX<nvshmemx::NVLS_ONE_SHOT_PUSH_NBI>(team, 0);                     \
  }

struct None {};

template <int Kind, int Scope, class T>
__device__ __forceinline__ int tile_call(nvshmem_team_t team, T *src, T *dst, int nelems, int npes) {
  auto column =
      nvshmemx::make_layout(nvshmemx::make_shape(nelems, ConstInt<1>{}), nvshmemx::make_stride(ConstInt<1>{}, nelems));
  auto wide = nvshmemx::make_layout(nvshmemx::make_shape(nelems * npes, ConstInt<1>{}),
                                    nvshmemx::make_stride(ConstInt<1>{}, nelems * npes));
  using Tile = nvshmemx::Tensor<T, decltype(column)>;
  using Wide = nvshmemx::Tensor<T, decltype(wide)>;
  Tile s(src, column), d(dst, column);
  Wide w(dst, wide);
  (void)d;
  (void)w;
  if constexpr (Scope == kScopeThread) {
    PERFTEST_TILE_CALLS()
  } else if constexpr (Scope == kScopeWarp) {
    PERFTEST_TILE_CALLS(_warp)
  } else if constexpr (Scope == kScopeWarpgroup) {
    PERFTEST_TILE_CALLS(_warpgroup)
  } else {
    PERFTEST_TILE_CALLS(_block)
  }
}
#undef PERFTEST_TILE_CALLS

// One iteration = one tile collective and its wait by the CTA's group; after a ONE_SHOT_PULL all-reduce a team
// sync, so that no member's next iteration overwrites what another still reads (its tiles do not change here,
// but a program's would: the figure includes what a program pays).
template <int Kind, int Scope, class T>
__global__ void tile_kernel(nvshmem_team_t team, T *src, T *dst, int nelems, int iters, int *status) {
  const int npes = nvshmem_team_n_pes(team);
  for (int i = 0; i < iters; ++i) {
    note_status(status, tile_call<Kind, Scope, T>(team, src, dst, nelems, npes));
    if constexpr (Kind == kTileAllreducePull) {
      if constexpr (Scope == kScopeThread) {
        nvshmem_team_sync(team);
      } else if constexpr (Scope == kScopeWarp) {
        nvshmemx_team_sync_warp(team);
      } else {
        nvshmemx_team_sync_block(team);
      }
    }
  }
}

// Element i of PE pe's tile: small integers, exact in every type and in their sums.
inline float tile_value(int pe, size_t i) { return static_cast<float>((pe + 1) * static_cast<int>(i % 7 + 1)); }

template <class T>
T to_type(float v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(v);
  } else {
    return v;
  }
}

template <class T>
float to_float(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

template <class T>
const char *tile_type_label() {
  return std::is_same_v<T, __half> ? "half" : std::is_same_v<T, __nv_bfloat16> ? "bfloat16" : "float";
}

int tile_scope_threads(const CollTest &t, int scope) {
  return scope == kScopeThread ? 1 : scope == kScopeWarp ? 32 : scope == kScopeWarpgroup ? 128 : t.opts.threads_per_cta;
}

const char *tile_scope_label(int scope) { return scope == kScopeWarpgroup ? "warpgroup" : scope_label(scope); }

// Thread scope only where -s thread asks for it (a tile moved by one thread is slow); warpgroup with the block
// scope (-s block or all).
bool tile_scope_selected(const PerftestOptions &opts, int scope) {
  if (scope == kScopeThread) return opts.scope == PerftestScope::kThread;
  return scope_selected(opts, scope == kScopeWarpgroup ? kScopeBlock : scope);
}

// One type, kind and scope: the sweep, its check and its table. Returns the PEs that found an error.
template <int Kind, int Scope, class T>
int tile_sweep(CollTest &t, void *src_mem, void *dst_mem) {
  if (!tile_scope_selected(t.opts, Scope)) return 0;
  if (Scope == kScopeBlock && t.opts.threads_per_cta % 32 != 0) return 0;
  T *src = static_cast<T *>(src_mem);
  T *dst = static_cast<T *>(dst_mem);
  const size_t max_nelems = t.opts.max_size / sizeof(T);
  std::vector<T> fill(max_nelems);
  for (size_t i = 0; i < fill.size(); ++i) fill[i] = to_type<T>(tile_value(t.mype, i));
  from_host(src, fill);
  const size_t dst_elems = max_nelems * (Kind == kTileAllgather ? t.npes : 1);
  CUDA_CHECK(cudaMemset(dst, 0, dst_elems * sizeof(T)));
  CUDA_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();

  std::vector<size_t> sizes;
  std::vector<double> latency_us;
  int last = 0;
  for (size_t bytes : perftest_sizes(t.opts)) {
    int nelems = static_cast<int>(bytes / sizeof(T));
    if (nelems < 2) continue;  // 16-bit types need an even extent: the sizes are powers of two from 4 bytes
    nelems &= ~1;
    nvshmem_team_t team = NVSHMEM_TEAM_WORLD;
    const double us = time_iterations(t, [&](int iters) {
      void *args[] = {&team, &src, &dst, &nelems, &iters, &t.status};
      collective_launch(t, reinterpret_cast<const void *>(&tile_kernel<Kind, Scope, T>), tile_scope_threads(t, Scope),
                        args);
    });
    sizes.push_back(static_cast<size_t>(nelems) * sizeof(T) * (Kind == kTileAllgather ? t.npes : 1));
    latency_us.push_back(us);
    last = nelems;
  }
  if (sizes.empty()) return 0;

  const char *algo = Kind == kTileAllreducePull   ? "sum-one_shot_pull"
                     : Kind == kTileAllreducePush ? "sum-two_shot_push"
                                                  : "one_shot_push";
  char what[96];
  std::snprintf(what, sizeof what, "nvshmemx::tile_%s (%s, %s, %s)",
                Kind == kTileAllgather ? "allgather" : "sum_reduce", algo, tile_type_label<T>(),
                tile_scope_label(Scope));
  size_t bad = status_ok(t, what) ? 0 : 1;
  const std::vector<T> got = to_host(dst, static_cast<size_t>(last) * (Kind == kTileAllgather ? t.npes : 1));
  std::vector<float> got_f, want;
  for (const T &v : got) got_f.push_back(to_float(v));
  if (Kind == kTileAllgather) {
    for (int pe = 0; pe < t.npes; ++pe) {
      for (int i = 0; i < last; ++i) want.push_back(tile_value(pe, static_cast<size_t>(i)));
    }
  } else {
    for (int i = 0; i < last; ++i) {
      float sum = 0;
      for (int pe = 0; pe < t.npes; ++pe) sum += tile_value(pe, static_cast<size_t>(i));
      want.push_back(sum);
    }
  }
  bad += compare(t, what, got_f, want);
  const int errors = total_errors(t, bad);
  if (errors == 0) {
    const double n = static_cast<double>(t.npes);
    const double factor = Kind == kTileAllgather ? (n - 1.0) / n : 2.0 * (n - 1.0) / n;
    print_table_v1(Kind == kTileAllgather ? "tile_allgather" : "tile_allreduce", tile_type_label<T>(), algo,
                   tile_scope_label(Scope), sizeof(T), factor, sizes.data(), latency_us.data(),
                   static_cast<int>(sizes.size()));
  }
  return errors;
}

template <int Kind, class T>
int tile_scopes(CollTest &t, void *src, void *dst) {
  int errors = tile_sweep<Kind, kScopeThread, T>(t, src, dst);
  errors += tile_sweep<Kind, kScopeWarp, T>(t, src, dst);
  errors += tile_sweep<Kind, kScopeWarpgroup, T>(t, src, dst);
  errors += tile_sweep<Kind, kScopeBlock, T>(t, src, dst);
  return errors;
}

template <int Kind, class T>
int tile_kinds(CollTest &t, void *src, void *dst) {
  if constexpr (Kind == kTileAllgather) {
    return tile_scopes<kTileAllgather, T>(t, src, dst);
  } else {
    return tile_scopes<kTileAllreducePull, T>(t, src, dst) + tile_scopes<kTileAllreducePush, T>(t, src, dst);
  }
}

template <int Kind>
int tile_main(int argc, char **argv, const char *name) {
  CollTest t;
  coll_test_start(&t, argc, argv, name);
  void *src = sym_alloc<char>(t, t.opts.max_size);
  void *dst = sym_alloc<char>(t, t.opts.max_size * (Kind == kTileAllgather ? t.npes : 1));
  int errors = tile_kinds<Kind, __half>(t, src, dst);
  errors += tile_kinds<Kind, __nv_bfloat16>(t, src, dst);
  errors += tile_kinds<Kind, float>(t, src, dst);
  nvshmem_barrier_all();
  nvshmem_free(dst);
  nvshmem_free(src);
  return coll_test_finish(&t, errors);
}

}  // namespace
