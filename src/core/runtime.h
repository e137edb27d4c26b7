// The library's state for this process: its lifecycle, and the rooms that hold the operations.
//
// Lifecycle: init() bootstraps, finds the node's PEs and picks the backend. The CPU backend sets
// up its heap at once. The GPU backend binds a GPU at once if the caller already selected one (a
// CUDA context is current, or the init attributes name a device); otherwise it stops at
// "bootstrapped" and binds at the first collective call that needs the GPU (nvshmem_malloc,
// nvshmem_barrier_all, ...), which is NVSHMEM's "init, then cudaSetDevice" idiom. finalize() releases
// everything but the bootstrap, which it parks: init() again starts a new session of the same job
// (Bootstrap::park), so that a process may initialise as often as it finalizes.
//
// Set-up order: bootstrap, backend, predefined teams' members; then (on binding) the heap, the transport
// manager (transport/manager.h: how each PE is reached), the teams' sync areas and the collective
// engine. The operations live in their rooms: point-to-point (p2p.h), waits (waits.h), symmetric memory
// (memory.h), teams (team/teams.h) and collectives (coll/collectives.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "coll/collectives.h"
#include "core/gpu_resources.h"
#include "core/local_buffers.h"
#include "core/memory.h"
#include "core/p2p.h"
#include "core/regions.h"
#include "core/wait_watch.h"
#include "core/waits.h"
#include "heap/symmetric_heap.h"
#include "team/teams.h"
#include "transport/manager.h"
#include "util/config.h"
#include "util/status.h"

namespace gshmem {

enum class Backend { kCpu, kGpu };

enum InitState : int { kNotInitialized = 0, kBootstrapped = 1, kInitialized = 2 };

struct InitOptions {
  int cuda_device = -1;        // bind this CUDA device (nvshmemx_init_attr_t::args.cuda_device_id)
  BootstrapRequest bootstrap;  // NVSHMEMX_INIT_WITH_MPI_COMM / _WITH_UNIQUEID
};

class Runtime {
 public:
  static Runtime& instance();

  Status init(const InitOptions& options, const char* api);
  // nvshmemx_get_uniqueid: an ID for a job whose root this process serves. Before init only.
  Status make_unique_id(void* internal, size_t len, const char* api);
  Status finalize(const char* api);
  int init_state() const { return state_; }
  bool initialized() const { return state_ == kInitialized; }
  // Completes initialisation (binds the GPU) if it stopped at kBootstrapped. Collective: call only
  // from entry points that every PE calls.
  Status ensure_bound(const char* api);
  // Ends the job for a call made before init (or, on the GPU backend, before the GPU was bound).
  [[noreturn]] void not_ready(const char* api) const;

  int my_pe() const { return boot_ ? boot_->rank() : -1; }
  int n_pes() const { return boot_ ? boot_->size() : -1; }
  Backend backend() const { return backend_; }
  // How PEs share GPUs (kOwn on the CPU backend and before a GPU is bound).
  GpuSharing gpu_sharing() const { return gpu_ ? gpu_->sharing() : GpuSharing::kOwn; }
  // The CUDA device ordinal of the bound GPU; -1 before binding and on the CPU backend.
  int cuda_device() const { return gpu_ ? gpu_->device() : -1; }
  // Makes the bound GPU's context current on the calling thread (nothing before the GPU is bound).
  void make_gpu_current() {
    if (gpu_) gpu_->make_current();
  }
  const Config& config() const { return config_; }

  // The job in words (gshmem_describe, gshmem-check, NVSHMEM_DEBUG=INFO). Valid after init.
  const std::string& started_by() const { return started_by_; }
  const std::string& backend_reason() const { return backend_reason_; }
  const std::string& host_name() const { return host_name_; }
  // This PE's memory: its GPU ("NVIDIA H200, bus ...") or "host shared memory"; "" before the GPU
  // is bound.
  std::string device() const;

  // The rooms.
  PointToPoint& p2p() { return p2p_; }
  Waits& waits() { return waits_; }
  SymmetricMemory& memory() { return memory_; }
  Regions& regions() { return regions_; }
  LocalBuffers& local_buffers() { return local_buffers_; }
  // The teams: the predefined ones from init on, every team once the heap exists.
  Teams& teams() { return teams_; }
  const SymmetricHeap& heap() const { return heap_; }
  SymmetricHeap& mutable_heap() { return heap_; }
  Bootstrap& bootstrap() const { return *boot_; }
  // How each PE is reached (after the heap exists).
  TransportManager& transports() { return transports_; }
  const TransportManager& transports() const { return transports_; }
  WaitWatch::Options wait_watch_options(const char* api) const;

