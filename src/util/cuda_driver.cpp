#include "util/cuda_driver.h"

#ifdef GSHMEM_HAVE_CUDA

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <mutex>

#include "util/log.h"

namespace gshmem {
namespace {

CudaDriver g_driver;
Status g_load_status = GSHMEM_ERROR_STATE;
std::string g_load_why;
std::once_flag g_once;

using GetProcAddressFn = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

Status load(const std::string& cuda_path, std::string* why) {
  std::string lib = cuda_path.empty() ? "libcuda.so.1" : cuda_path + "/libcuda.so.1";
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    *why = log::format("cannot load the CUDA driver (%s): %s", lib.c_str(), dlerror());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  auto get_proc = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress_v2"));
  if (!get_proc) {
    *why = "the CUDA driver is too old: cuGetProcAddress_v2 is missing (CUDA 12 or newer is needed)";
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
#define GSHMEM_CUDA_DRIVER_RESOLVE(name, version)                                                      \
  {                                                                                                    \
    void* pfn = nullptr;                                                                               \
    CUdriverProcAddressQueryResult found;                                                              \
    if (get_proc(#name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS || !pfn) { \
      *why = "the CUDA driver lacks " #name " (version " #version ")";                                 \
      return GSHMEM_ERROR_NOT_SUPPORTED;                                                               \
    }                                                                                                  \
    g_driver.name = reinterpret_cast<decltype(g_driver.name)>(pfn);                                    \
  }
  GSHMEM_CUDA_DRIVER_FUNCTIONS(GSHMEM_CUDA_DRIVER_RESOLVE)
#undef GSHMEM_CUDA_DRIVER_RESOLVE
  CUresult rc = g_driver.cuInit(0);
  if (rc != CUDA_SUCCESS) {
    *why = cuda_error("cuInit", rc);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace

Status load_cuda_driver(const std::string& cuda_path, std::string* why) {
  std::call_once(g_once, [&] { g_load_status = load(cuda_path, &g_load_why); });
  if (why) *why = g_load_why;
  return g_load_status;
}

const CudaDriver& cu() { return g_driver; }

bool cuda_pointer_known(const void* p) {
  unsigned int type = 0;
  return g_driver.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(p)) ==
         CUDA_SUCCESS;
}

bool cuda_device_memory(const void* p) {
  unsigned int type = 0;
  return g_driver.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(p)) ==
             CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_DEVICE;
}

bool host_memory_mapped(const void* p) {
  char byte;
  iovec local{&byte, 1};
  iovec remote{const_cast<void*>(p), 1};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
}

std::string cuda_error(const char* call, CUresult rc) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (g_driver.cuGetErrorName) g_driver.cuGetErrorName(rc, &name);
  if (g_driver.cuGetErrorString) g_driver.cuGetErrorString(rc, &text);
  return log::format("%s failed: %s (%s)", call, name ? name : "CUDA error", text ? text : "no description");
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
