// The CUDA modules that hold a copy of the device state, and publishing the state to all of them.
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

}  // namespace gshmem
