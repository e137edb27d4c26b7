// NVSHMEM's tile API (nvshmemx::Tensor, make_shape/make_stride/make_layout, ConstInt, the tile_* calls at thread,
// warp, warpgroup and block scope), reached through nvshmemx.h in CUDA C++17 translation units as NVSHMEM 3.8 makes
// it. Each call is a one-line forward into gshmem/device/tile.cuh; docs/tile-api.md has the contract. The NVLS_*
// algorithm names select the same patterns over the mapped heaps: no multicast hardware is needed.
#pragma once

#if defined(__CUDACC__) && __cplusplus >= 201703L

#include "gshmem/compat/nvshmem_types.h"
#include "gshmem/device/tile.cuh"

// A shape or stride element known at compile time (global, as in NVSHMEM).
template <int v>
struct ConstInt : cuda::std::integral_constant<int, v> {
  __host__ __device__ constexpr operator int() const { return v; }
};

namespace nvshmemx {

template <class... Ts>
using shape = cuda::std::tuple<Ts...>;
template <class... Ts>
using stride = cuda::std::tuple<Ts...>;

template <class... Ts>
__host__ __device__ constexpr cuda::std::tuple<Ts...> make_shape(const Ts&... t) {
  return cuda::std::tuple<Ts...>{t...};
}
template <class... Ts>
__host__ __device__ constexpr cuda::std::tuple<Ts...> make_stride(const Ts&... t) {
  return cuda::std::tuple<Ts...>{t...};
}

template <class Shape, class Stride>
class Layout {
 public:
  __host__ __device__ constexpr Layout(const Shape& shape = {}, const Stride& stride = {})
      : shape_(shape), stride_(stride) {}
  __host__ __device__ constexpr Shape shape() const { return shape_; }
  __host__ __device__ constexpr Stride stride() const { return stride_; }

 private:
  Shape shape_;
  Stride stride_;
};

template <class Shape, class Stride>
__host__ __device__ constexpr Layout<Shape, Stride> make_layout(const Shape& shape, const Stride& stride) {
  return Layout<Shape, Stride>(shape, stride);
}

template <class T, class LayoutT>
class Tensor {
 public:
  using value_type = T;
  using layout_type = LayoutT;
  __host__ __device__ constexpr Tensor(T* data, LayoutT layout) : data_(data), layout_(layout) {}
  __host__ __device__ explicit constexpr Tensor(LayoutT layout) : data_(nullptr), layout_(layout) {}
  __host__ __device__ constexpr LayoutT layout() const { return layout_; }
  __host__ __device__ T* data() { return data_; }
  __host__ __device__ constexpr auto shape() const { return layout_.shape(); }
  __host__ __device__ constexpr auto stride() const { return layout_.stride(); }

 private:
  T* data_;
  LayoutT layout_;
};

enum tile_coll_algo_t {
  NVLS_ONE_SHOT_PUSH_NBI = 0,
  NVLS_ONE_SHOT_PULL_NBI = 1,
  NVLS_TWO_SHOT_PUSH_NBI = 2,
  NVLS_TWO_SHOT_PULL_NBI = 3,
  NVSHMEMX_TILE_COLL_ALGO_SENTINEL = 0x7fffffff
};
enum tile_algo_t {
  PEER_PUSH_NBI = 0,
  PEER_PULL_NBI = 0,
  REMOTE_PUSH_NBI = 1,
  REMOTE_PULL_NBI = 1,
  NVSHMEMX_TILE_ALGO_SENTINEL = 0x7fffffff
};

namespace detail_tile {
__device__ __forceinline__ int code(gshmem::dev::TileResult r) {
  return r == gshmem::dev::TileResult::kOk        ? NVSHMEMX_SUCCESS
         : r == gshmem::dev::TileResult::kInvalid ? NVSHMEMX_ERROR_INVALID_VALUE
                                                  : NVSHMEMX_ERROR_NOT_SUPPORTED;
}
__host__ __device__ constexpr gshmem::dev::TileAlgo algo(tile_coll_algo_t a) {
  return static_cast<gshmem::dev::TileAlgo>(a);
}
}  // namespace detail_tile

// The calls of one scope: SFX is the name's suffix, SC the native scope.
#define GSHMEMI_TILE_SCOPE(SFX, SC)                                                                                \
  template <typename src_t, typename dst_t, typename tuple_t, tile_algo_t algo>                                    \
  __device__ __forceinline__ int tile_put##SFX(src_t src, dst_t dst, tuple_t start, tuple_t bnd, int pe,           \
                                               uint64_t flag) {                                                    \
    if (flag != 0) return NVSHMEMX_ERROR_INVALID_VALUE;                                                            \
    return detail_tile::code(                                                                                      \
        gshmem::dev::tile_copy<gshmem::Scope::SC, algo == REMOTE_PUSH_NBI, true>(src, dst, start, bnd, pe));       \
  }                                                                                                                \
  template <typename src_t, typename dst_t, typename tuple_t, tile_algo_t algo>                                    \
  __device__ __forceinline__ int tile_get##SFX(src_t src, dst_t dst, tuple_t start, tuple_t bnd, int pe,           \
                                               uint64_t flag) {                                                    \
    if (flag != 0) return NVSHMEMX_ERROR_INVALID_VALUE;                                                            \
    return detail_tile::code(                                                                                      \
        gshmem::dev::tile_copy<gshmem::Scope::SC, algo == REMOTE_PULL_NBI, false>(src, dst, start, bnd, pe));      \
  }                                                                                                                \
  GSHMEMI_TILE_REDUCE(SFX, SC, sum, kSum)                                                                          \
  GSHMEMI_TILE_REDUCE(SFX, SC, max, kMax)                                                                          \
  GSHMEMI_TILE_REDUCE(SFX, SC, min, kMin)                                                                          \
  template <typename src_t, typename dst_t, typename tuple_t, tile_coll_algo_t algo>                               \
  __device__ __forceinline__ int tile_allgather##SFX(nvshmem_team_t team, src_t src, dst_t dst, tuple_t start,     \
                                                     tuple_t bnd, uint64_t flag) {                                 \
    static_assert(algo == NVLS_ONE_SHOT_PUSH_NBI, "tile_allgather runs NVLS_ONE_SHOT_PUSH_NBI");                   \
    if (flag != 0) return NVSHMEMX_ERROR_INVALID_VALUE;                                                            \
    return detail_tile::code(gshmem::dev::tile_allgather<gshmem::Scope::SC>(team, src, dst, start, bnd));          \
  }                                                                                                                \
  template <typename src_t, typename dst_t, typename tuple_t, tile_coll_algo_t algo>                               \
  __device__ __forceinline__ int tile_broadcast##SFX(nvshmem_team_t team, src_t src, dst_t dst, tuple_t start,     \
                                                     tuple_t bnd, uint64_t flag) {                                 \
    static_assert(algo == NVLS_ONE_SHOT_PUSH_NBI, "tile_broadcast runs NVLS_ONE_SHOT_PUSH_NBI");                   \
    if (flag != 0) return NVSHMEMX_ERROR_INVALID_VALUE;                                                            \
    return detail_tile::code(gshmem::dev::tile_broadcast<gshmem::Scope::SC>(team, src, dst, start, bnd));          \
  }                                                                                                                \
  template <tile_coll_algo_t algo>                                                                                 \
  __device__ __forceinline__ int tile_collective_wait##SFX(nvshmem_team_t team, uint64_t flag) {                   \
    if (flag != 0) return NVSHMEMX_ERROR_INVALID_VALUE;                                                            \
    return detail_tile::code(gshmem::dev::tile_collective_wait<gshmem::Scope::SC, detail_tile::algo(algo)>(team)); \
  }

