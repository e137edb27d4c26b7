// The library's state for this process and the operations behind the host API.
//
// Lifecycle: init() bootstraps, finds the node's PEs and picks the backend. The CPU backend sets
// up its heap at once. The GPU backend binds a GPU at once if the caller already selected one (a
// CUDA context is current, or the init attributes name a device); otherwise it stops at
// "bootstrapped" and binds at the first collective call that needs the GPU (nvshmem_malloc,
// nvshmem_barrier_all, ...), which is NVSHMEM's "init, then cudaSetDevice" idiom.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "coll/collectives.h"
#include "core/gpu_resources.h"
#include "core/p2p.h"
#include "core/wait_watch.h"
#include "core/waits.h"
#include "gshmem/detail/device_state.h"
#include "heap/symmetric_heap.h"
#include "team/teams.h"
#include "transport/network.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/stall_watch.h"
#include "util/status.h"

namespace gshmem {

enum class Backend { kCpu, kGpu };

// How this PE reaches another PE's heap.
enum class Route {
  kLocal,        // this PE
  kMapped,       // the heap is mapped here: loads, stores, atomics and copies by address (Transport)
  kNetwork,      // through the network transport, by heap offset (NetworkTransport)
  kUnreachable,  // neither (unreachable_reason() says why)
};

enum InitState : int { kNotInitialized = 0, kBootstrapped = 1, kInitialized = 2 };

struct InitOptions {
  int cuda_device = -1;        // bind this CUDA device (nvshmemx_init_attr_t::args.cuda_device_id)
  BootstrapRequest bootstrap;  // NVSHMEMX_INIT_WITH_MPI_COMM / _WITH_UNIQUEID
};

struct Team {
  int my_pe = -1;
  std::vector<int> members;  // world ranks, in team order
  int n_pes() const { return static_cast<int>(members.size()); }
};

class Runtime {
 public:
  static Runtime& instance();

  Status init(const InitOptions& options, const char* api);
  // nvshmemx_get_uniqueid: an ID for a job whose root this process serves. Before init only.
  Status make_unique_id(void* internal, size_t len, const char* api);
  Status finalize(const char* api);
  int init_state() const { return state_; }
  // Completes initialisation (binds the GPU) if it stopped at kBootstrapped. Collective: call only
  // from entry points that every PE calls.
  Status ensure_bound(const char* api);

  int my_pe() const { return boot_ ? boot_->rank() : -1; }
  int n_pes() const { return boot_ ? boot_->size() : -1; }
  // One of the predefined teams (known from nvshmem_init on, before the GPU is bound), or nullptr.
  const Team* team(int id) const;
  // Every team, once the heap exists (after the GPU is bound on the GPU backend).
  Teams& teams() { return teams_; }
  // A collective from the host: checks, binds the GPU if needed, completes this PE's earlier operations
  // first for a barrier, then runs it (`on_stream`: in order on `stream`).
  Status collective(const CollCall& call, bool on_stream, void* stream, const char* api);
  Backend backend() const { return backend_; }
  // How PEs share GPUs (kOwn on the CPU backend and before a GPU is bound).
  GpuSharing gpu_sharing() const { return gpu_ ? gpu_->sharing() : GpuSharing::kOwn; }
  const Config& config() const { return config_; }
  // Bytes of reduction scratch in each team's sync area (GPU backend with a network transport; else 0).
  uint32_t reduce_scratch() const { return reduce_scratch_; }

  // The job in words (gshmem_describe, gshmem-check, NVSHMEM_DEBUG=INFO). Valid after init.
  const std::string& started_by() const { return started_by_; }
  const std::string& backend_reason() const { return backend_reason_; }
  const std::string& host_name() const { return host_name_; }
  // This PE's memory: its GPU ("NVIDIA H200, bus ...") or "host shared memory"; "" before the GPU
  // is bound.
  std::string device() const;
  // How this PE reaches `pe` ("shared memory", "none", ...) and why; "" before the heap exists.
  std::string peer_route(int pe, std::string* why) const;

  // Symmetric memory. Collective. On failure *out is nullptr and the reason has been logged.
  Status allocate(size_t size, size_t align, bool zero, void** out, const char* api);
  Status release(void* ptr, const char* api);
  // nvshmem_realloc (collective): a new block of `size` bytes that holds the first min(old, size)
  // bytes of `ptr`'s block, which is freed; `ptr` NULL allocates, `size` 0 frees (*out = NULL).
  Status reallocate(void* ptr, size_t size, void** out, const char* api);
  void* ptr(const void* ptr, int pe) const;
  // nvshmemx_buffer_register_symmetric (collective, GPU backend): maps the program's cuMemCreate
  // buffer `buf` into the symmetric address space; *out is its alias there, or nullptr on failure
  // (the reason logged). `size` must agree between PEs and `flags` be 0.
  Status register_buffer(void* buf, size_t size, int flags, void** out, const char* api);
  // nvshmemx_buffer_unregister_symmetric (collective): after a barrier, unmaps the alias that
  // register_buffer returned (with the same size) on every PE; the program's buffer stays valid.
  Status unregister_buffer(void* alias, size_t size, const char* api);

