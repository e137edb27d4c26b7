// A peer's path: the one object that knows how this PE reaches PE p's heap (TransportManager::path).
//
// Point-to-point operations, teams and collectives name the peer's memory by heap offset (the same on
// every PE) and call its path; none of them asks "mapped or across the network?". Each path states what
// its transport does natively (PathCaps) and falls back for the rest (a network path's strided copy is
// one put per element, its put_signal a put, a fence and the signal; a mapped path's put_signal orders
// the signal after the copy on one stream).
//
// Completion (transport.h): kBlocking complete before the call returns; kNbi by the next quiet of the
// TransportManager; kStream in order on the CUDA stream (a path that cannot enqueue on a stream waits
// for the stream's earlier work and runs the operation at once, as a blocking one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "transport/transport.h"
#include "util/status.h"

namespace gshmem {

enum class PathKind {
  kLocal,        // this PE: its own heap, by address
  kMapped,       // the heap is mapped here: loads, stores, atomics and copies by address
  kNetwork,      // through the network transport, by heap offset
  kUnreachable,  // neither: every operation fails, reason() says why
};

// What a path does natively.
struct PathCaps {
  bool load_store = false;        // loads, stores and atomics by address: base() is the peer's heap here
  bool packets = false;           // an aligned 8-byte store lands whole, data and flag together (ll_algo.h)
  bool fetching_atomics = false;  // atomics that return the old value, applied at the target
  bool ordered = false;           // operations to the peer land in issue order without a fence
  bool needs_progress = false;    // operations complete through the network library's progress (quiet)
};

class PeerPath {
 public:
  PeerPath(int pe, PathKind kind) : pe_(pe), kind_(kind) {}
  virtual ~PeerPath() = default;
  PeerPath(const PeerPath&) = delete;
  PeerPath& operator=(const PeerPath&) = delete;

  int pe() const { return pe_; }
  PathKind kind() const { return kind_; }
  virtual const PathCaps& caps() const = 0;
  // The peer's heap mapped into this process (caps().load_store), else nullptr.
  virtual char* base() const { return nullptr; }
  // Why the peer is unreachable (kUnreachable), for messages; "" otherwise.
  virtual std::string reason() const { return ""; }

  // Copies `bytes` to (put) or from (get) the peer's heap at `offset`; the local buffer is any memory
  // of this process the transport can reach.
  virtual Status put(uint64_t offset, const void* src, size_t bytes, Completion c, void* stream) = 0;
  virtual Status get(void* dst, uint64_t offset, size_t bytes, Completion c, void* stream) = 0;
  // Strided copies: element i (of `elem` bytes) between offset + i * remote_stride on the peer and
  // local + i * local_stride here (strides in bytes, at least `elem`).
  virtual Status put_strided(uint64_t offset, size_t remote_stride, const void* src, size_t local_stride, size_t elem,
                             size_t count, Completion c, void* stream) = 0;
  virtual Status get_strided(void* dst, size_t local_stride, uint64_t offset, size_t remote_stride, size_t elem,
                             size_t count, Completion c, void* stream) = 0;
  // p_on_stream: `bytes` (1, 2, 4 or 8) bytes of `value`, taken now, stored as one store in stream order.
  virtual Status store_on_stream(uint64_t offset, const void* value, size_t bytes, void* stream) = 0;
  // `amo` on the word at `offset` (aligned to amo.bytes); the previous value goes to *fetched when set
  // (kBlocking only). A non-fetching atomic across the network completes by quiet, as a put does.
  virtual Status atomic(uint64_t offset, const Amo& amo, uint64_t* fetched, Completion c, void* stream) = 0;
  // `bytes` from `src` to `offset` (nothing when 0), then `signal` (kStore or kAdd) on the word at
  // `sig_offset`: the data lands before the signal is seen.
  virtual Status put_signal(uint64_t offset, const void* src, size_t bytes, uint64_t sig_offset, const Amo& signal,
                            Completion c, void* stream) = 0;
  // Reads `bytes` of the peer's heap into host memory, complete on return; where the heap is mapped,
  // as whole 8-byte words that the peer may be writing (records that teams exchange).
  virtual Status read(void* dst, uint64_t offset, size_t bytes) = 0;
  // A barrier's arrival: `value` into the 8-byte flag at `offset`, which only this PE writes and which
  // only grows. Visible to the peer promptly, and in the order this PE stored its flags there. Nothing
  // waits for it to land, not even quiet (across the network it is one message that the peer applies on
  // arrival): the peer waits for the flag itself, and the caller quiets first where earlier operations
  // must land before it.
  virtual Status store_flag(uint64_t offset, uint64_t value) = 0;
  // A message: `bytes` from `src` (reusable on return) to `offset`, then `flag` into the 8-byte word at
  // `flag_offset` as store_flag does (one writer, only grows; not awaited by quiet). A peer that sees the flag
  // sees the data. The small collectives across the network send these (ll_algo.h, LLRound's messages): one
  // one-way trip, where a put, a quiet and a barrier take three.
  virtual Status put_flagged(uint64_t offset, const void* src, size_t bytes, uint64_t flag_offset, uint64_t flag) = 0;

 private:
  const int pe_;
  const PathKind kind_;
};

}  // namespace gshmem
