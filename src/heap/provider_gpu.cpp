// GPU memory through CUDA VMM: cuMemCreate chunks exported as POSIX file descriptors, which local
// peers import and map into their own reservation with access for their own GPU (over NVLink or
// PCIe peer access). Where the GPU allows it the chunks are GPUDirect RDMA capable, so that a network
// library can register them with an RDMA NIC (VMM memory without the flag cannot be).
#ifdef GSHMEM_HAVE_CUDA

#include <unistd.h>

#include "heap/provider.h"
#include "util/config.h"
#include "util/cuda_driver.h"
#include "util/log.h"

namespace gshmem {
namespace {

// The properties of the heap's chunks.
CUmemAllocationProp heap_properties(int device, bool rdma) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.allocFlags.gpuDirectRDMACapable = rdma ? 1 : 0;
  return prop;
}

class GpuMemoryProvider final : public MemoryProvider {
 public:
  GpuMemoryProvider(int device, uint64_t granularity, const CUmemAllocationProp& prop)
      : device_(device), granularity_(granularity), prop_(prop) {}

  const char* name() const override { return "GPU memory (CUDA VMM)"; }
  uint64_t granularity() const override { return granularity_; }

  Status reserve(uint64_t bytes, uint64_t align, char** base) override {
    // The driver takes an alignment; should it place the range elsewhere, reserve `align` more and
    // use the aligned part (a reservation is freed whole, so the real one is remembered).
    CUdeviceptr p = 0;
    CUresult rc = cu().cuMemAddressReserve(&p, bytes, align, 0, 0);
    uint64_t reserved = bytes;
    if (rc == CUDA_SUCCESS && p % align != 0) {
      cu().cuMemAddressFree(p, bytes);
      reserved = bytes + align;
      rc = cu().cuMemAddressReserve(&p, reserved, granularity_, 0, 0);
    }
    if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR(
          "cannot reserve %s of GPU address space for the symmetric heap (%s); lower "
          "NVSHMEM_MAX_MEMORY_PER_GPU",
          format_size(reserved).c_str(), cuda_error("cuMemAddressReserve", rc).c_str());
      return GSHMEM_ERROR_OUT_OF_MEMORY;
    }
    const CUdeviceptr aligned = (p + align - 1) & ~static_cast<CUdeviceptr>(align - 1);
    reserved_base_ = p;
    reserved_bytes_ = reserved;
    *base = reinterpret_cast<char*>(aligned);
    return GSHMEM_SUCCESS;
  }
  void unreserve(char*, uint64_t) override {
    if (reserved_bytes_) cu().cuMemAddressFree(reserved_base_, reserved_bytes_);
    reserved_bytes_ = 0;
  }

