#include "core/kernel_launch.h"

#include <dlfcn.h>

#include <string>

#include "core/runtime.h"
#include "util/cuda_driver.h"
#include "util/log.h"

namespace gshmem {

namespace {

Status check_gpu_job(const char* api) {
  Runtime& r = Runtime::instance();
  if (r.init_state() == kNotInitialized) {
    GSHMEM_ERROR("%s was called before nvshmem_init", api);
    return GSHMEM_ERROR_GPU_NOT_SELECTED;
  }
  if (r.backend() != Backend::kGpu) {
    GSHMEM_ERROR("%s: this job runs on the CPU backend (GSHMEM_BACKEND), which has no GPU to launch on", api);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace

Status prepare_collective_launch(const char* api) {
  GSHMEM_CHECK(check_gpu_job(api));
  Runtime& r = Runtime::instance();
  if (!ok(r.ensure_bound(api))) return GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED;
  if (r.gpu_sharing() == GpuSharing::kLimited) {
    // The GPU runs the PEs' contexts in turns, so kernels that wait for each other still make progress
    // (each waits through the others' time slices): allowed, as NVSHMEM allows it, with one warning.
    static bool warned = false;
    if (!warned) {
      warned = true;
      GSHMEM_WARN(kInit,
                  "%s: PEs share a GPU (NVSHMEM_STATUS_LIMITED_MPG; the init warning names them): their grids are not "
                  "resident at once, and kernels that wait for each other progress only as the GPU switches between "
                  "the PEs' contexts, which makes every wait slow; give each PE a GPU of its own for full speed",
                  api);
    }
  }
  r.make_gpu_current();
  return GSHMEM_SUCCESS;
}

Status check_collective_grid(LaunchDims* grid, LaunchDims block, size_t shared_bytes, int per_sm, int sms,
                             const char* api) {
  const int max = per_sm * sms;
  const int zeros = (grid->x == 0) + (grid->y == 0) + (grid->z == 0);
  if (zeros == 3) {
    *grid = LaunchDims{static_cast<unsigned>(max), 1, 1};
  } else if (zeros != 0) {
    GSHMEM_ERROR(
        "%s: the grid (%u, %u, %u) mixes zero and non-zero sizes: give every size, or all zeros for the largest grid "
        "that fits",
        api, grid->x, grid->y, grid->z);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const unsigned long long n = static_cast<unsigned long long>(grid->x) * grid->y * grid->z;
  if (max == 0 || n > static_cast<unsigned long long>(max)) {
    GSHMEM_ERROR(
        "%s: a grid of %llu blocks cannot be resident on the GPU at once: with %u threads per block and %zu bytes of "
        "dynamic shared memory, %d block(s) fit per SM on %d SMs, so at most %d; launch fewer blocks "
        "(nvshmemx_collective_launch_query_gridsize tells how many), or smaller ones",
        api, n, block.x * block.y * block.z, shared_bytes, per_sm, sms, max);
    return GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return GSHMEM_SUCCESS;
}

#ifndef GSHMEM_HAVE_CUDA

Status collective_launch_grid(const void*, LaunchDims, size_t, int*, const char* api) {
  Status s = check_gpu_job(api);  // a job without CUDA runs on the CPU backend: refused there
  if (ok(s)) GSHMEM_ERROR("%s: this gshmem was built without CUDA", api);
  return ok(s) ? GSHMEM_ERROR_NOT_SUPPORTED : s;
}

Status collective_launch(const void*, LaunchDims, LaunchDims, void**, size_t, void*, const char* api) {
  return collective_launch_grid(nullptr, {}, 0, nullptr, api);
}

#else

namespace {

// The driver handle of `func`: a host function is looked up in the program's shared CUDA runtime; anything else is
// taken as a CUfunction.
Status kernel_handle(const void* func, CUfunction* out, const char* api) {
  if (func == nullptr) {
    GSHMEM_ERROR("%s: the kernel (func) is NULL", api);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  Dl_info where{};
  if (dladdr(func, &where) == 0 || where.dli_fname == nullptr) {
    *out = static_cast<CUfunction>(const_cast<void*>(func));  // not in any loaded object: a driver handle
    return GSHMEM_SUCCESS;
  }
  // cudaGetFuncBySymbol(cudaFunction_t*, const void*): a cudaFunction_t is a CUfunction. The runtime the kernel's
  // object registered with is among that object's dependencies (searched first: a libcudart loaded RTLD_LOCAL, as
  // Python extensions load it, is not global), else any loaded globally.
  using GetFunc = int (*)(CUfunction*, const void*);
  GetFunc get = nullptr;
  if (void* object = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) {
    get = reinterpret_cast<GetFunc>(dlsym(object, "cudaGetFuncBySymbol"));
    dlclose(object);
  }
  if (get == nullptr) get = reinterpret_cast<GetFunc>(dlsym(RTLD_DEFAULT, "cudaGetFuncBySymbol"));
  if (get == nullptr) {
    GSHMEM_ERROR(
        "%s: func %p is a host function of %s, but this process has no shared CUDA runtime (libcudart.so) to ask "
        "for its kernel: a program that links the CUDA runtime statically must call the inline form of nvshmem.h's "
        "headers (compile the call with nvcc), or pass the kernel's CUfunction",
        api, func, where.dli_fname);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const int rc = get(out, func);
  if (rc != 0 || *out == nullptr) {
    GSHMEM_ERROR(
        "%s: the shared CUDA runtime knows no kernel at %p (in %s; cudaGetFuncBySymbol returned %d): pass a "
        "__global__ function registered with that runtime, or the kernel's CUfunction",
        api, func, where.dli_fname, rc);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

Status resident_blocks(CUfunction f, LaunchDims block, size_t shared_bytes, int* per_sm, int* sms, const char* api) {
  CUcontext ctx = nullptr;
  CUdevice dev = 0;
  GSHMEM_CU_CHECK(cuCtxGetCurrent, &ctx);
  GSHMEM_CU_CHECK(cuCtxGetDevice, &dev);
  GSHMEM_CU_CHECK(cuDeviceGetAttribute, sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  const CUresult rc = cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(
      per_sm, f, static_cast<int>(block.x * block.y * block.z), shared_bytes);
  if (rc != CUDA_SUCCESS) {
    GSHMEM_ERROR("%s: cannot compute the kernel's occupancy: %s", api,
                 cuda_error("cuOccupancyMaxActiveBlocksPerMultiprocessor", rc).c_str());
    return GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace

Status collective_launch_grid(const void* func, LaunchDims block, size_t shared_bytes, int* blocks, const char* api) {
  // Not collective (a PE may ask alone): the bound GPU's context, or before the GPU is bound the one current here.
  GSHMEM_CHECK(check_gpu_job(api));
  Runtime& r = Runtime::instance();
  r.make_gpu_current();
  CUcontext ctx = nullptr;
  GSHMEM_CU_CHECK(cuCtxGetCurrent, &ctx);
  if (ctx == nullptr) {
    GSHMEM_ERROR("%s: no GPU is bound yet and no CUDA context is current: select the device (cudaSetDevice) first",
                 api);
    return GSHMEM_ERROR_GPU_NOT_SELECTED;
  }
  CUfunction f = nullptr;
  GSHMEM_CHECK(kernel_handle(func, &f, api));
  int per_sm = 0, sms = 0;
  GSHMEM_CHECK(resident_blocks(f, block, shared_bytes, &per_sm, &sms, api));
  *blocks = per_sm * sms;
  return GSHMEM_SUCCESS;
}

Status collective_launch(const void* func, LaunchDims grid, LaunchDims block, void** args, size_t shared_bytes,
                         void* stream, const char* api) {
  GSHMEM_CHECK(prepare_collective_launch(api));
  CUfunction f = nullptr;
  GSHMEM_CHECK(kernel_handle(func, &f, api));
  int per_sm = 0, sms = 0;
  GSHMEM_CHECK(resident_blocks(f, block, shared_bytes, &per_sm, &sms, api));
  GSHMEM_CHECK(check_collective_grid(&grid, block, shared_bytes, per_sm, sms, api));
  CUdevice dev = 0;
  int cooperative = 0;
  GSHMEM_CU_CHECK(cuCtxGetDevice, &dev);
  GSHMEM_CU_CHECK(cuDeviceGetAttribute, &cooperative, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev);
  auto s = static_cast<CUstream>(stream);
  const auto smem = static_cast<unsigned>(shared_bytes);
  const CUresult rc =
      cooperative ? cu().cuLaunchCooperativeKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, s, args)
                  : cu().cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, s, args, nullptr);
  if (rc != CUDA_SUCCESS) {
    GSHMEM_ERROR("%s: the launch failed: %s", api,
                 cuda_error(cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", rc).c_str());
    return GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return GSHMEM_SUCCESS;
}

#endif  // GSHMEM_HAVE_CUDA

}  // namespace gshmem
