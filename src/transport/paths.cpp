#include "transport/paths.h"

#include <cstring>

#include "gshmem/constants.h"

namespace gshmem {
namespace {

// By address, through the memory transport (host shared memory, or the GPU's copies and kernels).
class MappedPath final : public PeerPath {
 public:
  MappedPath(int pe, bool local, char* base, Transport& memory)
      : PeerPath(pe, local ? PathKind::kLocal : PathKind::kMapped), base_(base), memory_(memory) {
    caps_.load_store = true;
    caps_.packets = true;
    caps_.fetching_atomics = true;
    caps_.ordered = true;
  }
  const PathCaps& caps() const override { return caps_; }
  char* base() const override { return base_; }

  Status put(uint64_t offset, const void* src, size_t bytes, Completion c, void* stream) override {
    return memory_.copy(at(offset), src, bytes, c, stream);
  }
  Status get(void* dst, uint64_t offset, size_t bytes, Completion c, void* stream) override {
    return memory_.copy(dst, at(offset), bytes, c, stream);
  }
  Status put_strided(uint64_t offset, size_t remote_stride, const void* src, size_t local_stride, size_t elem,
                     size_t count, Completion c, void* stream) override {
    return memory_.copy_strided(at(offset), remote_stride, src, local_stride, elem, count, c, stream);
  }
  Status get_strided(void* dst, size_t local_stride, uint64_t offset, size_t remote_stride, size_t elem, size_t count,
                     Completion c, void* stream) override {
    return memory_.copy_strided(dst, local_stride, at(offset), remote_stride, elem, count, c, stream);
  }
  Status store_on_stream(uint64_t offset, const void* value, size_t bytes, void* stream) override {
    return memory_.store_on_stream(at(offset), value, bytes, stream);
  }
  Status atomic(uint64_t offset, const Amo& amo, uint64_t* fetched, Completion c, void* stream) override {
    return memory_.atomic(at(offset), amo, fetched, c, stream);
  }
  Status put_signal(uint64_t offset, const void* src, size_t bytes, uint64_t sig_offset, const Amo& signal,
                    Completion c, void* stream) override {
    // The copy and the signal go in order on one stream (or in order on the CPU), and the signal's update
    // is a release after the copy completed: the data arrives first. A blocking call waits once, for the
    // signal.
    const Completion copy = c == Completion::kBlocking ? Completion::kNbi : c;
    if (bytes > 0) GSHMEM_CHECK(memory_.copy(at(offset), src, bytes, copy, stream));
    return memory_.atomic(at(sig_offset), signal, nullptr, c, stream);
  }
  Status read(void* dst, uint64_t offset, size_t bytes) override {
    return memory_.read_words(dst, at(offset), bytes, 8);
  }
  Status store_flag(uint64_t offset, uint64_t value) override {
    return memory_.atomic(at(offset), Amo{AmoOp::kStore, 8, value, 0}, nullptr, Completion::kBlocking, nullptr);
  }
  Status put_flagged(uint64_t offset, const void* src, size_t bytes, uint64_t flag_offset, uint64_t flag) override {
    // The flag's store is a release after the copy completed.
    if (bytes > 0) GSHMEM_CHECK(memory_.copy(at(offset), src, bytes, Completion::kBlocking, nullptr));
    return store_flag(flag_offset, flag);
  }

 private:
  char* at(uint64_t offset) const { return base_ + offset; }
  char* const base_;
  Transport& memory_;
  PathCaps caps_;
};

// By heap offset, through the network transport. The network has no strided or stream-ordered operation
// of its own: a strided copy is one operation per element, and a stream-ordered one is posted by the
// library's kernel (the poster) or runs at once after the stream's earlier work.
class NetworkPath final : public PeerPath {
 public:
  NetworkPath(int pe, NetworkTransport& network, Transport& memory, const StreamPoster* poster)
      : PeerPath(pe, PathKind::kNetwork), net_(network), memory_(memory), poster_(poster) {
    caps_.fetching_atomics = true;
    caps_.needs_progress = true;
  }
  const PathCaps& caps() const override { return caps_; }

