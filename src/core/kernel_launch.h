// Collective launches through the driver API: what the exported C symbols nvshmemx_collective_launch and
// nvshmemx_collective_launch_query_gridsize do, for callers that reach them by symbol (bindings, dlsym, programs
// linked against NVSHMEM's library ABI). Programs built against gshmem's headers use the headers' inline C++ forms
// over the CUDA runtime instead (compat/collective_launch.h), with the same checks and messages.
//
// `func` is either a kernel's host function (the address of a __global__ function in a program whose CUDA runtime
// is the shared libcudart: the library asks that runtime for the kernel's driver handle) or a driver handle
// (CUfunction) itself, as a module loader or a Python kernel compiler gives it.
#pragma once

#include <cstddef>

#include "util/status.h"

namespace gshmem {

// Checks that a collective launch can run (initialised, GPU backend), binds the GPU where it is not yet (collective
// then, as every launch is) and makes its context current on this thread. Warns once where PEs share the GPU.
Status prepare_collective_launch(const char* api);

// A grid or block size (dim3's layout).
struct LaunchDims {
  unsigned x = 1, y = 1, z = 1;
};

// The largest grid of `func` whose blocks (`block` threads, `shared_bytes` of dynamic shared memory) are all
// resident on this PE's GPU at once. Not collective: before the GPU is bound, the GPU of the context current here
// (none: GSHMEM_ERROR_GPU_NOT_SELECTED).
Status collective_launch_grid(const void* func, LaunchDims block, size_t shared_bytes, int* blocks, const char* api);

// The grid rule of every collective launch (the headers' inline forms and the exported symbols): with `per_sm`
// blocks fitting per SM on `sms` SMs, an all-zero `grid` becomes the largest that fits; a grid that mixes zero and
// non-zero sizes (GSHMEM_ERROR_INVALID_VALUE) or does not fit (GSHMEM_ERROR_COLLECTIVE_LAUNCH_FAILED) is refused,
// the reason logged for `api`.
Status check_collective_grid(LaunchDims* grid, LaunchDims block, size_t shared_bytes, int per_sm, int sms,
                             const char* api);

// Launches `func` on `stream` with every block resident at once (a cooperative launch where the GPU has them):
// a grid of all zeros is the largest that fits; a grid that does not fit, or mixes zero and non-zero sizes, is
// refused with the reason. Collective.
Status collective_launch(const void* func, LaunchDims grid, LaunchDims block, void** args, size_t shared_bytes,
                         void* stream, const char* api);

}  // namespace gshmem
