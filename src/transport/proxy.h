// The proxy: one host thread of each GPU PE that serves what its kernels hand over through one ring of
// requests (layout and protocol: gshmem/detail/device_state.h; device side: gshmem/device/proxy.cuh):
//  - copies for the copy engines (large device-initiated _nbi puts and gets to mapped peers), issued on a
//    stream of its own (proxy_copies.h);
//  - operations on PEs that this GPU does not map, issued through the network transport (proxy_network.h).
// One ticket counter, one thread, one completion counter (`completed`, proxy_completion.h): a kernel's
// quiet is one wait, whatever it handed over.
//
// Contracts:
//  - start() allocates the ring (host-pinned, mapped) and the counters (device memory) and starts the
//    thread; copies: whether the copy engines take kernels' copies (GSHMEM_ERROR_NOT_SUPPORTED from it is
//    not an error: copies_on() is then false and `why` says why); network: null when every PE is mapped.
//    The bound context must be current on the caller.
//  - The thread takes tickets in order. A network request is issued as it comes; copies are gathered while
//    more arrive within a few microseconds of each other (for at most 20 us, or for as long as the engines
//    are surely still busy with the batches before), then issued together, merged where they continue one
//    another. When no more tickets come it completes the network requests (a network quiet) and has the copy
//    stream count what it finished (after a burst, and every 50 us or more during a long one: the count
//    costs the engines a pause), and publishes in `completed` the first ticket not known complete.
//  - Idle, it polls back to back while copies are in flight and for a while after work came (100 ms after
//    copies: a kernel posts its next one within microseconds; 50 us after network requests only), then
//    sleeps between polls for up to 50 us, and, without the network, a millisecond once nothing came for ten
//    seconds.
//  - The two kinds share one counter: a kernel that waits for a network request also waits for the copies it
//    (or another thread of this PE) handed over before, and the other way round. (A kernel that mixes them
//    in one quiet waits for both in any case.)
//  - flush() returns once the tickets published before the call, up to the first one still being written
//    by a running kernel, have completed (host quiet); an error once a copy failed.
//  - A failed copy stops the proxy's taking and raises the ring's error flag (kernels waiting for it end
//    with a trap; the log says which copy and what to do); a failed network request ends the job.
//  - stop() ends the thread after it has served and completed every request published before the call (a
//    barrier kernel's last arrival may still be in the ring when the host finalizes); idempotent.
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gshmem/detail/device_state.h"
#include "transport/copy_merge.h"
#include "transport/network.h"
#include "transport/proxy_completion.h"
#include "transport/proxy_copies.h"
#include "transport/proxy_network.h"
#include "util/cuda_driver.h"
#include "util/status.h"

namespace gshmem {

class Proxy {
 public:
  Proxy() = default;
  ~Proxy() { stop(); }
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  // copies: whether kernels may hand copies to the copy engines; *why: why they do not, when asked and refused.
  Status start(CUcontext ctx, int mype, bool copies, NetworkTransport* network, std::string* why);
  void stop();
  Status flush();

  bool copies_on() const { return copies_.on(); }
  detail::ProxyRing* ring() const { return ring_; }
  uint64_t* counters() const { return reinterpret_cast<uint64_t*>(counters_); }

 private:
  void run();
  // Takes the published tickets from `taken_` on (at most `max`): serves network requests at once and adds
  // copies to `batch`. Returns how many it took.
  uint64_t take(std::vector<CopyRange>* batch, uint64_t max);
  // Gathers more copies after the first of a batch arrived (see the contract), then issues them.
  void gather_and_issue(std::vector<CopyRange>* batch);
  // Completes the network requests taken, reads the copy stream's count and publishes `completed`.
  void settle();
  // Makes the copy stream count the copies issued so far.
  void count();

  CUcontext ctx_ = nullptr;
  detail::ProxyRing* ring_ = nullptr;
  CUdeviceptr counters_ = 0;
  ProxyCopies copies_;
  std::unique_ptr<ProxyNetwork> network_;
  ProxyCompletion completion_;  // the thread's only
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> taken_{0};  // tickets read from the ring
  uint64_t counted_ = 0;            // the last count the copy stream was asked to write (thread only)
  uint64_t issued_upto_ = 0;        // every copy below this ticket is on the stream (thread only)
  uint64_t published_ = 0;          // the last `completed` stored (thread only)
  std::chrono::steady_clock::time_point last_count_{}, busy_until_{};
};

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
