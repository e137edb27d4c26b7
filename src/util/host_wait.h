// How a host thread waits for a condition that another PE, the GPU or a host proxy makes true.
#pragma once

#include <sched.h>

#include <chrono>
#include <thread>

namespace gshmem {

// Work that a waiting thread does at each poll: the network's progress where a peer's write may come
// through the network (TransportManager::poll_work), so that the thread that waits takes the message off
// the network itself. Returns whether something moved. Empty: nothing to do.
struct PollWork {
  bool (*fn)(void* ctx) = nullptr;
  void* ctx = nullptr;
  bool operator()() const { return fn != nullptr && fn(ctx); }
};

// The pause between two polls of a condition that is still false. The first 200 polls follow each
// other at once, so a wait that ends within microseconds pays nothing for pausing: a sleep, however
// short, lasts ~50 us or more (Linux's timer slack). Measured on 2 x H200, a host
// nvshmem_barrier_all took 16.5 us this way against 63.5 with short sleeps from the first poll.
// Until poll 2000 the thread yields its CPU (PEs may outnumber cores); after that it sleeps 50 us,
// after about a tenth of a second 1 ms, and after about a second more 5 ms: a wake-up costs tens of
// microseconds of CPU on a virtual machine, so a PE that waits long for a late peer then costs its
// core under 1% (and sees the wait's end up to 5 ms late).
class HostBackoff {
 public:
  explicit HostBackoff(PollWork work = {}) : work_(work) {}
  // Does the poll's work, then pauses. Returns whether it slept: the caller's slower checks (how long it
  // has waited) belong there.
  bool pause() {
    work_();
    const unsigned n = polls_ < ~0u ? polls_++ : polls_;
    if (n < kSpinPolls) return false;
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
  unsigned polls_ = 0;
};

}  // namespace gshmem
