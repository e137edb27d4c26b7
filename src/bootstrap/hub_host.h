// A TcpHub served by a thread of this process: the bootstrap root of jobs started by MPI, PMI or
// PMIx launchers (rank 0 runs it) and of unique-ID jobs (the process that made the ID runs it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "bootstrap/tcp_hub.h"

namespace gshmem {

struct Config;

class HubHost {
 public:
  ~HubHost();
  // Listens on every address of the configured family and publishes the address of the interface
  // NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME names (else the first non-loopback one). `size` 0: learned
  // from the first PE.
  Status start(const Config& config, int size);
  // "ip:port" to give to the PEs, and the job's secret.
  const std::string& address() const { return address_; }
  const uint8_t* secret() const { return options_.secret; }
  // Waits until no PE is in a session any more, every one finalized (left, or parked: a parked PE finds the
  // root gone at its next init) or gone, at most `timeout_s`; then stops the hub.
  void finish(double timeout_s);
  // Waits (at most `timeout_s`) until the hub has passed on a PE's end of the job to the others.
  void wait_abort_told(double timeout_s);
  // This process's own PE, which the hub tells last that a PE is gone.
  void set_local_rank(int rank) {
    if (hub_) hub_->set_local_rank(rank);
  }
  // Waits (at most `timeout_s`) until the hub has seen PE `rank` leave or go, and told the others.
  void wait_settled(int rank, double timeout_s);

 private:
  TcpHub::Options options_;
  std::unique_ptr<TcpHub> hub_;
  std::thread thread_;
  std::string address_;
};

}  // namespace gshmem
