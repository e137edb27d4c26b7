// The point-to-point operations of the host API: copies (contiguous and strided), stores in stream
// order, atomics and signals. Every entry point checks its arguments first (ArgChecks).
#include "core/p2p.h"

#include <cstdint>

#include "core/runtime.h"
#include "gshmem/constants.h"
#include "util/log.h"

namespace gshmem {

void PointToPoint::rma(bool put, void* dest, const void* source, size_t bytes, int pe, Completion completion,
                       void* stream, const char* api) {
  if (bytes == 0) {
    // Nothing moves, so neither pointer is used: either may be NULL (nvshmem_malloc(0) returns NULL),
    // as with iput/iget of 0 elements. The PE must still be one.
    checks_.check_pe(pe, api);
    return;
  }
  const void* sym = put ? static_cast<const void*>(dest) : source;
  char* remote = checks_.remote_address(sym, bytes, pe, put ? "destination" : "source", api);
  checks_.check_local_buffer(put ? source : static_cast<const void*>(dest), bytes, put ? "source" : "destination", api);
  Status s = put ? rt_.transport().copy(remote, source, bytes, completion, stream)
                 : rt_.transport().copy(dest, remote, bytes, completion, stream);
  if (!ok(s)) log::fatal("%s: the copy of %zu bytes %s PE %d failed", api, bytes, put ? "to" : "from", pe);
}

void PointToPoint::rma_strided(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                               size_t nelems, int pe, Completion completion, void* stream, const char* api) {
  if (dst < 1 || sst < 1) {
    log::fatal("%s: the strides must be at least 1 element, but the destination stride is %td and the source %td", api,
               dst, sst);
  }
  if (nelems == 0) {
    checks_.check_pe(pe, api);  // nothing moves, so neither pointer is used (NULL is fine)
    return;
  }
  const ptrdiff_t sym_stride = put ? dst : sst;
  // The symmetric side spans ((nelems - 1) * stride + 1) elements; a product that overflows would
  // wrap to a small extent and pass the heap check while the elements land elsewhere.
  size_t extent = 0;
  if (__builtin_mul_overflow(nelems - 1, static_cast<size_t>(sym_stride), &extent) ||
      __builtin_add_overflow(extent, size_t{1}, &extent) || __builtin_mul_overflow(extent, elem, &extent)) {
    log::fatal("%s: %zu elements of %zu bytes with a %s stride of %td elements span more than the address space", api,
               nelems, elem, put ? "destination" : "source", sym_stride);
  }
  const void* sym = put ? static_cast<const void*>(dest) : source;
  char* remote = checks_.remote_address(sym, extent, pe, put ? "destination" : "source", api);
  const ptrdiff_t local_stride = put ? sst : dst;
  size_t local_extent = 0;
  if (__builtin_mul_overflow(nelems - 1, static_cast<size_t>(local_stride), &local_extent) ||
      __builtin_add_overflow(local_extent, size_t{1}, &local_extent) ||
      __builtin_mul_overflow(local_extent, elem, &local_extent)) {
    log::fatal("%s: %zu elements of %zu bytes with a %s stride of %td elements span more than the address space", api,
               nelems, elem, put ? "source" : "destination", local_stride);
  }
  checks_.check_local_buffer(put ? source : static_cast<const void*>(dest), local_extent,
                             put ? "source" : "destination", api);
  Status s =
      put ? rt_.transport().copy_strided(remote, dst * elem, source, sst * elem, elem, nelems, completion, stream)
          : rt_.transport().copy_strided(dest, dst * elem, remote, sst * elem, elem, nelems, completion, stream);
  if (!ok(s)) log::fatal("%s: the strided copy of %zu elements %s PE %d failed", api, nelems, put ? "to" : "from", pe);
}

void PointToPoint::p_on_stream(void* dest, const void* value, size_t bytes, int pe, void* stream, const char* api) {
  char* remote = checks_.remote_address(dest, bytes, pe, "destination", api);
  if (!ok(rt_.transport().store_on_stream(remote, value, bytes, stream)))
    log::fatal("%s: the store to PE %d failed", api, pe);
}

uint64_t PointToPoint::atomic(void* dest, const Amo& amo, bool fetch, int pe, const char* api) {
  char* remote = checks_.remote_address(dest, static_cast<size_t>(amo.bytes), pe, "destination", api);
  if (reinterpret_cast<uintptr_t>(dest) % static_cast<uintptr_t>(amo.bytes) != 0) {
    log::fatal("%s: the destination %p is not aligned to its size (%d bytes)", api, dest, amo.bytes);
  }
  uint64_t old = 0;
  if (!ok(rt_.transport().atomic(remote, amo, fetch ? &old : nullptr, Completion::kBlocking, nullptr))) {
    log::fatal("%s: the atomic on PE %d failed", api, pe);
  }
  return old;
}

void PointToPoint::signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion,
                             void* stream, const char* api) {
  checks_.check_signal_op(sig_op, api);
  char* remote = checks_.remote_address(sig_addr, sizeof(uint64_t), pe, "signal", api);
  checks_.check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  Amo amo{sig_op == GSHMEM_SIGNAL_SET ? AmoOp::kStore : AmoOp::kAdd, 8, signal, 0};
  if (!ok(rt_.transport().atomic(remote, amo, nullptr, completion, stream))) {
    log::fatal("%s: the signal update on PE %d failed", api, pe);
  }
}

void PointToPoint::put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal,
                              int sig_op, int pe, Completion completion, void* stream, const char* api) {
  checks_.check_signal_op(sig_op, api);
  // With 0 bytes only the signal is updated; `dest` is not used and may be NULL.
  char* remote = bytes > 0 ? checks_.remote_address(dest, bytes, pe, "destination", api) : nullptr;
  char* remote_sig = checks_.remote_address(sig_addr, sizeof(uint64_t), pe, "signal", api);
  checks_.check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  // The copy and the signal go in order on one stream (or in order on the CPU), and the signal's
  // update is a release after the copy completed: the data arrives first. A blocking call waits
  // once, for the signal.
  const Completion copy_completion = completion == Completion::kBlocking ? Completion::kNbi : completion;
  Amo amo{sig_op == GSHMEM_SIGNAL_SET ? AmoOp::kStore : AmoOp::kAdd, 8, signal, 0};
  if (bytes > 0) checks_.check_local_buffer(source, bytes, "source", api);
  if (bytes > 0 && !ok(rt_.transport().copy(remote, source, bytes, copy_completion, stream))) {
    log::fatal("%s: the copy of %zu bytes to PE %d failed", api, bytes, pe);
  }
  if (!ok(rt_.transport().atomic(remote_sig, amo, nullptr, completion, stream))) {
    log::fatal("%s: the signal update on PE %d failed", api, pe);
  }
}

uint64_t PointToPoint::signal_fetch(const uint64_t* sig_addr, const char* api) {
  checks_.check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  uint64_t v = 0;
  if (!ok(rt_.transport().read_words(&v, sig_addr, sizeof v, sizeof v)))
    log::fatal("%s: reading the signal failed", api);
  return v;
}

}  // namespace gshmem
