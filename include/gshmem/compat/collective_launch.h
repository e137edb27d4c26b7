/* nvshmemx_collective_launch and nvshmemx_collective_launch_query_gridsize (C++, as in NVSHMEM).
 *
 * A collective launch is collective: every PE launches its kernel, and each PE's whole grid is
 * resident on its GPU at once, so that kernels may synchronise across PEs (barriers, waits) without
 * deadlocking on blocks that never get an SM. The grid may not exceed what fits at once: the
 * kernel's occupancy (blocks per SM for its block size and dynamic shared memory) times the SMs
 * (under MPS, the share CUDA reports). Where PEs share a GPU (NVSHMEM_STATUS_LIMITED_MPG), their
 * grids are not co-resident but take turns on it; the launch runs (with one warning), and kernels
 * that wait for each other progress as the GPU switches between the PEs' contexts.
 * An all-zero grid asks for that maximum. The kernel runs as a cooperative launch on `stream`.
 *
 * These are inline functions over the CUDA runtime (compiled into the caller, which links the CUDA
 * runtime anyway), so libgshmem_host itself keeps no dependency on it. */
#ifndef GSHMEM_COMPAT_COLLECTIVE_LAUNCH_H_
#define GSHMEM_COMPAT_COLLECTIVE_LAUNCH_H_

#include "gshmem/compat/nvshmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Completes initialisation on every PE (binds the GPU) before a collective launch; returns 0, or an
 * NVSHMEMX_ERROR_* code after logging why. Collective. */
GSHMEM_API int gshmemi_collective_launch_prepare(const char *api);
/* Logs an error of `api` through gshmem's logging (NVSHMEM_DEBUG, NVSHMEM_DEBUG_FILE). */
GSHMEM_API void gshmemi_report_error(const char *api, const char *message);
#ifdef __cplusplus
}
#endif

#if defined(__cplusplus) && (defined(__CUDACC__) || defined(CUDART_VERSION))
#include <cuda_runtime.h>

#include <cstdio>

namespace gshmem {
namespace detail {

/* The largest grid of `func` that fits on the current GPU at once, with the reason if none. */
inline int co_resident_blocks(const void *func, dim3 block, size_t shmem, int *per_sm, int *sms, const char *api) {
  int device = 0;
  char msg[256];
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, func, static_cast<int>(block.x * block.y * block.z),
                                                        shmem);
  }
  if (err != cudaSuccess) {
    std::snprintf(msg, sizeof msg, "cannot compute the kernel's occupancy: %s", cudaGetErrorString(err));
    gshmemi_report_error(api, msg);
    return -1;
  }
  return *per_sm * *sms;
}

}  // namespace detail
}  // namespace gshmem

inline int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 blockDims, void **args, size_t sharedMem,
                                                     int *gridsize) {
  (void)args;
  int per_sm = 0, sms = 0;
  int max = gshmem::detail::co_resident_blocks(func, blockDims, sharedMem, &per_sm, &sms,
                                               "nvshmemx_collective_launch_query_gridsize");
  if (max < 0) return NVSHMEMX_ERROR_INTERNAL;
  *gridsize = max;
  return NVSHMEMX_SUCCESS;
}

inline int nvshmemx_collective_launch(const void *func, dim3 gridDims, dim3 blockDims, void **args, size_t sharedMem,
                                      cudaStream_t stream) {
  const char *api = "nvshmemx_collective_launch";
  char msg[512];
  int rc = gshmemi_collective_launch_prepare(api);
  if (rc != 0) return rc;
  int per_sm = 0, sms = 0;
  const int max = gshmem::detail::co_resident_blocks(func, blockDims, sharedMem, &per_sm, &sms, api);
  if (max < 0) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  const int zeros = (gridDims.x == 0) + (gridDims.y == 0) + (gridDims.z == 0);
  if (zeros == 3) {
    gridDims = dim3(static_cast<unsigned>(max), 1, 1);
  } else if (zeros != 0) {
    std::snprintf(msg, sizeof msg,
                  "the grid (%u, %u, %u) mixes zero and non-zero sizes: give every size, or all zeros for the "
                  "largest grid that fits",
                  gridDims.x, gridDims.y, gridDims.z);
    gshmemi_report_error(api, msg);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  const unsigned long long blocks =
      static_cast<unsigned long long>(gridDims.x) * gridDims.y * static_cast<unsigned long long>(gridDims.z);
  if (max == 0 || blocks > static_cast<unsigned long long>(max)) {
    std::snprintf(msg, sizeof msg,
                  "a grid of %llu blocks cannot be resident on the GPU at once: with %u threads per block and %zu "
                  "bytes of dynamic shared memory, %d block(s) fit per SM on %d SMs, so at most %d; launch fewer "
                  "blocks (nvshmemx_collective_launch_query_gridsize tells how many), or smaller ones",
                  blocks, blockDims.x * blockDims.y * blockDims.z, sharedMem, per_sm, sms, max);
    gshmemi_report_error(api, msg);
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  int device = 0, cooperative = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
  cudaError_t err = cooperative ? cudaLaunchCooperativeKernel(func, gridDims, blockDims, args, sharedMem, stream)
                                : cudaLaunchKernel(func, gridDims, blockDims, args, sharedMem, stream);
  if (err != cudaSuccess) {
    std::snprintf(msg, sizeof msg, "the launch failed: %s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
    gshmemi_report_error(api, msg);
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return NVSHMEMX_SUCCESS;
}

#endif /* __cplusplus && CUDA runtime */

#endif /* GSHMEM_COMPAT_COLLECTIVE_LAUNCH_H_ */
