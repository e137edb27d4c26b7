// Cooperation scopes of the device API: a call made by one thread, by all threads of a warp, of a
// warpgroup (four consecutive warps, 128 threads, as Hopper's wgmma groups them), or of a block. Scope is a template
// parameter of every device operation; the nvshmemx_*_warp / *_block names are one-line aliases of the Warp / Block
// instantiations.
#pragma once

#if defined(__CUDACC__)
#include <cstdint>

namespace gshmem {

enum class Scope { kThread, kWarp, kWarpgroup, kBlock };

namespace detail {

__device__ __forceinline__ int linear_thread() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
__device__ __forceinline__ int block_threads() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }
// The block's index in its grid, x fastest (64 bits: a grid may hold more than 2^32 blocks).
__device__ __forceinline__ uint64_t linear_block() {
  return blockIdx.x + static_cast<uint64_t>(gridDim.x) * (blockIdx.y + static_cast<uint64_t>(gridDim.y) * blockIdx.z);
}

// Rank of the calling thread in its group, and the group's size. A warp at the end of a block
// whose size is not a multiple of 32 has fewer than 32 threads.
template <Scope S>
__device__ __forceinline__ int group_rank() {
  if constexpr (S == Scope::kThread)
    return 0;
  else if constexpr (S == Scope::kWarp)
    return linear_thread() & 31;
  else if constexpr (S == Scope::kWarpgroup)
    return linear_thread() & 127;
  else
    return linear_thread();
}
template <Scope S>
__device__ __forceinline__ int group_size() {
  if constexpr (S == Scope::kThread) {
    return 1;
  } else if constexpr (S == Scope::kWarp) {
    int left = block_threads() - (linear_thread() & ~31);
    return left < 32 ? left : 32;
  } else if constexpr (S == Scope::kWarpgroup) {
    int left = block_threads() - (linear_thread() & ~127);
    return left < 128 ? left : 128;
  } else {
    return block_threads();
  }
}
// Synchronises the group and orders its memory accesses (bar.sync / bar.warp.sync).
template <Scope S>
__device__ __forceinline__ void group_sync() {
  if constexpr (S == Scope::kWarp) {
    int n = group_size<S>();
    __syncwarp(n == 32 ? 0xffffffffu : ((1u << n) - 1u));
  } else if constexpr (S == Scope::kWarpgroup) {
    // Named barrier 1 + the warpgroup's number (0 is __syncthreads'), over its warps.
    const int n = (group_size<S>() + 31) & ~31;
    asm volatile("bar.sync %0, %1;" ::"r"(1 + (linear_thread() >> 7)), "r"(n) : "memory");
  } else if constexpr (S == Scope::kBlock) {
    __syncthreads();
  }
}

// The group's first thread runs `f` for the group, between two group syncs: what every thread issued
// before is covered, and every thread returns after it (the group forms of quiet-like calls).
template <Scope S, class F>
__device__ __forceinline__ void by_first_thread(F&& f) {
  group_sync<S>();
  if (group_rank<S>() == 0) f();
  group_sync<S>();
}

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
