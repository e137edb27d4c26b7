// The network proxy: a host thread of each GPU PE that has peers it does not map. It serves the
// requests that kernels post in the network ring (gshmem/device/net.cuh for the device side,
// gshmem/detail/device_state.h for the ring) through the network transport.
//
// Contracts:
//  - start() allocates the ring (host-pinned, mapped) and the ticket counter (device memory) and
//    starts the thread; ring() and counters() are then what the device state publishes. The bound
//    context must be current on the caller.
//  - The thread takes tickets in order and issues each as it comes, without waiting for it: puts and
//    gets, data carried in the slot, fetching gets and atomics (their values land in the proxy's own
//    buffer), fences as network fences. When no more tickets are published (or after a batch of 64), it
//    completes what it issued (a network quiet), writes the fetched values back into their slots and
//    releases them, and stores the number of tickets taken into the ring's `completed`, which kernels'
//    quiet and blocking operations wait for. A kernel thread waits for its fetch before it posts
//    again, so its requests stay in its program order; fetches of many threads travel together.
//  - Idle, it polls for about 50 us, then sleeps between polls for up to 100 us: an idle proxy does
//    not burn a core, and a request after a long pause waits at most that long to be taken.
//  - flush() returns once the tickets published before the call, up to the first one still being
//    written by a running kernel, have completed (host quiet).
//  - A request that names a PE the network does not reach, or memory of this process that no kernel
//    could have named (neither GPU memory nor mapped host memory), and a failed network operation, end
//    the job with a message that names the request (the transport's message gives the library's
//    reason and the PE); the ring's error flag is raised first, so that waiting kernels end too.
//  - stop() ends the thread after it has served and completed every request published before the call
//    (a barrier kernel's last arrival may still be in the ring when the host finalizes); idempotent.
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "gshmem/detail/device_state.h"
#include "transport/network.h"
#include "util/cuda_driver.h"
#include "util/status.h"

namespace gshmem {

class NetProxy {
 public:
  NetProxy() = default;
  ~NetProxy() { stop(); }
  NetProxy(const NetProxy&) = delete;
  NetProxy& operator=(const NetProxy&) = delete;

  Status start(CUcontext ctx, NetworkTransport* network);
  void stop();
  Status flush();

  detail::NetRing* ring() const { return ring_; }
  uint64_t* counters() const { return reinterpret_cast<uint64_t*>(counters_); }

 private:
  void run();
  // Issues request `ticket`; a fetching one's value lands in fetches_ by the next complete().
  void serve(uint64_t ticket, const detail::NetRequest& r);
  // Completes what was issued, hands the fetched values to their slots and publishes the tickets taken
  // as completed.
  void complete(uint64_t taken);
  // Logs what failed with `r`, raises the ring's error flag and ends the job.
  [[noreturn]] void fail(uint64_t ticket, const detail::NetRequest& r, const std::string& why);
  std::string describe(uint64_t ticket, const detail::NetRequest& r) const;

  // Tickets taken before the proxy completes what it issued, while more keep coming.
  static constexpr uint64_t kBatch = 64;

  CUcontext ctx_ = nullptr;
  NetworkTransport* network_ = nullptr;
  detail::NetRing* ring_ = nullptr;
  CUdeviceptr counters_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> taken_{0};  // tickets read from the ring
  bool pending_ = false;            // issued operations not yet completed by a network quiet (thread only)
  // The fetching requests issued since the last complete() (at most a batch): their tickets, and where
  // the network stores their values (fixed addresses: the transport writes them until the quiet).
  struct Fetch {
    uint64_t ticket;
    uint64_t value[2];
  };
  std::array<Fetch, kBatch> fetches_{};
  size_t fetched_ = 0;
  uint64_t requests_ = 0, bytes_ = 0, quiets_ = 0;  // statistics, logged at stop (PROXY, INFO)
};

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
