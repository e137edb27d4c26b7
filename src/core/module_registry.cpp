#include "core/module_registry.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "util/log.h"

namespace gshmem {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<gshmemi_state_writer_t> writers;
  bool published = false;
  detail::DeviceState state{};
};

// Function-local static: modules register from static constructors, possibly before this
// library's own globals are constructed.
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

// cudaErrorInvalidSymbol and cudaErrorNoKernelImageForDevice: the module has no copy of the state
// (nothing in it uses the device API) or no code for this GPU; neither can misbehave.
constexpr int kCudaErrorInvalidSymbol = 13;
constexpr int kCudaErrorNoKernelImage = 209;

void write_one(gshmemi_state_writer_t w, const detail::DeviceState& state) {
  int rc = w(&state, sizeof state);
  if (rc == 0) return;
  if (rc == kCudaErrorInvalidSymbol || rc == kCudaErrorNoKernelImage) {
    GSHMEM_INFO(kInit, "a CUDA module has no device state to update (CUDA error %d); its kernels do not use gshmem",
                rc);
  } else {
    GSHMEM_WARN(kInit,
                "could not update gshmem's device state in a CUDA module (CUDA error %d): its kernels will fail if "
                "they call the device API",
                rc);
  }
}

}  // namespace

void publish_device_state(const detail::DeviceState& state) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.state = state;
  r.published = true;
  for (auto w : r.writers) write_one(w, state);
  GSHMEM_INFO(kInit, "device state published to %zu CUDA module(s)", r.writers.size());
}

void withdraw_device_state() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.published) return;
  detail::DeviceState empty{};
  for (auto w : r.writers) w(&empty, sizeof empty);
  r.published = false;
}

size_t registered_module_count() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.writers.size();
}

}  // namespace gshmem

extern "C" int gshmemi_register_module(gshmemi_state_writer_t writer, unsigned abi) {
  using namespace gshmem;
  if (abi != detail::kDeviceStateAbi) {
    GSHMEM_ERROR(
        "a CUDA module was compiled against another gshmem (device state version %u, this library %u); "
        "rebuild it against the installed gshmem headers",
        abi, detail::kDeviceStateAbi);
    return 1;
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.writers.push_back(writer);
  if (r.published) write_one(writer, r.state);
  return 0;
}

extern "C" void gshmemi_unregister_module(gshmemi_state_writer_t writer) {
  using namespace gshmem;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.writers.erase(std::remove(r.writers.begin(), r.writers.end(), writer), r.writers.end());
}
