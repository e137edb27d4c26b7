// Host shared memory: one memfd per chunk, mapped MAP_SHARED by its owner and by every local peer.
// memfds live only as long as some process holds them: nothing is left behind after a crash.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "heap/provider.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {

class HostMemoryProvider final : public MemoryProvider {
 public:
  const char* name() const override { return "host shared memory"; }
  uint64_t granularity() const override { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

  Status reserve(uint64_t bytes, uint64_t align, char** base) override {
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void* p = mmap(nullptr, bytes, PROT_NONE, flags, -1, 0);
    if (p == MAP_FAILED) return reserve_failed(bytes);
    const uintptr_t start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t down = start & ~static_cast<uintptr_t>(align - 1);
    if (down == start) {
      *base = static_cast<char*>(p);
      return GSHMEM_SUCCESS;
    }
    // mmap places a mapping only at page multiples. The kernel fills the address space from the top
    // down, so the space just below the mapping is most likely free: ask for the aligned address
    // there. Where that is refused, reserve `align` more than needed and give back the parts before
    // the first multiple of `align` and after the end (more address space for a moment, which a
    // tool such as valgrind may not grant).
    munmap(p, bytes);
    void* hinted = mmap(reinterpret_cast<void*>(down), bytes, PROT_NONE, flags, -1, 0);
    if (hinted == reinterpret_cast<void*>(down)) {
      *base = static_cast<char*>(hinted);
      return GSHMEM_SUCCESS;
    }
    if (hinted != MAP_FAILED) munmap(hinted, bytes);
    const uint64_t extra = align - granularity();
    p = mmap(nullptr, bytes + extra, PROT_NONE, flags, -1, 0);
    if (p == MAP_FAILED) return reserve_failed(bytes + extra);
    const uintptr_t wide = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (wide + align - 1) & ~static_cast<uintptr_t>(align - 1);
    if (aligned > wide) munmap(p, aligned - wide);
    const uintptr_t tail = wide + bytes + extra - (aligned + bytes);
    if (tail > 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    *base = reinterpret_cast<char*>(aligned);
    return GSHMEM_SUCCESS;
  }
  Status reserve_failed(uint64_t bytes) {
    GSHMEM_ERROR("cannot reserve %s of address space for the symmetric heap: %s; lower NVSHMEM_MAX_MEMORY_PER_GPU",
                 format_size(bytes).c_str(), std::strerror(errno));
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
  void unreserve(char* base, uint64_t bytes) override { munmap(base, bytes); }

  Status create(uint64_t bytes, uint64_t* handle, int* fd) override {
    int f = memfd_create("gshmem-heap", MFD_CLOEXEC);
    if (f < 0) {
      GSHMEM_ERROR("memfd_create failed: %s", std::strerror(errno));
      return GSHMEM_ERROR_SYSTEM;
    }
    if (ftruncate(f, static_cast<off_t>(bytes)) != 0) {
      GSHMEM_ERROR("cannot size host shared memory to %s: %s", format_size(bytes).c_str(), std::strerror(errno));
      close(f);
      return GSHMEM_ERROR_OUT_OF_MEMORY;
    }
    int exported = fcntl(f, F_DUPFD_CLOEXEC, 0);
    if (exported < 0) {
      close(f);
      return GSHMEM_ERROR_SYSTEM;
    }
    *handle = static_cast<uint64_t>(f);
    *fd = exported;
    return GSHMEM_SUCCESS;
  }

  Status import(int fd, uint64_t, uint64_t* handle) override {
    int f = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (f < 0) return GSHMEM_ERROR_SYSTEM;
    *handle = static_cast<uint64_t>(f);
    return GSHMEM_SUCCESS;
  }

  Status map(char* addr, uint64_t bytes, uint64_t handle) override {
    void* p = mmap(addr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, static_cast<int>(handle), 0);
    if (p == MAP_FAILED) {
      GSHMEM_ERROR("cannot map host shared memory (%s) at %p: %s", format_size(bytes).c_str(), static_cast<void*>(addr),
                   std::strerror(errno));
      return GSHMEM_ERROR_SYSTEM;
    }
    return GSHMEM_SUCCESS;
  }

  void unmap(char* addr, uint64_t bytes) override {
    // Put the reservation back in place of the mapping.
    mmap(addr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  }

  void release(uint64_t handle) override { close(static_cast<int>(handle)); }
  bool keeps_handle_while_mapped() const override { return false; }

  Status zero(char* addr, uint64_t bytes) override {
    std::memset(addr, 0, bytes);
    return GSHMEM_SUCCESS;
  }

  uint64_t free_memory() const override {
    long pages = sysconf(_SC_AVPHYS_PAGES);
    return pages > 0 ? static_cast<uint64_t>(pages) * granularity() : 0;
  }

  Status adopt(void* buf, uint64_t, const char* api, UserBuffer*) override {
    GSHMEM_ERROR(
        "%s: %p cannot be registered: the symmetric heap is in host shared memory, which maps no buffer "
        "of the program's own; allocate symmetric memory with nvshmem_malloc instead",
        api, buf);
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
};

}  // namespace

std::unique_ptr<MemoryProvider> make_host_memory_provider() { return std::make_unique<HostMemoryProvider>(); }

}  // namespace gshmem
