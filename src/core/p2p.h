// The point-to-point operations of the host API on one PE: copies, strided copies, stores in stream
// order, atomics and signals, to or from another PE's copy of a symmetric object, by address where the
// PE's heap is mapped here and through the network transport where it is not (Runtime::route).
// Invalid arguments end the job with a message that names the API, the value and the valid range.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/arg_checks.h"
#include "core/net_stream_call.h"
#include "transport/network.h"
#include "transport/transport.h"

namespace gshmem {

class Runtime;

class PointToPoint {
 public:
  explicit PointToPoint(Runtime& rt) : rt_(rt), checks_(rt) {}
  // Host-initiated copy to (put) or from (get) `pe`'s copy of a symmetric object.
  void rma(bool put, void* dest, const void* source, size_t bytes, int pe, Completion completion, void* stream,
           const char* api);
  // Strided copy (iput/iget): element i between dest + i * dst and source + i * sst, strides in
  // elements of `elem` bytes.
  void rma_strided(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems,
                   int pe, Completion completion, void* stream, const char* api);
  // p_on_stream: stores `bytes` bytes of `value` into `pe`'s copy of `dest`, in order on `stream`.
  void p_on_stream(void* dest, const void* value, size_t bytes, int pe, void* stream, const char* api);
  // An atomic on `pe`'s copy of the word at `dest`; returns the word's previous value when `fetch`.
  uint64_t atomic(void* dest, const Amo& amo, bool fetch, int pe, const char* api);
  // Data to `pe`, then the signal update (SET / ADD) on `pe`'s copy of `sig_addr`.
  void put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                  Completion completion, void* stream, const char* api);
  void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion, void* stream,
                 const char* api);
  uint64_t signal_fetch(const uint64_t* sig_addr, const char* api);

 private:
  NetworkTransport& network() const;
  // A stream-ordered operation across the network on the GPU backend: enqueued on `stream` as the
  // library's kernel that posts it to the network proxy (see net_stream_call.h); returns whether it was
  // (false: not stream-ordered, or the CPU backend).
  bool network_on_stream(const NetStreamCall& call, Completion c, void* stream, const char* api) const;
  // The completion of an operation across the network that network_on_stream did not take: a
  // stream-ordered one (the CPU backend, which has no streams) runs now as a blocking one.
  Completion network_completion(Completion c, void* stream, const char* api) const;
  // iput/iget across the network: strides in bytes; `offset` is the symmetric side's first element.
  Status network_strided(bool put, void* dest, const void* source, size_t dst_stride, size_t src_stride, size_t elem,
                         size_t nelems, int pe, uint64_t offset, Completion completion);
  Runtime& rt_;
  ArgChecks checks_;
};

}  // namespace gshmem
