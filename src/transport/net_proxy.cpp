// The network proxy (see net_proxy.h).
#ifdef GSHMEM_HAVE_CUDA

#include "transport/net_proxy.h"

#include <time.h>

#include <chrono>
#include <cstring>

#include "util/config.h"
#include "util/log.h"

namespace gshmem {
namespace {

static_assert(static_cast<int>(AmoOp::kLoad) == detail::kNetAmoLoad &&
                  static_cast<int>(AmoOp::kStore) == detail::kNetAmoStore &&
                  static_cast<int>(AmoOp::kAdd) == detail::kNetAmoAdd &&
                  static_cast<int>(AmoOp::kAnd) == detail::kNetAmoAnd &&
                  static_cast<int>(AmoOp::kOr) == detail::kNetAmoOr &&
                  static_cast<int>(AmoOp::kXor) == detail::kNetAmoXor &&
                  static_cast<int>(AmoOp::kSwap) == detail::kNetAmoSwap &&
                  static_cast<int>(AmoOp::kCompareSwap) == detail::kNetAmoCompareSwap,
              "the ring's AMO codes are the transport's");

// Idle polling: back to back for this long, then with sleeps that double up to the longest.
constexpr auto kSpin = std::chrono::microseconds(50);
constexpr long kSleepMaxNs = 100000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

const char* op_name(uint32_t op) {
  switch (op & ~detail::kNetFetch) {
    case detail::kNetPut:
      return "put";
    case detail::kNetGet:
      return "get";
    case detail::kNetAmo:
      return "atomic";
    case detail::kNetFence:
      return "fence";
    default:
      return "request";
  }
}

}  // namespace

Status NetProxy::start(CUcontext ctx, NetworkTransport* network) {
  ctx_ = ctx;
  network_ = network;
  void* ring = nullptr;
  GSHMEM_CU_CHECK(cuMemHostAlloc, &ring, sizeof(detail::NetRing), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  std::memset(ring, 0, sizeof(detail::NetRing));
  ring_ = static_cast<detail::NetRing*>(ring);
  for (uint64_t i = 0; i < detail::kNetRingSlots; ++i) ring_->slots[i].turn = i;  // ticket i fills slot i first
  GSHMEM_CU_CHECK(cuMemAlloc, &counters_, sizeof(uint64_t));
  GSHMEM_CU_CHECK(cuMemsetD8, counters_, 0, sizeof(uint64_t));
  thread_ = std::thread([this] { run(); });
  return GSHMEM_SUCCESS;
}

void NetProxy::stop() {
  if (thread_.joinable()) {
    stop_.store(true, std::memory_order_release);
    thread_.join();
    GSHMEM_INFO(kProxy, "network proxy: %llu requests from kernels (%s moved), %llu network quiets",
                static_cast<unsigned long long>(requests_), format_size(bytes_).c_str(),
                static_cast<unsigned long long>(quiets_));
  }
  if (counters_) cu().cuMemFree(counters_);
  if (ring_) cu().cuMemFreeHost(ring_);
  counters_ = 0;
  ring_ = nullptr;
}

std::string NetProxy::describe(uint64_t ticket, const detail::NetRequest& r) const {
  return log::format(
      "a %s of %llu bytes at heap offset 0x%llx of PE %d (request %llu of a kernel, through the "
      "network proxy)",
      op_name(r.op), static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.offset), r.pe,
      static_cast<unsigned long long>(ticket));
}

void NetProxy::fail(uint64_t ticket, const detail::NetRequest& r, const std::string& why) {
  __atomic_store_n(&ring_->error, 1, __ATOMIC_RELEASE);
  log::fatal("%s failed: %s; the job cannot go on", describe(ticket, r).c_str(), why.c_str());
}

void NetProxy::serve(uint64_t ticket, const detail::NetRequest& r) {
  const uint32_t code = r.op & ~detail::kNetFetch;
  const bool fetch = (r.op & detail::kNetFetch) != 0;
  if (code != detail::kNetFence && !network_->reaches(r.pe)) {
    fail(ticket, r, log::format("PE %d is not reached through the network from this PE", r.pe));
  }
  if (r.local != 0 && r.bytes > 0) {
    const void* first = reinterpret_cast<const void*>(r.local);
    const void* last = reinterpret_cast<const void*>(r.local + r.bytes - 1);
    if (!cuda_pointer_known(first) && !(host_memory_mapped(first) && host_memory_mapped(last))) {
      fail(ticket, r,
           log::format("its local buffer 0x%llx is neither GPU memory nor host memory of this process",
                       static_cast<unsigned long long>(r.local)));
    }
  }
  if ((r.local == 0 || fetch) && code != detail::kNetFence && r.bytes > detail::kNetInlineBytes) {
    fail(ticket, r, "a request that carries its data holds at most 16 bytes (the device code is from another gshmem)");
  }
  uint64_t* value = nullptr;  // a fetch's destination
  if (fetch) {
    Fetch& f = fetches_[fetched_++];
    f.ticket = ticket;
    f.value[0] = f.value[1] = 0;
    value = f.value;
  }
  Status s = GSHMEM_SUCCESS;
  switch (code) {
    case detail::kNetPut:
      if (r.local != 0) {
        s = network_->put(r.pe, r.offset, reinterpret_cast<const void*>(r.local), r.bytes, Completion::kNbi);
      } else {
        s = network_->put(r.pe, r.offset, r.data, r.bytes, Completion::kBlocking);
      }
      pending_ = true;
      break;
    case detail::kNetGet:
      s = network_->get(fetch ? static_cast<void*>(value) : reinterpret_cast<void*>(r.local), r.pe, r.offset, r.bytes,
                        Completion::kNbi);
      pending_ = true;
      break;
    case detail::kNetAmo: {
      if (!amo_applies(static_cast<AmoOp>(r.amo), r.amo_bytes)) {
        fail(ticket, r, log::format("atomic operation %d on %d bytes is not one of the ring's", r.amo, r.amo_bytes));
      }
      const Amo amo{static_cast<AmoOp>(r.amo), r.amo_bytes, r.data[0], r.data[1]};
      s = network_->atomic(r.pe, r.offset, amo, value, Completion::kNbi);
      pending_ = true;
      break;
    }
    case detail::kNetFence:
      s = network_->fence();
      break;
    default:
      fail(ticket, r, log::format("request code %u is not one of the ring's", r.op));
  }
  if (!ok(s)) fail(ticket, r, "the network transport's message above says why");
  ++requests_;
  bytes_ += code == detail::kNetFence ? 0 : r.bytes;
}

void NetProxy::complete(uint64_t taken) {
  if (pending_) {
    Status s = network_->quiet();
    if (!ok(s)) {
      detail::NetRequest r{};
      r.pe = -1;
      fail(taken - 1, r,
           "completing the kernels' requests (a network quiet) failed; the network transport's message above "
           "says why");
    }
    pending_ = false;
    ++quiets_;
  }
  for (size_t i = 0; i < fetched_; ++i) {
    const Fetch& f = fetches_[i];
    detail::NetSlot& slot = ring_->slots[f.ticket % detail::kNetRingSlots];
    slot.result[0] = f.value[0];
    slot.result[1] = f.value[1];
    __atomic_store_n(&slot.turn, f.ticket | detail::kNetResultReady, __ATOMIC_RELEASE);
  }
  fetched_ = 0;
  __atomic_store_n(&ring_->completed, taken, __ATOMIC_RELEASE);
}

void NetProxy::run() {
  cu().cuCtxSetCurrent(ctx_);
  // The network library copies between GPU and host memory on this thread (UCX's cuda_copy, with a
  // stream synchronisation): a CUDA graph that the program captures in the global mode on another thread
  // must not make those calls fail (seen: "operation not permitted when stream is capturing", then UCX
  // aborted the process). This thread never captures, so relaxed is safe.
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  cu().cuThreadExchangeStreamCaptureMode(&mode);
  uint64_t t = 0, completed = 0;
  auto idle_since = std::chrono::steady_clock::now();
  long sleep_ns = 1000;
  bool idle = false;
  for (;;) {
    // Read before the ring: a stop that comes after the last request was published sees it served.
    const bool stopping = stop_.load(std::memory_order_acquire);
    uint64_t batch = 0;
    for (; batch < kBatch; ++batch) {
      detail::NetSlot& slot = ring_->slots[t % detail::kNetRingSlots];
      if (__atomic_load_n(&slot.seq, __ATOMIC_ACQUIRE) != t + 1) break;
      const detail::NetRequest r = slot.req;
      // A request without a result frees its slot now: everything it needs is in `r`.
      if ((r.op & detail::kNetFetch) == 0) {
        __atomic_store_n(&slot.turn, t + detail::kNetRingSlots, __ATOMIC_RELEASE);
      }
      serve(t, r);
      ++t;
      taken_.store(t, std::memory_order_release);
    }
    if (t != completed) {
      complete(t);
      completed = t;
    }
    if (batch > 0) {
      idle = false;
      continue;
    }
    if (stopping) break;
    const auto now = std::chrono::steady_clock::now();
    if (!idle) {
      idle = true;
      idle_since = now;
      sleep_ns = 1000;
    }
    if (now - idle_since < kSpin) {
      cpu_relax();
      continue;
    }
    timespec ts{0, sleep_ns};
    nanosleep(&ts, nullptr);
    if (sleep_ns < kSleepMaxNs) sleep_ns *= 2;
  }
}

Status NetProxy::flush() {
  if (!thread_.joinable()) return GSHMEM_SUCCESS;
  // The tickets published so far: those taken, then the run of published slots after them.
  uint64_t target = taken_.load(std::memory_order_acquire);
  while (target < taken_.load(std::memory_order_acquire) + detail::kNetRingSlots &&
         __atomic_load_n(&ring_->slots[target % detail::kNetRingSlots].seq, __ATOMIC_ACQUIRE) == target + 1) {
    ++target;
  }
  long sleep_ns = 1000;
  while (__atomic_load_n(&ring_->completed, __ATOMIC_ACQUIRE) < target) {
    timespec ts{0, sleep_ns};
    nanosleep(&ts, nullptr);
    if (sleep_ns < kSleepMaxNs) sleep_ns *= 2;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