  Status put(uint64_t offset, const void* src, size_t bytes, Completion c, void* stream) override {
    if (c == Completion::kStream) {
      const Status s = post(call(NetStreamCall::kPut, offset, src, bytes), stream);
      if (s != GSHMEM_ERROR_NOT_SUPPORTED) return s;
      GSHMEM_CHECK(memory_.synchronize(stream));
      c = Completion::kBlocking;
    }
    return net_.put(pe(), offset, src, bytes, c);
  }
  Status get(void* dst, uint64_t offset, size_t bytes, Completion c, void* stream) override {
    if (c == Completion::kStream) {
      const Status s = post(call(NetStreamCall::kGet, offset, dst, bytes), stream);
      if (s != GSHMEM_ERROR_NOT_SUPPORTED) return s;
      GSHMEM_CHECK(memory_.synchronize(stream));
      c = Completion::kBlocking;
    }
    return net_.get(dst, pe(), offset, bytes, c);
  }
  Status put_strided(uint64_t offset, size_t remote_stride, const void* src, size_t local_stride, size_t elem,
                     size_t count, Completion c, void* stream) override {
    return strided(true, offset, remote_stride, const_cast<void*>(src), local_stride, elem, count, c, stream);
  }
  Status get_strided(void* dst, size_t local_stride, uint64_t offset, size_t remote_stride, size_t elem, size_t count,
                     Completion c, void* stream) override {
    return strided(false, offset, remote_stride, dst, local_stride, elem, count, c, stream);
  }
  Status store_on_stream(uint64_t offset, const void* value, size_t bytes, void* stream) override {
    NetStreamCall sc = call(NetStreamCall::kPut, offset, nullptr, bytes);
    std::memcpy(&sc.value, value, bytes);  // the value is taken now: it travels in the request
    const Status s = post(sc, stream);
    if (s != GSHMEM_ERROR_NOT_SUPPORTED) return s;
    GSHMEM_CHECK(memory_.synchronize(stream));
    return net_.put(pe(), offset, value, bytes, Completion::kBlocking);
  }
  Status atomic(uint64_t offset, const Amo& amo, uint64_t* fetched, Completion c, void* stream) override {
    if (c == Completion::kStream) GSHMEM_CHECK(memory_.synchronize(stream));
    // A non-fetching atomic completes by the next quiet, as a put does.
    return net_.atomic(pe(), offset, amo, fetched);
  }
  Status put_signal(uint64_t offset, const void* src, size_t bytes, uint64_t sig_offset, const Amo& signal,
                    Completion c, void* stream) override {
    if (c == Completion::kStream) {
      NetStreamCall sc = call(bytes > 0 ? NetStreamCall::kPutSignal : NetStreamCall::kSignal, offset, src, bytes);
      sc.sig_offset = sig_offset;
      sc.signal = signal.operand;
      sc.sig_op = static_cast<int32_t>(signal.op);
      const Status s = post(sc, stream);
      if (s != GSHMEM_ERROR_NOT_SUPPORTED) return s;
      GSHMEM_CHECK(memory_.synchronize(stream));
      c = Completion::kBlocking;
    }
    // The data (the source reusable on return unless nbi), a fence, then the signal, which the fence keeps
    // behind the data at the target.
    if (bytes > 0) {
      GSHMEM_CHECK(net_.put(pe(), offset, src, bytes, c));
      GSHMEM_CHECK(net_.fence());
    }
    return net_.atomic(pe(), sig_offset, signal, nullptr);
  }
  Status read(void* dst, uint64_t offset, size_t bytes) override {
    return net_.get(dst, pe(), offset, bytes, Completion::kBlocking);
  }
  Status store_flag(uint64_t offset, uint64_t value) override {
    return net_.put_flagged(pe(), 0, nullptr, 0, offset, value);
  }
  Status put_flagged(uint64_t offset, const void* src, size_t bytes, uint64_t flag_offset, uint64_t flag) override {
    return net_.put_flagged(pe(), offset, src, bytes, flag_offset, flag);
  }