  Status create(uint64_t bytes, uint64_t* handle, int* fd) override {
    CUmemGenericAllocationHandle h = 0;
    CUresult rc = cu().cuMemCreate(&h, bytes, &prop_, 0);
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
      size_t free_b = 0, total_b = 0;
      cu().cuMemGetInfo(&free_b, &total_b);
      GSHMEM_ERROR("GPU %d has no room for %s more of symmetric heap (%s free of %s)", device_,
                   format_size(bytes).c_str(), format_size(free_b).c_str(), format_size(total_b).c_str());
      return GSHMEM_ERROR_OUT_OF_MEMORY;
    }
    if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR("%s", cuda_error("cuMemCreate", rc).c_str());
      return GSHMEM_ERROR_CUDA;
    }
    int exported = -1;
    rc = cu().cuMemExportToShareableHandle(&exported, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR("%s", cuda_error("cuMemExportToShareableHandle", rc).c_str());
      cu().cuMemRelease(h);
      return GSHMEM_ERROR_CUDA;
    }
    *handle = h;
    *fd = exported;
    return GSHMEM_SUCCESS;
  }

  Status import(int fd, uint64_t, uint64_t* handle) override {
    CUmemGenericAllocationHandle h = 0;
    CUresult rc = cu().cuMemImportFromShareableHandle(&h, reinterpret_cast<void*>(static_cast<uintptr_t>(fd)),
                                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR("%s", cuda_error("cuMemImportFromShareableHandle", rc).c_str());
      return GSHMEM_ERROR_CUDA;
    }
    *handle = h;
    return GSHMEM_SUCCESS;
  }

  Status map(char* addr, uint64_t bytes, uint64_t handle) override {
    CUdeviceptr p = reinterpret_cast<CUdeviceptr>(addr);
    CUresult rc = cu().cuMemMap(p, bytes, 0, handle, 0);
    if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR("%s", cuda_error("cuMemMap", rc).c_str());
      return GSHMEM_ERROR_CUDA;
    }
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device_;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    rc = cu().cuMemSetAccess(p, bytes, &access, 1);
    if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR("%s: GPU %d cannot access this memory (is peer access between the GPUs possible?)",
                   cuda_error("cuMemSetAccess", rc).c_str(), device_);
      cu().cuMemUnmap(p, bytes);
      return GSHMEM_ERROR_CUDA;
    }
    return GSHMEM_SUCCESS;
  }

  void unmap(char* addr, uint64_t bytes) override { cu().cuMemUnmap(reinterpret_cast<CUdeviceptr>(addr), bytes); }
  void release(uint64_t handle) override { cu().cuMemRelease(handle); }

  Status zero(char* addr, uint64_t bytes) override {
    GSHMEM_CU_CHECK(cuMemsetD8, reinterpret_cast<CUdeviceptr>(addr), 0, bytes);
    GSHMEM_CU_CHECK(cuCtxSynchronize);
    return GSHMEM_SUCCESS;
  }

  uint64_t free_memory() const override {
    size_t free_b = 0, total_b = 0;
    return cu().cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS ? free_b : 0;
  }

  Status adopt(void* buf, uint64_t size, const char* api, UserBuffer* out) override {
    const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(buf);
    CUmemGenericAllocationHandle h = 0;
    CUresult rc = cu().cuMemRetainAllocationHandle(&h, buf);
    if (rc != CUDA_SUCCESS) {
      GSHMEM_ERROR(
          "%s: %p is not memory from cuMemCreate mapped in this process (%s). The buffer must be the start of a "
          "cuMemCreate allocation, made with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
          "CUmemAllocationProp.requestedHandleTypes (so that it can be exported as a POSIX file descriptor) and "
          "mapped with cuMemMap; memory from cudaMalloc, cudaMallocManaged or the host cannot be registered",
          api, buf, cuda_error("cuMemRetainAllocationHandle", rc).c_str());
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    // From here on the reference is released on every failure.
    Status s = check_user_buffer(p, h, size, api, out);
    if (ok(s)) {
      int fd = -1;
      rc = cu().cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
      if (rc == CUDA_SUCCESS) {
        out->handle = h;
        out->fd = fd;
        return GSHMEM_SUCCESS;
      }
      GSHMEM_ERROR(
          "%s: the cuMemCreate allocation at %p cannot be exported as a POSIX file descriptor (%s), which the other "
          "PEs of this node need to map it; create it with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
          "CUmemAllocationProp.requestedHandleTypes",
          api, buf, cuda_error("cuMemExportToShareableHandle", rc).c_str());
      s = GSHMEM_ERROR_INVALID_VALUE;
    }
    cu().cuMemRelease(h);
    return s;
  }

 private:
  // The checks of adopt() on the allocation `h` mapped at `p`; fills out->bytes and out->align.
  static Status check_user_buffer(CUdeviceptr p, CUmemGenericAllocationHandle h, uint64_t size, const char* api,
                                  UserBuffer* out) {
    void* buf = reinterpret_cast<void*>(p);
    // A mapping always starts at the start of its allocation (cuMemMap takes no offset into it), and
    // covers all of it, so the mapped range is the allocation.
    CUdeviceptr start = 0;
    size_t bytes = 0;
    GSHMEM_CU_CHECK(cuMemGetAddressRange, &start, &bytes, p);
    if (start != p) {
      GSHMEM_ERROR("%s: %p points %llu bytes into the cuMemCreate allocation mapped at %p; pass its start", api, buf,
                   static_cast<unsigned long long>(p - start), reinterpret_cast<void*>(start));
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    CUmemAllocationProp prop{};
    GSHMEM_CU_CHECK(cuMemGetAllocationPropertiesFromHandle, &prop, h);
    if (!(prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
      GSHMEM_ERROR(
          "%s: the cuMemCreate allocation at %p cannot be exported as a POSIX file descriptor, which the other PEs of "
          "this node need to map it; create it with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in "
          "CUmemAllocationProp.requestedHandleTypes",
          api, buf);
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    size_t gran = 0;
    GSHMEM_CU_CHECK(cuMemGetAllocationGranularity, &gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (gran == 0 || size % gran != 0) {
      GSHMEM_ERROR("%s: the size %llu is not a multiple of the granularity of the allocation at %p (%s)", api,
                   static_cast<unsigned long long>(size), buf, format_size(gran).c_str());
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    if (size > bytes) {
      GSHMEM_ERROR("%s: the size %s is larger than the cuMemCreate allocation at %p (%s)", api,
                   format_size(size).c_str(), buf, format_size(bytes).c_str());
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    out->bytes = bytes;
    out->align = gran;
    return GSHMEM_SUCCESS;
  }

  int device_;
  uint64_t granularity_;
  CUmemAllocationProp prop_;       // the chunks' properties (heap_properties)
  CUdeviceptr reserved_base_ = 0;  // the reservation as the driver made it (one per provider)
  uint64_t reserved_bytes_ = 0;
};

}  // namespace

Status make_gpu_memory_provider(int device, std::unique_ptr<MemoryProvider>* out) {
  int vmm = 0, fd_ok = 0;
  cu().cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device);
  cu().cuDeviceGetAttribute(&fd_ok, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device);
  if (!vmm || !fd_ok) {
    GSHMEM_ERROR(
        "GPU %d does not support CUDA virtual memory management with file-descriptor handles, which the "
        "symmetric heap needs (use GSHMEM_BACKEND=cpu to run on host memory)",
        device);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  int rdma = 0;
  cu().cuDeviceGetAttribute(&rdma, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, device);
  GSHMEM_INFO(kMem, "GPU %d: heap chunks %s", device,
              rdma ? "GPUDirect RDMA capable (a network library may register them with an RDMA NIC)"
                   : "not GPUDirect RDMA capable (the GPU or driver does not offer it for VMM memory)");
  const CUmemAllocationProp prop = heap_properties(device, rdma != 0);
  size_t gran = 0;
  GSHMEM_CU_CHECK(cuMemGetAllocationGranularity, &gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  *out = std::make_unique<GpuMemoryProvider>(device, gran, prop);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
