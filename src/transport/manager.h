// The transport manager: the one place that decides how this PE reaches every PE, and the owner of
// the transports that do it.
//
//  - open() (collective, once the heap exists) learns which heaps every PE maps, opens the network
//    transport where some pair of PEs needs it (the plugin, UCX today), registers the heap with it and
//    every growth of the heap after, and serves the target side of the peers' operations on this PE's
//    heap (their atomics, and their puts and gets on a staged heap).
//  - set_memory() hands it the memory transport (host shared memory, or the GPU's copies and kernels);
//    from then on path(pe) is the peer's path (path.h): by address where its heap is mapped here,
//    through the network by heap offset where it is not, or a path that fails with the reason.
//  - quiet() completes what this PE issued on every transport.
//  - describe(), log_routes() and unreachable_reason() say how each PE is reached, and why.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "transport/net_stream_call.h"
#include "transport/network.h"
#include "transport/path.h"
#include "transport/transport.h"
#include "util/host_wait.h"
#include "util/stall_watch.h"
#include "util/status.h"

namespace gshmem {

class Bootstrap;
class SymmetricHeap;

struct TransportOptions {
  bool gpu = false;                            // the heap is GPU memory (the GPU backend)
  bool disable_p2p = false;                    // NVSHMEM_DISABLE_P2P: no peer's heap is mapped
  std::string remote_transport = "ucx";        // NVSHMEM_REMOTE_TRANSPORT ("none" turns the network off)
  std::string plugin;                          // the network plugin's library
  bool staging_always = false;                 // GSHMEM_NET_STAGING=always
  std::vector<uint64_t> host_of_pe;            // which host each PE runs on (for messages)
  double wait_warn_s = 0, wait_timeout_s = 0;  // of the stall watch (GSHMEM_WAIT_WARN, GSHMEM_WAIT_TIMEOUT)
};

// What the manager needs of the layers above it.
struct TransportHooks {
  // Runs `f` on the calling thread with the bound GPU's context current and stream capture relaxed, then
  // puts the thread's context back (the GPU backend; unset: runs f as it is).
  std::function<Status(const std::function<Status()>& f)> on_gpu_thread;
  // Hears of waits inside the network plugin that last (transport_v1.h, services.waiting).
  NetworkWaitReport waiting;
  // What this PE's program is doing, for the stall watch's reports (a sentence, or "").
  std::function<std::string()> stall_context;
  // How a mapped peer is reached, in words, and why ("" for the default words).
  std::function<std::string(int pe, std::string* why)> describe_mapped;
};

// Enqueues a stream-ordered operation across the network on `stream` (net_stream_call.h): the GPU
// backend's library kernel that posts it to the network proxy. GSHMEM_ERROR_NOT_SUPPORTED: the caller
// runs the operation at once instead.
using StreamPoster = std::function<Status(const NetStreamCall& call, void* stream)>;

class TransportManager {
 public:
  TransportManager();
  ~TransportManager();
  TransportManager(const TransportManager&) = delete;
  TransportManager& operator=(const TransportManager&) = delete;

  // Decides the routes and opens the network transport where needed (see above). Collective over all
  // PEs, after the heap exists. On the GPU backend a PE that cannot reach some PE fails (kernels would
  // fault); on the CPU backend the job goes on, and an operation on such a PE fails with the reason.
  Status open(Bootstrap* boot, SymmetricHeap* heap, const TransportOptions& options, TransportHooks hooks);
  // The memory transport (copies, atomics and waits by address); builds the paths.
  void set_memory(std::unique_ptr<Transport> memory);
  // How stream-ordered operations across the network are enqueued (GPU backend, once bound).
  void set_stream_poster(StreamPoster poster) { poster_ = std::move(poster); }
  // Closes the network transport and drops the paths. After a quiet and a barrier of every PE; not
  // collective itself.
  Status finalize();

  bool ready() const { return memory_ != nullptr; }
  Transport& memory() const { return *memory_; }
  // The network transport, when some PE is reached through it; else nullptr.
  NetworkTransport* network() const { return network_.get(); }
  // The path to `pe` (0 <= pe < n_pes, once ready()).
  PeerPath& path(int pe) const { return *paths_[static_cast<size_t>(pe)]; }
  // Whether every PE is reached, mapped or through the network (the CPU backend runs on without a
  // network transport, and fails the operations on the PEs it cannot reach).
  bool reaches_all() const { return unreachable_ == 0; }

  // Completes every kNbi operation this PE issued before, on every transport.
  Status quiet();
  // What a thread that polls this PE's memory for a peer's write does at each poll: the network's
  // progress where some PE is reached through it, else nothing.
  PollWork poll_work() const;
  // Makes work enqueued on `stream` after the call wait for the memory transport's kNbi operations;
  // those across the network complete now (work queued after the call starts after that).
  Status quiet_on_stream(void* stream);

  // How this PE reaches `pe` ("network, ucx") and why; "" before the paths exist.
  std::string describe(int pe, std::string* why) const;
  // Logs at INFO (TRANSPORT) how this PE reaches the others, a line per kind of route.
  void log_routes() const;
  // Why a PE is neither mapped here nor reached through the network.
  std::string unreachable_reason() const;
  // Warns when CUDA loads kernels lazily, which can hang a GPU job across the network (docs/network.md).
  static void warn_if_lazy_loading();

 private:
  // The network plugin's hold on this PE's memory: the target side of the peers' operations.
  LocalMemory local_memory();
  Status open_network(Bootstrap* boot, const std::vector<unsigned char>& reach, const std::vector<unsigned char>& all);
  bool same_host(int pe) const;

  Bootstrap* boot_ = nullptr;
  SymmetricHeap* heap_ = nullptr;
  TransportOptions options_;
  TransportHooks hooks_;
  std::unique_ptr<Transport> memory_;
  std::unique_ptr<NetworkTransport> network_;
  std::unique_ptr<StallWatch> network_stall_;  // the network thread's GPU work on the peers' behalf
  std::string no_network_;                     // why PEs that need the network are not reached ("" when none needs it)
  int unreachable_ = 0;                        // PEs with no path
  StreamPoster poster_;
  std::vector<std::unique_ptr<PeerPath>> paths_;
};

}  // namespace gshmem
