// Host-initiated data movement, atomics and stream-ordered synchronisation between this PE and the
// heaps mapped into its address space.
//
// The core resolves a symmetric address to the peer's window (heap layer), checks the arguments, and
// hands the transport plain addresses. Two implementations: host shared memory (the CPU backend:
// memcpy and CPU atomics) and GPU memory (CUDA copies, and the library's own small kernels for
// atomics, stores and waits, on an internal stream or on the caller's stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gshmem/types.hpp"
#include "util/status.h"

namespace gshmem {

// Completion, AmoOp and WaitKind: gshmem/types.hpp. An atomic: `op` on a word of `bytes` bytes.
struct Amo {
  AmoOp op;
  int32_t bytes;     // 2, 4 or 8 (amo_applies)
  uint64_t operand;  // the value to store, add, and, or, xor or swap in
  uint64_t compare;  // kCompareSwap: the value the word must hold
};

// A stream-ordered wait: until every element of ivars[0..n) not excluded by status holds
// `ivars[i] cmp value` (value = values[i] when `values` is set, else `value`). `status` and
// `values` are memory the GPU can read.
struct StreamWait {
  WaitKind kind;
  int32_t cmp;
  const void* ivars;
  size_t n;
  const int* status;
  const void* values;
  uint64_t value;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  // Copies `n` bytes from `src` to `dst`; either may be in a mapped heap window.
  virtual Status copy(void* dst, const void* src, size_t n, Completion completion, void* stream) = 0;
  // Copies `count` elements of `elem` bytes from src + i * src_stride to dst + i * dst_stride
  // (strides in bytes, at least `elem`).
  virtual Status copy_strided(void* dst, size_t dst_stride, const void* src, size_t src_stride, size_t elem,
                              size_t count, Completion completion, void* stream) = 0;
  // Performs `amo` on the word at `target` (in a mapped window, aligned to amo.bytes). The word's
  // previous value goes to *fetched when `fetched` is set (kBlocking only).
  virtual Status atomic(void* target, const Amo& amo, uint64_t* fetched, Completion completion, void* stream) = 0;
  // Stores `bytes` (1, 2, 4 or 8) bytes of `value` at `target` as one store, in order on `stream`
  // (p_on_stream: the value is taken now, the store happens in stream order).
  virtual Status store_on_stream(void* target, const void* value, size_t bytes, void* stream) = 0;
  // Reads `bytes` bytes at `src` (this PE's heap) into host memory `dst`, as words of `word` bytes
  // that other PEs may be writing (each word is read whole).
  virtual Status read_words(void* dst, const void* src, size_t bytes, int word) = 0;
  // Makes work enqueued on `stream` after this call wait until `wait` holds. GPU transport only:
  // on the CPU backend the core waits on the calling thread instead.
  virtual Status wait_on_stream(const StreamWait& wait, void* stream) = 0;
  // Whether the GPU can read `p` (device memory, or host memory that is pinned or registered).
  virtual bool device_can_read(const void* p) const = 0;
  // Waits for everything enqueued on `stream` so far.
  virtual Status synchronize(void* stream) = 0;
  // Completes every kNbi operation issued before.
  virtual Status quiet() = 0;
  // Makes work enqueued on `stream` after this call wait for every kNbi operation issued before.
  virtual Status quiet_on_stream(void* stream) = 0;
};

std::unique_ptr<Transport> make_host_memory_transport();

#ifdef GSHMEM_HAVE_CUDA
// The library's kernels that the GPU transport launches (from the internal module; CUfunction).
struct GpuTransportKernels {
  void* atomic;  // gshmemi_atomic_kernel
  void* store;   // gshmemi_store_kernel
  void* wait;    // gshmemi_wait_kernel
};
// Copies through the CUDA driver; the context must be current on calling threads.
Status make_gpu_transport(const GpuTransportKernels& kernels, std::unique_ptr<Transport>* out);
#endif

}  // namespace gshmem
