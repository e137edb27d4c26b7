// How a host thread waits for a condition that another PE, the GPU or a host proxy makes true.
#pragma once

#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gshmem {

// Whether this node runs more PEs than it has CPUs (the runtime sets it at init). A waiting thread then yields
// its CPU from the first poll: the PE it waits for may need that very CPU to arrive (measured on 2 cores with 4
// PEs across the network: a barrier took 150 us with 200 polls of spinning first).
inline std::atomic<bool>& host_oversubscribed() {
  static std::atomic<bool> oversubscribed{false};
  return oversubscribed;
}

// Work that a waiting thread does at each poll: the network's progress where a peer's write may come
// through the network (TransportManager::poll_work), so that the thread that waits takes the message off
// the network itself. Returns whether something moved. Empty: nothing to do.
struct PollWork {
  bool (*fn)(void* ctx) = nullptr;
  void* ctx = nullptr;
  bool operator()() const { return fn != nullptr && fn(ctx); }
};

// The pause between two polls of a condition that is still false. The first 200 polls (none where the node
// is oversubscribed) follow each other at once, so a wait that ends within microseconds pays nothing for pausing: a
// sleep, however short, lasts ~50 us or more (Linux's timer slack). Measured on 2 x H200, a host nvshmem_barrier_all
// took 16.5 us this way against 63.5 with short sleeps from the first poll. Until poll 2000 the thread yields its CPU
// (PEs may outnumber cores); after that it sleeps 50 us, after about a tenth of a second 1 ms, and after about a second
// more 5 ms: a wake-up costs tens of microseconds of CPU on a virtual machine, so a PE that waits long for a late peer
// then costs its core under 1% (and sees the wait's end up to 5 ms late).
class HostBackoff {
 public:
  explicit HostBackoff(PollWork work = {})
      : work_(work), spin_polls_(host_oversubscribed().load(std::memory_order_relaxed) ? 0 : kSpinPolls) {}
  // Does the poll's work, then pauses. Returns whether it slept: the caller's slower checks (how long it
  // has waited) belong there.
  bool pause() {
    const unsigned n = polls_ < ~0u ? polls_++ : polls_;
    // Once the thread sleeps between polls it leaves the work to others: a network plugin's own thread, which
    // stands aside only while a waiting thread polls it, wakes on a message and serves a peer's get or atomic at
    // once instead of at this thread's next poll (tens of microseconds to milliseconds later).
    if (n < kYieldPolls) work_();
    if (n < spin_polls_) return false;
    if (n < kYieldPolls) {
      sched_yield();
      return false;
    }
    const int us = n < kLongWaitPolls ? kSleepUs : n < kVeryLongWaitPolls ? kLongSleepUs : kVeryLongSleepUs;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    return true;
  }
  // The pauses so far.
  unsigned polls() const { return polls_; }

 private:
  static constexpr unsigned kSpinPolls = 200;
  static constexpr unsigned kYieldPolls = 2000;
  static constexpr int kSleepUs = 50;
  static constexpr unsigned kLongWaitPolls = kYieldPolls + 2000;  // ~0.1 s of 50 us sleeps (each lasts ~60 us)
  static constexpr int kLongSleepUs = 1000;
  static constexpr unsigned kVeryLongWaitPolls = kLongWaitPolls + 1000;  // ~1 s more of 1 ms sleeps
  static constexpr int kVeryLongSleepUs = 5000;
  PollWork work_;
  unsigned spin_polls_;
  unsigned polls_ = 0;
};

}  // namespace gshmem
