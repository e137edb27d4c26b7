#include "core/runtime.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>

#include "bootstrap/uniqueid.h"
#include "core/activity.h"
#include "core/gpu_resources.h"
#include "core/module_registry.h"
#include "gshmem/constants.h"
#include "gshmem/detail/flag_barrier.h"
#include "gshmem/version.h"
#include "util/cuda_driver.h"
#include "util/host_wait.h"
#include "util/log.h"
#include "util/socket.h"
#include "util/stall_watch.h"

namespace gshmem {

namespace {

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string read_first_line(const char* path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// What makes two PEs "on the same node": they share memory through memfd and abstract sockets,
// which needs the same kernel instance (boot id) and the same network namespace.
uint64_t host_identity(std::string* name) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  *name = host;
  char ns[128] = "";
  ssize_t n = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
  if (n > 0) ns[n] = '\0';
  return fnv1a(std::string(host) + "|" + read_first_line("/proc/sys/kernel/random/boot_id") + "|" + ns);
}

bool is_power_of_two(size_t v) { return v && !(v & (v - 1)); }

// Reads the settings and applies the logging ones; a malformed setting fails `api`.
Status load_settings(Config* config, const char* api) {
  std::string errors;
  Status s = parse_config_from_environment(config, &errors);
  log::configure(*config);
  if (!ok(s)) GSHMEM_ERROR("%s: invalid settings:\n  %s", api, errors.c_str());
  return s;
}

// The PEs with reach[pe] set.
std::vector<int> reached(const std::vector<unsigned char>& reach) {
  std::vector<int> pes;
  for (size_t pe = 0; pe < reach.size(); ++pe) {
    if (reach[pe]) pes.push_back(static_cast<int>(pe));
  }
  return pes;
}

std::string pe_list(const std::vector<int>& pes) {
  std::string s;
  for (size_t i = 0; i < pes.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(pes[i]);
  if (pes.size() > 16) s += log::format(", ... (%zu in all)", pes.size());
  return s;
}

// The bootstrap's reader thread calls this when a PE is gone: this PE can never complete what it
// waits for, and ends now, saying why and what it was doing.
void end_for_peer(int rank, int exit_code, const std::string& why) {
  Runtime& rt = Runtime::instance();
  const bool gpu = rt.backend() == Backend::kGpu;
  GSHMEM_ERROR("%s: the job cannot go on. This PE was %s; it ends now with exit code %d%s", why.c_str(),
               activity::describe().c_str(), exit_code, gpu ? " (its kernels on the GPU end with it)" : "");
  std::fflush(nullptr);
  std::_Exit(exit_code);
}

// The GPU backend's collectives: the library's collective kernel, on the caller's stream or on the
// internal one, waited for with the usual diagnostics.
class GpuCollEngine final : public CollEngine {
 public:
  GpuCollEngine(const Runtime& rt, GpuResources& gpu) : rt_(rt), gpu_(gpu), tuning_(tuning(rt.config())) {}
  Status run(const CollCall& call, const detail::TeamSlot& slot, const TeamInfo& team, bool on_stream, void* stream,
             const char* api) override {
    const SymmetricHeap& heap = rt_.heap();
    // The copy engines reach only members whose heaps are mapped here; the others are reached through
    // the network proxy. A reduction on such a team stages the members' sources through the team's
    // scratch (reduce_algo.h, staged_reduce), rounds of a team sync and a barrier that one block runs.
    CollTuning tuning = tuning_;
    bool across = false;
    for (int pe : team.members) across = across || heap.peer_base(pe) == nullptr;
    if (across) {
      tuning.ce_min_bytes = 0;
      if (call.op == detail::CollOp::kReduce || call.op == detail::CollOp::kReducescatter) {
        tuning.grid_min_bytes = 0;
        GSHMEM_CHECK(check_scratch(call, team, api));
      }
    }
    const CollPlan plan = plan_collective(call, team.size(), team.my_index, tuning);
    std::vector<GpuResources::Copy> copies;
    copies.reserve(plan.copies.size());
    for (const CollCopy& c : plan.copies) {
      char* peer = heap.peer_base(team.members[static_cast<size_t>(c.member)]) + (c.dest - heap.base());
      copies.push_back(GpuResources::Copy{peer, c.src, c.bytes});
    }
    if (on_stream) return gpu_.collective(copies, plan.launches, plan.count, true, stream, nullptr);
    const WaitWatch::Options watch = rt_.wait_watch_options(api);
    return gpu_.collective(copies, plan.launches, plan.count, false, nullptr, &watch);
  }

 private:
  // Whether the team's scratch holds an element of the reduction per member; else a message naming the
  // setting (a kernel's reduction traps for the same reason, reduce.cuh).
  Status check_scratch(const CollCall& call, const TeamInfo& team, const char* api) const {
    detail::TeamSlot t{};
    t.size = team.size();
    t.scratch_bytes = rt_.reduce_scratch();
    const size_t elem = detail::reduce_type_size(call.dtype);
    if (detail::staged_elements(t, elem) > 0) return GSHMEM_SUCCESS;
    GSHMEM_ERROR(
        "%s on team %d of %d PEs with members across the network: each member's part of the reduction scratch "
        "(NVSHMEM_REDUCE_SCRATCH_SIZE = %u bytes, over %d members, in multiples of 16) holds no element of %zu "
        "bytes; set NVSHMEM_REDUCE_SCRATCH_SIZE to at least %zu",
        api, call.team, team.size(), t.scratch_bytes, team.size(), elem,
        static_cast<size_t>(team.size()) * std::max<size_t>(elem, 16));
    return GSHMEM_ERROR_INVALID_VALUE;
  }

  // Threads per block from a setting: a multiple of 32 in [32, 1024], else the default (with a warning).
  static int threads(int64_t value, const char* name) {
    if (value >= 32 && value <= 1024 && value % 32 == 0) return static_cast<int>(value);
    GSHMEM_WARN(kColl, "%s=%lld is not a multiple of 32 between 32 and 1024; using 512", name,
                static_cast<long long>(value));
    return 512;
  }
  static CollTuning tuning(const Config& cfg) {
    CollTuning t;
    t.grid_min_bytes = cfg.coll_grid_min_size;
    t.ce_min_bytes = cfg.coll_ce_min_size;
    t.max_blocks = static_cast<int>(std::min<int64_t>(std::max<int64_t>(cfg.coll_max_blocks, 1), 1024));
    t.reduce_threads = threads(cfg.reduce_nthreads, "NVSHMEM_REDUCE_NTHREADS");
    t.reducescatter_threads = threads(cfg.reducescatter_nthreads, "NVSHMEM_REDUCESCATTER_NTHREADS");
    t.fcollect_threads = threads(cfg.fcollect_nthreads, "NVSHMEM_FCOLLECT_NTHREADS");
    return t;
  }
  const Runtime& rt_;
  GpuResources& gpu_;
  const CollTuning tuning_;
};

// Runs when the process exits (exit() or a return from main) with the status it exits with.
void on_process_exit(int status, void*) { Runtime::instance().announce_exit(status); }

}  // namespace

Runtime& Runtime::instance() {
  static Runtime* r = new Runtime();  // never destroyed: entry points may run during exit
  return *r;
}

const Team* Runtime::team(int id) const {
  if (state_ == kNotInitialized || id < 0 || id > 3) return nullptr;
  return &predefined_[id];
}

Status Runtime::init(const InitOptions& options, const char* api) {
  if (state_ != kNotInitialized) {
    GSHMEM_INFO(kInit, "%s: already initialised", api);
    return GSHMEM_SUCCESS;
  }
  if (finalized_) {
    GSHMEM_ERROR("%s: gshmem cannot be initialised again after nvshmem_finalize in the same process", api);
    return GSHMEM_ERROR_STATE;
  }
  options_ = options;
  GSHMEM_CHECK(load_settings(&config_, api));
  for (const auto& u : unknown_gshmem_variables()) {
    GSHMEM_WARN(kInit, "%s is not a gshmem setting%s%s%s (gshmem-info lists them all)", u.first.c_str(),
                u.second.empty() ? "" : "; did you mean ", u.second.c_str(), u.second.empty() ? "" : "?");
  }
  if (config_.disable_cuda_vmm) {
    GSHMEM_WARN(kInit, "NVSHMEM_DISABLE_CUDA_VMM is ignored: gshmem's GPU heap always uses CUDA VMM");
  }
  if (config_.debug_attach_delay > 0) {
    std::fprintf(stderr, "[gshmem] pid %d waits %lld s for a debugger (NVSHMEM_DEBUG_ATTACH_DELAY)\n",
                 static_cast<int>(getpid()), static_cast<long long>(config_.debug_attach_delay));
    sleep(static_cast<unsigned>(config_.debug_attach_delay));
  }
  activity::Scope doing(api);
  GSHMEM_CHECK(create_bootstrap(config_, options_.bootstrap, &boot_, &started_by_));
  log::set_pe(boot_->rank());
  // From here on a PE that ends before nvshmem_finalize ends this one too, and this one's end is
  // told to the others.
  boot_->set_peer_gone_handler(&end_for_peer);
  init_pid_ = getpid();
  static bool exit_hook = false;
  if (!exit_hook) exit_hook = on_exit(&on_process_exit, nullptr) == 0;
  Status s = exchange_host_identity();
  if (ok(s)) s = choose_backend();
  if (!ok(s)) {
    boot_->finalize();
    boot_.reset();
    return s;
  }
  build_teams();
  if (boot_->rank() == 0 &&
      (config_.version || config_.info || config_.debug == "VERSION" || log::g_level >= log::Level::Info)) {
    std::fprintf(stderr, "gshmem %s (NVSHMEM %d.%d.%d API): %d PE%s started by %s, %s backend (%s)\n",
                 GSHMEM_VERSION_STRING, GSHMEM_NVSHMEM_API_MAJOR, GSHMEM_NVSHMEM_API_MINOR, GSHMEM_NVSHMEM_API_PATCH,
                 boot_->size(), boot_->size() == 1 ? "" : "s", started_by_.c_str(),
                 backend_ == Backend::kGpu ? "GPU" : "CPU", backend_reason_.c_str());
  }
  if (boot_->rank() == 0 && config_.info) print_settings_table(stderr, config_);
  state_ = kBootstrapped;
  if (backend_ == Backend::kCpu) {
    s = setup_cpu();
  } else if (options_.cuda_device >= 0 || gpu_context_is_current()) {
    s = bind_gpu(api);
  } else {
    GSHMEM_INFO(kInit, "no GPU selected yet: the GPU is bound at the first nvshmem_malloc or nvshmem_barrier_all");
  }
  if (!ok(s)) {
    state_ = kNotInitialized;
    boot_->finalize();
    boot_.reset();
    return s;
  }
  return GSHMEM_SUCCESS;
}

Status Runtime::make_unique_id(void* internal, size_t len, const char* api) {
  if (state_ != kNotInitialized) {
    GSHMEM_ERROR("%s must be called before nvshmem_init / nvshmemx_init_attr", api);
    return GSHMEM_ERROR_STATE;
  }
  Config config;
  GSHMEM_CHECK(load_settings(&config, api));
  return gshmem::make_unique_id(config, internal, len);
}

Status Runtime::exchange_host_identity() {
  struct HostRecord {
    uint64_t id;
    int32_t pid;
    char name[52];
  };
  HostRecord mine{};
  mine.pid = static_cast<int32_t>(getpid());
  std::string& name = host_name_;
  mine.id = host_identity(&name);
  std::snprintf(mine.name, sizeof mine.name, "%s", name.c_str());
  std::vector<HostRecord> all(static_cast<size_t>(boot_->size()));
  GSHMEM_CHECK(boot_->allgather(&mine, all.data(), sizeof mine));
  host_of_pe_.clear();
  node_pes_.clear();
  node_pids_.clear();
  for (int pe = 0; pe < boot_->size(); ++pe) {
    host_of_pe_.push_back(all[pe].id);
    if (all[pe].id == mine.id) {
      node_pes_.push_back(pe);
      node_pids_.push_back(all[pe].pid);
    }
  }
  // Values all PEs agree on, unique to this job: a key that names the descriptor sockets (public)
  // and a token that authenticates their messages (known only through the bootstrap).
  uint64_t keys[2] = {0, 0};
  if (boot_->rank() == 0) GSHMEM_CHECK(random_bytes(keys, sizeof keys));
  GSHMEM_CHECK(boot_->broadcast(keys, sizeof keys, 0));
  job_key_ = keys[0];
  job_token_ = keys[1];
  GSHMEM_INFO(kTopo, "host %s: %zu of %d PEs on this node", name.c_str(), node_pes_.size(), boot_->size());
  return GSHMEM_SUCCESS;
}

Status Runtime::choose_backend() {
  std::string why;
  bool have_gpu = false;
  if (config_.backend != "cpu") have_gpu = gpu_available(config_.cuda_path, &why);
  if (config_.backend == "gpu" && !have_gpu) {
    GSHMEM_ERROR(
        "GSHMEM_BACKEND=gpu, but this PE cannot use a GPU: %s. Use GSHMEM_BACKEND=cpu (or auto) to run on "
        "host memory",
        why.c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  backend_ = have_gpu ? Backend::kGpu : Backend::kCpu;
  backend_reason_ = config_.backend == "cpu" ? "GSHMEM_BACKEND=cpu"
                    : have_gpu               ? "a GPU is present"
                                             : "no GPU can be used: " + why;
  int32_t mine = static_cast<int32_t>(backend_);
  std::vector<int32_t> all(static_cast<size_t>(boot_->size()));
  GSHMEM_CHECK(boot_->allgather(&mine, all.data(), sizeof mine));
  std::vector<int> cpu, gpu;
  for (int pe = 0; pe < boot_->size(); ++pe) (all[pe] == static_cast<int32_t>(Backend::kGpu) ? gpu : cpu).push_back(pe);
  if (!cpu.empty() && !gpu.empty()) {
    GSHMEM_ERROR(
        "the PEs do not agree on the backend: PEs %s use GPUs, PEs %s host memory (this PE: %s). Make GPUs "
        "visible to every PE, or set GSHMEM_BACKEND=cpu for all",
        pe_list(gpu).c_str(), pe_list(cpu).c_str(), backend_reason_.c_str());
    return GSHMEM_ERROR_SYMMETRY;
  }
  GSHMEM_INFO(kInit, "backend: %s (%s)", backend_ == Backend::kGpu ? "gpu" : "cpu", backend_reason_.c_str());
  return GSHMEM_SUCCESS;
}

void Runtime::build_teams() {
  const int me = boot_->rank();
  const int n = boot_->size();
  Team& world = predefined_[GSHMEM_TEAM_WORLD];
  world.members.clear();
  for (int pe = 0; pe < n; ++pe) world.members.push_back(pe);
  world.my_pe = me;

  Team& node = predefined_[GSHMEM_TEAM_NODE];
  node.members = node_pes_;
  node.my_pe = static_cast<int>(std::find(node_pes_.begin(), node_pes_.end(), me) - node_pes_.begin());

  // PEs whose heap this PE maps: the node, unless peer mapping is disabled.
  Team& shared = predefined_[GSHMEM_TEAM_SHARED];
  if (config_.disable_p2p) {
    shared.members = {me};
    shared.my_pe = 0;
  } else {
    shared = node;
  }

  // One PE per node: those with the same index in their node as this PE.
  Team& same = predefined_[GSHMEM_TEAM_SAME_MYPE_NODE];
  same.members.clear();
  std::vector<uint64_t> nodes_seen;
  for (int pe = 0; pe < n; ++pe) {
    if (std::find(nodes_seen.begin(), nodes_seen.end(), host_of_pe_[pe]) != nodes_seen.end()) continue;
    nodes_seen.push_back(host_of_pe_[pe]);
    std::vector<int> on_node;
    for (int q = 0; q < n; ++q) {
      if (host_of_pe_[q] == host_of_pe_[pe]) on_node.push_back(q);
    }
    if (node.my_pe < static_cast<int>(on_node.size())) same.members.push_back(on_node[node.my_pe]);
  }
  same.my_pe = static_cast<int>(std::find(same.members.begin(), same.members.end(), me) - same.members.begin());
}

Status Runtime::setup_heap(std::unique_ptr<MemoryProvider> provider) {
  HeapOptions ho;
  ho.initial_bytes = config_.symmetric_size;
  ho.limit_bytes = config_.max_memory_per_gpu;
  ho.growth_step = config_.cumem_granularity;
  ho.map_peers = !config_.disable_p2p;
  ho.timeout_s = config_.bootstrap_timeout;
  GSHMEM_CHECK(heap_.init(boot_.get(), std::move(provider), ho, node_pes_, node_pids_, job_key_, job_token_));
  GSHMEM_CHECK(setup_network());
  // The barrier's flags: the first allocation, so every PE gets it at the same offset.
  uint64_t off = 0;
  GSHMEM_CHECK(heap_.allocate(sizeof(uint64_t) * static_cast<size_t>(boot_->size()), 64, &off, "nvshmem_init"));
  barrier_flags_ = reinterpret_cast<uint64_t*>(heap_.base() + off);
  GSHMEM_CHECK(heap_.provider().zero(reinterpret_cast<char*>(barrier_flags_), sizeof(uint64_t) * boot_->size()));
  all_mapped_ = true;
  for (int pe = 0; pe < boot_->size(); ++pe) all_mapped_ = all_mapped_ && heap_.peer_base(pe) != nullptr;
  // The team region: the table of team slots, then the teams' sync areas (team/teams.h). The same
  // offset on every PE; what is inside is this PE's own.
  const uint64_t capacity = static_cast<uint64_t>(team_capacity());
  // Kernels reduce across the network through a scratch in each team's sync area (team.h); the CPU
  // backend's host code gathers the sources instead.
  if (backend_ == Backend::kGpu && network_) {
    reduce_scratch_ = static_cast<uint32_t>(std::min<uint64_t>(config_.reduce_scratch_size, 1ull << 30) & ~15ull);
  }
  const uint64_t space = config_.team_space ? config_.team_space
                                            : (4ull << 20) + (320ull << 10) * static_cast<uint64_t>(boot_->size()) +
                                                  16ull * reduce_scratch_;
  team_region_bytes_ = capacity * sizeof(detail::TeamSlot) + space;
  GSHMEM_CHECK(heap_.allocate(team_region_bytes_, 64, &team_region_, "nvshmem_init"));
  return GSHMEM_SUCCESS;
}

Status Runtime::setup_network() {
  const int n = n_pes();
  const int me = my_pe();
  // Which heaps each PE maps: PE a reaches PE b through the network unless each maps the other's.
  std::vector<unsigned char> mine(static_cast<size_t>(n), 0);
  for (int pe = 0; pe < n; ++pe) mine[static_cast<size_t>(pe)] = pe != me && heap_.peer_base(pe) == nullptr;
  std::vector<unsigned char> all(static_cast<size_t>(n) * static_cast<size_t>(n));
  GSHMEM_CHECK(boot_->allgather(mine.data(), all.data(), static_cast<size_t>(n)));
  std::vector<unsigned char> reach(static_cast<size_t>(n), 0);
  for (int pe = 0; pe < n; ++pe) {
    const size_t a = static_cast<size_t>(me) * n + pe, b = static_cast<size_t>(pe) * n + me;
    reach[static_cast<size_t>(pe)] = pe != me && (all[a] || all[b]);
  }
  if (std::none_of(all.begin(), all.end(), [](unsigned char c) { return c != 0; })) return GSHMEM_SUCCESS;
  const std::vector<int> across = reached(reach);  // this PE's peers across the network
  if (config_.remote_transport == "none") {
    no_network_ = "NVSHMEM_REMOTE_TRANSPORT=none";
    if (backend_ == Backend::kGpu && !across.empty()) {
      // Kernels would fault on the first access to a PE they cannot reach.
      GSHMEM_ERROR("PE %d cannot reach PEs %s (%s), and NVSHMEM_REMOTE_TRANSPORT=none turns the network off", me,
                   pe_list(across).c_str(),
                   config_.disable_p2p ? "NVSHMEM_DISABLE_P2P is set" : "they run on other hosts");
      return GSHMEM_ERROR_NOT_SUPPORTED;
    }
    return GSHMEM_SUCCESS;
  }
  if (config_.remote_transport != "ucx" && me == 0) {
    GSHMEM_WARN(kTransport, "NVSHMEM_REMOTE_TRANSPORT=%s: gshmem's network transport is UCX; using it",
                config_.remote_transport.c_str());
  }
  std::string why;
  // A peer's atomic on this PE's heap, applied here: CPU atomics, or the GPU's own (a kernel) on a GPU
  // heap. The transports exist before any peer can send one (after the bind's barrier).
  // The GPU work below runs on the network's threads (and the proxy's) with the thread's stream-capture
  // mode relaxed: a CUDA graph that the program captures in the global mode on another thread must not
  // make it fail (it uses the internal streams, which are never captured).
  // The thread may be the program's own (a peer's operation is served by whichever thread progresses the
  // network, one in nvshmem_quiet among them): its current context is put back.
  auto on_gpu_thread = [this](const std::function<Status()>& f) {
    if (!gpu_) return f();
    CUcontext was = nullptr;
    cu().cuCtxGetCurrent(&was);
    gpu_->make_current();
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    cu().cuThreadExchangeStreamCaptureMode(&mode);
    const Status s = f();
    cu().cuThreadExchangeStreamCaptureMode(&mode);
    cu().cuCtxSetCurrent(was);
    return s;
  };
  // The network thread's GPU work on a peer's behalf can block in the driver, and then no peer's operation
  // on this PE completes: a watch says so from a thread of its own.
  if (backend_ == Backend::kGpu && !across.empty()) {
    network_stall_ = make_network_stall_watch();
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
  static constexpr const char* kNoPeerCompletes = "no peer's operation on this PE completes";
  LocalMemory local;
  local.atomic = [this, on_gpu_thread](uint64_t offset, const Amo& amo, uint64_t* old) {
    if (!transport_ || offset + static_cast<uint64_t>(amo.bytes) > heap_.mapped() ||
        offset % static_cast<uint64_t>(amo.bytes) != 0 || (backend_ == Backend::kGpu && !gpu_)) {
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    StallWatch::Call call(network_stall_.get(), "the network thread",
                          "applying a peer's atomic of %llu bytes to this PE's GPU heap",
                          static_cast<uint64_t>(amo.bytes), kNoPeerCompletes);
    return on_gpu_thread(
        [&] { return transport_->atomic(heap_.base() + offset, amo, old, Completion::kBlocking, nullptr); });
  };
  // A peer's put or get on this PE's staged heap: the memory transport's copy (the copy engines on a GPU
  // heap), waited for.
  local.copy_heap = [this, on_gpu_thread](uint64_t offset, void* host, size_t bytes, bool to_heap) {
    if (!transport_ || offset > heap_.mapped() || bytes > heap_.mapped() - offset ||
        (backend_ == Backend::kGpu && !gpu_)) {
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    char* at = heap_.base() + offset;
    StallWatch::Call call(network_stall_.get(), "the network thread",
                          to_heap ? "applying a peer's put of %llu bytes to this PE's GPU heap"
                                  : "reading %llu bytes of this PE's GPU heap for a peer's get",
                          static_cast<uint64_t>(bytes), kNoPeerCompletes);
    return on_gpu_thread([&] {
      return to_heap ? transport_->copy(at, host, bytes, Completion::kBlocking, nullptr)
                     : transport_->copy(host, at, bytes, Completion::kBlocking, nullptr);
    });
  };
  local.on_gpu = [this](const void* p) { return backend_ == Backend::kGpu && cuda_device_memory(p); };
  local.copy = [this, on_gpu_thread](void* dst, const void* src, size_t bytes) {
    // Mostly the network proxy's, for this PE's kernels, whose quiet waits for it.
    StallWatch::Call call(network_stall_.get(), "a thread of this PE",
                          "copying %llu bytes between GPU and host buffers for a staged put or get",
                          static_cast<uint64_t>(bytes), "this PE's operations across the network wait");
    return on_gpu_thread([&] { return transport_->copy(dst, src, bytes, Completion::kBlocking, nullptr); });
  };
  Status s = NetworkTransport::open(
      config_.transport_plugin, boot_.get(), reach, std::move(local),
      [this](int pe, const char* what, double waited_s, double last_s) { network_waiting(pe, what, waited_s, last_s); },
      &network_, &why);
  const bool gpu = backend_ == Backend::kGpu;
  if (!ok(s)) {
    no_network_ = "the network transport could not start (" + why +
                  "); a gshmem built with UCX (Debian: libucx-dev) has it, see the README";
    network_.reset();
    if (gpu) {
      // Kernels would fault on the first access to a PE they cannot reach: the job ends here, on every PE
      // (open's result is the same on all).
      GSHMEM_ERROR("PE %d cannot reach PEs %s (%s): %s", me, pe_list(across).c_str(),
                   config_.disable_p2p ? "NVSHMEM_DISABLE_P2P is set" : "some run on other hosts", no_network_.c_str());
      return GSHMEM_ERROR_NOT_SUPPORTED;
    }
    // The job goes on: PEs that need the network fail their first operation on a peer across it, with
    // this reason.
    GSHMEM_INFO(kTransport, "%s", no_network_.c_str());
    return GSHMEM_SUCCESS;
  }
  bool staged = config_.net_staging == "always";
  if (gpu) {
    // A GPU heap that the network library of some PE cannot register is staged on every PE (decided
    // together): peers' puts and gets on it travel in the library's messages, applied here by copies.
    const unsigned char mine_ok = network_->caps().gpu_memory ? 1 : 0;
    std::vector<unsigned char> oks(static_cast<size_t>(n));
    GSHMEM_CHECK(boot_->allgather(&mine_ok, oks.data(), 1));
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
  GSHMEM_CHECK(network_->add_memory(heap_.base(), heap_.mapped(), 0, gpu));
  heap_.set_growth_listener([this, gpu](char* addr, uint64_t offset, uint64_t bytes) {
    return network_->add_memory(addr, bytes, offset, gpu);
  });
  return GSHMEM_SUCCESS;
}

Route Runtime::route(int pe) const {
  if (pe == my_pe()) return Route::kLocal;
  if (heap_.peer_base(pe)) return Route::kMapped;
  if (network_ && network_->reaches(pe)) return Route::kNetwork;
  return Route::kUnreachable;
}

int Runtime::team_capacity() const {
  return static_cast<int>(std::min<int64_t>(std::max<int64_t>(config_.max_teams, 8), 1 << 20));
}

Status Runtime::setup_teams() {
  if (backend_ == Backend::kCpu) {
    coll_engine_ = make_host_coll_engine(
        heap_, network_.get(), unreachable_reason(),
        [this](const uint64_t* flag, uint64_t target, int team, int pe, bool packet, const char* api) {
          wait_barrier_flag(flag, target, pe, log::format(" of team %d", team),
                            log::format("collective on team %d", team), api, packet);
        });
  } else {
    coll_engine_ = std::make_unique<GpuCollEngine>(*this, *gpu_);
  }
  coll_.set_engine(coll_engine_.get());
  coll_.set_check_arguments(config_.enable_error_checks);
  Teams::Services sv;
  sv.heap = &heap_;
  sv.transport = transport_.get();
  sv.network = network_.get();
  sv.my_pe = my_pe();
  sv.n_pes = n_pes();
  sv.ll_period =
      static_cast<uint64_t>(std::min<int64_t>(std::max<int64_t>(config_.coll_ll_period, 2), int64_t{1} << 31));
  sv.ll_max_bytes = static_cast<uint32_t>(std::min<uint64_t>(config_.coll_ll_max_size, detail::kLLBytes));
  sv.reduce_scratch = reduce_scratch_;
  sv.barrier = [this](int team, const char* api) {
    CollCall c;
    c.op = detail::CollOp::kBarrier;
    c.team = team;
    GSHMEM_CHECK(complete_operations(false, nullptr, false));
    return coll_.run(c, false, nullptr, api);
  };
  std::vector<std::vector<int>> predefined;
  for (const Team& t : predefined_) predefined.push_back(t.members);
  const uint64_t capacity = static_cast<uint64_t>(team_capacity());
  GSHMEM_CHECK(teams_.init(sv, team_region_, team_region_bytes_, static_cast<int>(capacity), predefined));
  GSHMEM_INFO(kColl, "teams: %llu ids, %s of synchronisation space (GSHMEM_TEAM_SPACE); a team of %d PEs takes %s%s",
              static_cast<unsigned long long>(capacity),
              format_size(team_region_bytes_ - capacity * sizeof(detail::TeamSlot)).c_str(), n_pes(),
              format_size(teams_.area_bytes(n_pes())).c_str(),
              reduce_scratch_ ? log::format(", %s of it the scratch of kernels' reductions across the network",
                                            format_size(reduce_scratch_).c_str())
                                    .c_str()
                              : "");
  return GSHMEM_SUCCESS;
}

Status Runtime::collective(const CollCall& call, bool on_stream, void* stream, const char* api) {
  if (state_ == kNotInitialized) not_ready(api);
  activity::Scope doing(api, "a collective of team %llu", static_cast<uint64_t>(call.team));
  GSHMEM_CHECK(ensure_bound(api));
  if (call.op == detail::CollOp::kBarrier) {
    // A barrier completes this PE's earlier operations first.
    GSHMEM_CHECK(complete_operations(on_stream, stream, true));
  }
  return coll_.run(call, on_stream, stream, api);
}

Status Runtime::setup_cpu() {
  GSHMEM_CHECK(setup_heap(make_host_memory_provider()));
  transport_ = make_host_memory_transport();
  GSHMEM_CHECK(setup_teams());
  // Nobody may signal a peer's flags before the peer has zeroed them.
  GSHMEM_CHECK(boot_->barrier());
  state_ = kInitialized;
  log_routes();
  return GSHMEM_SUCCESS;
}

Status Runtime::bind_gpu(const char* api) {
  GpuBinding b;
  b.boot = boot_.get();
  b.config = &config_;
  b.requested_device = options_.cuda_device;
  b.node_pes = node_pes_;
  b.node_mype = predefined_[GSHMEM_TEAM_NODE].my_pe;
  b.setup_heap = [this](std::unique_ptr<MemoryProvider> provider) { return setup_heap(std::move(provider)); };
  b.heap = &heap_;
  b.barrier_flags = [this] { return barrier_flags_; };
  b.transport = &transport_;
  b.network = [this] { return network_.get(); };
  b.global_exit = [this](int code) { global_exit(code); };
  b.team_table = [this] { return reinterpret_cast<detail::TeamSlot*>(heap_.base() + team_region_); };
  b.team_capacity = team_capacity();
  Status s = bind_gpu_backend(b, api, &gpu_);
  if (ok(s)) s = setup_teams();
  // No PE may arrive at a peer's team flags before the peer has zeroed them.
  if (ok(s)) s = boot_->barrier();
  if (ok(s)) {
    state_ = kInitialized;
    log_routes();
  }
  return s;
}

Status Runtime::ensure_bound(const char* api) {
  if (state_ == kInitialized) return GSHMEM_SUCCESS;
  if (state_ == kNotInitialized) not_ready(api);
  return bind_gpu(api);
}

void Runtime::not_ready(const char* api) const {
  if (state_ == kNotInitialized) log::fatal("%s was called before nvshmem_init", api);
  log::fatal(
      "%s was called before the GPU was bound: after nvshmem_init and cudaSetDevice, call nvshmem_malloc "
      "or nvshmem_barrier_all (on every PE) first",
      api);
}

Status Runtime::check_symmetric(const char* api, uint64_t a, uint64_t b,
                                const std::function<std::string(uint64_t, uint64_t)>& describe) {
  struct Pair {
    uint64_t a, b;
  };
  Pair mine{a, b};
  std::vector<Pair> all(static_cast<size_t>(boot_->size()));
  GSHMEM_CHECK(boot_->allgather(&mine, all.data(), sizeof mine));
  for (int pe = 1; pe < boot_->size(); ++pe) {
    if (all[pe].a != all[0].a || all[pe].b != all[0].b) {
      std::string detail;
      for (int q = 0; q < boot_->size() && q < 8; ++q) {
        detail += log::format("%sPE %d: %s", q ? ", " : "", q, describe(all[q].a, all[q].b).c_str());
      }
      GSHMEM_ERROR("%s is collective and must be called with the same arguments on every PE, but %s", api,
                   detail.c_str());
      return GSHMEM_ERROR_SYMMETRY;
    }
  }
  return GSHMEM_SUCCESS;
}

Status Runtime::allocate(size_t size, size_t align, bool zero, void** out, const char* api) {
  *out = nullptr;
  if (state_ == kNotInitialized) not_ready(api);
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(ensure_bound(api));
  std::lock_guard<std::mutex> lock(heap_mu_);
  GSHMEM_CHECK(check_symmetric(api, size, align, [](uint64_t sz, uint64_t al) {
    return log::format("%llu bytes aligned to %llu", static_cast<unsigned long long>(sz),
                       static_cast<unsigned long long>(al));
  }));
  if (size == 0) return GSHMEM_SUCCESS;
  if (!is_power_of_two(align)) {
    GSHMEM_ERROR("%s: alignment %zu is not a power of two", api, align);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  uint64_t off = 0;
  GSHMEM_CHECK(heap_.allocate(size, align, &off, api));
  if (zero) GSHMEM_CHECK(heap_.provider().zero(heap_.base() + off, size));
  GSHMEM_TRACE(kMem, "%s(%zu) -> offset %llu", api, size, static_cast<unsigned long long>(off));
  // Every PE has its block before anyone writes into a peer's.
  GSHMEM_CHECK(host_barrier(api));
  *out = heap_.base() + off;
  return GSHMEM_SUCCESS;
}

Status Runtime::release(void* p, const char* api) {
  if (!p) return GSHMEM_SUCCESS;
  if (state_ == kNotInitialized) not_ready(api);
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(ensure_bound(api));
  // No PE may still use the block when it is freed.
  GSHMEM_CHECK(host_barrier(api));
  std::lock_guard<std::mutex> lock(heap_mu_);
  const uint64_t kOutside = ~0ull;
  const bool inside = heap_.contains(p, 1);
  const uint64_t off = inside ? static_cast<uint64_t>(static_cast<char*>(p) - heap_.base()) : kOutside;
  // Agree first, so that a bad pointer on one PE fails the call on every PE instead of hanging.
  GSHMEM_CHECK(check_symmetric(api, off, 0, [&](uint64_t o, uint64_t) {
    return o == kOutside ? std::string("a pointer outside the heap")
                         : log::format("heap offset %llu", static_cast<unsigned long long>(o));
  }));
  if (!inside) {
    GSHMEM_ERROR(
        "%s: %p is not inside the symmetric heap [%p, %p): only pointers returned by nvshmem_malloc, "
        "nvshmem_calloc or nvshmem_align can be freed",
        api, p, static_cast<void*>(heap_.base()), static_cast<void*>(heap_.base() + heap_.mapped()));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!ok(heap_.free(off))) {
    uint64_t start = 0, size = 0;
    if (heap_.allocator().find(off, &start, &size)) {
      GSHMEM_ERROR("%s: %p points into the symmetric allocation at %p (%s) but not to its start; nothing was freed",
                   api, p, static_cast<void*>(heap_.base() + start), format_size(size).c_str());
    } else if (heap_.regions().containing(off, 1)) {
      GSHMEM_ERROR(
          "%s: %p lies in a buffer registered with nvshmemx_buffer_register_symmetric, which "
          "nvshmemx_buffer_unregister_symmetric releases; nothing was freed",
          api, p);
    } else {
      GSHMEM_ERROR("%s: %p is not a live symmetric allocation (freed twice?); nothing was freed", api, p);
    }
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

Status Runtime::reallocate(void* p, size_t size, void** out, const char* api) {
  *out = nullptr;
  if (!p) return allocate(size, 1, false, out, api);
  if (size == 0) return release(p, api);
  if (state_ == kNotInitialized) not_ready(api);
  uint64_t start = 0, old_size = 0;
  const bool live =
      heap_.contains(p, 1) &&
      heap_.allocator().find(static_cast<uint64_t>(static_cast<char*>(p) - heap_.base()), &start, &old_size) &&
      heap_.base() + start == p;
  // Agree first, so that a bad pointer on one PE fails the call on every PE instead of hanging.
  GSHMEM_CHECK(check_symmetric(api, live ? start : ~0ull, size, [](uint64_t o, uint64_t sz) {
    return o == ~0ull ? std::string("a pointer that is not a live symmetric allocation")
                      : log::format("heap offset %llu, new size %llu", static_cast<unsigned long long>(o),
                                    static_cast<unsigned long long>(sz));
  }));
  if (!live) {
    GSHMEM_ERROR("%s: %p is not the start of a live symmetric allocation; nothing was changed", api, p);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  void* fresh = nullptr;
  GSHMEM_CHECK(allocate(size, 1, false, &fresh, api));
  // Both blocks are this PE's own memory: a local copy, which the transport does on either backend.
  GSHMEM_CHECK(transport_->copy(fresh, p, std::min<uint64_t>(old_size, size), Completion::kBlocking, nullptr));
  GSHMEM_CHECK(release(p, api));
  *out = fresh;
  return GSHMEM_SUCCESS;
}

void* Runtime::ptr(const void* p, int pe) const {
  if (state_ != kInitialized || pe < 0 || pe >= n_pes() || !heap_.contains(p, 1)) return nullptr;
  char* base = heap_.peer_base(pe);
  return base ? base + (static_cast<const char*>(p) - heap_.base()) : nullptr;
}

Status Runtime::register_buffer(void* buf, size_t size, int flags, void** out, const char* api) {
  *out = nullptr;
  if (state_ == kNotInitialized) not_ready(api);
  if (backend_ == Backend::kCpu) {
    GSHMEM_ERROR(
        "%s: this job runs on the CPU backend (%s), whose symmetric heap is host shared memory: there is no GPU "
        "memory to register. Allocate symmetric memory with nvshmem_malloc instead",
        api, backend_reason_.c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(ensure_bound(api));
  std::lock_guard<std::mutex> lock(heap_mu_);
  GSHMEM_CHECK(
      check_symmetric(api, size, static_cast<uint64_t>(static_cast<int64_t>(flags)), [](uint64_t sz, uint64_t fl) {
        return log::format("%llu bytes, flags %d", static_cast<unsigned long long>(sz), static_cast<int>(fl));
      }));
  // The arguments agree, so every PE fails these checks alike.
  if (flags != 0) {
    GSHMEM_ERROR("%s: flags must be 0 (the argument is reserved), not %d", api, flags);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (size == 0) {
    GSHMEM_ERROR("%s: the size is 0: there is nothing to register", api);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  uint64_t off = 0;
  // Every PE has mapped every node peer's buffer when this returns: peers may access the alias at once.
  GSHMEM_CHECK(heap_.register_buffer(buf, size, api, &off));
  *out = heap_.base() + off;
  return GSHMEM_SUCCESS;
}

Status Runtime::unregister_buffer(void* alias, size_t size, const char* api) {
  if (state_ == kNotInitialized) not_ready(api);
  activity::Scope doing(api, "a collective step with every PE");
  GSHMEM_CHECK(ensure_bound(api));
  // No PE may still access the buffer through its alias when it is unmapped.
  GSHMEM_CHECK(host_barrier(api));
  std::lock_guard<std::mutex> lock(heap_mu_);
  const uint64_t kNone = ~0ull;
  const char* c = static_cast<const char*>(alias);
  const bool in_window = c >= heap_.base() && c < heap_.base() + heap_.slot();
  const RegisteredRegions::Region* r =
      in_window ? heap_.regions().at(static_cast<uint64_t>(c - heap_.base())) : nullptr;
  const uint64_t off = r ? r->offset : kNone;
  // Agree first, so that a bad pointer on one PE fails the call on every PE instead of hanging.
  GSHMEM_CHECK(check_symmetric(api, off, size, [&](uint64_t o, uint64_t sz) {
    return o == kNone ? log::format("a pointer that is not a registered buffer, %llu bytes",
                                    static_cast<unsigned long long>(sz))
                      : log::format("the registered buffer at heap offset %llu, %llu bytes",
                                    static_cast<unsigned long long>(o), static_cast<unsigned long long>(sz));
  }));
  if (!r) {
    GSHMEM_ERROR(
        "%s: %p is not an address that nvshmemx_buffer_register_symmetric returned (or it was unregistered "
        "already); nothing was unregistered",
        api, alias);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (r->size != size) {
    GSHMEM_ERROR("%s: the buffer at %p was registered with %llu bytes, not %zu; nothing was unregistered", api, alias,
                 static_cast<unsigned long long>(r->size), size);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return heap_.unregister_buffer(off);
}

std::string Runtime::device() const {
  if (backend_ == Backend::kCpu) return state_ == kInitialized ? "host shared memory" : "";
  return gpu_ ? gpu_->device_of(my_pe()) : "";
}

std::string Runtime::peer_route(int pe, std::string* why) const {
  why->clear();
  if (state_ != kInitialized || pe < 0 || pe >= n_pes()) return "";
  if (pe == my_pe()) {
    *why = "this PE";
    return "local memory";
  }
  const Route r = route(pe);
  if (r == Route::kNetwork) {
    *why = std::string(config_.disable_p2p &&
                               host_of_pe_[static_cast<size_t>(pe)] == host_of_pe_[static_cast<size_t>(my_pe())]
                           ? "NVSHMEM_DISABLE_P2P is set"
                           : "on another host") +
           ": " + network_->describe(pe) + (network_->staged() ? ", heaps staged through host buffers" : "");
    return std::string("network, ") + network_->name();
  }
  if (r == Route::kUnreachable) {
    *why = unreachable_reason();
    return "none";
  }
  if (backend_ == Backend::kCpu) {
    *why = "on the same host, its heap is mapped into this process";
    return "shared memory";
  }
  if (gpu_->same_gpu(pe)) {
    *why = "it uses the same GPU, whose memory of its heap is mapped here";
    return "GPU load/store, same GPU";
  }
  *why = "on the same host, with peer access from this GPU to its GPU (" + gpu_->device_of(pe) +
         "): its heap is mapped here, over NVLink or PCIe as the GPUs are connected";
  return "GPU load/store and copy engines";
}

void Runtime::log_routes() const {
  if (!log::enabled(log::Level::Info, log::kTransport)) return;
  // Grouped, so that a large job logs a line per kind of route, not per PE.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int pe = 0; pe < n_pes(); ++pe) {
    if (pe == my_pe()) continue;
    std::string why;
    const std::string route = peer_route(pe, &why) + " (" + why + ")";
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

std::string Runtime::unreachable_reason() const {
  const std::string network = no_network_.empty() ? "no network transport reaches it" : no_network_;
  if (config_.disable_p2p) return "NVSHMEM_DISABLE_P2P is set, and " + network;
  return "it runs on another host, and " + network;
}

void Runtime::quiet(const char* api) {
  if (state_ != kInitialized) return;  // nothing can be outstanding
  activity::Scope doing(api);
  if (!ok(complete_operations(false, nullptr, true))) log::fatal("%s failed", api);
}

Status Runtime::network_on_stream(const NetStreamCall& call, void* stream) const {
  return gpu_ ? gpu_->network_on_stream(call, stream) : GSHMEM_ERROR_NOT_SUPPORTED;
}

void Runtime::quiet_on_stream(void* stream, const char* api) {
  if (state_ != kInitialized) return;
  activity::Scope doing(api);
  if (!ok(complete_operations(true, stream, true))) log::fatal("%s failed", api);
}

Status Runtime::complete_operations(bool on_stream, void* stream, bool with_gpu) {
  GSHMEM_CHECK(on_stream ? transport_->quiet_on_stream(stream) : transport_->quiet());
  if (gpu_ && with_gpu) GSHMEM_CHECK(on_stream ? gpu_->quiet_on_stream(stream) : gpu_->quiet());
  // The host's operations across the network complete now, also for a stream: work queued on it after the
  // call starts after that.
  if (network_) GSHMEM_CHECK(network_->quiet());
  return GSHMEM_SUCCESS;
}

Status Runtime::host_barrier(const char* api) {
  GSHMEM_CHECK(complete_operations(false, nullptr, false));
  if (backend_ == Backend::kGpu) {
    activity::Scope doing(api, "the barrier of NVSHMEM_TEAM_WORLD");
    const WaitWatch::Options watch = wait_watch_options(api);
    return gpu_->barrier(nullptr, &watch);
  }
  if (!all_mapped_) {
    activity::Scope doing(api, "a barrier through the bootstrap");
    return boot_->barrier();
  }
  // CPU backend: the device barrier's algorithm (detail/flag_barrier.h) on host shared memory.
  const uint64_t seq = ++host_barrier_seq_;
  activity::Scope doing(api, "barrier %llu of NVSHMEM_TEAM_WORLD", seq);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  HostBarrierFlags flags{this, api, static_cast<uint64_t>(reinterpret_cast<char*>(barrier_flags_) - heap_.base())};
  detail::flag_barrier(flags, my_pe(), n_pes(), seq);
  return GSHMEM_SUCCESS;
}

void Runtime::HostBarrierFlags::arrive(int pe, uint64_t seq) const {
  auto* slot = reinterpret_cast<uint64_t*>(rt->heap_.peer_base(pe) + flags_offset) + rt->my_pe();
  __atomic_store_n(slot, seq, __ATOMIC_RELEASE);
}

void Runtime::HostBarrierFlags::wait(int pe, uint64_t seq) const {
  const uint64_t* flag = rt->barrier_flags_ + pe;
  if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= seq) return;
  rt->wait_barrier_flag(flag, seq, pe, "", "nvshmem_barrier_all or nvshmem_sync_all", api);
}

void Runtime::wait_barrier_flag(const uint64_t* flag, uint64_t target, int pe, const std::string& of_team,
                                const std::string& skipped, const char* api, bool packet) {
  const int shift = packet ? 32 : 0;
  const char* unit = packet ? "collective" : "barrier";
  auto reached = [flag, shift] {
    return static_cast<unsigned long long>(__atomic_load_n(flag, __ATOMIC_ACQUIRE) >> shift);
  };
  const auto seq = static_cast<unsigned long long>(target >> shift);
  WaitWatch watch(wait_watch_options(api));
  auto describe = [&] {
    return log::format(" for PE %d to arrive (it reached %s %llu%s, this is %s %llu%s)", pe, unit, reached(),
                       of_team.c_str(), unit, seq, of_team.c_str());
  };
  auto stuck = [&](const std::vector<int>& left) -> std::string {
    if (std::find(left.begin(), left.end(), pe) == left.end() || reached() >= seq) return "";
    return log::format(
        "it waits in %s %llu%s for PE %d, which has already called nvshmem_finalize and left the job after "
        "%s %llu%s: PE %d made fewer %ss than this PE (a skipped %s, or an early return on some path)",
        unit, seq, of_team.c_str(), pe, unit, reached(), of_team.c_str(), pe, unit, skipped.c_str());
  };
  HostBackoff backoff;
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < target) {
    if (backoff.pause()) watch.check(describe, stuck);
  }
}

void Runtime::warn_if_lazy_loading() const {
  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  if (cu().cuModuleGetLoadingMode(&mode) != CUDA_SUCCESS || mode != CU_MODULE_LAZY_LOADING) return;
  const char* set = std::getenv("CUDA_MODULE_LOADING");
  GSHMEM_WARN(kTransport,
              "CUDA loads kernels lazily (CUDA_MODULE_LOADING=%s), which can hang a GPU job across the network: the "
              "first launch of a kernel can wait for the GPU's running kernels, while a kernel that waits for a "
              "peer's data needs this PE's network thread to get it onto the GPU. Set CUDA_MODULE_LOADING=EAGER when "
              "GPUs reach each other through the network (gshmrun does, unless it is set; docs/network.md)",
              set ? set : "unset: CUDA's default");
}

std::unique_ptr<StallWatch> Runtime::make_network_stall_watch() const {
  StallWatch::Options o;
  o.my_pe = my_pe();
  o.warn_s = config_.wait_warn;
  o.timeout_s = config_.wait_timeout;
  o.subsys = log::kTransport;
  o.context = [] {
    return " This PE's program is " + activity::describe() +
           ". A kernel on this GPU that waits for a peer (a stream's wait for a signal, a barrier) keeps the GPU "
           "busy, and a CUDA call of another thread that waits for the GPU to be idle then holds up this PE's "
           "own GPU work: under CUDA's lazy loading, the first launch of a kernel can be one "
           "(CUDA_MODULE_LOADING=EAGER loads every kernel at start).";
  };
  return std::make_unique<StallWatch>(std::move(o));
}

void Runtime::network_waiting(int pe, const char* what, double waited_s, double last_s) {
  // A peer whose process is stopped, or whose own progress cannot run, never answers, and the network
  // library does not see it: the plugin reports its waits that last every second.
  const std::string api = network_ ? std::string("network transport ") + network_->name() : "network transport";
  WaitWatch::Options options = wait_watch_options(api.c_str());
  options.subsys = log::kTransport;
  WaitWatch watch(options, waited_s, last_s);
  auto describe = [&] {
    std::string d = std::string(" for ") + what;
    if (pe >= 0) {
      d += log::format(
          " (PE %d is in the job but does not answer: is its process stopped, or its network progress unable to "
          "run?)",
          pe);
    }
    return d;
  };
  auto stuck = [&](const std::vector<int>& left) -> std::string {
    if (pe < 0 || std::find(left.begin(), left.end(), pe) == left.end()) return "";
    return log::format("it waits for PE %d (%s), which has called nvshmem_finalize and left the job", pe, what);
  };
  watch.check(describe, stuck);
}

WaitWatch::Options Runtime::wait_watch_options(const char* api) const {
  WaitWatch::Options o;
  o.api = api;
  o.my_pe = my_pe();
  o.n_pes = n_pes();
  o.warn_s = config_.wait_warn;
  o.timeout_s = config_.wait_timeout;
  o.boot = boot_.get();
  return o;
}

void Runtime::barrier_all(const char* api) {
  if (state_ == kNotInitialized) not_ready(api);
  if (!ok(ensure_bound(api)) || !ok(host_barrier(api))) log::fatal("%s failed", api);
}

void Runtime::barrier_all_on_stream(void* stream, const char* api) {
  if (state_ == kNotInitialized) not_ready(api);
  if (!ok(ensure_bound(api))) log::fatal("%s failed", api);
  if (backend_ == Backend::kCpu) {
    if (!ok(host_barrier(api))) log::fatal("%s failed", api);
    return;
  }
  if (!ok(transport_->quiet_on_stream(stream)) || !ok(gpu_->barrier(stream, nullptr))) log::fatal("%s failed", api);
}

void Runtime::announce_exit(int status) {
  // A child of fork() that exits inherited the handler, not the PE: it must not speak for it.
  if (boot_ && !ending_job_ && getpid() == init_pid_) boot_->announce_exit(status);
}

void Runtime::global_exit(int code) {
  ending_job_ = true;
  if (boot_) boot_->abort_job(code, "nvshmem_global_exit");
  std::fflush(nullptr);
  std::_Exit(code);
}

Status Runtime::finalize(const char* api) {
  if (state_ == kNotInitialized) {
    if (finalized_) {
      GSHMEM_WARN(kInit, "%s: nvshmem_finalize was already called in this process; this call does nothing", api);
    } else {
      GSHMEM_WARN(kInit, "%s called without nvshmem_init", api);
    }
    return GSHMEM_SUCCESS;
  }
  activity::Scope doing(api);
  Status s = GSHMEM_SUCCESS;
  if (state_ == kInitialized) {
    // The GPU's work of this PE first: stream-ordered operations across the network that are still queued
    // need the network proxy and the peers, which the barrier lets go.
    if (gpu_) gpu_->synchronize();
    // Nobody may still access a heap that is about to be unmapped.
    s = host_barrier(api);
    if (gpu_) {
      withdraw_device_state();
      gpu_->synchronize();
    }
    // The heap is unmapped while the GPU context still exists; the context goes last.
    teams_.finalize();
    coll_.set_engine(nullptr);
    coll_engine_.reset();
    // After the barrier no PE accesses another's heap any more; not collective.
    if (gpu_) gpu_->stop_network_proxy();
    if (network_ && !ok(network_->finalize()) && ok(s)) s = GSHMEM_ERROR_SYSTEM;
    network_.reset();
    network_stall_.reset();
    transport_.reset();
    heap_.finalize();
    if (gpu_) gpu_->destroy();
    gpu_.reset();
  }
  Status b = boot_->finalize();
  boot_.reset();
  state_ = kNotInitialized;
  finalized_ = true;
  return ok(s) ? b : s;
}

}  // namespace gshmem
