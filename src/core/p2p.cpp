// The point-to-point operations of the host API: copies (contiguous and strided), stores in stream
// order, atomics and signals. Every entry point checks its arguments first (ArgChecks).
#include "core/p2p.h"

#include <cstdint>
#include <cstring>

#include "core/activity.h"
#include "core/runtime.h"
#include "gshmem/constants.h"
#include "util/log.h"

namespace gshmem {

NetworkTransport& PointToPoint::network() const { return *rt_.network(); }

namespace {

// A stream-ordered call of `bytes` (one element) at `offset` of `pe`, with `local` as its local buffer.
NetStreamCall stream_call(NetStreamCall::Kind kind, int pe, uint64_t offset, const void* local, size_t bytes) {
  NetStreamCall c{};
  c.kind = kind;
  c.pe = pe;
  c.offset = offset;
  c.local = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(local));
  c.bytes = bytes;
  c.count = 1;
  return c;
}

// The same with the signal update `amo` (kStore or kAdd) on the word at `sig_offset` of `pe`.
NetStreamCall signal_stream_call(NetStreamCall::Kind kind, int pe, uint64_t offset, const void* local, size_t bytes,
                                 uint64_t sig_offset, const Amo& amo) {
  NetStreamCall c = stream_call(kind, pe, offset, local, bytes);
  c.sig_offset = sig_offset;
  c.signal = amo.operand;
  c.sig_op = static_cast<int32_t>(amo.op);
  return c;
}

}  // namespace

bool PointToPoint::network_on_stream(const NetStreamCall& call, Completion c, void* stream, const char* api) const {
  if (c != Completion::kStream) return false;
  const Status s = rt_.network_on_stream(call, stream);
  if (s == GSHMEM_ERROR_NOT_SUPPORTED) return false;
  if (!ok(s)) log::fatal("%s: enqueuing it on the stream failed (to PE %d)", api, call.pe);
  return true;
}

Completion PointToPoint::network_completion(Completion c, void* stream, const char* api) const {
  if (c != Completion::kStream) return c;
  if (!ok(rt_.transport().synchronize(stream))) log::fatal("%s: waiting for the stream's earlier work failed", api);
  return Completion::kBlocking;
}

void PointToPoint::rma(bool put, void* dest, const void* source, size_t bytes, int pe, Completion completion,
                       void* stream, const char* api) {
  if (bytes == 0) {
    // Nothing moves, so neither pointer is used: either may be NULL (nvshmem_malloc(0) returns NULL),
    // as with iput/iget of 0 elements. The PE must still be one.
    checks_.check_pe(pe, api);
    return;
  }
  const void* sym = put ? static_cast<const void*>(dest) : source;
  const RemoteTarget remote = checks_.target(sym, bytes, pe, put ? "destination" : "source", api);
  checks_.check_local_buffer(put ? source : static_cast<const void*>(dest), bytes, put ? "source" : "destination", api);
  Status s;
  if (!remote.mapped) {
    const NetStreamCall call =
        stream_call(put ? NetStreamCall::kPut : NetStreamCall::kGet, pe, remote.offset, put ? source : dest, bytes);
    if (network_on_stream(call, completion, stream, api)) return;
    activity::Scope doing(api);  // a wait across the network that lasts names the call
    s = put ? network().put(pe, remote.offset, source, bytes, network_completion(completion, stream, api))
            : network().get(dest, pe, remote.offset, bytes, network_completion(completion, stream, api));
  } else {
    s = put ? rt_.transport().copy(remote.mapped, source, bytes, completion, stream)
            : rt_.transport().copy(dest, remote.mapped, bytes, completion, stream);
  }
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
  const RemoteTarget remote = checks_.target(sym, extent, pe, put ? "destination" : "source", api);
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
  Status s;
  if (!remote.mapped) {
    NetStreamCall call = stream_call(put ? NetStreamCall::kPut : NetStreamCall::kGet, pe, remote.offset,
                                     put ? source : static_cast<const void*>(dest), elem);
    call.count = nelems;
    call.remote_stride = static_cast<uint64_t>(sym_stride) * elem;
    call.local_stride = static_cast<uint64_t>(local_stride) * elem;
    if (network_on_stream(call, completion, stream, api)) return;
    activity::Scope doing(api);
    s = network_strided(put, dest, source, dst * elem, sst * elem, elem, nelems, pe, remote.offset,
                        network_completion(completion, stream, api));
  } else if (put) {
    s = rt_.transport().copy_strided(remote.mapped, dst * elem, source, sst * elem, elem, nelems, completion, stream);
  } else {
    s = rt_.transport().copy_strided(dest, dst * elem, remote.mapped, sst * elem, elem, nelems, completion, stream);
  }
  if (!ok(s)) log::fatal("%s: the strided copy of %zu elements %s PE %d failed", api, nelems, put ? "to" : "from", pe);
}

Status PointToPoint::network_strided(bool put, void* dest, const void* source, size_t dst_stride, size_t src_stride,
                                     size_t elem, size_t nelems, int pe, uint64_t offset, Completion completion) {
  // One operation per element, then (blocking) a quiet: the network has no strided operation. The
  // symmetric side advances by its stride from `offset`, the local side by its own.
  const size_t sym_stride = put ? dst_stride : src_stride;
  const size_t local_stride = put ? src_stride : dst_stride;
  for (size_t i = 0; i < nelems; ++i) {
    const uint64_t at = offset + i * sym_stride;
    Status s = put ? network().put(pe, at, static_cast<const char*>(source) + i * local_stride, elem, Completion::kNbi)
                   : network().get(static_cast<char*>(dest) + i * local_stride, pe, at, elem, Completion::kNbi);
    if (!ok(s)) return s;
  }
  return completion == Completion::kNbi ? GSHMEM_SUCCESS : network().quiet();
}

