// The proxy's network part (see proxy.h): issues the requests that kernels post for PEs this GPU does not map
// (gshmem/device/net.cuh) through the network transport, and completes them.
//
// Contracts (the proxy's thread calls everything):
//  - serve(t, r) issues request t as it comes, without waiting for it: puts and gets, data carried in the
//    slot, fetching gets and atomics (their values land in a buffer of this class), fences as network
//    fences. A kernel thread waits for its fetch before it posts again, so its requests stay in its program
//    order; fetches of many threads travel together.
//  - complete() completes what was issued (a network quiet), then writes the fetched values into their
//    slots and hands those slots back to their kernels (serve() does it first when kBatch fetches wait).
//  - A request that names a PE the network does not reach, or memory of this process that no kernel could
//    have named (neither GPU memory nor mapped host memory), and a failed network operation, end the job with
//    a message that names the request (the transport's message gives the library's reason and the PE); the
//    ring's error flag is raised first, so that waiting kernels end too.
#pragma once

#ifdef GSHMEM_HAVE_CUDA
#include <array>
#include <cstdint>
#include <string>

#include "gshmem/detail/device_state.h"
#include "transport/network.h"
#include "transport/proxy_loop.h"

namespace gshmem {

class ProxyNetwork final : public ProxyNetworkSide {
 public:
  static constexpr uint64_t kBatch = 64;

  ProxyNetwork(detail::ProxyRing* ring, NetworkTransport* network) : ring_(ring), network_(network) {}
  ~ProxyNetwork() override;
  ProxyNetwork(const ProxyNetwork&) = delete;
  ProxyNetwork& operator=(const ProxyNetwork&) = delete;

  void serve(uint64_t ticket, const detail::ProxyRequest& r) override;
  void complete() override;

 private:
  [[noreturn]] void fail(uint64_t ticket, const detail::ProxyRequest& r, const std::string& why);
  std::string describe(uint64_t ticket, const detail::ProxyRequest& r) const;

  detail::ProxyRing* ring_;
  NetworkTransport* network_;
  bool pending_ = false;  // issued operations not yet completed by a network quiet
  uint64_t last_ = 0;     // the last ticket served
  // The fetching requests issued since the last complete(): their tickets, and where the network stores
  // their values (fixed addresses: the transport writes them until the quiet).
  struct Fetch {
    uint64_t ticket;
    uint64_t value[2];
  };
  std::array<Fetch, kBatch> fetches_{};
  size_t fetched_ = 0;
  uint64_t requests_ = 0, bytes_ = 0, quiets_ = 0;  // statistics, logged at the end (PROXY, INFO)
};

}  // namespace gshmem

#endif  // GSHMEM_HAVE_CUDA
