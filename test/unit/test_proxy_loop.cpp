// The proxy's thread (transport/proxy_loop.h) against fakes of its two sides, with host threads playing the
// kernels' part of the ring's protocol (gshmem/device/proxy.cuh): what a kernel is told is complete must be
// complete, and what it waits for must complete.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "transport/proxy_loop.h"

namespace gshmem {
namespace {

using Clock = std::chrono::steady_clock;
using detail::ProxyRequest;
using detail::ProxyRing;
using detail::ProxySlot;

constexpr uint64_t kFailBytes = 12345;  // a copy of this size fails in the fake copy side

// The copy engines' side: a "stream" thread that makes the copies and writes the counts in issue order, each
// copy after `delay`.
class FakeCopies final : public ProxyCopySide {
 public:
  FakeCopies(ProxyRing* ring, std::atomic<uint64_t>* mirror, std::chrono::microseconds delay)
      : ring_(ring), mirror_(mirror), delay_(delay), stream_([this] { run(); }) {}
  ~FakeCopies() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    stream_.join();
  }
  bool on() const override { return true; }
  void issue(std::vector<CopyRange>* batch) override {
    for (const CopyRange& c : *batch) {
      if (c.bytes == kFailBytes) {
        failed_ = true;
        __atomic_store_n(&ring_->error, 1, __ATOMIC_RELEASE);
        return;
      }
      push(Op{c, 0, 0, false});
    }
  }
  void count(uint64_t ticket, uint64_t completed) override { push(Op{{}, ticket, completed, true}); }
  bool check() override { return true; }
  void drain() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return ops_.empty() && !busy_; });
  }
  bool failed() const override { return failed_; }

 private:
  struct Op {
    CopyRange copy;
    uint64_t ticket, completed;
    bool count;
  };
  void push(const Op& op) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ops_.push_back(op);
    }
    cv_.notify_all();
  }
  void run() {
    for (;;) {
      Op op;
      {
        std::unique_lock<std::mutex> lock(mu_);
        busy_ = false;
        cv_.notify_all();
        cv_.wait(lock, [this] { return stop_ || !ops_.empty(); });
        if (ops_.empty()) return;
        op = ops_.front();
        ops_.pop_front();
        busy_ = true;
      }
      if (op.count) {
        mirror_->store(op.completed, std::memory_order_release);
        __atomic_store_n(&ring_->copies_done, op.ticket, __ATOMIC_RELEASE);
      } else {
        if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
        std::memcpy(reinterpret_cast<void*>(op.copy.dst), reinterpret_cast<const void*>(op.copy.src), op.copy.bytes);
      }
    }
  }
  ProxyRing* ring_;
  std::atomic<uint64_t>* mirror_;
  std::chrono::microseconds delay_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Op> ops_;
  bool busy_ = false, stop_ = false;
  std::atomic<bool> failed_{false};
  std::thread stream_;
};

// The network's side: a "remote heap" that puts and atomics change only when complete() completes them, which
// takes `quiet_time` when something was served (a network quiet's round trip).
class FakeNetwork final : public ProxyNetworkSide {
 public:
  explicit FakeNetwork(ProxyRing* ring) : ring_(ring), heap_(1 << 20) {}
  void serve(uint64_t ticket, const ProxyRequest& r) override { served_.push_back({ticket, r}); }
  void complete() override {
    if (!served_.empty() && quiet_time.count() > 0) std::this_thread::sleep_for(quiet_time);
    if (!served_.empty() && during_quiet) during_quiet();
    for (const auto& [ticket, r] : served_) {
      if (r.op == detail::kProxyPut) {
        std::memcpy(heap_.data() + r.offset, r.local != 0 ? reinterpret_cast<const void*>(r.local) : r.data, r.bytes);
      } else if ((r.op & ~detail::kProxyFetch) == detail::kProxyAmo) {
        uint64_t old = 0;
        std::memcpy(&old, heap_.data() + r.offset, 8);
        const uint64_t now = old + r.data[0];
        std::memcpy(heap_.data() + r.offset, &now, 8);
        if (r.op & detail::kProxyFetch) {
          ProxySlot& slot = ring_->slots[ticket % detail::kProxyRingSlots];
          slot.result[0] = old;
          __atomic_store_n(&slot.turn, ticket | detail::kProxyResultReady, __ATOMIC_RELEASE);
        }
      }
    }
    served_.clear();
  }
  // What a completed put left at `offset` (read by the test's threads after their wait: the wait orders it).
  void read(uint64_t offset, void* out, size_t bytes) const { std::memcpy(out, heap_.data() + offset, bytes); }

