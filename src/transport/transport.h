// Host-initiated data movement between this PE and the heaps mapped into its address space.
//
// The core resolves a symmetric address to the peer's window (heap layer) and hands the transport
// plain addresses. Two implementations: host shared memory (memcpy; CPU backend) and GPU memory
// (CUDA copies on an internal stream or on the caller's stream).
#pragma once

#include <cstddef>
#include <memory>

#include "util/status.h"

namespace gshmem {

// When a copy must be complete.
enum class Completion {
  kBlocking,  // before the call returns
  kNbi,       // by the next quiet()
  kStream,    // in order on the given CUDA stream
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  // Copies `n` bytes from `src` to `dst`; either may be in a mapped heap window.
  virtual Status copy(void* dst, const void* src, size_t n, Completion completion, void* stream) = 0;
  // Completes every kNbi copy issued before.
  virtual Status quiet() = 0;
  // Makes work enqueued on `stream` after this call wait for every kNbi copy issued before.
  virtual Status quiet_on_stream(void* stream) = 0;
};

std::unique_ptr<Transport> make_host_memory_transport();
#ifdef GSHMEM_HAVE_CUDA
// Copies through the CUDA driver; the context must be current on calling threads.
Status make_gpu_transport(std::unique_ptr<Transport>* out);
#endif

}  // namespace gshmem
