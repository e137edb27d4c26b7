// The CUDA driver API, loaded at run time so that the same binary runs where no GPU or driver is
// installed (the CPU backend). Only compiled where the CUDA toolkit headers are available.
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <cuda.h>

#include <string>

#include "util/status.h"

namespace gshmem {

// Every driver entry point the library uses. Each is resolved by its unversioned name through
// cuGetProcAddress for the CUDA version of the headers we were built with, so the pointer has
// the signature the header declares.
#define GSHMEM_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                             \
  X(cuDriverGetVersion)                 \
  X(cuGetErrorString)                   \
  X(cuGetErrorName)                     \
  X(cuDeviceGetCount)                   \
  X(cuDeviceGet)                        \
  X(cuDeviceGetAttribute)               \
  X(cuDeviceGetName)                    \
  X(cuDeviceGetUuid)                    \
  X(cuDeviceGetPCIBusId)                \
  X(cuDeviceCanAccessPeer)              \
  X(cuDevicePrimaryCtxRetain)           \
  X(cuDevicePrimaryCtxRelease)          \
  X(cuCtxGetCurrent)                    \
  X(cuCtxSetCurrent)                    \
  X(cuCtxGetDevice)                     \
  X(cuCtxSynchronize)                   \
  X(cuMemGetInfo)                       \
  X(cuMemGetAllocationGranularity)      \
  X(cuMemAddressReserve)                \
  X(cuMemAddressFree)                   \
  X(cuMemCreate)                        \
  X(cuMemRelease)                       \
  X(cuMemMap)                           \
  X(cuMemUnmap)                         \
  X(cuMemSetAccess)                     \
  X(cuMemExportToShareableHandle)       \
  X(cuMemImportFromShareableHandle)     \
  X(cuMemAlloc)                         \
  X(cuMemFree)                          \
  X(cuMemcpy)                           \
  X(cuMemcpyAsync)                      \
  X(cuMemcpyHtoD)                       \
  X(cuMemcpyDtoH)                       \
  X(cuMemsetD8)                         \
  X(cuMemsetD8Async)                    \
  X(cuStreamCreate)                     \
  X(cuStreamDestroy)                    \
  X(cuStreamSynchronize)                \
  X(cuStreamWaitEvent)                  \
  X(cuEventCreate)                      \
  X(cuEventDestroy)                     \
  X(cuEventRecord)                      \
  X(cuModuleLoadData)                   \
  X(cuModuleUnload)                     \
  X(cuModuleGetFunction)                \
  X(cuModuleGetGlobal)                  \
  X(cuLaunchKernel)

struct CudaDriver {
#define GSHMEM_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  GSHMEM_CUDA_DRIVER_FUNCTIONS(GSHMEM_CUDA_DRIVER_MEMBER)
#undef GSHMEM_CUDA_DRIVER_MEMBER
};

// Loads libcuda.so.1 (from `cuda_path` when not empty) and calls cuInit. Returns
// GSHMEM_ERROR_NOT_SUPPORTED with a reason when no usable driver is present. Idempotent.
Status load_cuda_driver(const std::string& cuda_path, std::string* why);

// The loaded driver; only valid after load_cuda_driver succeeded.
const CudaDriver& cu();

// "cuMemCreate failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string cuda_error(const char* call, CUresult rc);

}  // namespace gshmem

// Calls a driver function through the loaded table; on failure logs the call, the error and
// where, and returns GSHMEM_ERROR_CUDA from the enclosing function.
#define GSHMEM_CU_CHECK(call_name, ...)                                                            \
  do {                                                                                             \
    CUresult gshmem_cu_rc_ = ::gshmem::cu().call_name(__VA_ARGS__);                                \
    if (gshmem_cu_rc_ != CUDA_SUCCESS) {                                                           \
      GSHMEM_ERROR("%s (%s:%d)", ::gshmem::cuda_error(#call_name, gshmem_cu_rc_).c_str(), __FILE__, \
                   __LINE__);                                                                      \
      return GSHMEM_ERROR_CUDA;                                                                    \
    }                                                                                              \
  } while (0)

#endif  // GSHMEM_HAVE_CUDA
