// GPU binding: select the device, learn the node's GPUs (gpu_peers.cpp: whether the PEs reach and share them),
// build the heap in GPU memory, load the internal kernels and publish the device state.
#include "core/gpu_resources.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "core/module_registry.h"
#include "gshmem/constants.h"
#include "heap/provider.h"
#include "heap/symmetric_heap.h"
#include "transport/manager.h"
#include "transport/transport.h"
#include "util/host_wait.h"
#include "util/log.h"

#ifdef GSHMEM_HAVE_CUDA
#include "core/gpu_peers.h"
#include "transport/proxy.h"
#include "util/config.h"
#include "util/cuda_driver.h"

extern const unsigned char gshmemi_device_kernels_fatbin[];
extern const size_t gshmemi_device_kernels_fatbin_size;
#endif

namespace gshmem {

#ifndef GSHMEM_HAVE_CUDA

bool gpu_available(const std::string&, std::string* why) {
  *why = "this gshmem was built without CUDA";
  return false;
}
bool gpu_context_is_current() { return false; }
Status bind_gpu_backend(const GpuBinding&, const char* api, std::unique_ptr<GpuResources>*) {
  GSHMEM_ERROR("%s: this gshmem was built without CUDA", api);
  return GSHMEM_ERROR_NOT_SUPPORTED;
}

#else

bool gpu_available(const std::string& cuda_path, std::string* why) {
  if (!ok(load_cuda_driver(cuda_path, why))) return false;
  int n = 0;
  CUresult rc = cu().cuDeviceGetCount(&n);
  if (rc != CUDA_SUCCESS) {
    *why = cuda_error("cuDeviceGetCount", rc);
    return false;
  }
  if (n == 0) {
    *why = "no CUDA device is visible (CUDA_VISIBLE_DEVICES?)";
    return false;
  }
  return true;
}

bool gpu_context_is_current() {
  std::string why;
  if (!ok(load_cuda_driver("", &why))) return false;
  CUcontext ctx = nullptr;
  return cu().cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != nullptr;
}

namespace {

class CudaGpuResources final : public GpuResources {
 public:
  ~CudaGpuResources() override { destroy(); }

  Status barrier(void* stream, const WaitWatch::Options* watch_options) override {
    CUstream s = static_cast<CUstream>(stream ? stream : internal_stream_);
    if (!stream) GSHMEM_CHECK(after_legacy_stream());
    GSHMEM_CU_CHECK(cuLaunchKernel, barrier_fn_, 1, 1, 1, 32, 1, 1, 0, s, nullptr, nullptr);
    if (stream) return GSHMEM_SUCCESS;
    // Wait for the kernel (which ends within microseconds once every PE has arrived); if it takes
    // long, say which PEs have not arrived.
    return wait_internal(
        watch_options, "nvshmem_barrier_all", [this] { return " " + missing_text(nullptr); },
        [this](const std::vector<int>& left) { return missing_text(&left); });
  }

  Status collective(const std::vector<Copy>& copies, const CollLaunch* launches, int count, bool on_stream,
                    void* stream, const WaitWatch::Options* watch) override {
    CUstream s = on_stream ? static_cast<CUstream>(stream) : internal_stream_;
    if (!on_stream) GSHMEM_CHECK(after_legacy_stream());
    for (const Copy& c : copies) {
      GSHMEM_CU_CHECK(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(c.dest), reinterpret_cast<CUdeviceptr>(c.src),
                      c.bytes, s);
    }
    for (int i = 0; i < count; ++i) {
      CollCall c = launches[i].call;
      void* params[] = {&c};
      GSHMEM_CU_CHECK(cuLaunchKernel, coll_fn_, launches[i].blocks, 1, 1, launches[i].threads, 1, 1, 0, s, params,
                      nullptr);
    }
    if (on_stream) return GSHMEM_SUCCESS;
    const int team = launches[0].call.team;
    return wait_internal(
        watch, "a collective",
        [team] { return log::format(" in a collective of team %d (for the other members to arrive)", team); },
        [](const std::vector<int>&) { return std::string(); });
  }

