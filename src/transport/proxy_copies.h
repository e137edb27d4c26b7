// The proxy's copy-engine part (see proxy.h): issues the copies that kernels hand over (large device-initiated
// _nbi puts and gets to mapped peers, gshmem/device/ce.cuh) on a stream of its own, and has that stream
// count what completed.
//
// Contracts (the proxy's thread calls everything but start() and stop()):
//  - start() creates the stream and checks that it can write the count into the ring's `copies_done` (stream
//    memory operations); GSHMEM_ERROR_NOT_SUPPORTED (with `why`) when it cannot, and kernels then copy with SM
//    loads and stores. The bound context must be current on the caller.
//  - issue(batch): the copies, merged where they continue one another (copy_merge.h), issued one by one where
//    CUDA refuses the merged copy because it spans two allocations.
//  - count(t, c): after the copies issued before, the stream writes t into the ring's `copies_done` and c into
//    the kernels' copy of `completed` (device memory), so that a kernel waiting for a copy sees it done without
//    the proxy thread's turn. The caller promises that every copy with a ticket below t was issued and that
//    every ticket below c will then have completed.
//  - A copy that CUDA refuses, or memory that the copy engines cannot reach, is logged with its addresses,
//    size and the reason; failed() becomes true and the ring's error flag goes up, so that every kernel
//    waiting for the proxy ends (the log says why) instead of hanging, and the proxy takes no more tickets.
//  - check() asks the stream whether the CUDA context failed while copies were in flight (same reporting);
//    false when the process is exiting without nvshmem_finalize (CUDA deinitialised).
//  - drain() waits for everything issued; stop() (idempotent) destroys the stream.
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <cstdint>
#include <string>
#include <vector>

#include "gshmem/detail/device_state.h"
#include "transport/copy_merge.h"
#include "transport/proxy_loop.h"
#include "util/cuda_driver.h"
#include "util/status.h"

namespace gshmem {

class ProxyCopies final : public ProxyCopySide {
 public:
  ProxyCopies() = default;
  ~ProxyCopies() override { stop(); }
  ProxyCopies(const ProxyCopies&) = delete;
  ProxyCopies& operator=(const ProxyCopies&) = delete;

  // mirror: the kernels' copy of `completed` (device memory), which count() writes too.
  Status start(detail::ProxyRing* ring, CUdeviceptr mirror, int mype, std::string* why);
  void stop();
  bool on() const override { return stream_ != nullptr; }

  void issue(std::vector<CopyRange>* batch) override;
  void count(uint64_t ticket, uint64_t completed) override;
  bool check() override;
  void drain() override;
  bool failed() const override { return failed_; }

 private:
  // Issues one copy; on failure logs it and fails when `report`.
  Status issue_one(const CopyRange& c, bool report);
  // Logs `what` as an error, then stop_taking().
  void fail(const char* what);
  // failed() from now on, and the ring's error flag is up: the proxy takes no more tickets and the kernels
  // that wait for it end.
  void stop_taking();
  // Whether the copy engines can reach [p, p + bytes): GPU or registered memory, or mapped pageable memory
  // where the GPU may use it.
  bool reachable(uint64_t p, uint64_t bytes) const;

  detail::ProxyRing* ring_ = nullptr;
  CUdeviceptr mirror_ = 0;
  int mype_ = 0;
  CUstream stream_ = nullptr;
  bool pageable_ = false;
  bool failed_ = false;
  uint64_t issued_ = 0, settled_ = 0;              // copies issued; issued when the stream was last seen idle
  uint64_t handed_ = 0, batches_ = 0, bytes_ = 0;  // statistics, logged at stop (PROXY, INFO)
};

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
