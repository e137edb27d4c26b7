#include "transport/manager.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "bootstrap/bootstrap.h"
#include "heap/symmetric_heap.h"
#include "transport/paths.h"
#include "util/cuda_driver.h"
#include "util/log.h"

namespace gshmem {

namespace {

std::string pe_list(const std::vector<int>& pes) {
  std::string s;
  for (size_t i = 0; i < pes.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(pes[i]);
  if (pes.size() > 16) s += log::format(", ... (%zu in all)", pes.size());
  return s;
}

std::vector<int> reached(const std::vector<unsigned char>& reach) {
  std::vector<int> pes;
  for (size_t pe = 0; pe < reach.size(); ++pe) {
    if (reach[pe]) pes.push_back(static_cast<int>(pe));
  }
  return pes;
}

constexpr const char* kNoPeerCompletes = "no peer's operation on this PE completes";

}  // namespace

TransportManager::TransportManager() = default;
TransportManager::~TransportManager() = default;

bool TransportManager::same_host(int pe) const {
  const auto& h = options_.host_of_pe;
  const size_t me = static_cast<size_t>(boot_->rank());
  return static_cast<size_t>(pe) < h.size() && me < h.size() && h[static_cast<size_t>(pe)] == h[me];
}

Status TransportManager::open(Bootstrap* boot, SymmetricHeap* heap, const TransportOptions& options,
                              TransportHooks hooks) {
  boot_ = boot;
  heap_ = heap;
  options_ = options;
  hooks_ = std::move(hooks);
  const int n = boot->size();
  const int me = boot->rank();
  // Which heaps each PE maps: PE a reaches PE b through the network unless each maps the other's.
  std::vector<unsigned char> mine(static_cast<size_t>(n), 0);
  for (int pe = 0; pe < n; ++pe) mine[static_cast<size_t>(pe)] = pe != me && heap->peer_base(pe) == nullptr;
  std::vector<unsigned char> all(static_cast<size_t>(n) * static_cast<size_t>(n));
  GSHMEM_CHECK(boot->allgather(mine.data(), all.data(), static_cast<size_t>(n)));
  std::vector<unsigned char> reach(static_cast<size_t>(n), 0);  // the PEs this PE reaches through the network
  for (int pe = 0; pe < n; ++pe) {
    const size_t a = static_cast<size_t>(me) * n + pe, b = static_cast<size_t>(pe) * n + me;
    reach[static_cast<size_t>(pe)] = pe != me && (all[a] || all[b]);
  }
  if (std::none_of(all.begin(), all.end(), [](unsigned char c) { return c != 0; })) return GSHMEM_SUCCESS;
  return open_network(boot, reach, all);
}

Status TransportManager::open_network(Bootstrap* boot, const std::vector<unsigned char>& reach,
                                      const std::vector<unsigned char>& all) {
  const int n = boot->size();
  const int me = boot->rank();
  const std::vector<int> across = reached(reach);  // this PE's peers across the network
  const char* why_across = options_.disable_p2p ? "NVSHMEM_DISABLE_P2P is set" : "some run on other hosts";
  if (options_.remote_transport == "none") {
    no_network_ = "NVSHMEM_REMOTE_TRANSPORT=none";
    if (options_.gpu && !across.empty()) {
      // Kernels would fault on the first access to a PE they cannot reach.
      GSHMEM_ERROR("PE %d cannot reach PEs %s (%s), and NVSHMEM_REMOTE_TRANSPORT=none turns the network off", me,
                   pe_list(across).c_str(), why_across);
      return GSHMEM_ERROR_NOT_SUPPORTED;
    }
    return GSHMEM_SUCCESS;
  }
  if (options_.remote_transport != "ucx" && me == 0) {
    GSHMEM_WARN(kTransport, "NVSHMEM_REMOTE_TRANSPORT=%s: gshmem's network transport is UCX; using it",
                options_.remote_transport.c_str());
  }
  // The network thread's GPU work on a peer's behalf can block in the driver, and then no peer's operation
  // on this PE completes: a watch says so from a thread of its own.
  if (options_.gpu && !across.empty()) {
    StallWatch::Options o;
    o.my_pe = me;
    o.warn_s = options_.wait_warn_s;
    o.timeout_s = options_.wait_timeout_s;
    o.subsys = log::kTransport;
    o.context = hooks_.stall_context;
    network_stall_ = std::make_unique<StallWatch>(std::move(o));
    // Said once, by the lowest PE that has peers across the network.
    int first = n;
    for (int a = 0; a < n && first == n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (all[static_cast<size_t>(a) * n + b] || all[static_cast<size_t>(b) * n + a]) {
          first = a;
          break;
        }
      }
    }
    if (me == first) warn_if_lazy_loading();
  }
  std::string why;
  Status s = NetworkTransport::open(options_.plugin, boot, reach, local_memory(), hooks_.waiting, &network_, &why);
  if (!ok(s)) {
    no_network_ = "the network transport could not start (" + why +
                  "); a gshmem built with UCX (Debian: libucx-dev) has it, see the README";
    network_.reset();
    if (options_.gpu) {
      // Kernels would fault on the first access to a PE they cannot reach: the job ends here, on every PE
      // (open's result is the same on all).
      GSHMEM_ERROR("PE %d cannot reach PEs %s (%s): %s", me, pe_list(across).c_str(), why_across, no_network_.c_str());
      return GSHMEM_ERROR_NOT_SUPPORTED;
    }
    // The job goes on: PEs that need the network fail their first operation on a peer across it, with
    // this reason.
    GSHMEM_INFO(kTransport, "%s", no_network_.c_str());
    return GSHMEM_SUCCESS;
  }
  bool staged = options_.staging_always;
  if (options_.gpu) {
    // A GPU heap that the network library of some PE cannot register is staged on every PE (decided
    // together): peers' puts and gets on it travel in the library's messages, applied here by copies.
    const unsigned char mine_ok = network_->caps().gpu_memory ? 1 : 0;
    std::vector<unsigned char> oks(static_cast<size_t>(n));
    GSHMEM_CHECK(boot->allgather(&mine_ok, oks.data(), 1));
    std::vector<int> without;
    for (int pe = 0; pe < n; ++pe) {
      if (!oks[static_cast<size_t>(pe)]) without.push_back(pe);
    }
    if (!without.empty() && me == 0) {
      GSHMEM_INFO(kTransport,
                  "the %s of PE%s %s cannot register GPU memory (%s): the GPU heaps are reached through host buffers, "
                  "with the data in the network library's messages (slower than with a UCX built with CUDA, such as "
                  "the PyPI wheel libucx-cu13: docs/network.md)",
                  network_->name(), without.size() == 1 ? "" : "s", pe_list(without).c_str(),
                  across.empty() ? network_->name() : network_->describe(across.front()).c_str());
    }
    staged = staged || !without.empty();
  }
  network_->set_staged(staged);
  const bool gpu = options_.gpu;
  GSHMEM_CHECK(network_->add_memory(heap_->base(), heap_->mapped(), 0, gpu));
  heap_->set_growth_listener([this, gpu](char* addr, uint64_t offset, uint64_t bytes) {
    return network_->add_memory(addr, bytes, offset, gpu);
  });
  return GSHMEM_SUCCESS;
}

LocalMemory TransportManager::local_memory() {
  // GPU work below runs on the network's threads (and the proxy's), in the hook's scope: the bound context
  // current and capture relaxed (a CUDA graph that the program captures in the global mode on another
  // thread must not make it fail).
  auto on_gpu_thread = [this](const std::function<Status()>& f) {
    return hooks_.on_gpu_thread ? hooks_.on_gpu_thread(f) : f();
  };
  LocalMemory local;
  // A peer's atomic on this PE's heap, applied here: CPU atomics, or the GPU's own (a kernel) on a GPU heap.
  local.atomic = [this, on_gpu_thread](uint64_t offset, const Amo& amo, uint64_t* old) {
    if (!memory_ || offset + static_cast<uint64_t>(amo.bytes) > heap_->mapped() ||
        offset % static_cast<uint64_t>(amo.bytes) != 0) {
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    StallWatch::Call call(network_stall_.get(), "the network thread",
                          "applying a peer's atomic of %llu bytes to this PE's GPU heap",
                          static_cast<uint64_t>(amo.bytes), kNoPeerCompletes);
    return on_gpu_thread(
        [&] { return memory_->atomic(heap_->base() + offset, amo, old, Completion::kBlocking, nullptr); });
  };
  // A peer's put or get on this PE's staged heap: the memory transport's copy (the copy engines on a GPU
  // heap), waited for.
  local.copy_heap = [this, on_gpu_thread](uint64_t offset, void* host, size_t bytes, bool to_heap) {
    if (!memory_ || offset > heap_->mapped() || bytes > heap_->mapped() - offset) return GSHMEM_ERROR_INVALID_VALUE;
    char* at = heap_->base() + offset;
    StallWatch::Call call(network_stall_.get(), "the network thread",
                          to_heap ? "applying a peer's put of %llu bytes to this PE's GPU heap"
                                  : "reading %llu bytes of this PE's GPU heap for a peer's get",
                          static_cast<uint64_t>(bytes), kNoPeerCompletes);
    return on_gpu_thread([&] {
      return to_heap ? memory_->copy(at, host, bytes, Completion::kBlocking, nullptr)
                     : memory_->copy(host, at, bytes, Completion::kBlocking, nullptr);
    });
  };
#ifdef GSHMEM_HAVE_CUDA
  const bool gpu = options_.gpu;
  local.on_gpu = [gpu](const void* p) { return gpu && cuda_device_memory(p); };
#else
  local.on_gpu = [](const void*) { return false; };  // a build without CUDA has no GPU memory
#endif
  local.copy = [this, on_gpu_thread](void* dst, const void* src, size_t bytes) {
    if (!memory_) return GSHMEM_ERROR_INVALID_VALUE;
    // Mostly the network proxy's, for this PE's kernels, whose quiet waits for it.
    StallWatch::Call call(network_stall_.get(), "a thread of this PE",
                          "copying %llu bytes between GPU and host buffers for a staged put or get",
                          static_cast<uint64_t>(bytes), "this PE's operations across the network wait");
    return on_gpu_thread([&] { return memory_->copy(dst, src, bytes, Completion::kBlocking, nullptr); });
  };
  return local;
}

void TransportManager::set_memory(std::unique_ptr<Transport> memory) {
  memory_ = std::move(memory);
  const int n = boot_->size();
  const int me = boot_->rank();
  paths_.clear();
  paths_.reserve(static_cast<size_t>(n));
  unreachable_ = 0;
  for (int pe = 0; pe < n; ++pe) {
    if (char* base = heap_->peer_base(pe)) {
      paths_.push_back(make_mapped_path(pe, pe == me, base, *memory_));
    } else if (network_ && network_->reaches(pe)) {
      paths_.push_back(make_network_path(pe, *network_, *memory_, &poster_));
    } else {
      paths_.push_back(make_unreachable_path(pe, unreachable_reason()));
      ++unreachable_;
    }
  }
}

Status TransportManager::finalize() {
  Status s = GSHMEM_SUCCESS;
  paths_.clear();
  poster_ = nullptr;
  if (network_ && !ok(network_->finalize())) s = GSHMEM_ERROR_SYSTEM;
  network_.reset();
  network_stall_.reset();
  memory_.reset();
  return s;
}

PollWork TransportManager::poll_work() const {
  if (!network_) return {};
  return {[](void* net) { return static_cast<NetworkTransport*>(net)->progress(); }, network_.get()};
}

Status TransportManager::quiet() {
  if (memory_) GSHMEM_CHECK(memory_->quiet());
  return network_ ? network_->quiet() : GSHMEM_SUCCESS;
}

Status TransportManager::quiet_on_stream(void* stream) {
  if (memory_) GSHMEM_CHECK(memory_->quiet_on_stream(stream));
  // The host's operations across the network complete now, also for a stream: work queued on it after the
  // call starts after that.
  return network_ ? network_->quiet() : GSHMEM_SUCCESS;
}

std::string TransportManager::unreachable_reason() const {
  const std::string network = no_network_.empty() ? "no network transport reaches it" : no_network_;
  if (options_.disable_p2p) return "NVSHMEM_DISABLE_P2P is set, and " + network;
  return "it runs on another host, and " + network;
}

std::string TransportManager::describe(int pe, std::string* why) const {
  why->clear();
  if (!ready() || pe < 0 || pe >= static_cast<int>(paths_.size())) return "";
  const PeerPath& p = path(pe);
  switch (p.kind()) {
    case PathKind::kLocal:
      *why = "this PE";
      return "local memory";
    case PathKind::kNetwork:
      *why = std::string(options_.disable_p2p && same_host(pe) ? "NVSHMEM_DISABLE_P2P is set" : "on another host") +
             ": " + network_->describe(pe) + (network_->staged() ? ", heaps staged through host buffers" : "");
      return std::string("network, ") + network_->name();
    case PathKind::kUnreachable:
      *why = p.reason();
      return "none";
    case PathKind::kMapped:
      break;
  }
  if (hooks_.describe_mapped) {
    std::string route = hooks_.describe_mapped(pe, why);
    if (!route.empty()) return route;
  }
  *why = "on the same host, its heap is mapped into this process";
  return "shared memory";
}

void TransportManager::log_routes() const {
  if (!log::enabled(log::Level::Info, log::kTransport) || !ready()) return;
  // Grouped, so that a large job logs a line per kind of route, not per PE.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int pe = 0; pe < static_cast<int>(paths_.size()); ++pe) {
    if (pe == boot_->rank()) continue;
    std::string why;
    const std::string route = describe(pe, &why) + " (" + why + ")";
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == route; });
    if (g == groups.end()) {
      groups.push_back({route, {pe}});
    } else {
      g->second.push_back(pe);
    }
  }
  for (const auto& g : groups) {
    GSHMEM_INFO(kTransport, "transport to PE%s %s: %s", g.second.size() == 1 ? "" : "s", pe_list(g.second).c_str(),
                g.first.c_str());
  }
}

void TransportManager::warn_if_lazy_loading() {
#ifdef GSHMEM_HAVE_CUDA
  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  if (cu().cuModuleGetLoadingMode(&mode) != CUDA_SUCCESS || mode != CU_MODULE_LAZY_LOADING) return;
  const char* set = std::getenv("CUDA_MODULE_LOADING");
  GSHMEM_WARN(kTransport,
              "CUDA loads kernels lazily (CUDA_MODULE_LOADING=%s), which can hang a GPU job across the network: the "
              "first launch of a kernel can wait for the GPU's running kernels, while a kernel that waits for a "
              "peer's data needs this PE's network thread to get it onto the GPU. Set CUDA_MODULE_LOADING=EAGER when "
              "GPUs reach each other through the network (gshmrun does, unless it is set; docs/network.md)",
              set ? set : "unset: CUDA's default");
#endif  // a build without CUDA loads no kernels
}

}  // namespace gshmem