  // A collective from the host: checks, binds the GPU if needed, completes this PE's earlier operations
  // first for a barrier, then runs it (`on_stream`: in order on `stream`).
  Status collective(const CollCall& call, bool on_stream, void* stream, const char* api);
  // The barrier of NVSHMEM_TEAM_WORLD from the host, after completing this PE's earlier operations
  // (nvshmem_barrier_all, and the barrier of every collective heap call).
  Status world_barrier(const char* api);

  void quiet(const char* api);
  void quiet_on_stream(void* stream, const char* api);
  void fence(const char* api);
  void barrier_all(const char* api);
  void barrier_all_on_stream(void* stream, const char* api);
  // sync_all: the barrier without completing earlier puts (the host forms complete them anyway).
  void sync_all(const char* api) { barrier_all(api); }
  void sync_all_on_stream(void* stream, const char* api) { barrier_all_on_stream(stream, api); }
  [[noreturn]] void global_exit(int code);
  // The process exits with `status` (exit() or a return from main): if it had not finalized, the
  // other PEs learn how it ended (and end too).
  void announce_exit(int status);

 private:
  Runtime() = default;
  // The job's bootstrap: the last session's, parked at finalize, where the request is for the same job;
  // otherwise a new one (create_bootstrap).
  Status start_bootstrap(const char* api);
  bool can_rejoin(const BootstrapRequest& request) const;
  Status exchange_host_identity();
  Status choose_backend();
  // The heap on `provider`, then the transport manager over it, then the team region. Collective.
  Status setup_heap(std::unique_ptr<MemoryProvider> provider);
  TransportOptions transport_options() const;
  TransportHooks transport_hooks();
  Status setup_cpu();
  Status bind_gpu(const char* api);
  // Completes this PE's earlier operations on every transport (`on_stream`: in order on `stream`), and
  // the library's own GPU work (copy-engine hand-overs, the network proxy's requests) too `with_gpu`.
  Status complete_operations(bool on_stream, void* stream, bool with_gpu);
  // Sets up the team table and the predefined teams' areas in the team region, and the engine that runs
  // collectives (after the heap and transports exist).
  Status setup_teams();
  int team_capacity() const;  // NVSHMEM_MAX_TEAMS, within [8, 2^20]

  Config config_;
  InitOptions options_;
  std::unique_ptr<Bootstrap> boot_;
  std::vector<uint8_t> uid_;  // the unique ID of this session's request (the request points to the caller's)
  // Between finalize and the next init: the job's bootstrap, parked (Bootstrap::park), and what started it.
  std::unique_ptr<Bootstrap> parked_;
  BootstrapRequest parked_request_;
  std::vector<uint8_t> parked_uid_;
  int state_ = kNotInitialized;
  bool finalized_ = false;
  bool ending_job_ = false;  // nvshmem_global_exit: the launcher ends every PE
  int init_pid_ = -1;        // the process that initialised (not a child of fork())
  Backend backend_ = Backend::kCpu;
  std::string backend_reason_;
  std::string started_by_;
  std::string host_name_;
  uint64_t job_key_ = 0;              // names the node's descriptor sockets
  uint64_t job_token_ = 0;            // authenticates the descriptor messages
  std::vector<uint64_t> host_of_pe_;  // host identity of every PE
  std::vector<int> node_pes_;
  std::vector<int> node_pids_;  // process ids of node_pes_
  SymmetricHeap heap_;
  TransportManager transports_;
  std::unique_ptr<GpuResources> gpu_;
  uint64_t team_region_ = 0;  // heap offset of the team region (the same on every PE)
  uint64_t team_region_bytes_ = 0;
  uint32_t reduce_scratch_ = 0;  // Teams::Services::reduce_scratch (GPU backend with a network transport)
  Teams teams_;
  std::unique_ptr<CollEngine> coll_engine_;
  Collectives coll_{teams_, heap_};
  PointToPoint p2p_{*this};
  Waits waits_{*this};
  SymmetricMemory memory_{*this};
  Regions regions_;
  LocalBuffers local_buffers_{heap_};
};

}  // namespace gshmem