  // Makes the internal stream's next work wait for what the program queued on the legacy default
  // stream (cudaMemset, kernels): NVSHMEM programs initialise buffers that way, then enter a host
  // barrier or collective and expect peers to see the result. The internal stream does not block on
  // its own.
  Status after_legacy_stream() {
    GSHMEM_CU_CHECK(cuEventRecord, legacy_done_, CU_STREAM_LEGACY);
    GSHMEM_CU_CHECK(cuStreamWaitEvent, internal_stream_, legacy_done_, 0);
    return GSHMEM_SUCCESS;
  }

  // Waits for the internal stream, checking as `watch_options` says; `describe` tells what it waits
  // for, `left_text` which of the PEs that have left it waits for ("" if none).
  Status wait_internal(const WaitWatch::Options* watch_options, const char* default_api,
                       const std::function<std::string()>& describe_text,
                       const std::function<std::string(const std::vector<int>&)>& left_text) {
    const char* api = watch_options ? watch_options->api : default_api;
    CUresult rc = CUDA_SUCCESS;
    auto done = [&] {
      rc = cu().cuStreamQuery(internal_stream_);
      return rc != CUDA_ERROR_NOT_READY;
    };
    WaitWatch watch(watch_options ? *watch_options : WaitWatch::Options{});
    auto describe = [&] { return describe_text(); };
    auto stuck = [&](const std::vector<int>& left) -> std::string {
      // A PE that arrived and then left has written its flag already: give the kernel a moment
      // to see it.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (done()) return "";
      std::string who = left_text(left);
      return who.empty() ? ""
                         : "it waits " + who +
                               ", which have already called nvshmem_finalize and left the "
                               "job: they made fewer barriers than this PE (a skipped nvshmem_barrier_all "
                               "or nvshmem_sync_all, or an early return on some path)";
    };
    HostBackoff backoff;
    while (!done()) {
      if (backoff.pause()) watch.check(describe, stuck);
    }
    if (rc == CUDA_SUCCESS) return GSHMEM_SUCCESS;
    GSHMEM_ERROR("%s: %s", api, cuda_error("the library's kernel", rc).c_str());
    return GSHMEM_ERROR_CUDA;
  }

  // Reads this PE's barrier flags and sequence (on a stream of its own, which waits neither for the
  // internal stream nor for the default stream) and names the PEs that have not reached the current
  // barrier: "in barrier 7 for PEs 2 (at barrier 6)"; only those in `among` when given ("" if none).
  std::string missing_text(const std::vector<int>* among) {
    // The world team's sync area (gshmem/detail/team.h): its flags, a slot per PE, then its count.
    std::vector<uint64_t> flags(static_cast<size_t>(npes_));
    uint64_t seq = 0;
    const char* area = heap_base_ + world_sync_();
    if (cu().cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(flags.data()), reinterpret_cast<CUdeviceptr>(area),
                           flags.size() * 8, watch_stream_) != CUDA_SUCCESS ||
        cu().cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(&seq),
                           reinterpret_cast<CUdeviceptr>(area + detail::SyncLayout(npes_).seq), 8,
                           watch_stream_) != CUDA_SUCCESS ||
        cu().cuStreamSynchronize(watch_stream_) != CUDA_SUCCESS) {
      return among ? "" : "for the barrier kernel (its flags could not be read)";
    }
    std::string missing;
    for (int pe = 0; pe < npes_; ++pe) {
      if (among && std::find(among->begin(), among->end(), pe) == among->end()) continue;
      if (pe != mype_ && flags[pe] < seq)
        missing += log::format("%s%d (at barrier %llu)", missing.empty() ? "" : ", ", pe,
                               static_cast<unsigned long long>(flags[pe]));
    }
    if (missing.empty()) {
      return among ? ""
                   : log::format(
                         "in barrier %llu (for no PE: it waits for work queued before it on the default "
                         "stream, or is finishing)",
                         static_cast<unsigned long long>(seq));
    }
    return log::format("in barrier %llu for PEs %s", static_cast<unsigned long long>(seq), missing.c_str());
  }

