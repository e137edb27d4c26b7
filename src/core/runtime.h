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
#include "core/wait_watch.h"
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

// A host wait or test (nvshmem_<T>_wait_until*, nvshmem_<T>_test*): on this PE's ivars[0..n),
// the elements with status[i] == 0 (all when status is NULL), each compared with values[i] (when
// set) or `value`. Values travel as bits in the low bytes of a uint64_t and are read as `kind`.
enum class WaitFor { kAll, kAny, kSome };
struct WaitCall {
  WaitKind kind = WaitKind::kU64;
  WaitFor what = WaitFor::kAll;
  bool block = true;  // wait until it holds; false: test once
  const void* ivars = nullptr;
  const char* ivars_name = "ivars";  // what messages call `ivars` ("signal" for the signal waits)
  size_t n = 1;
  const int* status = nullptr;
  int cmp = 0;
  const void* values = nullptr;  // host memory, n elements of the kind's width
  uint64_t value = 0;
  size_t* indices = nullptr;     // kSome: receives the satisfied indices
  uint64_t* observed = nullptr;  // n == 1: receives the value that satisfied the wait
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
  // How PEs share GPUs (kOwn on the CPU backend and before a GPU is bound).
  GpuSharing gpu_sharing() const { return gpu_ ? gpu_->sharing() : GpuSharing::kOwn; }
  const Config& config() const { return config_; }

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
  void* ptr(const void* ptr, int pe) const;

  // Host-initiated copy to (put) or from (get) `pe`'s copy of a symmetric object. Invalid
  // arguments end the job with a message that names the API, the value and the valid range.
  void rma(bool put, void* dest, const void* source, size_t bytes, int pe, Completion completion, void* stream,
           const char* api);
  // Strided copy (iput/iget): element i between dest + i * dst and source + i * sst, strides in
  // elements of `elem` bytes.
  void rma_strided(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems,
                   int pe, Completion completion, void* stream, const char* api);
  // p_on_stream: stores `bytes` bytes of `value` into `pe`'s copy of `dest`, in order on `stream`.
  void p_on_stream(void* dest, const void* value, size_t bytes, int pe, void* stream, const char* api);
  // An atomic on `pe`'s copy of the word at `dest`; returns the word's previous value when `fetch`.
  uint64_t atomic(void* dest, const Amo& amo, bool fetch, int pe, const char* api);
  // Data to `pe`, then the signal update (NVSHMEM_SIGNAL_SET / _ADD) on `pe`'s copy of `sig_addr`.
  void put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                  Completion completion, void* stream, const char* api);
  void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion, void* stream,
                 const char* api);
  uint64_t signal_fetch(const uint64_t* sig_addr, const char* api);
  // Returns: kAll 1 when it holds (always 1 when blocking), kAny an index or SIZE_MAX, kSome the
  // number of indices stored.
  size_t wait(const WaitCall& call, const char* api);
  // wait_until(_all)(_vector)_on_stream and signal_wait_until_on_stream; call.what is kAll.
  void wait_on_stream(const WaitCall& call, void* stream, const char* api);
  // Waits on the calling thread for the work enqueued on `stream` (g_on_stream).
  void synchronize_stream(void* stream, const char* api);
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
  Status setup_cpu();
  Status bind_gpu(const char* api);
  Status host_barrier(const char* api);
  // The memory operations of detail::flag_barrier on the CPU backend: CPU atomics on the mapped
  // heaps; a wait that lasts reports what it waits for (WaitWatch).
  struct HostBarrierFlags {
    Runtime* rt;
    const char* api;
    uint64_t flags_offset;  // of barrier_flags_ in every heap
    void arrive(int pe, uint64_t seq) const;
    void wait(int pe, uint64_t seq) const;
  };
  WaitWatch::Options wait_watch_options(const char* api) const;
  Status check_symmetric(const char* api, uint64_t a, uint64_t b,
                         const std::function<std::string(uint64_t, uint64_t)>& describe);
  [[noreturn]] void not_ready(const char* api) const;
  // Checks that the library is initialised and `pe` is a valid PE; ends the job otherwise.
  void check_pe(int pe, const char* api) const;
  // Checks that `pe` is valid, [sym, sym + bytes) is in this PE's heap and `pe` is reachable, and
  // returns `pe`'s address of `sym`; ends the job with a message naming `api` and `what` otherwise.
  char* remote_address(const void* sym, size_t bytes, int pe, const char* what, const char* api) const;
  // Checks that [p, p + bytes) is in this PE's heap and aligned to `align`; ends the job otherwise.
  void check_local(const void* p, size_t bytes, size_t align, const char* what, const char* api) const;
  // Checks the local side of a copy: memory of the program's own passes; a buffer in the heap's
  // address space must lie inside a mapped part of it. Ends the job otherwise.
  void check_local_buffer(const void* p, size_t bytes, const char* what, const char* api) const;
  void check_signal_op(int sig_op, const char* api) const;
  void check_comparison(int cmp, const char* api) const;
  // The bytes of a wait's ivars; a count whose ivars or status array overflow 64 bits ends the job.
  size_t wait_bytes(const WaitCall& c, const char* api) const;
  // One evaluation of a wait's condition on a snapshot of the ivars.
  size_t evaluate(const WaitCall& call, const std::vector<uint64_t>& snapshot, size_t start) const;
  std::string describe_wait(const WaitCall& call, const std::vector<uint64_t>& snapshot) const;
  std::string unreachable_reason() const;
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
  Team teams_[4];
  SymmetricHeap heap_;
  std::unique_ptr<Transport> transport_;
  uint64_t* barrier_flags_ = nullptr;  // symmetric [npes], in this PE's heap
  uint64_t host_barrier_seq_ = 0;      // CPU backend
  bool all_mapped_ = false;            // every PE's heap is mapped here
  std::unique_ptr<GpuResources> gpu_;
  uint64_t any_start_ = 0;  // rotates the first index _any waits and tests try
  std::mutex heap_mu_;
  friend Status bind_gpu_backend(Runtime& runtime, const char* api, std::unique_ptr<GpuResources>* out);
};

}  // namespace gshmem
