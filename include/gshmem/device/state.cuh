// How kernels find the library's state without relocatable device code.
//
// Every translation unit compiled by nvcc that includes the device API gets its own
// `static __constant__` copy of the state and a static object that registers a writer for it
// with libgshmem_host when the program (or shared library) is loaded. The library writes the state
// into every registered copy when the GPU is bound and after each change. This works the same with
// and without -rdc, needs no device library to link, and defines no global whose meaning depends
// on __CUDACC_RDC__.
#pragma once

#include "gshmem/detail/device_state.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

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

#endif  // __CUDACC__
