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
#include "core/gpu_resources.h"
#include "gshmem/detail/device_state.h"
#include "heap/symmetric_heap.h"
#include "transport/transport.h"
#include "util/config.h"
#include "util/status.h"

namespace gshmem {

enum class Backend { kCpu, kGpu };

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
  // One of the predefined teams, or nullptr.
  const Team* team(int id) const;
  Backend backend() const { return backend_; }
  const Config& config() const { return config_; }

  // Symmetric memory. Collective. On failure *out is nullptr and the reason has been logged.
  Status allocate(size_t size, size_t align, bool zero, void** out, const char* api);
  Status release(void* ptr, const char* api);
  void* ptr(const void* ptr, int pe) const;

  // Host-initiated copy to (put) or from (get) `pe`'s copy of a symmetric object. Invalid
  // arguments end the job with a message that names the API, the value and the valid range.
  void rma(bool put, void* dest, const void* source, size_t bytes, int pe, Completion completion, void* stream,
           const char* api);
  void quiet(const char* api);
  void quiet_on_stream(void* stream, const char* api);
  void barrier_all(const char* api);
  void barrier_all_on_stream(void* stream, const char* api);
  [[noreturn]] void global_exit(int code);

 private:
  Runtime() = default;
  Status exchange_host_identity();
  Status choose_backend();
  void build_teams();
  Status setup_heap(std::unique_ptr<MemoryProvider> provider);
  Status setup_cpu();
  Status bind_gpu(const char* api);
  Status host_barrier();
  Status check_symmetric(const char* api, uint64_t a, uint64_t b,
                         const std::function<std::string(uint64_t, uint64_t)>& describe);
  [[noreturn]] void not_ready(const char* api) const;
  std::string unreachable_reason() const;

  Config config_;
  InitOptions options_;
  std::unique_ptr<Bootstrap> boot_;
  int state_ = kNotInitialized;
  bool finalized_ = false;
  Backend backend_ = Backend::kCpu;
  std::string backend_reason_;
  uint64_t job_key_ = 0;              // names the node's descriptor sockets
  uint64_t job_token_ = 0;            // authenticates the descriptor messages
  std::vector<uint64_t> host_of_pe_;  // host identity of every PE
  std::vector<int> node_pes_;
  std::vector<int> node_pids_;  // process ids of node_pes_
  Team teams_[4];
  SymmetricHeap heap_;
  std::unique_ptr<Transport> transport_;
  uint64_t* barrier_flags_ = nullptr;  // symmetric [npes], in this PE's heap
  uint64_t host_barrier_seq_ = 0;      // CPU backend
  bool all_mapped_ = false;            // every PE's heap is mapped here
  std::unique_ptr<GpuResources> gpu_;
  std::mutex heap_mu_;
  friend Status bind_gpu_backend(Runtime& runtime, const char* api, std::unique_ptr<GpuResources>* out);
};

}  // namespace gshmem
