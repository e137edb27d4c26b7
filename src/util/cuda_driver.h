// The CUDA driver API, loaded at run time so that the same binary runs where no GPU or driver is
// installed (the CPU backend). Only compiled where the CUDA toolkit headers are available.
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

#include "util/status.h"

namespace gshmem {

// Every driver entry point the library uses, with the ABI version whose signature we call. Each is
// resolved through cuGetProcAddress for exactly that version: asking for the newest one would
// return a different signature where CUDA changed it (cuCtxGetDevice and cuCtxSynchronize take a
// context since CUDA 13). The pointer types are cudaTypedefs.h's PFN_<name>_v<version>.
#define GSHMEM_CUDA_DRIVER_FUNCTIONS(X)            \
  X(cuInit, 2000)                                  \
  X(cuDriverGetVersion, 2020)                      \
  X(cuGetErrorString, 6000)                        \
  X(cuGetErrorName, 6000)                          \
  X(cuDeviceGetCount, 2000)                        \
  X(cuDeviceGet, 2000)                             \
  X(cuDeviceGetAttribute, 2000)                    \
  X(cuDeviceGetName, 2000)                         \
  X(cuDeviceGetUuid, 11040)                        \
  X(cuDeviceGetPCIBusId, 4010)                     \
  X(cuDeviceCanAccessPeer, 4000)                   \
  X(cuDevicePrimaryCtxRetain, 7000)                \
  X(cuDevicePrimaryCtxRelease, 11000)              \
  X(cuCtxGetCurrent, 4000)                         \
  X(cuCtxSetCurrent, 4000)                         \
  X(cuCtxGetDevice, 2000)                          \
  X(cuCtxSynchronize, 2000)                        \
  X(cuCtxGetFlags, 7000)                           \
  X(cuCtxSetFlags, 12010)                          \
  X(cuMemGetInfo, 3020)                            \
  X(cuMemGetAllocationGranularity, 10020)          \
  X(cuMemAddressReserve, 10020)                    \
  X(cuMemAddressFree, 10020)                       \
  X(cuMemCreate, 10020)                            \
  X(cuMemRelease, 10020)                           \
  X(cuMemMap, 10020)                               \
  X(cuMemUnmap, 10020)                             \
  X(cuMemSetAccess, 10020)                         \
  X(cuMemExportToShareableHandle, 10020)           \
  X(cuMemImportFromShareableHandle, 10020)         \
  X(cuMemRetainAllocationHandle, 11000)            \
  X(cuMemGetAllocationPropertiesFromHandle, 10020) \
  X(cuMemGetAddressRange, 3020)                    \
  X(cuMemAlloc, 3020)                              \
  X(cuMemFree, 3020)                               \
  X(cuMemcpy, 4000)                                \
  X(cuMemcpyAsync, 4000)                           \
  X(cuMemcpy2DAsync, 3020)                         \
  X(cuMemcpyHtoD, 3020)                            \
  X(cuMemcpyDtoH, 3020)                            \
  X(cuMemsetD8, 3020)                              \
  X(cuMemsetD8Async, 3020)                         \
  X(cuMemHostAlloc, 2020)                          \
  X(cuMemFreeHost, 2000)                           \
  X(cuPointerGetAttribute, 4000)                   \
  X(cuStreamCreate, 2000)                          \
  X(cuStreamDestroy, 4000)                         \
  X(cuStreamSynchronize, 2000)                     \
  X(cuStreamQuery, 2000)                           \
  X(cuStreamWaitEvent, 3020)                       \
  X(cuStreamIsCapturing, 10000)                    \
  X(cuStreamWriteValue64, 11070)                   \
  X(cuThreadExchangeStreamCaptureMode, 10010)      \
  X(cuEventCreate, 2000)                           \
  X(cuEventDestroy, 4000)                          \
  X(cuEventRecord, 2000)                           \
  X(cuModuleLoadData, 2000)                        \
  X(cuModuleUnload, 2000)                          \
  X(cuModuleGetFunction, 2000)                     \
  X(cuModuleGetLoadingMode, 11070)                 \
  X(cuModuleGetGlobal, 3020)                       \
  X(cuLibraryGetGlobal, 12000)                     \
  X(cuLaunchKernel, 4000)                          \
  X(cuLaunchCooperativeKernel, 9000)               \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)

struct CudaDriver {
#define GSHMEM_CUDA_DRIVER_MEMBER(name, version) PFN_##name##_v##version name = nullptr;
  GSHMEM_CUDA_DRIVER_FUNCTIONS(GSHMEM_CUDA_DRIVER_MEMBER)
#undef GSHMEM_CUDA_DRIVER_MEMBER
};

// Loads libcuda.so.1 (from `cuda_path` when not empty) and calls cuInit. Returns
// GSHMEM_ERROR_NOT_SUPPORTED with a reason when no usable driver is present. Idempotent.
Status load_cuda_driver(const std::string& cuda_path, std::string* why);

// The loaded driver; only valid after load_cuda_driver succeeded.
const CudaDriver& cu();

// Whether the driver knows `p`: device memory, or host memory that is pinned or registered
// (anything else is pageable host memory, or no memory at all).
bool cuda_pointer_known(const void* p);
// Whether `p` is GPU memory (device or managed: what the CPU may not read directly). Only with the
// driver loaded.
bool cuda_device_memory(const void* p);
// Whether `p` is a byte of memory this process maps (read without faulting: an address that is not
// mapped must be an error, not a crash). For pageable host memory the driver does not know.
bool host_memory_mapped(const void* p);

// "cuMemCreate failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string cuda_error(const char* call, CUresult rc);

}  // namespace gshmem

// Calls a driver function through the loaded table; on failure logs the call, the error and
// where, and returns GSHMEM_ERROR_CUDA from the enclosing function.
#define GSHMEM_CU_CHECK(call_name, ...)                                                                        \
  do {                                                                                                         \
    CUresult gshmem_cu_rc_ = ::gshmem::cu().call_name(__VA_ARGS__);                                            \
    if (gshmem_cu_rc_ != CUDA_SUCCESS) {                                                                       \
      GSHMEM_ERROR("%s (%s:%d)", ::gshmem::cuda_error(#call_name, gshmem_cu_rc_).c_str(), __FILE__, __LINE__); \
      return GSHMEM_ERROR_CUDA;                                                                                \
    }                                                                                                          \
  } while (0)

#endif  // GSHMEM_HAVE_CUDA