  Status quiet() override { return proxy_ ? proxy_->flush() : GSHMEM_SUCCESS; }
  Status quiet_on_stream(void* stream) override {
    if (!proxy_) return GSHMEM_SUCCESS;
    GSHMEM_CU_CHECK(cuLaunchKernel, quiet_fn_, 1, 1, 1, 1, 1, 1, 0, static_cast<CUstream>(stream), nullptr, nullptr);
    return GSHMEM_SUCCESS;
  }

  Status network_on_stream(const NetStreamCall& call, void* stream) override {
    if (!proxy_ || !proxy_->network_on()) return GSHMEM_ERROR_NOT_SUPPORTED;
    // With a local buffer in pageable host memory, a copy on a mapped peer's route is done with it when
    // cuMemcpyAsync returns, so callers may reuse it at once; the kernel would read or write it only when
    // the stream reaches it. Such a call runs at once on the host instead (it waits for the stream's
    // earlier work), unless the stream is being captured, where only the kernel can be.
    if (call.local != 0 && call.bytes > 0 && call.kind != NetStreamCall::kSignal &&
        !cuda_pointer_known(reinterpret_cast<const void*>(call.local))) {
      CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
      GSHMEM_CU_CHECK(cuStreamIsCapturing, static_cast<CUstream>(stream), &capture);
      if (capture == CU_STREAM_CAPTURE_STATUS_NONE) return GSHMEM_ERROR_NOT_SUPPORTED;
    }
    NetStreamCall c = call;
    void* params[] = {&c};
    GSHMEM_CU_CHECK(cuLaunchKernel, net_fn_, 1, 1, 1, 1, 1, 1, 0, static_cast<CUstream>(stream), params, nullptr);
    return GSHMEM_SUCCESS;
  }

  std::string device_of(int pe) const override {
    return pe >= 0 && pe < static_cast<int>(device_of_.size()) ? device_of_[pe] : std::string();
  }
  bool same_gpu(int pe) const override {
    return pe >= 0 && pe < static_cast<int>(uuid_of_.size()) && !uuid_of_[pe].empty() &&
           uuid_of_[pe] == uuid_of_[mype_];
  }
  int device() const override { return static_cast<int>(device_); }
  GpuSharing sharing() const override { return sharing_; }

  void stop_proxy() override {
    if (proxy_) proxy_->stop();
  }

  void make_current() override {
    if (ctx_) cu().cuCtxSetCurrent(ctx_);
  }

  void synchronize() override {
    if (ctx_) cu().cuCtxSetCurrent(ctx_);
    cu().cuCtxSynchronize();
  }

  void destroy() override {
    if (destroyed_) return;
    destroyed_ = true;
    stop_exit_watcher();
    CUcontext was = nullptr;  // what this thread had current: given back at the end
    cu().cuCtxGetCurrent(&was);
    synchronize();
    proxy_.reset();
    if (legacy_done_) cu().cuEventDestroy(legacy_done_);
    if (watch_stream_) cu().cuStreamDestroy(watch_stream_);
    if (internal_stream_) cu().cuStreamDestroy(internal_stream_);
    if (module_) cu().cuModuleUnload(module_);
    if (peer_table_) cu().cuMemFree(peer_table_);
    if (any_counter_) cu().cuMemFree(any_counter_);
    if (tma_slots_) cu().cuMemFree(tma_slots_);
    if (exit_request_) cu().cuMemFreeHost(exit_request_);
    // The thread gets its context back. Where that was the primary context this library retained, releasing the
    // last reference deactivates it, and a later session (or the program) must not find that handle current: the
    // thread that bound the GPU gets the context it had before init (a context the program made must outlive
    // finalize), any other thread none.
    if (was != ctx_ || !retained_) {
      cu().cuCtxSetCurrent(was);
    } else {
      cu().cuCtxSetCurrent(std::this_thread::get_id() == binding_thread_ ? previous_ctx_ : nullptr);
    }
    if (retained_) cu().cuDevicePrimaryCtxRelease(device_);
  }

