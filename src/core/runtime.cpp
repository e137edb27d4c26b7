#include "core/runtime.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>

#include "bootstrap/uniqueid.h"
#include "core/activity.h"
#include "core/gpu_coll_engine.h"
#include "core/gpu_resources.h"
#include "core/module_registry.h"
#include "gshmem/constants.h"
#include "gshmem/version.h"
#include "team/predefined.h"
#include "util/cuda_driver.h"
#include "util/host_wait.h"
#include "util/log.h"
#include "util/socket.h"

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

// Reads the settings and applies the logging ones; a malformed setting fails `api`.
Status load_settings(Config* config, const char* api) {
  std::string errors;
  Status s = parse_config_from_environment(config, &errors);
  log::configure(*config);
  if (!ok(s)) GSHMEM_ERROR("%s: invalid settings:\n  %s", api, errors.c_str());
  return s;
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

// Runs when the process exits (exit() or a return from main) with the status it exits with.
void on_process_exit(int status, void*) { Runtime::instance().announce_exit(status); }

}  // namespace

Runtime& Runtime::instance() {
  static Runtime* r = new Runtime();  // never destroyed: entry points may run during exit
  return *r;
}

Status Runtime::init(const InitOptions& options, const char* api) {
  if (state_ != kNotInitialized) {
    GSHMEM_INFO(kInit, "%s: already initialised", api);
    return GSHMEM_SUCCESS;
  }
  options_ = options;
  const BootstrapRequest& request = options.bootstrap;
  if (request.kind == BootstrapRequest::Kind::kUniqueId && request.uid) {
    const auto* id = static_cast<const uint8_t*>(request.uid);
    uid_.assign(id, id + request.uid_len);
  } else {
    uid_.clear();
  }
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
  GSHMEM_CHECK(start_bootstrap(api));
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
  teams_.set_predefined(predefined_teams(boot_->rank(), host_of_pe_, config_.disable_p2p), boot_->rank());
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

bool Runtime::can_rejoin(const BootstrapRequest& request) const {
  if (request.kind != parked_request_.kind) return false;
  switch (request.kind) {
    case BootstrapRequest::Kind::kAuto:
      return true;  // the same launcher's job
    case BootstrapRequest::Kind::kUniqueId:
      return uid_ == parked_uid_ && request.uid_rank == parked_request_.uid_rank &&
             request.uid_size == parked_request_.uid_size;
    case BootstrapRequest::Kind::kMpiComm:
      return false;  // perhaps another communicator: the application's MPI starts a new bootstrap
  }
  return false;
}

Status Runtime::start_bootstrap(const char* api) {
  if (parked_ && getpid() != init_pid_) {
    // A child of fork(): the parked connection is its parent's (closing it would close the parent's too).
    (void)parked_.release();
  }
  if (parked_ && !can_rejoin(options_.bootstrap)) {
    // Another job than the last session's (a new unique ID, an MPI communicator): the old one is left.
    GSHMEM_INFO(kInit, "%s: leaving the last session's job to start another", api);
    parked_->finalize();
    parked_.reset();
  }
  if (!parked_) return create_bootstrap(config_, options_.bootstrap, &boot_, &started_by_);
  GSHMEM_INFO(kInit, "%s: a new session of the last session's job (%s)", api, started_by_.c_str());
  boot_ = std::move(parked_);
  const Status s = boot_->rejoin();
  if (!ok(s)) {
    boot_->finalize();
    boot_.reset();
  }
  return s;
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
  // The CPUs this process may run on (a cpuset or a launcher's binding narrows them), counted as the node's.
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const long cpus = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : sysconf(_SC_NPROCESSORS_ONLN);
  host_oversubscribed().store(cpus > 0 && static_cast<long>(node_pes_.size()) > cpus, std::memory_order_relaxed);
  if (host_oversubscribed().load(std::memory_order_relaxed)) {
    GSHMEM_INFO(kTopo, "%zu PEs on %ld CPUs: waiting threads yield their CPU at every poll", node_pes_.size(), cpus);
  }
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
  if (backend_ == Backend::kCpu && config_.tma_policy == "FORCE") {
    GSHMEM_ERROR(
        "NVSHMEM_TMA_POLICY=FORCE needs a GPU with a bulk-copy (TMA) unit (compute capability 9.0 or newer), but "
        "this PE runs on the CPU backend (%s). Set NVSHMEM_TMA_POLICY=ENABLE or DISABLE",
        backend_reason_.c_str());
    return GSHMEM_ERROR_NOT_SUPPORTED;
  }
  return GSHMEM_SUCCESS;
}

Status Runtime::setup_heap(std::unique_ptr<MemoryProvider> provider) {
  HeapOptions ho;
  ho.initial_bytes = config_.symmetric_size;
  ho.limit_bytes = config_.max_memory_per_gpu;
  ho.growth_step = config_.cumem_granularity;
  ho.map_peers = !config_.disable_p2p;
  ho.timeout_s = config_.bootstrap_timeout;
  GSHMEM_CHECK(heap_.init(boot_.get(), std::move(provider), ho, node_pes_, node_pids_, job_key_, job_token_));
  GSHMEM_CHECK(transports_.open(boot_.get(), &heap_, transport_options(), transport_hooks()));
  // The team region: the table of team slots, then the teams' sync areas (team/teams.h). The first
  // allocation, at the same offset on every PE; what is inside is this PE's own.
  const uint64_t capacity = static_cast<uint64_t>(team_capacity());
  // Kernels reduce across the network through a scratch in each team's sync area (team.h); the CPU
  // backend's host code gathers the sources instead.
  if (backend_ == Backend::kGpu && transports_.network()) {
    reduce_scratch_ = static_cast<uint32_t>(std::min<uint64_t>(config_.reduce_scratch_size, 1ull << 30) & ~15ull);
  }
  const uint64_t space = config_.team_space ? config_.team_space
                                            : (4ull << 20) + (320ull << 10) * static_cast<uint64_t>(boot_->size()) +
                                                  16ull * reduce_scratch_;
  team_region_bytes_ = capacity * sizeof(detail::TeamSlot) + space;
  GSHMEM_CHECK(heap_.allocate(team_region_bytes_, 64, &team_region_, "nvshmem_init"));
  return GSHMEM_SUCCESS;
}

TransportOptions Runtime::transport_options() const {
  TransportOptions o;
  o.gpu = backend_ == Backend::kGpu;
  o.disable_p2p = config_.disable_p2p;
  o.remote_transport = config_.remote_transport;
  o.plugin = config_.transport_plugin;
  o.staging_always = config_.net_staging == "always";
  o.host_of_pe = host_of_pe_;
  o.wait_warn_s = config_.wait_warn;
  o.wait_timeout_s = config_.wait_timeout;
  return o;
}

TransportHooks Runtime::transport_hooks() {
  TransportHooks h;
  // The thread may be the program's own (a peer's operation is served by whichever thread progresses the
  // network, one in nvshmem_quiet among them): its current context is put back.
  h.on_gpu_thread = [this](const std::function<Status()>& f) {
    if (!gpu_) return backend_ == Backend::kGpu ? GSHMEM_ERROR_INVALID_VALUE : f();
#ifdef GSHMEM_HAVE_CUDA
    CUcontext was = nullptr;
    cu().cuCtxGetCurrent(&was);
    gpu_->make_current();
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    cu().cuThreadExchangeStreamCaptureMode(&mode);
    const Status s = f();
    cu().cuThreadExchangeStreamCaptureMode(&mode);
    cu().cuCtxSetCurrent(was);
    return s;
#else
    return GSHMEM_ERROR_INVALID_VALUE;  // a build without CUDA has no GPU resources (gpu_ stays empty)
#endif
  };
  h.waiting = [this](int pe, const char* what, double waited_s, double last_s) {
    const std::string api =
        std::string("network transport ") + (transports_.network() ? transports_.network()->name() : "");
    report_network_wait(wait_watch_options(api.c_str()), pe, what, waited_s, last_s);
  };
  h.stall_context = [] {
    return " This PE's program is " + activity::describe() +
           ". A kernel on this GPU that waits for a peer (a stream's wait for a signal, a barrier) keeps the GPU "
           "busy, and a CUDA call of another thread that waits for the GPU to be idle then holds up this PE's "
           "own GPU work: under CUDA's lazy loading, the first launch of a kernel can be one "
           "(CUDA_MODULE_LOADING=EAGER loads every kernel at start).";
  };
  h.describe_mapped = [this](int pe, std::string* why) -> std::string {
    if (!gpu_) return "";
    if (gpu_->same_gpu(pe)) {
      *why = "it uses the same GPU, whose memory of its heap is mapped here";
      return "GPU load/store, same GPU";
    }
    *why = "on the same host, with peer access from this GPU to its GPU (" + gpu_->device_of(pe) +
           "): its heap is mapped here, over NVLink or PCIe as the GPUs are connected";
    return "GPU load/store and copy engines";
  };
  return h;
}

int Runtime::team_capacity() const {
  return static_cast<int>(std::min<int64_t>(std::max<int64_t>(config_.max_teams, 8), 1 << 20));
}

Status Runtime::setup_teams() {
  if (backend_ == Backend::kCpu) {
    coll_engine_ = make_host_coll_engine(
        heap_, transports_,
        [this](const uint64_t* flag, uint64_t target, int team, int pe, bool packet, const char* api) {
          wait_for_flag(wait_watch_options(api), flag, target, pe, team, packet);
        });
  } else {
    GpuCollSetup g;
    g.heap = &heap_;
    g.transports = &transports_;
    g.gpu = gpu_.get();
    g.config = &config_;
    g.reduce_scratch = reduce_scratch_;
    g.watch = [this](const char* api) { return wait_watch_options(api); };
    coll_engine_ = make_gpu_coll_engine(std::move(g));
  }
  coll_.set_engine(coll_engine_.get());
  coll_.set_check_arguments(config_.enable_error_checks);
  Teams::Services sv;
  sv.heap = &heap_;
  sv.transports = &transports_;
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
  const uint64_t capacity = static_cast<uint64_t>(team_capacity());
  GSHMEM_CHECK(teams_.init(sv, team_region_, team_region_bytes_, static_cast<int>(capacity)));
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
  transports_.set_memory(make_host_memory_transport());
  GSHMEM_CHECK(setup_teams());
  // Nobody may signal a peer's flags before the peer has zeroed them.
  GSHMEM_CHECK(boot_->barrier());
  state_ = kInitialized;
  transports_.log_routes();
  return GSHMEM_SUCCESS;
}

Status Runtime::bind_gpu(const char* api) {
  GpuBinding b;
  b.boot = boot_.get();
  b.config = &config_;
  b.requested_device = options_.cuda_device;
  b.node_pes = node_pes_;
  const TeamInfo* node = teams_.find(GSHMEM_TEAM_NODE);
  b.node_mype = node ? node->my_index : 0;
  b.setup_heap = [this](std::unique_ptr<MemoryProvider> provider) { return setup_heap(std::move(provider)); };
  b.heap = &heap_;
  b.team_table = [this] { return reinterpret_cast<detail::TeamSlot*>(heap_.base() + team_region_); };
  b.team_capacity = team_capacity();
  b.world_sync = [this] { return teams_.find(GSHMEM_TEAM_WORLD)->sync; };
  b.transports = &transports_;
  b.global_exit = [this](int code) { global_exit(code); };
  Status s = bind_gpu_backend(b, api, &gpu_);
  if (ok(s)) {
    transports_.set_stream_poster(
        [this](const NetStreamCall& call, void* stream) { return gpu_->network_on_stream(call, stream); });
    s = setup_teams();
  }
  // No PE may arrive at a peer's team flags before the peer has zeroed them.
  if (ok(s)) s = boot_->barrier();
  if (ok(s)) {
    state_ = kInitialized;
    transports_.log_routes();
  }
  return s;
}

Status Runtime::ensure_bound(const char* api) {
  if (state_ == kInitialized) return GSHMEM_SUCCESS;
  if (state_ == kNotInitialized) not_ready(api);
  return bind_gpu(api);
}

void Runtime::not_ready(const char* api) const {
  if (state_ == kNotInitialized) log::misuse("%s was called before nvshmem_init", api);
  log::misuse(
      "%s was called before the GPU was bound: after nvshmem_init and cudaSetDevice, call nvshmem_malloc "
      "or nvshmem_barrier_all (on every PE) first",
      api);
}

std::string Runtime::device() const {
  if (backend_ == Backend::kCpu) return state_ == kInitialized ? "host shared memory" : "";
  return gpu_ ? gpu_->device_of(my_pe()) : "";
}

void Runtime::quiet(const char* api) {
  if (state_ != kInitialized) return;  // nothing can be outstanding
  activity::Scope doing(api);
  if (!ok(complete_operations(false, nullptr, true))) log::fatal("%s failed", api);
}

void Runtime::quiet_on_stream(void* stream, const char* api) {
  if (state_ != kInitialized) return;
  activity::Scope doing(api);
  if (!ok(complete_operations(true, stream, true))) log::fatal("%s failed", api);
}

// The host's operations to one PE are ordered by completing them: a fence is a quiet.
void Runtime::fence(const char* api) { quiet(api); }

Status Runtime::complete_operations(bool on_stream, void* stream, bool with_gpu) {
  GSHMEM_CHECK(on_stream ? transports_.quiet_on_stream(stream) : transports_.quiet());
  if (gpu_ && with_gpu) GSHMEM_CHECK(on_stream ? gpu_->quiet_on_stream(stream) : gpu_->quiet());
  return GSHMEM_SUCCESS;
}

Status Runtime::world_barrier(const char* api) {
  GSHMEM_CHECK(complete_operations(false, nullptr, false));
  activity::Scope doing(api, "the barrier of NVSHMEM_TEAM_WORLD");
  if (backend_ == Backend::kGpu) {
    // The kernel of the device's barrier_all (the world team's barrier), which completes the library's
    // own GPU work first, waited for with a report of the PEs that have not arrived.
    const WaitWatch::Options watch = wait_watch_options(api);
    return gpu_->barrier(nullptr, &watch);
  }
  // No transport reaches some PE (the CPU backend goes on without a network, and fails the operations on
  // such PEs): only the bootstrap can still synchronise the job.
  if (!transports_.reaches_all()) return boot_->barrier();
  CollCall c;
  c.op = detail::CollOp::kBarrier;
  c.team = GSHMEM_TEAM_WORLD;
  return coll_.run(c, false, nullptr, api);
}

WaitWatch::Options Runtime::wait_watch_options(const char* api) const {
  WaitWatch::Options o;
  o.api = api;
  o.my_pe = my_pe();
  o.n_pes = n_pes();
  o.warn_s = config_.wait_warn;
  o.timeout_s = config_.wait_timeout;
  o.boot = boot_.get();
  // The CPU backend's waits take the network's messages themselves. (On the GPU backend the network's
  // progress may copy into GPU memory, which the program's thread may not do while it captures a graph;
  // the plugin's and the proxy's threads progress it there.)
  if (backend_ == Backend::kCpu) o.work = transports_.poll_work();
  return o;
}

void Runtime::barrier_all(const char* api) {
  if (state_ == kNotInitialized) not_ready(api);
  if (!ok(ensure_bound(api)) || !ok(world_barrier(api))) log::fatal("%s failed", api);
}

void Runtime::barrier_all_on_stream(void* stream, const char* api) {
  if (state_ == kNotInitialized) not_ready(api);
  if (!ok(ensure_bound(api))) log::fatal("%s failed", api);
  if (backend_ == Backend::kCpu) {
    if (!ok(world_barrier(api))) log::fatal("%s failed", api);
    return;
  }
  if (!ok(transports_.quiet_on_stream(stream)) || !ok(gpu_->barrier(stream, nullptr))) log::fatal("%s failed", api);
}

void Runtime::announce_exit(int status) {
  // A child of fork() that exits inherited the handler, not the PE: it must not speak for it.
  if (getpid() != init_pid_ || ending_job_) return;
  if (boot_) {
    boot_->announce_exit(status);
  } else if (parked_) {
    parked_->finalize();  // finalized: the process leaves the job cleanly
    parked_.reset();
  }
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
    s = world_barrier(api);
    if (gpu_) {
      withdraw_device_state();
      gpu_->synchronize();
    }
    // The heap is unmapped while the GPU context still exists; the context goes last.
    teams_.finalize();
    coll_.set_engine(nullptr);
    coll_engine_.reset();
    // After the barrier no PE accesses another's heap any more; not collective.
    if (gpu_) gpu_->stop_proxy();
    const Status t = transports_.finalize();
    if (ok(s)) s = t;
    heap_.finalize();
    if (gpu_) gpu_->destroy();
    gpu_.reset();
  }
  // The bootstrap stays in the job, parked, so that this process may initialise again; it leaves the job
  // when the process exits (or at an init that starts another job).
  Status b = boot_->park();
  parked_ = std::move(boot_);
  parked_request_ = options_.bootstrap;
  parked_uid_ = uid_;
  regions_.clear();
  local_buffers_.clear();
  state_ = kNotInitialized;
  finalized_ = true;
  return ok(s) ? b : s;
}

}  // namespace gshmem
