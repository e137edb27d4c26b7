// Native device API: shared memory a block lends the library for bulk copies (NVSHMEM 3.7's
// nvshmemx_ask_smem, _give_smem, _release_smem, for its TMA path of NVLink puts and gets).
//
//   gshmem::dev::ask_smem(amount)   give_smem(smem, bytes)   release_smem()
//
// Contracts (NVSHMEM's): ask_smem says how many bytes of shared memory to lend (GSHMEM_SMEM_RECOMMENDED for copies
// between global memories, which stage through it; _MINIMUM when occupancy is tight; _BARRIERS_ONLY when the
// block puts from its own shared memory only). One thread of a block calls give_smem before the block's copies,
// and the block synchronises before using them; one thread calls release_smem after them, before the block exits
// (the memory is the block's again). With NVSHMEM_TMA_POLICY=ENABLE or FORCE on a GPU of compute capability 9.0
// or newer, the block's puts and gets to mapped peers of at least GSHMEM_TMA_MIN_SIZE bytes, 16-byte aligned,
// then move by bulk copies (tma.cuh); otherwise (a block that lends nothing or too little, the policy DISABLE,
// an older GPU, code compiled for an older one or linked with the bitcode device library: arch.cuh) give and
// release do nothing and every copy is the ordinary one.
#pragma once

#include <cstddef>

#include "gshmem/constants.h"
#if defined(__CUDACC__)
#include "gshmem/device/tma.cuh"
#endif

namespace gshmem {

#if defined(__CUDACC__)
#define GSHMEMI_SMEM_FN __host__ __device__ __forceinline__
#else
#define GSHMEMI_SMEM_FN inline
#endif

// The bytes to lend: NVSHMEM's amounts, so that programs size their launches alike on both.
GSHMEMI_SMEM_FN constexpr int ask_smem(int amount) {
  return amount == GSHMEM_SMEM_MINIMUM ? 32 << 10 : amount == GSHMEM_SMEM_BARRIERS_ONLY ? 1 << 10 : 64 << 10;
}

#if defined(__CUDACC__)
namespace dev {
using gshmem::ask_smem;
__device__ __forceinline__ void give_smem(void* smem, size_t bytes) { detail::tma::give(smem, bytes); }
__device__ __forceinline__ void release_smem() { detail::tma::release(); }
}  // namespace dev
#endif

}  // namespace gshmem