  // nvshmem_global_exit from a kernel writes {code, 2} into exit_request_ (host-pinned); this thread
  // notices within a few milliseconds and ends the job the way the host call does.
  void start_exit_watcher(std::function<void(int)> global_exit) {
    watcher_ = std::thread([this, global_exit] {
      volatile int32_t* req = exit_request_;
      std::unique_lock<std::mutex> lock(watch_mu_);
      while (!stop_watching_) {
        watch_cv_.wait_for(lock, std::chrono::milliseconds(2));
        if (req[1] == 2) {
          std::atomic_thread_fence(std::memory_order_acquire);
          int code = req[0];
          GSHMEM_INFO(kInit, "nvshmem_global_exit(%d) was called from a kernel on PE %d", code, mype_);
          global_exit(code);
        }
      }
    });
  }
  void stop_exit_watcher() {
    if (!watcher_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(watch_mu_);
      stop_watching_ = true;
    }
    watch_cv_.notify_all();
    watcher_.join();
  }

  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  CUcontext previous_ctx_ = nullptr;  // current on the binding thread before a retained context replaced it
  std::thread::id binding_thread_;
  bool retained_ = false;
  bool destroyed_ = false;
  CUstream internal_stream_ = nullptr;
  CUevent legacy_done_ = nullptr;    // recorded on the legacy default stream before a host barrier
  CUstream watch_stream_ = nullptr;  // reads the barrier state for the slow-barrier warning
  CUmodule module_ = nullptr;
  CUfunction barrier_fn_ = nullptr;
  CUfunction quiet_fn_ = nullptr;
  CUfunction coll_fn_ = nullptr;
  CUfunction net_fn_ = nullptr;
  std::unique_ptr<Proxy> proxy_;  // null without copy-engine offload when every PE is mapped here
  CUdeviceptr module_state_ = 0;
  CUdeviceptr peer_table_ = 0;
  CUdeviceptr any_counter_ = 0;
  CUdeviceptr tma_slots_ = 0;  // the blocks' records of lent shared memory (tma.cuh); 0 with the policy off
  int32_t* exit_request_ = nullptr;
  std::thread watcher_;
  std::mutex watch_mu_;
  std::condition_variable watch_cv_;
  bool stop_watching_ = false;
  const char* heap_base_ = nullptr;
  std::function<uint64_t()> world_sync_;  // heap offset of NVSHMEM_TEAM_WORLD's sync area
  int mype_ = 0;
  int npes_ = 0;
  GpuSharing sharing_ = GpuSharing::kOwn;
  std::vector<std::string> device_of_;  // by PE; "" for PEs of other nodes
  std::vector<std::string> uuid_of_;
};

// Finds the run of PEs whose heaps are mapped here side by side, `span` bytes apart, that holds
// this PE (see DeviceState::window_base); none when the mapped heaps are not laid out that way.
void set_windows(const std::vector<char*>& peers, uint64_t span, detail::DeviceState* st) {
  const int me = st->mype;
  int first = me, last = me;
  auto adjacent = [&](int a, int b) { return peers[b] && peers[b] == peers[a] + (b - a) * static_cast<int64_t>(span); };
  while (first > 0 && adjacent(first, first - 1)) --first;
  while (last + 1 < static_cast<int>(peers.size()) && adjacent(last, last + 1)) ++last;
  st->window_first = first;
  st->window_count = peers[me] ? last - first + 1 : 0;
  st->window_base = reinterpret_cast<uint64_t>(peers[first]);
}

// Where this PE maps every PE's heap (nullptr for PEs it does not map), by PE.
std::vector<char*> peer_bases(const GpuBinding& b) {
  std::vector<char*> peers(static_cast<size_t>(b.boot->size()));
  for (size_t pe = 0; pe < peers.size(); ++pe) peers[pe] = b.heap->peer_base(static_cast<int>(pe));
  return peers;
}