  // The operations, by concern (see their headers).
  PointToPoint& p2p() { return p2p_; }
  Waits& waits() { return waits_; }

  // For the operations: the state they act on.
  bool initialized() const { return state_ == kInitialized; }
  [[noreturn]] void not_ready(const char* api) const;
  const SymmetricHeap& heap() const { return heap_; }
  Transport& transport() const { return *transport_; }
  // How this PE reaches `pe` (valid PE, after the heap exists): the one place that decides.
  Route route(int pe) const;
  // The network transport, when some PE is reached through it; else nullptr.
  NetworkTransport* network() const { return network_.get(); }
  // Enqueues a stream-ordered operation across the network on `stream` (see net_stream_call.h);
  // GSHMEM_ERROR_NOT_SUPPORTED on the CPU backend, which has no streams: the caller runs it now.
  Status network_on_stream(const NetStreamCall& call, void* stream) const;
  // Why a PE is neither mapped here nor reached through the network, for messages.
  std::string unreachable_reason() const;
  WaitWatch::Options wait_watch_options(const char* api) const;
  // The watch of the network thread's GPU work on the peers' behalf (GPU backend).
  std::unique_ptr<StallWatch> make_network_stall_watch() const;
  // Warns when CUDA loads kernels lazily, which can hang a GPU job across the network (docs/network.md).
  void warn_if_lazy_loading() const;
  // A wait inside the network plugin that has lasted `waited_s` (services.waiting): warns, or ends the job.
  void network_waiting(int pe, const char* what, double waited_s, double last_s);

  void quiet(const char* api);
  void quiet_on_stream(void* stream, const char* api);
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
  Status exchange_host_identity();
  Status choose_backend();
  void build_teams();
  Status setup_heap(std::unique_ptr<MemoryProvider> provider);
  // Opens the network transport when any PE's heap is not mapped by some other PE, and registers the
  // heap (and every growth of it) with it. Collective.
  Status setup_network();
  Status setup_cpu();
  Status bind_gpu(const char* api);
  // Completes this PE's earlier operations on every transport (`on_stream`: in order on `stream`), and
  // the library's own GPU work (copy-engine hand-overs) too `with_gpu`.
  Status complete_operations(bool on_stream, void* stream, bool with_gpu);
  Status host_barrier(const char* api);
  // Sets up the team table and the predefined teams in the team region, and the engine that runs
  // collectives (after the heap and transport exist).
  Status setup_teams();
  int team_capacity() const;  // NVSHMEM_MAX_TEAMS, within [8, 2^20]
  // The CPU backend's wait until member `pe` reached barrier `target` (*flag, written by it), with the
  // diagnostics of every host wait; `of_team` follows "barrier N" in messages (" of team 7", or "" for
  // barrier_all), `skipped` names the call a PE that left early may have skipped. With `packet`, *flag is
  // a flag-in-data packet (ll_algo.h) whose upper half numbers the collectives instead.
  void wait_barrier_flag(const uint64_t* flag, uint64_t target, int pe, const std::string& of_team,
                         const std::string& skipped, const char* api, bool packet = false);
  // The memory operations of detail::flag_barrier on the CPU backend: CPU atomics on the mapped
  // heaps; a wait that lasts reports what it waits for (WaitWatch).
  struct HostBarrierFlags {
    Runtime* rt;
    const char* api;
    uint64_t flags_offset;  // of barrier_flags_ in every heap
    void arrive(int pe, uint64_t seq) const;
    void wait(int pe, uint64_t seq) const;
  };
  Status check_symmetric(const char* api, uint64_t a, uint64_t b,
                         const std::function<std::string(uint64_t, uint64_t)>& describe);
  // Logs at INFO (TRANSPORT) how this PE reaches the others, grouped by route.
  void log_routes() const;

  Config config_;
  InitOptions options_;
  std::unique_ptr<Bootstrap> boot_;
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
  Team predefined_[4];
  SymmetricHeap heap_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<NetworkTransport> network_;
  std::unique_ptr<StallWatch> network_stall_;  // the network thread's GPU work (GPU backend)
  std::string no_network_;             // why PEs that need the network are not reached ("" when none needs it)
  uint64_t* barrier_flags_ = nullptr;  // symmetric [npes], in this PE's heap
  uint64_t host_barrier_seq_ = 0;      // CPU backend
  bool all_mapped_ = false;            // every PE's heap is mapped here
  std::unique_ptr<GpuResources> gpu_;
  uint64_t team_region_ = 0;  // heap offset of the team region (the same on every PE)
  uint64_t team_region_bytes_ = 0;
  uint32_t reduce_scratch_ = 0;  // Teams::Services::reduce_scratch (GPU backend with a network transport)
  Teams teams_;
  std::unique_ptr<CollEngine> coll_engine_;
  Collectives coll_{teams_, heap_};
  std::mutex heap_mu_;
  PointToPoint p2p_{*this};
  Waits waits_{*this};
};

}  // namespace gshmem
