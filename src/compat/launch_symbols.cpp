// nvshmemx_collective_launch and nvshmemx_collective_launch_query_gridsize as exported C symbols, as NVSHMEM's
// libnvshmem_host has them, for callers that reach them by symbol (bindings, dlsym, code built against NVSHMEM's
// library ABI). gshmem's headers declare neither: a program compiled against them calls their inline C++ forms
// (compat/collective_launch.h), which need no symbol. The work is core/kernel_launch's.
#include "core/kernel_launch.h"
#include "gshmem/compat/nvshmem_types.h"

namespace {

// dim3's layout, passed by value as the C ABI passes dim3 (a trivially copyable struct of three unsigned ints).
struct Dim3 {
  unsigned x, y, z;
};

gshmem::LaunchDims dims(Dim3 d) { return gshmem::LaunchDims{d.x, d.y, d.z}; }

// Statuses up to NVSHMEMX_ERROR_INTERNAL are NVSHMEM's codes; gshmem's own (a CUDA call failed, ...) are a failed
// launch to the caller.
int launch_status(gshmem::Status s) {
  return static_cast<int>(s) <= NVSHMEMX_ERROR_INTERNAL ? static_cast<int>(s) : NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
}

}  // namespace

extern "C" {

GSHMEM_API int nvshmemx_collective_launch(const void* func, Dim3 grid, Dim3 block, void** args, size_t shared_bytes,
                                          void* stream) {
  return launch_status(gshmem::collective_launch(func, dims(grid), dims(block), args, shared_bytes, stream,
                                                 "nvshmemx_collective_launch"));
}

GSHMEM_API int nvshmemx_collective_launch_query_gridsize(const void* func, Dim3 block, void** args, size_t shared_bytes,
                                                         int* gridsize) {
  (void)args;
  if (gridsize == nullptr) return NVSHMEMX_ERROR_INVALID_VALUE;
  return launch_status(gshmem::collective_launch_grid(func, dims(block), shared_bytes, gridsize,
                                                      "nvshmemx_collective_launch_query_gridsize"));
}

}  // extern "C"