// Binding, step 1: the device (the requested one, the current context's, or by node rank) and its
// context, with synchronous memory operations.
Status select_device(const GpuBinding& b, const char* api, CudaGpuResources* res) {
  int ndev = 0;
  GSHMEM_CU_CHECK(cuDeviceGetCount, &ndev);
  CUcontext ctx = nullptr;
  GSHMEM_CU_CHECK(cuCtxGetCurrent, &ctx);
  const int node_rank = b.node_mype;
  if (b.requested_device >= 0 || !ctx) {
    int dev = b.requested_device;
    if (dev < 0) {
      dev = node_rank % ndev;
      GSHMEM_INFO(kInit, "%s: no GPU was selected; using GPU %d (node rank %d, %d GPUs visible)", api, dev, node_rank,
                  ndev);
    }
    if (dev >= ndev) {
      GSHMEM_ERROR("%s: CUDA device %d was requested but only %d are visible", api, dev, ndev);
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    GSHMEM_CU_CHECK(cuDeviceGet, &res->device_, dev);
    GSHMEM_CU_CHECK(cuDevicePrimaryCtxRetain, &res->ctx_, res->device_);
    res->retained_ = true;
    res->previous_ctx_ = ctx;
    res->binding_thread_ = std::this_thread::get_id();
    GSHMEM_CU_CHECK(cuCtxSetCurrent, res->ctx_);
  } else {
    res->ctx_ = ctx;
    GSHMEM_CU_CHECK(cuCtxGetDevice, &res->device_);
  }

  // Synchronous copies into the heap (cudaMemcpy from pageable memory, for one) must be complete
  // when they return, as NVSHMEM programs assume: without this flag the DMA may still be in
  // flight when the PE enters a barrier, and a peer reads stale data.
  unsigned int ctx_flags = 0;
  GSHMEM_CU_CHECK(cuCtxGetFlags, &ctx_flags);
  if (!(ctx_flags & CU_CTX_SYNC_MEMOPS)) GSHMEM_CU_CHECK(cuCtxSetFlags, ctx_flags | CU_CTX_SYNC_MEMOPS);

  return GSHMEM_SUCCESS;
}

// NVSHMEM_TMA_POLICY: ENABLE turns the bulk-copy path on where the GPU has it (compute capability 9.0 or
// newer), FORCE fails where it has not; the path's state is one word per block that may lend shared memory.
Status setup_tma(const GpuBinding& b, const char* api, CudaGpuResources* res) {
  const std::string& policy = b.config->tma_policy;
  if (policy == "DISABLE") return GSHMEM_SUCCESS;
  int major = 0, minor = 0;
  GSHMEM_CU_CHECK(cuDeviceGetAttribute, &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, res->device_);
  GSHMEM_CU_CHECK(cuDeviceGetAttribute, &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, res->device_);
  if (major < 9) {
    if (policy == "FORCE") {
      GSHMEM_ERROR(
          "%s: NVSHMEM_TMA_POLICY=FORCE, but this GPU (compute capability %d.%d) has no bulk-copy (TMA) unit; it "
          "needs 9.0 or newer. Set NVSHMEM_TMA_POLICY=ENABLE to use it only where present, or DISABLE",
          api, major, minor);
      return GSHMEM_ERROR_NOT_SUPPORTED;
    }
    GSHMEM_INFO(kInit, "NVSHMEM_TMA_POLICY=%s: this GPU (compute capability %d.%d) has no bulk copies; not used",
                policy.c_str(), major, minor);
    return GSHMEM_SUCCESS;
  }
  const size_t bytes = sizeof(uint64_t) * detail::kTmaBlocks;
  GSHMEM_CU_CHECK(cuMemAlloc, &res->tma_slots_, bytes);
  GSHMEM_CU_CHECK(cuMemsetD8, res->tma_slots_, 0, bytes);
  GSHMEM_INFO(kInit,
              "device puts and gets to mapped peers of %s or more, by %s, take the bulk-copy (TMA) path in blocks "
              "that lend shared memory (NVSHMEM_TMA_POLICY=%s, GSHMEM_TMA_SCOPES=%s)",
              format_size(b.config->tma_min_size).c_str(),
              b.config->tma_scopes == "all" ? "threads, warps and blocks" : "single threads", policy.c_str(),
              b.config->tma_scopes.c_str());
  return GSHMEM_SUCCESS;
}

// Step 3 (collective): the heap in GPU memory, the streams, the device-side arrays, the library's
// kernels and the GPU transport.
Status build_heap_and_kernels(const GpuBinding& b, const char* api, CudaGpuResources* res) {
  Bootstrap& boot = *b.boot;
  std::unique_ptr<MemoryProvider> provider;
  GSHMEM_CHECK(make_gpu_memory_provider(static_cast<int>(res->device_), &provider));
  GSHMEM_CHECK(b.setup_heap(std::move(provider)));
  GSHMEM_CU_CHECK(cuStreamCreate, &res->internal_stream_, CU_STREAM_NON_BLOCKING);
  GSHMEM_CU_CHECK(cuEventCreate, &res->legacy_done_, CU_EVENT_DISABLE_TIMING);
  GSHMEM_CU_CHECK(cuStreamCreate, &res->watch_stream_, CU_STREAM_NON_BLOCKING);

  // Device-side arrays of the state.
  const int n = boot.size();
  const std::vector<char*> peers = peer_bases(b);
  GSHMEM_CU_CHECK(cuMemAlloc, &res->peer_table_, sizeof(char*) * n);
  GSHMEM_CU_CHECK(cuMemcpyHtoD, res->peer_table_, peers.data(), sizeof(char*) * n);
  GSHMEM_CU_CHECK(cuMemAlloc, &res->any_counter_, sizeof(uint64_t));
  GSHMEM_CU_CHECK(cuMemsetD8, res->any_counter_, 0, sizeof(uint64_t));
  GSHMEM_CHECK(setup_tma(b, api, res));
  void* exit_request = nullptr;
  GSHMEM_CU_CHECK(cuMemHostAlloc, &exit_request, 2 * sizeof(int32_t),
                  CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  res->exit_request_ = static_cast<int32_t*>(exit_request);
  res->exit_request_[0] = res->exit_request_[1] = 0;

  // The library's own kernels.
  CUresult rc = cu().cuModuleLoadData(&res->module_, gshmemi_device_kernels_fatbin);
  if (rc != CUDA_SUCCESS) {
    int major = 0, minor = 0;
    cu().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, res->device_);
    cu().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, res->device_);
    GSHMEM_ERROR(
        "%s: gshmem's kernels do not load on this GPU (compute capability %d.%d): %s; rebuild gshmem with "
        "GSHMEM_INTERNAL_CUDA_ARCHITECTURES including it",
        api, major, minor, cuda_error("cuModuleLoadData", rc).c_str());
    return GSHMEM_ERROR_CUDA;
  }
  GSHMEM_CU_CHECK(cuModuleGetFunction, &res->barrier_fn_, res->module_, "gshmemi_barrier_all_kernel");
  GSHMEM_CU_CHECK(cuModuleGetFunction, &res->quiet_fn_, res->module_, "gshmemi_quiet_kernel");
  GSHMEM_CU_CHECK(cuModuleGetFunction, &res->coll_fn_, res->module_, "gshmemi_coll_kernel");
  GSHMEM_CU_CHECK(cuModuleGetFunction, &res->net_fn_, res->module_, "gshmemi_net_kernel");
  CUfunction atomic_fn = nullptr, store_fn = nullptr, wait_fn = nullptr;
  GSHMEM_CU_CHECK(cuModuleGetFunction, &atomic_fn, res->module_, "gshmemi_atomic_kernel");
  GSHMEM_CU_CHECK(cuModuleGetFunction, &store_fn, res->module_, "gshmemi_store_kernel");
  GSHMEM_CU_CHECK(cuModuleGetFunction, &wait_fn, res->module_, "gshmemi_wait_kernel");
  std::unique_ptr<Transport> memory;
  GSHMEM_CHECK(make_gpu_transport(GpuTransportKernels{atomic_fn, store_fn, wait_fn}, &memory));
  b.transports->set_memory(std::move(memory));
  size_t state_bytes = 0;
  GSHMEM_CU_CHECK(cuModuleGetGlobal, &res->module_state_, &state_bytes, res->module_, "gshmemi_device_state_d");
  if (state_bytes != sizeof(detail::DeviceState)) {
    GSHMEM_ERROR("internal: the embedded kernels were built with another device state layout");
    return GSHMEM_ERROR_INTERNAL;
  }

  return GSHMEM_SUCCESS;
}

