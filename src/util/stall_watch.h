// Calls that other PEs depend on and that should return within moments, but can block inside a driver:
// the network thread applying a peer's put or atomic to this PE's GPU heap, for one. While such a call
// blocks, no peer's operation on this PE completes; the peers wait and say whom they wait for, but only
// this PE can say where it is stuck. The blocked thread cannot say it itself, so a thread of the watch's
// own looks once a second: a call that has not returned after GSHMEM_WAIT_WARN seconds is reported
// (again every GSHMEM_WAIT_WARN seconds), and one past GSHMEM_WAIT_TIMEOUT ends the job.
//
// Marking a call costs a clock read and a few atomic operations (the watched calls take microseconds
// or more); the watching thread wakes once a second, which costs an idle PE a few microseconds of CPU
// per second.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gshmem {

class StallWatch {
 public:
  struct Options {
    int my_pe = 0;
    double warn_s = 0;     // GSHMEM_WAIT_WARN (0: never)
    double timeout_s = 0;  // GSHMEM_WAIT_TIMEOUT (0: never)
    double period_s = 1;   // how often the watching thread looks
    uint32_t subsys = 0;   // of the warnings (log::Subsys)
    // What this PE's other threads are doing, and what may block the call: appended to the report
    // (a sentence, or ""). Runs on the watching thread.
    std::function<std::string()> context;
  };
  explicit StallWatch(Options options);
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  // Marks a call for as long as it lives. `who`, `what` and `effect` are static strings ("the network
  // thread", "applying a peer's put of %llu bytes to this PE's GPU heap" with %llu for `n`, and what waits
  // meanwhile: "no peer's operation on this PE completes", or ""). A watch that is null marks nothing.
  // At most kSlots calls are watched at once; further ones run unwatched.
  class Call {
   public:
    Call(StallWatch* watch, const char* who, const char* what, uint64_t n = 0, const char* effect = "");
    ~Call();
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

   private:
    StallWatch* watch_;
    int slot_ = -1;
  };

 private:
  static constexpr int kSlots = 8;
  struct Slot {
    std::atomic<bool> used{false};
    std::atomic<int64_t> since_ns{0};  // 0: no call in it yet
    std::atomic<const char*> who{nullptr};
    std::atomic<const char*> what{nullptr};
    std::atomic<const char*> effect{nullptr};
    std::atomic<uint64_t> n{0};
  };
  int enter(const char* who, const char* what, uint64_t n, const char* effect);
  void leave(int slot);
  void run();
  // Looks at every marked call once; `next_warn[i]` is slot i's next report time, for the call that
  // began at `seen[i]`.
  void look(int64_t now_ns, int64_t seen[kSlots], double next_warn[kSlots]);
  std::string describe(const Slot& s) const;

  Options o_;
  Slot slots_[kSlots];
  std::atomic<int> marked_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gshmem
