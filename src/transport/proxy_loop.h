// The proxy's thread, without CUDA (see proxy.h for the proxy as a whole): it takes the requests that kernels
// publish in the ring (gshmem/detail/device_state.h), hands copies to a copy side and network requests to a
// network side, and publishes the ring's one completion counter. On a GPU the sides are proxy_copies.h and
// proxy_network.h; the unit tests give it fakes and play the kernels' part on threads.
//
// Contracts:
//  - The thread takes tickets in order. A network request is served as it comes; copies are gathered while
//    more arrive within a few microseconds of each other (for at most 20 us, or for as long as the engines
//    are surely still busy with the batches before), then issued together. When no more copies come (network
//    requests that keep coming do not count), and every 50 us during a long burst, the copy side is asked to
//    count what it issued; network requests are completed when the thread finds nothing new, or while it
//    gathers copies. `completed` is then the first ticket not known complete (proxy_completion.h).
//  - Idle, the thread polls back to back while copies are in flight and for a while after work came (100 ms
//    after copies: a kernel posts its next one within microseconds; 50 us after network requests only), then
//    sleeps between polls for up to 50 us, and, without a network side, a millisecond once nothing came for
//    ten seconds.
//  - The two kinds share one counter: a kernel that waits for a network request also waits for the copies it
//    (or another thread of this PE) handed over before, and the other way round.
//  - A copy that the copy side reports failed is never counted done, and no ticket is taken after it; the
//    copy side raises the ring's error flag (kernels waiting for the proxy end). A request of a kind this PE
//    does not have ends the job.
//  - flush() returns once the tickets published before the call, up to the first one still being written,
//    have completed (host quiet); GSHMEM_ERROR_CUDA once the ring's error flag is up.
//  - stop() ends the thread after it has served and completed every request published before the call;
//    idempotent.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "gshmem/detail/device_state.h"
#include "transport/copy_merge.h"
#include "transport/proxy_completion.h"
#include "util/status.h"

namespace gshmem {

// What the loop asks of the copy engines' side.
class ProxyCopySide {
 public:
  virtual ~ProxyCopySide() = default;
  virtual bool on() const = 0;
  // Issues the copies (in any order: _nbi copies are unordered until a quiet).
  virtual void issue(std::vector<CopyRange>* batch) = 0;
  // After the copies issued before: the ring's copies_done = ticket, the kernels' copy of `completed` =
  // completed (every ticket below it will have completed by then: the caller's promise).
  virtual void count(uint64_t ticket, uint64_t completed) = 0;
  // Looks for a failure of what was issued; false when CUDA is gone (the process is exiting).
  virtual bool check() = 0;
  // Waits for everything issued.
  virtual void drain() = 0;
  // A copy failed: the ring's error flag is up.
  virtual bool failed() const = 0;
};

// What the loop asks of the network's side.
class ProxyNetworkSide {
 public:
  virtual ~ProxyNetworkSide() = default;
  // Issues request `ticket` without waiting for it.
  virtual void serve(uint64_t ticket, const detail::ProxyRequest& r) = 0;
  // Completes what was served, then hands fetched values to their slots.
  virtual void complete() = 0;
};

class ProxyLoop {
 public:
  // `ring` must outlive the loop; its slots' turns are initialised here. Either side may be null (off).
  ProxyLoop(detail::ProxyRing* ring, ProxyCopySide* copies, ProxyNetworkSide* network);
  ~ProxyLoop() { stop(); }
  ProxyLoop(const ProxyLoop&) = delete;
  ProxyLoop& operator=(const ProxyLoop&) = delete;

  // Starts the thread, which first runs `thread_init`.
  void start(std::function<void()> thread_init);
  void stop();
  Status flush();

 private:
  void run();
  // Takes the published tickets from `taken_` on (at most `max`): serves network requests at once and adds
  // copies to `batch`. Returns how many it took.
  uint64_t take(std::vector<CopyRange>* batch, uint64_t max);
  // Gathers more copies after the first of a batch arrived (see the contract), then issues them.
  void gather_and_issue(std::vector<CopyRange>* batch);
  // Completes the network requests taken, reads the copy side's count and publishes `completed`.
  void settle();
  // Asks the copy side to count the copies issued so far.
  void count();
  bool copies_on() const { return copies_ != nullptr && copies_->on(); }
  bool copies_failed() const { return copies_ != nullptr && copies_->failed(); }

  detail::ProxyRing* ring_;
  ProxyCopySide* copies_;
  ProxyNetworkSide* network_;
  ProxyCompletion completion_;  // the thread's only
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> taken_{0};  // tickets read from the ring
  uint64_t counted_ = 0;            // the last count the copy side was asked for (thread only)
  uint64_t issued_upto_ = 0;        // every copy below this ticket was issued (thread only)
  uint64_t published_ = 0;          // the last `completed` stored (thread only)
  std::chrono::steady_clock::time_point last_count_{}, busy_until_{};
};

}  // namespace gshmem