// Step 4 (collective): the device state, in the library's module and every registered one, and the
// proxy.
Status publish_state(const GpuBinding& b, CudaGpuResources* res) {
  Bootstrap& boot = *b.boot;
  const int n = boot.size();
  const std::vector<char*> peers = peer_bases(b);
  detail::DeviceState st{};
  st.abi = detail::kDeviceStateAbi;
  st.mype = boot.rank();
  st.npes = n;
  st.heap_base = b.heap->base();
  st.heap_span = b.heap->slot();
  st.peer_base = reinterpret_cast<char* const*>(res->peer_table_);
  set_windows(peers, st.heap_span, &st);
  st.exit_request = res->exit_request_;  // unified addressing: the host pointer works on the device
  st.wait_any_counter = reinterpret_cast<uint64_t*>(res->any_counter_);
  st.tma_slots = reinterpret_cast<uint64_t*>(res->tma_slots_);
  st.tma_min_bytes = static_cast<uint32_t>(std::min<uint64_t>(b.config->tma_min_size, UINT32_MAX));
  st.tma_group_calls = b.config->tma_scopes == "all" ? 1 : 0;
  st.teams = b.team_table();
  st.team_capacity = b.team_capacity;
  NetworkTransport* network = b.transports->network();
  if (b.config->ce_min_size > 0 || network != nullptr) {
    auto proxy = std::make_unique<Proxy>();
    std::string why;
    const Status ps = proxy->start(res->ctx_, boot.rank(), b.config->ce_min_size > 0, network, &why);
    if (!ok(ps) && ps != GSHMEM_ERROR_NOT_SUPPORTED) return ps;
    if (b.config->ce_min_size > 0 && !why.empty()) {
      GSHMEM_INFO(kProxy, "device copies do not use the copy engines: %s", why.c_str());
    }
    if (ok(ps)) {
      res->proxy_ = std::move(proxy);
      st.proxy_ring = res->proxy_->ring();
      st.proxy_counters = res->proxy_->counters();
    }
  }
  if (res->proxy_ && res->proxy_->copies_on()) {
    st.ce_min_bytes = b.config->ce_min_size;
    st.ce_max_blocks =
        static_cast<int32_t>(std::max<int64_t>(0, std::min<int64_t>(b.config->ce_max_blocks, INT32_MAX)));
    GSHMEM_INFO(kProxy,
                "device _nbi copies of %s or more from grids of at most %d blocks, and of %s or more from larger "
                "grids, use the copy engines",
                format_size(b.config->ce_min_size).c_str(), st.ce_max_blocks,
                format_size(std::min<uint64_t>(b.config->ce_min_size, UINT64_MAX / detail::kCeLargeGridFactor) *
                            detail::kCeLargeGridFactor)
                    .c_str());
  }
  if (network != nullptr) {
    st.proxy_net = 1;
    int across = 0;
    for (int pe = 0; pe < n; ++pe) across += network->reaches(pe) ? 1 : 0;
    GSHMEM_INFO(kProxy, "kernels reach %d PE%s through the network proxy (%s)", across, across == 1 ? "" : "s",
                network->name());
  }
  GSHMEM_CU_CHECK(cuMemcpyHtoD, res->module_state_, &st, sizeof st);
  res->heap_base_ = b.heap->base();
  res->world_sync_ = b.world_sync;
  res->mype_ = boot.rank();
  res->npes_ = n;
  publish_device_state(st);
  res->start_exit_watcher(b.global_exit);

  // No PE may signal a peer's barrier flags before the peer has zeroed them.
  GSHMEM_CHECK(boot.barrier());
  return GSHMEM_SUCCESS;
}

}  // namespace

Status bind_gpu_backend(const GpuBinding& b, const char* api, std::unique_ptr<GpuResources>* out) {
  auto res = std::make_unique<CudaGpuResources>();
  GSHMEM_CHECK(select_device(b, api, res.get()));
  GpuPeers peers;
  GSHMEM_CHECK(exchange_gpus(b, res->device_, &peers));
  res->sharing_ = peers.sharing;
  res->device_of_ = std::move(peers.device_of);
  res->uuid_of_ = std::move(peers.uuid_of);
  GSHMEM_CHECK(build_heap_and_kernels(b, api, res.get()));
  GSHMEM_CHECK(publish_state(b, res.get()));
  *out = std::move(res);
  return GSHMEM_SUCCESS;
}

#endif  // GSHMEM_HAVE_CUDA

}  // namespace gshmem
