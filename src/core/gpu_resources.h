// What the GPU backend holds beyond the heap: the bound device and context, the internal kernels
// module, and the device-side arrays of the device state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll/collectives.h"
#include "coll/plan.h"
#include "core/wait_watch.h"
#include "gshmem/detail/team.h"
#include "transport/net_stream_call.h"
#include "util/status.h"

namespace gshmem {

class Bootstrap;
class MemoryProvider;
class SymmetricHeap;
class TransportManager;
struct Config;

// Whether other PEs use this PE's GPU too (NVSHMEM's "multiple PEs per GPU"), decided for the whole
// job at bind time so that every PE answers the same.
enum class GpuSharing {
  kOwn,      // every PE has a GPU of its own
  kLimited,  // PEs share GPUs: their kernels may not be resident side by side, so collective launch
             // is refused (NVSHMEM's "limited MPG"; gshmem has no "full MPG")
};

class GpuResources {
 public:
  virtual ~GpuResources() = default;
  // Runs the all-PE barrier kernel on `stream`; with nullptr on the internal stream, then waits for
  // it, checking as `watch` says (warning, timeout, PEs that have left).
  virtual Status barrier(void* stream, const WaitWatch::Options* watch) = 0;
  // A copy of a collective's copy-engine path, between addresses of this process.
  struct Copy {
    void* dest;
    const void* src;
    uint64_t bytes;
  };
  // Runs a collective as the `copies` (copy engines), then `count` launches of the library's collective
  // kernel (coll/plan.h): in order on `stream` when `on_stream`, else on the internal stream, waiting
  // for it as `watch` says.
  virtual Status collective(const std::vector<Copy>& copies, const CollLaunch* launches, int count, bool on_stream,
                            void* stream, const WaitWatch::Options* watch) = 0;
  // Completes every copy that kernels handed to the copy engines, and every request they posted to the
  // network proxy, before the call (host quiet).
  virtual Status quiet() = 0;
  // Makes work enqueued on `stream` after the call wait for the copies and network requests that
  // kernels enqueued before it hand over (quiet_on_stream; a one-thread kernel, so it can be captured).
  virtual Status quiet_on_stream(void* stream) = 0;
  // Enqueues `call` on `stream`: a one-thread kernel posts it to the network proxy and waits until it has
  // completed at the target (see net_stream_call.h). GSHMEM_ERROR_NOT_SUPPORTED when no PE is reached
  // through the network, or when the call's local buffer is pageable host memory and the stream is not
  // being captured: the caller then runs it at once, as a copy to a mapped peer takes such a buffer.
  virtual Status network_on_stream(const NetStreamCall& call, void* stream) = 0;
  // Ends the proxy's thread after what kernels handed it (finalize, before the network transport goes);
  // idempotent.
  virtual void stop_proxy() = 0;
  virtual GpuSharing sharing() const = 0;
  // The CUDA device ordinal of the bound GPU.
  virtual int device() const = 0;
  // The GPU that PE `pe` of this node uses, in words ("NVIDIA H200, bus 0000:19:00.0"); "" for a PE
  // of another node.
  virtual std::string device_of(int pe) const = 0;
  // Whether PE `pe` uses the same GPU as this PE.
  virtual bool same_gpu(int pe) const = 0;
  // Makes the bound context current and waits for all work on the device (finalize, first step).
  virtual void synchronize() = 0;
  // Makes the bound context current on the calling thread (a thread of a plugin that calls back).
  virtual void make_current() = 0;
  // Releases the stream, the module and the device arrays, and the context if gshmem retained it
  // (finalize, after the heap was unmapped).
  virtual void destroy() = 0;
};

// What binding the GPU needs from the runtime, and where it puts what it builds.
struct GpuBinding {
  Bootstrap* boot = nullptr;
  const Config* config = nullptr;
  int requested_device = -1;  // nvshmemx_init_attr's device; -1: the current one, or by node rank
  std::vector<int> node_pes;  // the PEs of this node, in order
  int node_mype = 0;          // this PE's index in its node (selects the GPU when none was chosen)
  // Builds the symmetric heap on the provider, and the transport manager over it.
  std::function<Status(std::unique_ptr<MemoryProvider>)> setup_heap;
  const SymmetricHeap* heap = nullptr;
  std::function<detail::TeamSlot*()> team_table;  // valid after setup_heap
  int team_capacity = 0;
  // Heap offset of NVSHMEM_TEAM_WORLD's sync area (the barrier's flags), once the teams are set up.
  std::function<uint64_t()> world_sync;
  TransportManager* transports = nullptr;  // receives the GPU's memory transport
  std::function<void(int)> global_exit;    // a kernel called nvshmem_global_exit(status)
};

// Binds this PE's GPU and builds the heap, transport and device state on it (collective).
Status bind_gpu_backend(const GpuBinding& binding, const char* api, std::unique_ptr<GpuResources>* out);
// Whether the calling thread has a CUDA context current (the user selected a GPU).
bool gpu_context_is_current();
// Loads the driver and counts devices; false with a reason when no GPU can be used.
bool gpu_available(const std::string& cuda_path, std::string* why);

}  // namespace gshmem