 private:
  NetStreamCall call(NetStreamCall::Kind kind, uint64_t offset, const void* local, size_t bytes) const {
    NetStreamCall c{};
    c.kind = kind;
    c.pe = pe();
    c.offset = offset;
    c.local = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(local));
    c.bytes = bytes;
    c.count = 1;
    return c;
  }
  Status post(const NetStreamCall& c, void* stream) const {
    return poster_ && *poster_ ? (*poster_)(c, stream) : GSHMEM_ERROR_NOT_SUPPORTED;
  }
  Status strided(bool put, uint64_t offset, size_t remote_stride, void* local, size_t local_stride, size_t elem,
                 size_t count, Completion c, void* stream) {
    if (c == Completion::kStream) {
      NetStreamCall sc = call(put ? NetStreamCall::kPut : NetStreamCall::kGet, offset, local, elem);
      sc.count = count;
      sc.remote_stride = remote_stride;
      sc.local_stride = local_stride;
      const Status s = post(sc, stream);
      if (s != GSHMEM_ERROR_NOT_SUPPORTED) return s;
      GSHMEM_CHECK(memory_.synchronize(stream));
      c = Completion::kBlocking;
    }
    // One operation per element, then (blocking) a quiet.
    char* l = static_cast<char*>(local);
    for (size_t i = 0; i < count; ++i) {
      const uint64_t at = offset + i * remote_stride;
      GSHMEM_CHECK(put ? net_.put(pe(), at, l + i * local_stride, elem, Completion::kNbi)
                       : net_.get(l + i * local_stride, pe(), at, elem, Completion::kNbi));
    }
    return c == Completion::kNbi ? GSHMEM_SUCCESS : net_.quiet();
  }

  NetworkTransport& net_;
  Transport& memory_;
  const StreamPoster* poster_;
  PathCaps caps_;
};

class UnreachablePath final : public PeerPath {
 public:
  UnreachablePath(int pe, std::string reason) : PeerPath(pe, PathKind::kUnreachable), reason_(std::move(reason)) {}
  const PathCaps& caps() const override { return caps_; }
  std::string reason() const override { return reason_; }
  Status put(uint64_t, const void*, size_t, Completion, void*) override { return kFails; }
  Status get(void*, uint64_t, size_t, Completion, void*) override { return kFails; }
  Status put_strided(uint64_t, size_t, const void*, size_t, size_t, size_t, Completion, void*) override {
    return kFails;
  }
  Status get_strided(void*, size_t, uint64_t, size_t, size_t, size_t, Completion, void*) override { return kFails; }
  Status store_on_stream(uint64_t, const void*, size_t, void*) override { return kFails; }
  Status atomic(uint64_t, const Amo&, uint64_t*, Completion, void*) override { return kFails; }
  Status put_signal(uint64_t, const void*, size_t, uint64_t, const Amo&, Completion, void*) override { return kFails; }
  Status read(void*, uint64_t, size_t) override { return kFails; }
  Status store_flag(uint64_t, uint64_t) override { return kFails; }
  Status put_flagged(uint64_t, const void*, size_t, uint64_t, uint64_t) override { return kFails; }

 private:
  static constexpr Status kFails = GSHMEM_ERROR_NOT_SUPPORTED;
  const std::string reason_;
  PathCaps caps_;
};

}  // namespace

std::unique_ptr<PeerPath> make_mapped_path(int pe, bool local, char* base, Transport& memory) {
  return std::make_unique<MappedPath>(pe, local, base, memory);
}

std::unique_ptr<PeerPath> make_network_path(int pe, NetworkTransport& network, Transport& memory,
                                            const StreamPoster* poster) {
  return std::make_unique<NetworkPath>(pe, network, memory, poster);
}

std::unique_ptr<PeerPath> make_unreachable_path(int pe, std::string reason) {
  return std::make_unique<UnreachablePath>(pe, std::move(reason));
}

}  // namespace gshmem