void PointToPoint::p_on_stream(void* dest, const void* value, size_t bytes, int pe, void* stream, const char* api) {
  const RemoteTarget remote = checks_.target(dest, bytes, pe, "destination", api);
  if (!remote.mapped && bytes <= sizeof(NetStreamCall::value)) {
    NetStreamCall call = stream_call(NetStreamCall::kPut, pe, remote.offset, nullptr, bytes);
    std::memcpy(&call.value, value, bytes);  // the value is taken now: it travels in the request
    if (network_on_stream(call, Completion::kStream, stream, api)) return;
  }
  Status s = remote.mapped
                 ? rt_.transport().store_on_stream(remote.mapped, value, bytes, stream)
                 : network().put(pe, remote.offset, value, bytes, network_completion(Completion::kStream, stream, api));
  if (!ok(s)) log::fatal("%s: the store to PE %d failed", api, pe);
}

uint64_t PointToPoint::atomic(void* dest, const Amo& amo, bool fetch, int pe, const char* api) {
  const RemoteTarget remote = checks_.target(dest, static_cast<size_t>(amo.bytes), pe, "destination", api);
  if (reinterpret_cast<uintptr_t>(dest) % static_cast<uintptr_t>(amo.bytes) != 0) {
    log::fatal("%s: the destination %p is not aligned to its size (%d bytes)", api, dest, amo.bytes);
  }
  uint64_t old = 0;
  // A non-fetching atomic across the network completes by the next quiet, as a put does.
  Status s;
  if (remote.mapped) {
    s = rt_.transport().atomic(remote.mapped, amo, fetch ? &old : nullptr, Completion::kBlocking, nullptr);
  } else {
    activity::Scope doing(api);
    s = network().atomic(pe, remote.offset, amo, fetch ? &old : nullptr);
  }
  if (!ok(s)) {
    log::fatal("%s: the atomic on PE %d failed", api, pe);
  }
  return old;
}

void PointToPoint::signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion,
                             void* stream, const char* api) {
  checks_.check_signal_op(sig_op, api);
  const RemoteTarget remote = checks_.target(sig_addr, sizeof(uint64_t), pe, "signal", api);
  checks_.check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  Amo amo{sig_op == GSHMEM_SIGNAL_SET ? AmoOp::kStore : AmoOp::kAdd, 8, signal, 0};
  Status s = GSHMEM_SUCCESS;
  if (remote.mapped) {
    s = rt_.transport().atomic(remote.mapped, amo, nullptr, completion, stream);
  } else {
    const NetStreamCall call = signal_stream_call(NetStreamCall::kSignal, pe, 0, nullptr, 0, remote.offset, amo);
    if (network_on_stream(call, completion, stream, api)) return;
    activity::Scope doing(api);
    network_completion(completion, stream, api);
    s = network().atomic(pe, remote.offset, amo, nullptr);
  }
  if (!ok(s)) {
    log::fatal("%s: the signal update on PE %d failed", api, pe);
  }
}

void PointToPoint::put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal,
                              int sig_op, int pe, Completion completion, void* stream, const char* api) {
  checks_.check_signal_op(sig_op, api);
  // With 0 bytes only the signal is updated; `dest` is not used and may be NULL.
  const RemoteTarget remote =
      bytes > 0 ? checks_.target(dest, bytes, pe, "destination", api) : RemoteTarget{nullptr, 0};
  const RemoteTarget remote_sig = checks_.target(sig_addr, sizeof(uint64_t), pe, "signal", api);
  checks_.check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  Amo amo{sig_op == GSHMEM_SIGNAL_SET ? AmoOp::kStore : AmoOp::kAdd, 8, signal, 0};
  if (bytes > 0) checks_.check_local_buffer(source, bytes, "source", api);
  if (!remote_sig.mapped) {
    // Across the network: the data (the source reusable on return unless nbi), a fence, then the
    // signal, which the fence keeps behind the data at the target.
    const NetStreamCall call =
        signal_stream_call(NetStreamCall::kPutSignal, pe, remote.offset, source, bytes, remote_sig.offset, amo);
    if (network_on_stream(call, completion, stream, api)) return;
    activity::Scope doing(api);
    const Completion c = network_completion(completion, stream, api);
    Status s = bytes > 0 ? network().put(pe, remote.offset, source, bytes, c) : GSHMEM_SUCCESS;
    if (ok(s)) s = network().fence();
    if (ok(s)) s = network().atomic(pe, remote_sig.offset, amo, nullptr);
    if (!ok(s)) log::fatal("%s: the put with signal of %zu bytes to PE %d failed", api, bytes, pe);
    return;
  }
  // The copy and the signal go in order on one stream (or in order on the CPU), and the signal's
  // update is a release after the copy completed: the data arrives first. A blocking call waits
  // once, for the signal.
  const Completion copy_completion = completion == Completion::kBlocking ? Completion::kNbi : completion;
  if (bytes > 0 && !ok(rt_.transport().copy(remote.mapped, source, bytes, copy_completion, stream))) {
    log::fatal("%s: the copy of %zu bytes to PE %d failed", api, bytes, pe);
  }
  if (!ok(rt_.transport().atomic(remote_sig.mapped, amo, nullptr, completion, stream))) {
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