// tile_OP_reduce (an all-reduce; with and without root) and tile_OP_rooted_reduce of one scope.
#define GSHMEMI_TILE_REDUCE(SFX, SC, OP, NATIVE)                                                                       \
  template <typename src_t, typename dst_t, typename tuple_t, tile_coll_algo_t algo>                                   \
  __device__ __forceinline__ int tile_##OP##_reduce##SFX(nvshmem_team_t team, src_t src, dst_t dst, tuple_t start,     \
                                                         tuple_t bnd, int root, uint64_t flag) {                       \
    if (flag != 0) return NVSHMEMX_ERROR_INVALID_VALUE;                                                                \
    return detail_tile::code(                                                                                          \
        gshmem::dev::tile_reduce<gshmem::Scope::SC, gshmem::dev::TileOp::NATIVE, detail_tile::algo(algo)>(             \
            team, src, dst, start, bnd, root));                                                                        \
  }                                                                                                                    \
  template <typename src_t, typename dst_t, typename tuple_t, tile_coll_algo_t algo>                                   \
  __device__ __forceinline__ int tile_##OP##_reduce##SFX(nvshmem_team_t team, src_t src, dst_t dst, tuple_t start,     \
                                                         tuple_t bnd, uint64_t flag) {                                 \
    return tile_##OP##_reduce##SFX<src_t, dst_t, tuple_t, algo>(team, src, dst, start, bnd, -1, flag);                 \
  }                                                                                                                    \
  template <typename src_t, typename dst_t, typename tuple_t, tile_coll_algo_t algo>                                   \
  __device__ __forceinline__ int tile_##OP##_rooted_reduce##SFX(nvshmem_team_t team, src_t src, dst_t dst,             \
                                                                tuple_t start, tuple_t bnd, int root, uint64_t flag) { \
    static_assert(algo == NVLS_ONE_SHOT_PULL_NBI, "tile_" #OP "_rooted_reduce runs NVLS_ONE_SHOT_PULL_NBI");           \
    if (flag != 0) return NVSHMEMX_ERROR_INVALID_VALUE;                                                                \
    return detail_tile::code(gshmem::dev::tile_rooted_reduce<gshmem::Scope::SC, gshmem::dev::TileOp::NATIVE>(          \
        team, src, dst, start, bnd, root));                                                                            \
  }

GSHMEMI_TILE_SCOPE(, kThread)
GSHMEMI_TILE_SCOPE(_warp, kWarp)
GSHMEMI_TILE_SCOPE(_warpgroup, kWarpgroup)
GSHMEMI_TILE_SCOPE(_block, kBlock)

#undef GSHMEMI_TILE_REDUCE
#undef GSHMEMI_TILE_SCOPE

}  // namespace nvshmemx

#endif  // __CUDACC__ && C++17
