/* nvshmemx_collective_launch, nvshmemx_collective_launch_attr (3.8: the user's cudaLaunchConfig_t, its
 * launch attributes included) and nvshmemx_collective_launch_query_gridsize (C++, as in NVSHMEM).
 *
 * A collective launch is collective: every PE launches its kernel, and each PE's whole grid is
 * resident on its GPU at once, so that kernels may synchronise across PEs (barriers, waits) without
 * deadlocking on blocks that never get an SM. The grid may not exceed what fits at once: the
 * kernel's occupancy (blocks per SM for its block size and dynamic shared memory) times the SMs
 * (under MPS, the share CUDA reports). Where PEs share a GPU (NVSHMEM_STATUS_LIMITED_MPG), their
 * grids are not co-resident but take turns on it; the launch runs (with one warning), and kernels
 * that wait for each other progress as the GPU switches between the PEs' contexts.
 * An all-zero grid asks for that maximum. The kernel runs as a cooperative launch on `stream` (with _attr:
 * the configuration's stream, with its attributes beside the cooperative one; an attribute the user gives
 * wins over the library's).
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
/* The grid rule of a collective launch, `per_sm` blocks fitting per SM on `sms` SMs: an all-zero `grid` becomes the
 * largest that fits; a grid mixing zero and non-zero sizes, or one that does not fit, is refused with the reason
 * logged for `api`. Returns 0 or an NVSHMEMX_ERROR_* code. */
GSHMEM_API int gshmemi_collective_launch_check_grid(const char *api, unsigned grid[3], const unsigned block[3],
                                                    size_t shared_bytes, int per_sm, int sms);
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

/* nvshmemx_collective_launch_attr (NVSHMEM 3.8): the launch's configuration is the user's cudaLaunchConfig_t
 * (grid, block, dynamic shared memory, stream and launch attributes). */
typedef struct {
  cudaLaunchConfig_t cuda_config;
} nvshmemx_collective_launch_attr_t;

namespace gshmem {
namespace detail {

/* The most launch attributes a collective launch takes from the user (NVSHMEM's bound). */
constexpr unsigned kMaxUserLaunchAttributes = 16;

/* A collective launch of `func` with `config`: the grid checked against what fits at once (all zeros: that
 * maximum), the cooperative attribute added where the GPU has cooperative launches and the user did not set
 * it (the user's attributes win), on config.stream. Returns an NVSHMEMX code, after logging why. */
inline int collective_launch(cudaLaunchConfig_t config, const void *func, void **args, const char *api) {
  char msg[512];
  if (config.numAttrs > kMaxUserLaunchAttributes || (config.numAttrs > 0 && config.attrs == nullptr)) {
    std::snprintf(msg, sizeof msg, "%u launch attributes%s: give at most %u, in an array", config.numAttrs,
                  config.attrs == nullptr ? " without an array" : "", kMaxUserLaunchAttributes);
    gshmemi_report_error(api, msg);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  int rc = gshmemi_collective_launch_prepare(api);
  if (rc != 0) return rc;
  int per_sm = 0, sms = 0;
  const int max = co_resident_blocks(func, config.blockDim, config.dynamicSmemBytes, &per_sm, &sms, api);
  if (max < 0) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  unsigned grid[3] = {config.gridDim.x, config.gridDim.y, config.gridDim.z};
  const unsigned block[3] = {config.blockDim.x, config.blockDim.y, config.blockDim.z};
  rc = gshmemi_collective_launch_check_grid(api, grid, block, config.dynamicSmemBytes, per_sm, sms);
  if (rc != 0) return rc;
  config.gridDim = dim3(grid[0], grid[1], grid[2]);
  int device = 0, cooperative = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
  cudaLaunchAttribute attrs[kMaxUserLaunchAttributes + 1];
  unsigned n = 0;
  bool user_set_cooperative = false;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    attrs[n++] = config.attrs[i];
    user_set_cooperative = user_set_cooperative || config.attrs[i].id == cudaLaunchAttributeCooperative;
  }
  if (cooperative && !user_set_cooperative) {
    attrs[n] = cudaLaunchAttribute{};
    attrs[n].id = cudaLaunchAttributeCooperative;
    attrs[n].val.cooperative = 1;
    ++n;
  }
  config.attrs = n > 0 ? attrs : nullptr;
  config.numAttrs = n;
  const cudaError_t err = cudaLaunchKernelExC(&config, func, args);
  if (err != cudaSuccess) {
    std::snprintf(msg, sizeof msg, "the launch failed: %s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
    gshmemi_report_error(api, msg);
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return NVSHMEMX_SUCCESS;
}

}  // namespace detail
}  // namespace gshmem

inline int nvshmemx_collective_launch(const void *func, dim3 gridDims, dim3 blockDims, void **args, size_t sharedMem,
                                      cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = gridDims;
  config.blockDim = blockDims;
  config.dynamicSmemBytes = sharedMem;
  config.stream = stream;
  return gshmem::detail::collective_launch(config, func, args, "nvshmemx_collective_launch");
}

inline int nvshmemx_collective_launch_attr(const nvshmemx_collective_launch_attr_t *attr, const void *func,
                                           void **args) {
  if (attr == nullptr) {
    gshmemi_report_error("nvshmemx_collective_launch_attr", "the attributes pointer is NULL");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  return gshmem::detail::collective_launch(attr->cuda_config, func, args, "nvshmemx_collective_launch_attr");
}

#endif /* __cplusplus && CUDA runtime */

#endif /* GSHMEM_COMPAT_COLLECTIVE_LAUNCH_H_ */
