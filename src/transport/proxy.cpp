// The proxy (see proxy.h).
#ifdef GSHMEM_HAVE_CUDA

#include "transport/proxy.h"

#include <cstring>

#include "util/log.h"

namespace gshmem {

Status Proxy::start(CUcontext ctx, int mype, bool copies, NetworkTransport* network, std::string* why) {
  void* ring = nullptr;
  GSHMEM_CU_CHECK(cuMemHostAlloc, &ring, sizeof(detail::ProxyRing),
                  CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  std::memset(ring, 0, sizeof(detail::ProxyRing));
  ring_ = static_cast<detail::ProxyRing*>(ring);
  GSHMEM_CU_CHECK(cuMemAlloc, &counters_, 2 * sizeof(uint64_t));
  GSHMEM_CU_CHECK(cuMemsetD8, counters_, 0, 2 * sizeof(uint64_t));
  if (copies) {
    const Status s = copies_.start(ring_, counters_ + sizeof(uint64_t), mype, why);
    if (!ok(s) && s != GSHMEM_ERROR_NOT_SUPPORTED) return s;
  }
  if (network != nullptr) network_ = std::make_unique<ProxyNetwork>(ring_, network);
  if (!copies_.on() && !network_) return GSHMEM_ERROR_NOT_SUPPORTED;  // nothing to serve
  loop_ = std::make_unique<ProxyLoop>(ring_, copies_.on() ? &copies_ : nullptr, network_.get());
  loop_->start([ctx] {
    cu().cuCtxSetCurrent(ctx);
    // The network library copies between GPU and host memory on this thread (UCX's cuda_copy, with a stream
    // synchronisation), and the copy engines' copies are issued here: a CUDA graph that the program captures in
    // the global mode on another thread must not make those calls fail (seen: "operation not permitted when
    // stream is capturing", then UCX aborted the process). This thread never captures, so relaxed is safe.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    cu().cuThreadExchangeStreamCaptureMode(&mode);
  });
  return GSHMEM_SUCCESS;
}

void Proxy::stop() {
  loop_.reset();  // joins the thread after it served what was published
  network_.reset();
  copies_.stop();
  if (counters_) cu().cuMemFree(counters_);
  if (ring_) cu().cuMemFreeHost(ring_);
  counters_ = 0;
  ring_ = nullptr;
}

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
