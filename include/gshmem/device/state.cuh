// How kernels find the library's state without relocatable device code.
//
// Every translation unit compiled by nvcc that includes the device API gets its own
// `static __constant__` copy of the state and a static object that registers a writer for it
// with libgshmem_host when the program (or shared library) is loaded. The library writes the state
// into every registered copy when the GPU is bound and after each change. This works the same with
// and without -rdc, needs no device library to link, and defines no global whose meaning depends
// on __CUDACC_RDC__.
//
// The device library (devlib/: LLVM bitcode that other compilers link into their modules, Triton's and
// numba's) is built with GSHMEM_DEVICE_LIBRARY: there the state is one exported C __constant__ per module,
// which the host library finds by name when the module is set up (nvshmemx_cumodule_init, or the Python
// package's hook for its kernels), and every call first checks that it was: a kernel in a module that was
// never set up stops with a message that says so instead of reading address 0.
#pragma once

#include "gshmem/detail/device_state.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include <cstdio>

#if defined(GSHMEM_DEVICE_LIBRARY)
extern "C" {
__constant__ gshmem::detail::DeviceState gshmemi_device_state_d;
}

namespace gshmem {
namespace detail {

static __device__ __noinline__ __attribute__((cold)) void module_not_set_up(unsigned abi) {
  if (abi == 0) {
    printf(
        "gshmem: a kernel called the device API in a CUDA module whose gshmem state is not set up: either this PE "
        "has not initialised gshmem (nvshmem_init, gshmem.init) or has finalized it, or the module was loaded "
        "without nvshmemx_cumodule_init. gshmem.triton and gshmem.numba set up their kernels' modules; call "
        "nvshmemx_cumodule_init(module) for a module you load yourself, after init\n");
  } else {
    printf(
        "gshmem: a kernel's module holds gshmem device state of version %u, this device library expects %u: the "
        "bitcode library and libgshmem_host come from different builds; use the ones installed together\n",
        abi, kDeviceStateAbi);
  }
  __trap();
}

__device__ __forceinline__ const DeviceState& state() {
  const unsigned abi = gshmemi_device_state_d.abi;
  if (__builtin_expect(abi != kDeviceStateAbi, 0)) module_not_set_up(abi);
  return gshmemi_device_state_d;
}

}  // namespace detail
}  // namespace gshmem

#else
static __constant__ gshmem::detail::DeviceState gshmemi_device_state_d;

namespace gshmem {
namespace detail {
namespace {

// Host side: copies the library's state into this translation unit's __constant__ copy.
inline int write_module_state(const void* state, unsigned long bytes) {
  return static_cast<int>(cudaMemcpyToSymbol(gshmemi_device_state_d, state, bytes));
}

struct ModuleRegistrar {
  ModuleRegistrar() { gshmemi_register_module(&write_module_state, kDeviceStateAbi); }
  ~ModuleRegistrar() { gshmemi_unregister_module(&write_module_state); }
};
ModuleRegistrar module_registrar;

}  // namespace

__device__ __forceinline__ const DeviceState& state() { return gshmemi_device_state_d; }

}  // namespace detail
}  // namespace gshmem
#endif  // GSHMEM_DEVICE_LIBRARY

#endif  // __CUDACC__
