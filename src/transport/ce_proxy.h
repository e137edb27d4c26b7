// The copy proxy: a host thread of each GPU PE that moves large device-initiated _nbi puts and gets
// with the copy engines (see gshmem/device/ce.cuh for the device side and
// gshmem/detail/device_state.h for the ring).
//
// Contracts:
//  - start() allocates the ring (host-pinned, mapped) and the two counters (device memory), checks
//    that the GPU takes stream memory operations, and starts the thread; ring() and counters() are
//    then what the device state publishes. The bound context must be current on the caller.
//  - The thread takes tickets in order as kernels publish them, gathers those that arrive within a
//    few microseconds of each other into a batch (for at most 20 us, or for as long as the engines
//    are surely still busy with the batches before), issues it on a stream of its own (copies that
//    continue one another merged into one, copy_merge.h, or issued one by one where CUDA refuses the
//    merged copy because it spans two allocations), and makes that stream write the number of tickets
//    completed into counters()[1] when the burst ends (and after a batch that ends 50 us or more
//    after the last count, during a long burst).
//  - flush() returns once the tickets published before the call, up to the first one still being
//    written by a running kernel, have completed (host quiet: it is meant for kernels that ended).
//  - A copy that CUDA refuses is logged with its addresses, size and the error; the ring's error
//    flag then makes every kernel waiting for it end with a message instead of hanging.
//  - stop() ends the thread after the copies it issued have completed; idempotent.
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gshmem/detail/device_state.h"
#include "transport/copy_merge.h"
#include "util/cuda_driver.h"
#include "util/status.h"

namespace gshmem {

class CopyProxy {
 public:
  CopyProxy() = default;
  ~CopyProxy() { stop(); }
  CopyProxy(const CopyProxy&) = delete;
  CopyProxy& operator=(const CopyProxy&) = delete;

  // GSHMEM_ERROR_NOT_SUPPORTED (with `why`) when the GPU cannot write the counters from a stream.
  Status start(CUcontext ctx, int mype, std::string* why);
  void stop();
  Status flush();

  detail::CeRing* ring() const { return ring_; }
  uint64_t* counters() const { return reinterpret_cast<uint64_t*>(counters_); }

 private:
  using Copy = CopyRange;
  void run();
  // Takes the published tickets from `taken_` on (at most `max`); false when there are none.
  bool take(std::vector<Copy>* batch, size_t max);
  // Issues the batch, merged into chains (copy_merge.h).
  Status issue(std::vector<Copy>* batch);
  // Issues one copy; on failure logs it and raises the ring's error flag when `report`.
  Status issue_one(const Copy& c, bool report);
  // Logs `what` as an error, then stop_taking().
  void fail(const char* what);
  // Takes no more tickets and raises the ring's error flag, so that waiting kernels end.
  void stop_taking();
  // Makes the stream write the number of tickets issued so far into counters()[1].
  void count_completions(uint64_t* counted);
  // Whether the copy engines can reach [p, p + bytes): GPU or registered memory, or mapped pageable
  // memory where the GPU may use it.
  bool reachable(uint64_t p, uint64_t bytes) const;

  CUcontext ctx_ = nullptr;
  int mype_ = 0;
  detail::CeRing* ring_ = nullptr;
  CUdeviceptr counters_ = 0;
  CUstream stream_ = nullptr;
  bool pageable_ = false;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> taken_{0};    // tickets read from the ring
  std::atomic<uint64_t> issued_{0};   // tickets whose copies (and completion count) are on the stream
  std::atomic<uint64_t> counted_{0};  // tickets covered by a completion count on the stream
  std::atomic<uint64_t> flushed_{0};  // tickets a flush() has seen complete
  std::atomic<bool> failed_{false};
  uint64_t settled_ = 0;  // tickets known complete (the stream was idle after them); proxy thread only
  uint64_t batches_ = 0, copies_ = 0, bytes_ = 0;  // statistics, logged at stop (PROXY, INFO)
};

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
