// The point-to-point operations of the host API on one PE: copies, strided copies, stores in stream
// order, atomics and signals, to or from another PE's copy of a symmetric object, through that PE's path
// (transport/path.h). Invalid arguments end the job with a message that names the API, the value and
// the valid range.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/arg_checks.h"
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
  Runtime& rt_;
  ArgChecks checks_;
};

}  // namespace gshmem
