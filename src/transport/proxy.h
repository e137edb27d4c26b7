// The proxy: one host thread of each GPU PE that serves what its kernels hand over through one ring of
// requests (layout and protocol: gshmem/detail/device_state.h; device side: gshmem/device/proxy.cuh):
//  - copies for the copy engines (large device-initiated _nbi puts and gets to mapped peers), issued on a
//    stream of its own (proxy_copies.h);
//  - operations on PEs that this GPU does not map, issued through the network transport (proxy_network.h).
// One ticket counter, one thread (proxy_loop.h, which says how it serves), one completion counter
// (`completed`, proxy_completion.h): a kernel's quiet is one wait, whatever it handed over.
//
// Contracts:
//  - start() allocates the ring (host-pinned, mapped) and the counters (device memory) and starts the
//    thread; copies: whether the copy engines take kernels' copies (GSHMEM_ERROR_NOT_SUPPORTED from them is
//    not an error: copies_on() is then false and `why` says why); network: null when every PE is mapped.
//    GSHMEM_ERROR_NOT_SUPPORTED when there is nothing to serve. The bound context must be current on the
//    caller; the thread makes it current on itself.
//  - flush() and stop() as ProxyLoop's; stop() frees the ring (idempotent).
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <cstdint>
#include <memory>
#include <string>

#include "gshmem/detail/device_state.h"
#include "transport/network.h"
#include "transport/proxy_copies.h"
#include "transport/proxy_loop.h"
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
  Status flush() { return loop_ ? loop_->flush() : GSHMEM_SUCCESS; }

  bool copies_on() const { return copies_.on(); }
  bool network_on() const { return network_ != nullptr; }
  detail::ProxyRing* ring() const { return ring_; }
  uint64_t* counters() const { return reinterpret_cast<uint64_t*>(counters_); }

 private:
  detail::ProxyRing* ring_ = nullptr;
  CUdeviceptr counters_ = 0;
  ProxyCopies copies_;
  std::unique_ptr<ProxyNetwork> network_;
  std::unique_ptr<ProxyLoop> loop_;
};

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