 private:
  ProxyRing* ring_;
  std::vector<char> heap_;
  std::vector<std::pair<uint64_t, ProxyRequest>> served_;

 public:
  std::chrono::microseconds quiet_time{0};
  std::function<void()> during_quiet;  // what kernels post while a quiet goes on (called on the loop's thread)
};

// The ring, both sides and the loop; the kernels' part of the protocol as host functions.
struct Rig {
  explicit Rig(std::chrono::microseconds copy_delay = std::chrono::microseconds(0))
      : ring(new ProxyRing()), copies(ring.get(), &mirror, copy_delay), network(ring.get()) {
    loop = std::make_unique<ProxyLoop>(ring.get(), &copies, &network);
    loop->start(nullptr);
  }
  ~Rig() { loop.reset(); }

  uint64_t post(const ProxyRequest& r) {
    const uint64_t t = tickets.fetch_add(1);
    ProxySlot& slot = ring->slots[t % detail::kProxyRingSlots];
    while (__atomic_load_n(&slot.turn, __ATOMIC_ACQUIRE) != t) std::this_thread::yield();
    slot.req = r;
    __atomic_store_n(&slot.seq, t + 1, __ATOMIC_RELEASE);
    return t;
  }
  uint64_t copy(void* dst, const void* src, uint64_t bytes) {
    ProxyRequest r{};
    r.op = detail::kProxyCopy;
    r.offset = reinterpret_cast<uintptr_t>(dst);
    r.local = reinterpret_cast<uintptr_t>(src);
    r.bytes = bytes;
    return post(r);
  }
  uint64_t put(uint64_t offset, uint64_t value) {
    ProxyRequest r{};
    r.op = detail::kProxyPut;
    r.offset = offset;
    r.bytes = 8;
    r.data[0] = value;
    return post(r);
  }
  uint64_t fetch_add(uint64_t offset, uint64_t v) {
    ProxyRequest r{};
    r.op = detail::kProxyAmo | detail::kProxyFetch;
    r.offset = offset;
    r.bytes = 8;
    r.amo = detail::kProxyAmoAdd;
    r.amo_bytes = 8;
    r.data[0] = v;
    const uint64_t t = post(r);
    ProxySlot& slot = ring->slots[t % detail::kProxyRingSlots];
    while (__atomic_load_n(&slot.turn, __ATOMIC_ACQUIRE) != (t | detail::kProxyResultReady)) std::this_thread::yield();
    const uint64_t old = slot.result[0];
    __atomic_store_n(&slot.turn, t + detail::kProxyRingSlots, __ATOMIC_RELEASE);
    return old;
  }
  // A kernel's quiet: until every ticket below `upto` has completed (the mirror or the ring says so), the
  // ring's error flag goes up, or `limit` passes. Returns whether it completed.
  bool wait(uint64_t upto, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    const auto end = Clock::now() + limit;
    while (mirror.load(std::memory_order_acquire) < upto &&
           __atomic_load_n(&ring->completed, __ATOMIC_ACQUIRE) < upto) {
      if (__atomic_load_n(&ring->error, __ATOMIC_ACQUIRE) != 0 || Clock::now() > end) return false;
      std::this_thread::yield();
    }
    return true;
  }
  bool quiet() { return wait(tickets.load()); }

  std::unique_ptr<ProxyRing> ring;
  std::atomic<uint64_t> mirror{0};
  std::atomic<uint64_t> tickets{0};
  FakeCopies copies;
  FakeNetwork network;
  std::unique_ptr<ProxyLoop> loop;
};

TEST(ProxyLoop, CopiesPutsAndFetchesCompleteWithTheirData) {
  Rig rig;
  std::atomic<int> failures{0};
  std::thread copier([&] {
    std::mt19937 rng(1);
    std::vector<char> src(1 << 16), dst(1 << 16);
    for (int round = 0; round < 200; ++round) {
      for (char& c : src) c = static_cast<char>(rng());
      std::fill(dst.begin(), dst.end(), 0);
      size_t at = 0;
      while (at < src.size()) {  // pieces that continue one another: the loop may merge them
        const size_t n = std::min<size_t>(src.size() - at, 1 + rng() % 8192);
        rig.copy(dst.data() + at, src.data() + at, n);
        at += n;
      }
      if (!rig.quiet() || dst != src) ++failures;
    }
  });
  std::thread putter([&] {
    for (uint64_t i = 0; i < 2000; ++i) {
      rig.put(8 * (i % 512), i);
      if (i % 16 == 15) {
        uint64_t v = 0;
        if (!rig.quiet()) ++failures;
        rig.network.read(8 * (i % 512), &v, 8);
        if (v != i) ++failures;  // the last put to that word completed before the quiet returned
      }
    }
  });
  std::thread fetcher([&] {
    for (uint64_t i = 0; i < 1000; ++i) {
      if (rig.fetch_add(1 << 19, 1) != i) ++failures;  // one thread adds: it sees its own count
    }
  });
  copier.join();
  putter.join();
  fetcher.join();
  EXPECT_EQ(failures.load(), 0);
}

