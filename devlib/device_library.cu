// The device library: NVSHMEM's device API as exported C functions, compiled to LLVM bitcode (one file per
// GPU architecture) for compilers that link bitcode into the modules they make (Triton, CuTe DSL).
// There is no second implementation: each function is the generated one-line forward of
// gshmem/compat/gen/nvshmem_device.cuh into the native templates, defined here with C linkage instead of
// inline. The state is the library mode of gshmem/device/state.cuh: one exported __constant__ per module,
// which nvshmemx_cumodule_init (or the Python package's hook) fills, and which every call checks.
#ifndef GSHMEM_DEVICE_LIBRARY
#error "devlib/device_library.cu is compiled with -DGSHMEM_DEVICE_LIBRARY (devlib/CMakeLists.txt)"
#endif

#include "gshmem/compat/nvshmem_types.h"
#include "gshmem/device/device.cuh"

#define GSHMEMI_DEVICE extern "C" __device__
#include "gshmem/compat/gen/nvshmem_device.cuh"
