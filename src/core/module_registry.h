// The CUDA modules that hold a copy of the device state, and publishing the state to all of them.
//
// Two kinds of module: those built by nvcc into the program or a shared library (each translation
// unit registers a writer from a static constructor, gshmem/device/state.cuh), and those the program
// loads itself through the driver API and hands over with nvshmemx_cumodule_init or
// nvshmemx_culibrary_init (their copy is found by name and written with the driver).
#pragma once

#include <string>

#include "gshmem/detail/device_state.h"
#include "util/status.h"

namespace gshmem {

// Remembers the state to publish and writes it to every registered module now and to modules
// registered later. Call only with the bound GPU's context current.
void publish_device_state(const detail::DeviceState& state);
// Stops publishing (finalize): later registrations are only recorded.
void withdraw_device_state();
// Number of modules registered (for tests and logs).
size_t registered_module_count();

// nvshmemx_cumodule_init / nvshmemx_culibrary_init: finds the state copy of a module (CUmodule) or
// library (CUlibrary) loaded through the driver API and registers it; `library` tells which.
// nvshmemx_*_finalize: forgets it. Errors are logged with `api`.
Status register_driver_module(void* handle, bool library, const char* api);
Status unregister_driver_module(void* handle, const char* api);

}  // namespace gshmem
