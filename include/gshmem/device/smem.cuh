// Native device API: shared memory a block lends the library for bulk copies (NVSHMEM 3.7's
// nvshmemx_ask_smem, _give_smem, _release_smem, for its TMA path of NVLink puts and gets).
//
//   gshmem::dev::ask_smem(amount)   give_smem(smem, bytes)   release_smem()
//
// Contracts (NVSHMEM's): ask_smem says how many bytes of shared memory to lend (GSHMEM_SMEM_RECOMMENDED,
// _MINIMUM, _BARRIERS_ONLY); a block that lends calls give_smem with all its threads before its copies and
// release_smem with all its threads before it exits; a block that lends none, or too little, copies as
// usual. gshmem's copies do not use a block's shared memory yet (NVSHMEM_TMA_POLICY selects no bulk-copy
// path here), so give and release only synchronise the block, and every copy is the ordinary one.
#pragma once

#include <cstddef>

#include "gshmem/constants.h"

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
// Collective over the block.
__device__ __forceinline__ void give_smem(void* smem, size_t bytes) {
  (void)smem, (void)bytes;
  __syncthreads();
}
__device__ __forceinline__ void release_smem() { __syncthreads(); }
}  // namespace dev
#endif

}  // namespace gshmem
