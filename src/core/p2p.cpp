// The point-to-point operations of the host API: copies (contiguous and strided), stores in stream
// order, atomics and signals. Every entry point checks its arguments first (ArgChecks), then calls the
// target PE's path (transport/path.h), which knows how that PE is reached.
#include "core/p2p.h"

#include <cstdint>
#include <memory>
#include <optional>

#include "core/activity.h"
#include "core/runtime.h"
#include "gshmem/constants.h"
#include "transport/path.h"
#include "util/log.h"

namespace gshmem {

namespace {

// A call that may wait for the network names itself to the activity record (a wait that lasts says which
// call it is); one by address costs nothing.
class NamedIfWaits {
 public:
  NamedIfWaits(const PeerPath& path, const char* api) {
    if (path.caps().needs_progress) scope_.emplace(api);
  }

 private:
  std::optional<activity::Scope> scope_;
};

Amo signal_amo(int sig_op, uint64_t signal) {
  return Amo{sig_op == GSHMEM_SIGNAL_SET ? AmoOp::kStore : AmoOp::kAdd, 8, signal, 0};
}

// The span in bytes of `nelems` elements of `elem` bytes `stride` elements apart, or 0 when it overflows
// (a wrapped extent would pass the heap check while the elements land elsewhere).
size_t strided_extent(size_t nelems, ptrdiff_t stride, size_t elem) {
  size_t extent = 0;
  if (__builtin_mul_overflow(nelems - 1, static_cast<size_t>(stride), &extent) ||
      __builtin_add_overflow(extent, size_t{1}, &extent) || __builtin_mul_overflow(extent, elem, &extent)) {
    return 0;
  }
  return extent;
}

}  // namespace

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
  PeerPath& path = *remote.path;
  NamedIfWaits doing(path, api);
  const Status s = put ? path.put(remote.offset, source, bytes, completion, stream)
                       : path.get(dest, remote.offset, bytes, completion, stream);
  if (!ok(s)) log::fatal("%s: the copy of %zu bytes %s PE %d failed", api, bytes, put ? "to" : "from", pe);
}

void PointToPoint::rma_strided(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                               size_t nelems, int pe, Completion completion, void* stream, const char* api) {
  if (dst < 1 || sst < 1) {
    log::misuse("%s: the strides must be at least 1 element, but the destination stride is %td and the source %td", api,
               dst, sst);
  }
  if (nelems == 0) {
    checks_.check_pe(pe, api);  // nothing moves, so neither pointer is used (NULL is fine)
    return;
  }
  const ptrdiff_t sym_stride = put ? dst : sst;
  const ptrdiff_t local_stride = put ? sst : dst;
  const size_t extent = strided_extent(nelems, sym_stride, elem);
  const size_t local_extent = strided_extent(nelems, local_stride, elem);
  if (extent == 0 || local_extent == 0) {
    log::misuse("%s: %zu elements of %zu bytes with a %s stride of %td elements span more than the address space", api,
               nelems, elem, extent == 0 ? (put ? "destination" : "source") : (put ? "source" : "destination"),
               extent == 0 ? sym_stride : local_stride);
  }
  const void* sym = put ? static_cast<const void*>(dest) : source;
  const RemoteTarget remote = checks_.target(sym, extent, pe, put ? "destination" : "source", api);
  checks_.check_local_buffer(put ? source : static_cast<const void*>(dest), local_extent,
                             put ? "source" : "destination", api);
  PeerPath& path = *remote.path;
  NamedIfWaits doing(path, api);
  const size_t remote_bytes = static_cast<size_t>(sym_stride) * elem;
  const size_t local_bytes = static_cast<size_t>(local_stride) * elem;
  const Status s =
      put ? path.put_strided(remote.offset, remote_bytes, source, local_bytes, elem, nelems, completion, stream)
          : path.get_strided(dest, local_bytes, remote.offset, remote_bytes, elem, nelems, completion, stream);
  if (!ok(s)) log::fatal("%s: the strided copy of %zu elements %s PE %d failed", api, nelems, put ? "to" : "from", pe);
}

void PointToPoint::p_on_stream(void* dest, const void* value, size_t bytes, int pe, void* stream, const char* api) {
  const RemoteTarget remote = checks_.target(dest, bytes, pe, "destination", api);
  NamedIfWaits doing(*remote.path, api);
  if (!ok(remote.path->store_on_stream(remote.offset, value, bytes, stream))) {
    log::fatal("%s: the store to PE %d failed", api, pe);
  }
}

uint64_t PointToPoint::atomic(void* dest, const Amo& amo, bool fetch, int pe, const char* api) {
  if (!amo_applies(amo.op, amo.bytes)) {
    log::misuse(
        "%s: atomic operation %d does not apply to a word of %d bytes (the integer operations take 4 or 8, "
        "a half's fetch, set, swap and add 2)",
        api, static_cast<int>(amo.op), amo.bytes);
  }
  const RemoteTarget remote = checks_.target(dest, static_cast<size_t>(amo.bytes), pe, "destination", api);
  if (reinterpret_cast<uintptr_t>(dest) % static_cast<uintptr_t>(amo.bytes) != 0) {
    log::misuse("%s: the destination %p is not aligned to its size (%d bytes)", api, dest, amo.bytes);
  }
  uint64_t old = 0;
  NamedIfWaits doing(*remote.path, api);
  if (!ok(remote.path->atomic(remote.offset, amo, fetch ? &old : nullptr, Completion::kBlocking, nullptr))) {
    log::fatal("%s: the atomic on PE %d failed", api, pe);
  }
  return old;
}

void PointToPoint::signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion,
                             void* stream, const char* api) {
  checks_.check_signal_op(sig_op, api);
  const RemoteTarget remote = checks_.target(sig_addr, sizeof(uint64_t), pe, "signal", api);
  checks_.check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  NamedIfWaits doing(*remote.path, api);
  // A put of no data: only the signal is updated.
  if (!ok(remote.path->put_signal(0, nullptr, 0, remote.offset, signal_amo(sig_op, signal), completion, stream))) {
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
  if (bytes > 0) checks_.check_local_buffer(source, bytes, "source", api);
  PeerPath& path = *remote_sig.path;
  NamedIfWaits doing(path, api);
  if (!ok(path.put_signal(remote.offset, source, bytes, remote_sig.offset, signal_amo(sig_op, signal), completion,
                          stream))) {
    log::fatal("%s: the put with signal of %zu bytes to PE %d failed", api, bytes, pe);
  }
}

uint64_t PointToPoint::signal_fetch(const uint64_t* sig_addr, const char* api) {
  checks_.check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  uint64_t v = 0;
  if (!ok(rt_.transports().memory().read_words(&v, sig_addr, sizeof v, sizeof v))) {
    log::fatal("%s: reading the signal failed", api);
  }
  return v;
}

}  // namespace gshmem
