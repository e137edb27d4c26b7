// CPU backend: every heap is host shared memory, so a put or get is a memcpy into or out of the
// peer's mapping (a single word moves as one load and one store) and an atomic is a CPU atomic on
// it (lock-free for 2, 4 and 8 bytes, so atomic across processes; a float add is a compare-and-swap
// loop). Everything completes before it
// returns; quiet only orders it for other PEs. Stream forms run at once: the CPU backend has no
// streams.
#include <atomic>
#include <cstring>

#include "gshmem/detail/float16.h"
#include "transport/transport.h"

namespace gshmem {
namespace {

template <class W>
uint64_t apply(W* w, const Amo& a) {
  const W v = static_cast<W>(a.operand);
  switch (a.op) {
    case AmoOp::kLoad:
      return __atomic_load_n(w, __ATOMIC_SEQ_CST);
    case AmoOp::kStore:
      __atomic_store_n(w, v, __ATOMIC_SEQ_CST);
      return 0;
    case AmoOp::kAdd:
      return __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);
    case AmoOp::kAnd:
      return __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST);
    case AmoOp::kOr:
      return __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST);
    case AmoOp::kXor:
      return __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST);
    case AmoOp::kSwap:
      return __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST);
    case AmoOp::kCompareSwap: {
      W expected = static_cast<W>(a.compare);
      __atomic_compare_exchange_n(w, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      return expected;  // the previous value, whether or not it matched
    }
    case AmoOp::kFloatAdd: {
      W old = __atomic_load_n(w, __ATOMIC_RELAXED);
      while (!__atomic_compare_exchange_n(w, &old, detail::add_as_float<W>(old, v), true, __ATOMIC_SEQ_CST,
                                          __ATOMIC_RELAXED)) {
      }
      return old;
    }
  }
  return 0;
}

template <class W>
void copy_word(void* dst, const void* src) {
  __atomic_store_n(static_cast<W*>(dst), __atomic_load_n(static_cast<const W*>(src), __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
}

// A copy of 1, 2, 4 or 8 bytes aligned on both sides is one load and one store: it may be a word
// that another PE writes or reads at the same time (p and g, a put, get, iput or iget of one
// element), and memmove does not move a word whole (glibc's x86 memmove reads 2 bytes as a byte,
// then the word, and keeps the byte: a word that changes in between comes back torn).
void copy_bytes(void* dst, const void* src, size_t n) {
  const uintptr_t misaligned = (reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & (n - 1);
  switch (misaligned ? 0 : n) {
    case 1:
      copy_word<uint8_t>(dst, src);
      break;
    case 2:
      copy_word<uint16_t>(dst, src);
      break;
    case 4:
      copy_word<uint32_t>(dst, src);
      break;
    case 8:
      copy_word<uint64_t>(dst, src);
      break;
    default:
      std::memmove(dst, src, n);
      break;
  }
}

template <class W>
void read_all(void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<W*>(dst);
  const auto* s = static_cast<const W*>(src);
  for (size_t i = 0; i < bytes / sizeof(W); ++i) d[i] = __atomic_load_n(s + i, __ATOMIC_RELAXED);
}

class HostMemoryTransport final : public Transport {
 public:
  const char* name() const override { return "host shared memory"; }
  Status copy(void* dst, const void* src, size_t n, Completion, void*) override {
    copy_bytes(dst, src, n);
    return GSHMEM_SUCCESS;
  }
  Status copy_strided(void* dst, size_t dst_stride, const void* src, size_t src_stride, size_t elem, size_t count,
                      Completion, void*) override {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    for (size_t i = 0; i < count; ++i) copy_bytes(d + i * dst_stride, s + i * src_stride, elem);
    return GSHMEM_SUCCESS;
  }
  Status atomic(void* target, const Amo& a, uint64_t* fetched, Completion, void*) override {
    uint64_t old = a.bytes == 2   ? apply(static_cast<uint16_t*>(target), a)
                   : a.bytes == 4 ? apply(static_cast<uint32_t*>(target), a)
                                  : apply(static_cast<uint64_t*>(target), a);
    if (fetched) *fetched = old;
    return GSHMEM_SUCCESS;
  }
  Status store_on_stream(void* target, const void* value, size_t bytes, void*) override {
    copy_bytes(target, value, bytes);
    return GSHMEM_SUCCESS;
  }
  Status read_words(void* dst, const void* src, size_t bytes, int word) override {
    switch (word) {
      case 2:
        read_all<uint16_t>(dst, src, bytes);
        break;
      case 4:
        read_all<uint32_t>(dst, src, bytes);
        break;
      case 8:
        read_all<uint64_t>(dst, src, bytes);
        break;
      default:
        std::memcpy(dst, src, bytes);
    }
    // What the caller reads after seeing a value is at least as new as what its writer wrote before.
    std::atomic_thread_fence(std::memory_order_acquire);
    return GSHMEM_SUCCESS;
  }
  Status wait_on_stream(const StreamWait&, void*) override { return GSHMEM_ERROR_NOT_SUPPORTED; }
  bool device_can_read(const void*) const override { return true; }
  Status synchronize(void*) override { return GSHMEM_SUCCESS; }
  Status quiet() override {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return GSHMEM_SUCCESS;
  }
  Status quiet_on_stream(void*) override { return quiet(); }
};

}  // namespace

std::unique_ptr<Transport> make_host_memory_transport() { return std::make_unique<HostMemoryTransport>(); }

}  // namespace gshmem
