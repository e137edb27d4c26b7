#include "core/module_registry.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "util/log.h"

#ifdef GSHMEM_HAVE_CUDA
#include "util/cuda_driver.h"
#endif

namespace gshmem {
namespace {

// A module's copy of the state: written through the module's own writer (nvcc-built modules), or
// at a device address with the driver (driver-loaded modules, identified by their handle).
struct Target {
  gshmemi_state_writer_t writer = nullptr;
  uint64_t address = 0;
  void* handle = nullptr;
};

struct Registry {
  std::mutex mu;
  std::vector<Target> targets;
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

// The state's name in a module compiled without -rdc (a static __constant__ keeps its name there).
constexpr const char* kStateSymbol = "gshmemi_device_state_d";

int write_raw(const Target& t, const detail::DeviceState& state) {
  if (t.writer) return t.writer(&state, sizeof state);
#ifdef GSHMEM_HAVE_CUDA
  return static_cast<int>(cu().cuMemcpyHtoD(static_cast<CUdeviceptr>(t.address), &state, sizeof state));
#else
  return 0;
#endif
}

void write_one(const Target& t, const detail::DeviceState& state) {
  int rc = write_raw(t, state);
  if (rc == 0) return;
  if (t.writer && (rc == kCudaErrorInvalidSymbol || rc == kCudaErrorNoKernelImage)) {
    GSHMEM_INFO(kInit, "a CUDA module has no device state to update (CUDA error %d); its kernels do not use gshmem",
                rc);
  } else {
    GSHMEM_WARN(kInit,
                "could not update gshmem's device state in a CUDA module (CUDA error %d): its kernels will fail if "
                "they call the device API",
                rc);
  }
}

void add(const Target& t) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.targets.push_back(t);
  if (r.published) write_one(t, r.state);
}

}  // namespace

void publish_device_state(const detail::DeviceState& state) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.state = state;
  r.published = true;
  for (const Target& t : r.targets) write_one(t, state);
  GSHMEM_INFO(kInit, "device state published to %zu CUDA module(s)", r.targets.size());
}

void withdraw_device_state() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.published) return;
  detail::DeviceState empty{};
  for (const Target& t : r.targets) write_raw(t, empty);
  r.published = false;
}

size_t registered_module_count() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.targets.size();
}

Status register_driver_module(void* handle, bool library, const char* api) {
  if (!handle) {
    GSHMEM_ERROR("%s: the %s is NULL", api, library ? "library" : "module");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
#ifdef GSHMEM_HAVE_CUDA
  std::string why;
  if (!ok(load_cuda_driver("", &why))) {
    GSHMEM_ERROR("%s: %s", api, why.c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  CUdeviceptr address = 0;
  size_t bytes = 0;
  CUresult rc = library ? cu().cuLibraryGetGlobal(&address, &bytes, static_cast<CUlibrary>(handle), kStateSymbol)
                        : cu().cuModuleGetGlobal(&address, &bytes, static_cast<CUmodule>(handle), kStateSymbol);
  if (rc == CUDA_ERROR_NOT_FOUND) {
    GSHMEM_ERROR(
        "%s: the %s has no gshmem device state (%s): either none of its code includes nvshmem.h, or it was "
        "compiled with -rdc, which renames the state; gshmem needs no relocatable device code, so build the cubin "
        "without -rdc",
        api, library ? "library" : "module", kStateSymbol);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (rc != CUDA_SUCCESS) {
    GSHMEM_ERROR("%s: %s", api, cuda_error(library ? "cuLibraryGetGlobal" : "cuModuleGetGlobal", rc).c_str());
    return GSHMEM_ERROR_CUDA;
  }
  if (bytes != sizeof(detail::DeviceState)) {
    GSHMEM_ERROR(
        "%s: the %s was compiled against another gshmem (device state of %zu bytes, this library %zu); rebuild it "
        "against the installed headers",
        api, library ? "library" : "module", bytes, sizeof(detail::DeviceState));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  Target t;
  t.address = static_cast<uint64_t>(address);
  t.handle = handle;
  add(t);
  GSHMEM_INFO(kInit, "%s: registered the device state of a driver-loaded %s", api, library ? "library" : "module");
  return GSHMEM_SUCCESS;
#else
  GSHMEM_ERROR("%s: this gshmem was built without CUDA", api);
  return GSHMEM_ERROR_NOT_SUPPORTED;
#endif
}

Status unregister_driver_module(void* handle, const char* api) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = std::find_if(r.targets.begin(), r.targets.end(), [&](const Target& t) { return t.handle == handle; });
  if (!handle || it == r.targets.end()) {
    GSHMEM_ERROR("%s: %p was not registered with the matching _init call", api, handle);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  r.targets.erase(it);
  return GSHMEM_SUCCESS;
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
  Target t;
  t.writer = writer;
  add(t);
  return 0;
}

extern "C" void gshmemi_unregister_module(gshmemi_state_writer_t writer) {
  using namespace gshmem;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.targets.erase(
      std::remove_if(r.targets.begin(), r.targets.end(), [&](const Target& t) { return t.writer == writer; }),
      r.targets.end());
}
