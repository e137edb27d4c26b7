// CPU backend: every heap is host shared memory, so a put or get is a memcpy into or out of the
// peer's mapping. Copies complete before they return; quiet only orders them for other PEs.
#include <atomic>
#include <cstring>

#include "transport/transport.h"

namespace gshmem {
namespace {

class HostMemoryTransport final : public Transport {
 public:
  const char* name() const override { return "host shared memory"; }
  Status copy(void* dst, const void* src, size_t n, Completion, void*) override {
    std::memmove(dst, src, n);
    return GSHMEM_SUCCESS;
  }
  Status quiet() override {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return GSHMEM_SUCCESS;
  }
  Status quiet_on_stream(void*) override { return quiet(); }
};

}  // namespace

std::unique_ptr<Transport> make_host_memory_transport() { return std::make_unique<HostMemoryTransport>(); }

}  // namespace gshmem