// A kernel posts a copy, another a while later, then quiets, while other threads keep the loop busy with network
// puts: the second copy must be counted although a pass of the loop never comes up empty.
TEST(ProxyLoop, SteadyNetworkTrafficDoesNotHoldBackTheCopiesCount) {
  Rig rig;
  // Each network quiet of the loop sees a new put arrive (a kernel that keeps putting): no pass of the loop
  // ever comes up empty.
  std::atomic<bool> noise{true};
  rig.network.during_quiet = [&] {
    if (noise.load()) rig.put(0, 1);
  };
  rig.put(0, 1);
  std::vector<char> src(4096, 7), dst(4096);
  int stuck = 0;
  for (int round = 0; round < 50 && stuck == 0; ++round) {
    std::fill(dst.begin(), dst.end(), 0);
    rig.copy(dst.data(), src.data(), 2048);
    // After the loop has issued and counted the first, within the 50 us after which it counts again anyway.
    for (const auto until = Clock::now() + std::chrono::microseconds(10); Clock::now() < until;) {
    }
    const uint64_t t = rig.copy(dst.data() + 2048, src.data() + 2048, 2048);
    if (!rig.wait(t + 1, std::chrono::milliseconds(2000))) ++stuck;
    EXPECT_EQ(dst, src) << "round " << round;
  }
  noise = false;
  EXPECT_EQ(stuck, 0) << "a quiet after two copies did not return within 2 s while network puts kept coming";
}

// A copy that fails is never reported complete: the error flag goes up, `completed` stays below it, and a host
// quiet fails.
TEST(ProxyLoop, AFailedCopyIsNeverCompleted) {
  Rig rig;
  std::vector<char> src(64, 1), dst(64), big(kFailBytes);
  rig.copy(dst.data(), src.data(), 64);
  const uint64_t bad = rig.copy(big.data(), big.data(), kFailBytes);
  rig.copy(dst.data(), src.data(), 64);
  EXPECT_FALSE(rig.wait(bad + 1));
  EXPECT_NE(__atomic_load_n(&rig.ring->error, __ATOMIC_ACQUIRE), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // time to count, were it to count
  EXPECT_LE(__atomic_load_n(&rig.ring->completed, __ATOMIC_ACQUIRE), bad);
  EXPECT_LE(rig.mirror.load(), bad);
  EXPECT_EQ(rig.loop->flush(), GSHMEM_ERROR_CUDA);
}

// stop() serves and completes everything published before it; flush() waits for slow copies.
TEST(ProxyLoop, StopAndFlushCoverWhatWasPublished) {
  {
    Rig rig;
    std::vector<char> src(1000, 3), dst(1000);
    for (uint64_t i = 0; i < 300; ++i) {
      rig.put(8 * i, i + 1);
      rig.copy(dst.data() + 2 * (i % 500), src.data(), 2);
    }
    rig.loop->stop();
    EXPECT_EQ(__atomic_load_n(&rig.ring->completed, __ATOMIC_ACQUIRE), 600u);
    for (uint64_t i = 0; i < 300; ++i) {
      uint64_t v = 0;
      rig.network.read(8 * i, &v, 8);
      EXPECT_EQ(v, i + 1);
    }
  }
  {
    Rig rig(std::chrono::microseconds(2000));
    std::vector<char> src(100, 5), dst(100);
    for (int i = 0; i < 5; ++i) rig.copy(dst.data() + 20 * i, src.data(), 20);
    const auto t0 = Clock::now();
    EXPECT_EQ(rig.loop->flush(), GSHMEM_SUCCESS);
    EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(8)) << "five copies of 2 ms each on one stream";
    EXPECT_GE(__atomic_load_n(&rig.ring->completed, __ATOMIC_ACQUIRE), 5u);
    EXPECT_EQ(dst, src);
  }
}

}  // namespace
}  // namespace gshmem
