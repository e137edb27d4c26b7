#include "transport/network.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "bootstrap/bootstrap.h"
#include "util/config.h"
#include "util/log.h"
#include "util/plugin_loader.h"

namespace gshmem {
namespace {

void services_log(void*, int level, const char* line) {
  if (level <= 0) {
    GSHMEM_WARN(kTransport, "%s", line);
  } else if (level == 1) {
    GSHMEM_INFO(kTransport, "%s", line);
  } else {
    GSHMEM_TRACE(kTransport, "%s", line);
  }
}

// Loads and starts the plugin on this PE; "" or the reason it could not.
std::string start_plugin(const std::string& path, const gshmem_transport_services_v1_t& sv,
                         gshmem_transport_plugin_v1_t* p) {
  std::string errors;
  void* handle = open_plugin_library(path, &errors);
  if (!handle) return "cannot load " + path + ": " + errors;
  auto init = reinterpret_cast<gshmem_transport_plugin_init_fn>(dlsym(handle, GSHMEM_TRANSPORT_PLUGIN_INIT_SYMBOL));
  if (!init) return path + " is not a gshmem transport plugin (it has no " GSHMEM_TRANSPORT_PLUGIN_INIT_SYMBOL ")";
  char why[512] = "";
  if (init(&sv, p, GSHMEM_TRANSPORT_PLUGIN_ABI, why, sizeof why) != 0) {
    return path + " could not start: " + (why[0] ? why : "no reason given");
  }
  if (p->abi_version != GSHMEM_TRANSPORT_PLUGIN_ABI || !p->connect || !p->add_memory || !p->put || !p->get ||
      !p->atomic || !p->fence || !p->quiet || !p->finalize || !p->describe) {
    return path + log::format(" speaks transport plugin ABI %u (gshmem speaks %d)", p->abi_version,
                              GSHMEM_TRANSPORT_PLUGIN_ABI);
  }
  return "";
}

// Every PE's reason (or ""), gathered; the failed ones in one line.
Status agree(Bootstrap* boot, const std::string& mine, std::string* why) {
  char line[240] = "";
  std::snprintf(line, sizeof line, "%s", mine.c_str());
  std::vector<char> all(sizeof line * static_cast<size_t>(boot->size()));
  GSHMEM_CHECK(boot->allgather(line, all.data(), sizeof line));
  why->clear();
  int failed = 0;
  for (int pe = 0; pe < boot->size(); ++pe) {
    const char* r = all.data() + sizeof line * static_cast<size_t>(pe);
    if (!r[0]) continue;
    if (++failed <= 4) *why += log::format("%sPE %d: %s", why->empty() ? "" : "; ", pe, r);
  }
  if (failed > 4) *why += log::format("; and %d more PEs", failed - 4);
  return failed ? GSHMEM_ERROR_NOT_SUPPORTED : GSHMEM_SUCCESS;
}

}  // namespace

// The services the plugin calls back; their context is the NetworkTransport (a friend of each).
int services_allgather(void* ctx, const void* mine, void* all, size_t bytes) {
  return ok(static_cast<NetworkTransport*>(ctx)->boot_->allgather(mine, all, bytes)) ? 0 : 1;
}

// The plugin ABI numbers its atomics as AmoOp does.
static_assert(GSHMEM_TRANSPORT_AMO_CSWAP == static_cast<int>(AmoOp::kCompareSwap) &&
                  GSHMEM_TRANSPORT_AMO_FADD == static_cast<int>(AmoOp::kFloatAdd),
              "the plugin ABI's atomic numbers are AmoOp's");

int services_local_atomic(void* ctx, uint64_t offset, int op, int bytes, uint64_t operand, uint64_t compare,
                          uint64_t* old) {
  auto* t = static_cast<NetworkTransport*>(ctx);
  if (!amo_applies(static_cast<AmoOp>(op), bytes)) {
    GSHMEM_ERROR("network transport %s: a peer asked for atomic %d on %d bytes, which gshmem does not have",
                 t->plugin_.name, op, bytes);
    return 1;
  }
  *old = 0;
  const Status s = t->local_.atomic(offset, Amo{static_cast<AmoOp>(op), bytes, operand, compare}, old);
  if (ok(s)) return 0;
  GSHMEM_ERROR("network transport %s: the atomic a peer sent to heap offset %llu of this PE could not be applied",
               t->plugin_.name, static_cast<unsigned long long>(offset));
  return 1;
}

int services_local_copy(void* ctx, uint64_t offset, void* host, size_t bytes, int to_heap) {
  auto* t = static_cast<NetworkTransport*>(ctx);
  if (ok(t->local_.copy_heap(offset, host, bytes, to_heap != 0))) return 0;
  GSHMEM_ERROR("network transport %s: a peer's %s of %zu bytes at heap offset %llu of this PE could not be applied",
               t->plugin_.name, to_heap ? "put" : "get", bytes, static_cast<unsigned long long>(offset));
  return 1;
}

void services_waiting(void* ctx, int pe, const char* what, double waited_s, double last_s) {
  auto* t = static_cast<NetworkTransport*>(ctx);
  if (t->waiting_) t->waiting_(pe, what ? what : "the network", waited_s, last_s);
}

Status NetworkTransport::open(const std::string& path, Bootstrap* boot, const std::vector<unsigned char>& reach,
                              LocalMemory local, NetworkWaitReport waiting, std::unique_ptr<NetworkTransport>* out,
                              std::string* why) {
  std::unique_ptr<NetworkTransport> t(new NetworkTransport());
  t->boot_ = boot;
  t->local_ = std::move(local);
  t->waiting_ = std::move(waiting);
  t->services_.ctx = t.get();
  t->services_.rank = boot->rank();
  t->services_.size = boot->size();
  t->services_.allgather = &services_allgather;
  t->services_.log = &services_log;
  t->services_.local_atomic = &services_local_atomic;
  t->services_.local_copy = &services_local_copy;
  t->services_.waiting = &services_waiting;
  t->reach_ = reach;
  const std::string started = start_plugin(path, t->services_, &t->plugin_);
  t->open_ = started.empty();
  // A plugin that started here is finalized when the transport does not open on every PE: its threads
  // would outlive the transport that they call back (the job may go on without the network).
  Status s = agree(boot, started, why);
  if (!ok(s)) {
    t->finalize();
    return s;
  }
  char reason[512] = "";
  const bool connected = t->plugin_.connect(&t->plugin_, reach.data(), reason, sizeof reason) == 0;
  s = agree(boot, connected ? "" : std::string("connecting: ") + reason, why);
  if (!ok(s)) {
    t->finalize();
    return s;
  }
  t->caps_.gpu_memory = (t->plugin_.caps & GSHMEM_TRANSPORT_CAP_CUDA_MEMORY) != 0;
  *out = std::move(t);
  return GSHMEM_SUCCESS;
}

NetworkTransport::~NetworkTransport() {
  // A transport that was not finalized (the job ends on an error) is left to the process's exit: its
  // peers may be gone, and a collective disconnect would wait for them.
}

std::string NetworkTransport::describe(int pe) const {
  char line[512] = "";
  plugin_.describe(const_cast<gshmem_transport_plugin_v1_t*>(&plugin_), pe, line, sizeof line);
  return line;
}

std::string NetworkTransport::left_note(int pe) const {
  // A peer that finalizes closes its connections before it tells the bootstrap that it left: give it
  // a moment (the job ends on this failure anyway).
  std::string gone;
  for (int tries = 0; tries < 20 && gone.empty(); ++tries) {
    if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::vector<int> left;
    if (!ok(boot_->finished_pes(&left))) return "";
    for (int p : left) {
      if ((pe < 0 && reaches(p)) || p == pe) gone += log::format("%s%d", gone.empty() ? "" : ", ", p);
    }
  }
  if (gone.empty()) return "";
  return log::format(
      ". PE %s already called nvshmem_finalize and left the job: it made fewer collective calls than this PE (a "
      "skipped collective, or an early return on some path), or this PE accessed it after its finalize",
      gone.c_str());
}

Status NetworkTransport::failed(const char* what, int pe, const char* why) const {
  // A peer that left is the likely cause of a failure; the bootstrap's root knows who did.
  const std::string note = left_note(pe);
  if (pe >= 0) {
    GSHMEM_ERROR("network transport %s: %s with PE %d failed: %s%s", plugin_.name, what, pe, why[0] ? why : "no reason",
                 note.c_str());
  } else {
    GSHMEM_ERROR("network transport %s: %s failed: %s%s", plugin_.name, what, why[0] ? why : "no reason", note.c_str());
  }
  return GSHMEM_ERROR_SYSTEM;
}

Status NetworkTransport::add_memory(void* addr, uint64_t bytes, uint64_t offset, bool gpu_memory) {
  char why[512] = "";
  gpu_heap_ = gpu_heap_ || gpu_memory;
  const int type = staged_      ? GSHMEM_TRANSPORT_MEM_STAGED
                   : gpu_memory ? GSHMEM_TRANSPORT_MEM_CUDA
                                : GSHMEM_TRANSPORT_MEM_HOST;
  if (plugin_.add_memory(&plugin_, addr, bytes, offset, type, why, sizeof why) != 0) {
    return failed(log::format("registering %s of the heap", format_size(bytes).c_str()).c_str(), -1, why);
  }
  GSHMEM_INFO(kTransport, "%s: heap offsets [%llu, %llu) %s (%s memory)", plugin_.name,
              static_cast<unsigned long long>(offset), static_cast<unsigned long long>(offset + bytes),
              staged_ ? "staged: reached through messages" : "registered", gpu_memory ? "GPU" : "host");
  return GSHMEM_SUCCESS;
}

template <class Call>
Status NetworkTransport::issue(const char* what, size_t bytes, int pe, Call&& call) {
  char why[512];
  for (int tries = 1;; ++tries) {
    why[0] = '\0';
    const int rc = call(why, sizeof why);
    if (rc == GSHMEM_TRANSPORT_OK || rc == GSHMEM_TRANSPORT_IN_PROGRESS) return GSHMEM_SUCCESS;
    // The operation's description is made only here, off the path of an operation that went.
    const std::string named = log::format("%s of %zu bytes", what, bytes);
    if (rc != GSHMEM_TRANSPORT_NO_RESOURCES) return failed(named.c_str(), pe, why);
    if (tries == kTries) {
      std::snprintf(why, sizeof why, "the network library stayed out of resources through %d tries, each after a quiet",
                    kTries);
      return failed(named.c_str(), pe, why);
    }
    GSHMEM_TRACE(kTransport, "%s: %s with PE %d: out of resources, completing what is outstanding first", plugin_.name,
                 named.c_str(), pe);
    GSHMEM_CHECK(quiet());
  }
}

namespace {
// The host buffer of a staged put or get takes this much at a time.
constexpr size_t kStagePiece = 4u << 20;
}  // namespace

Status NetworkTransport::put_staged(int pe, uint64_t offset, const void* src, size_t bytes) {
  std::vector<char> host(std::min(bytes, kStagePiece));
  for (size_t at = 0; at < bytes; at += host.size()) {
    const size_t n = std::min(host.size(), bytes - at);
    GSHMEM_CHECK(local_.copy(host.data(), static_cast<const char*>(src) + at, n));
    // Blocking: the host buffer is reused for the next piece (remote completion is still by quiet).
    GSHMEM_CHECK(issue("a put", bytes, pe, [&](char* why, size_t len) {
      return plugin_.put(&plugin_, pe, offset + at, host.data(), n, 1, why, len);
    }));
  }
  return GSHMEM_SUCCESS;
}

Status NetworkTransport::get_staged(void* dst, int pe, uint64_t offset, size_t bytes) {
  std::vector<char> host(std::min(bytes, kStagePiece));
  for (size_t at = 0; at < bytes; at += host.size()) {
    const size_t n = std::min(host.size(), bytes - at);
    GSHMEM_CHECK(issue("a get", bytes, pe, [&](char* why, size_t len) {
      return plugin_.get(&plugin_, host.data(), pe, offset + at, n, 1, why, len);
    }));
    GSHMEM_CHECK(local_.copy(static_cast<char*>(dst) + at, host.data(), n));
  }
  return GSHMEM_SUCCESS;
}

Status NetworkTransport::put(int pe, uint64_t offset, const void* src, size_t bytes, Completion completion) {
  // A GPU buffer that the network library cannot read goes through host memory (complete on return: a
  // non-blocking put completes early, which its contract allows).
  if (staged_ && bytes > 0 && local_.on_gpu(src)) return put_staged(pe, offset, src, bytes);
  return issue("a put", bytes, pe, [&](char* why, size_t len) {
    return plugin_.put(&plugin_, pe, offset, src, bytes, completion != Completion::kNbi, why, len);
  });
}

Status NetworkTransport::put_flagged(int pe, uint64_t offset, const void* src, size_t bytes, uint64_t flag_offset,
                                     uint64_t flag) {
  // A GPU heap takes the puts: the target would apply a message through a kernel from the plugin's thread,
  // which may queue behind the program's own kernels (the GPU backend's collectives do not send these anyway).
  if (plugin_.put_flagged == nullptr || bytes > kFlaggedBytes || gpu_heap_ ||
      (staged_ && bytes > 0 && local_.on_gpu(src))) {
    // The data, a fence (which keeps the flag behind the data at the target), the flag (a put: it has one
    // writer and only grows, so it needs no atomic, which networks that emulate atomics apply in software).
    if (bytes > 0) {
      GSHMEM_CHECK(put(pe, offset, src, bytes, Completion::kBlocking));
      GSHMEM_CHECK(fence());
    }
    return put(pe, flag_offset, &flag, sizeof flag, Completion::kBlocking);
  }
  return issue("a flagged message", bytes, pe, [&](char* why, size_t len) {
    return plugin_.put_flagged(&plugin_, pe, offset, src, bytes, flag_offset, flag, why, len);
  });
}

Status NetworkTransport::get(void* dst, int pe, uint64_t offset, size_t bytes, Completion completion) {
  if (staged_ && bytes > 0 && local_.on_gpu(dst)) return get_staged(dst, pe, offset, bytes);
  return issue("a get", bytes, pe, [&](char* why, size_t len) {
    return plugin_.get(&plugin_, dst, pe, offset, bytes, completion != Completion::kNbi, why, len);
  });
}

Status NetworkTransport::atomic(int pe, uint64_t offset, const Amo& amo, uint64_t* fetched, Completion completion) {
  return issue("an atomic", static_cast<size_t>(amo.bytes), pe, [&](char* why, size_t len) {
    return plugin_.atomic(&plugin_, pe, offset, static_cast<int>(amo.op), amo.bytes, amo.operand, amo.compare, fetched,
                          completion == Completion::kBlocking ? 1 : 0, why, len);
  });
}

Status NetworkTransport::fence() {
  char why[512] = "";
  return plugin_.fence(&plugin_, why, sizeof why) == 0 ? GSHMEM_SUCCESS : failed("fence", -1, why);
}

Status NetworkTransport::quiet() {
  char why[512] = "";
  return plugin_.quiet(&plugin_, why, sizeof why) == 0 ? GSHMEM_SUCCESS : failed("quiet", -1, why);
}

Status NetworkTransport::finalize() {
  if (!open_) return GSHMEM_SUCCESS;
  open_ = false;
  return plugin_.finalize(&plugin_) == 0 ? GSHMEM_SUCCESS : GSHMEM_ERROR_SYSTEM;
}

}  // namespace gshmem
