// The UCX network transport (include/gshmem/plugin/transport_v1.h): one UCP worker per PE, an
// endpoint to every PE it reaches, the heap registered with ucp_mem_map and the remote keys exchanged
// through gshmem's bootstrap. Data moves with UCP's own operations: ucp_put_nbx, ucp_get_nbx,
// ucp_worker_fence and ucp_worker_flush_nbx.
//
// Atomics travel as UCP active messages that the target applies to its own memory through gshmem
// (services.local_atomic) and answers with the old value: UCP applies its atomics in software over the
// transports without hardware atomics (TCP, shared memory), where it cannot reach GPU memory (UCX 1.22:
// "cannot find remote protocol ... amo_post to cuda") and, with peer error handling, not even host
// memory ("... amo_post"). NVSHMEM's UCX transport does the same on the target (with GDRCopy).
// Staged memory (GPU memory that this UCX cannot register, or every heap when the core asks): puts and
// gets on it travel as active messages with their data (UCP's eager or rendezvous protocols move it),
// which the target applies through gshmem (services.local_copy) and answers, as for the atomics.
// Ordering: fence() makes the next atomic wait until earlier puts are complete (a flush) and waits for
// the atomics and staged operations in flight, so operations on each side of a fence stay in order;
// quiet() waits for every answer to what was sent before it.
//
// Progress: UCP moves data only when someone calls ucp_worker_progress, and a peer's put or atomic on
// this PE's memory may need this PE's progress (UCP emulates RMA and atomics in software over
// transports without them, TCP among them). A thread per PE progresses the worker and then sleeps on
// the worker's event descriptor (ucp_worker_arm) with a timeout (progress_loop says why), so an idle PE
// uses no core. The worker is UCS_THREAD_MODE_SERIALIZED: every call into it holds `mu`.
#include <dlfcn.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gshmem/plugin/transport_v1.h"

namespace {

// The reason of a failed call, into the caller's buffer.
int fail(char* why, size_t len, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
int fail(char* why, size_t len, const char* fmt, ...) {
  if (why && len) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(why, len, fmt, ap);
    va_end(ap);
  }
  return 1;
}

// A region of a PE's heap as that PE registered it.
struct RemoteRegion {
  uint64_t offset = 0;  // heap offset of its start
  uint64_t bytes = 0;
  uint64_t addr = 0;  // its address in that PE
  ucp_rkey_h rkey = nullptr;
  bool staged = false;  // not registered: reached through active messages
};

struct Peer {
  ucp_ep_h ep = nullptr;
  std::vector<RemoteRegion> regions;  // by offset
  ucs_status_t failed = UCS_OK;       // what UCX reported when the connection failed
  uint64_t last_rma = 0;              // the ticket of the last put or non-blocking get to it (Ucx::rma_ticket_)
};

struct LocalRegion {
  ucp_mem_h memh = nullptr;
};

// The active messages of the atomics, and of puts and gets on staged memory.
constexpr unsigned kAmoRequestId = 1;
constexpr unsigned kAmoReplyId = 2;        // the answer to an atomic and to a staged put
constexpr unsigned kPutRequestId = 3;      // header DataRequest, the data as payload
constexpr unsigned kGetRequestId = 4;      // header DataRequest
constexpr unsigned kGetReplyId = 5;        // header AmoReply (no value), the data as payload
constexpr unsigned kFlaggedId = 6;         // header Flagged, the data as payload; not answered
constexpr size_t kStagedPiece = 4u << 20;  // the most one staged put or get carries
struct AmoRequest {
  uint64_t id;  // the requester's, echoed in the reply
  uint64_t offset;
  uint64_t operand;
  uint64_t compare;
  int32_t op;
  int32_t bytes;
  int32_t from;  // the requesting PE
  int32_t pad;
};
// A put or get on staged memory.
struct DataRequest {
  uint64_t id;  // the requester's, echoed in the reply
  uint64_t offset;
  uint64_t bytes;
  int32_t from;  // the requesting PE
  int32_t pad;
};
// A flagged message (put_flagged): the data to `offset`, then `flag` into the word at `flag_offset`.
struct Flagged {
  uint64_t offset;
  uint64_t flag_offset;
  uint64_t flag;
  int32_t from;
  int32_t pad;
};
struct AmoReply {
  uint64_t id;
  uint64_t value;  // the word's previous value
  int32_t status;  // 0, or non-zero: the target could not apply it
  int32_t pad;
};

class Ucx {
 public:
  explicit Ucx(const gshmem_transport_services_v1_t& sv) : sv_(sv), peers_(static_cast<size_t>(sv.size)) {}

  int init(char* why, size_t len) {
    ucp_config_t* config = nullptr;
    ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
    if (s != UCS_OK) return fail(why, len, "ucp_config_read: %s", ucs_status_string(s));
    ucp_params_t p{};
    p.field_mask = UCP_PARAM_FIELD_FEATURES;
    p.features = UCP_FEATURE_RMA | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    s = ucp_init(&p, config, &context_);
    ucp_config_release(config);
    if (s != UCS_OK) return fail(why, len, "ucp_init: %s", ucs_status_string(s));
    ucp_context_attr_t attr{};
    attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
    if (ucp_context_query(context_, &attr) == UCS_OK) {
      cuda_ = (attr.memory_types & (1ull << UCS_MEMORY_TYPE_CUDA)) != 0;
    }
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
    s = ucp_worker_create(context_, &wp, &worker_);
    if (s != UCS_OK) return fail(why, len, "ucp_worker_create: %s", ucs_status_string(s));
    const std::pair<unsigned, ucp_am_recv_callback_t> handlers[] = {
        {kAmoRequestId, &Ucx::on_amo_request}, {kAmoReplyId, &Ucx::on_amo_reply}, {kPutRequestId, &Ucx::on_put_request},
        {kGetRequestId, &Ucx::on_get_request}, {kGetReplyId, &Ucx::on_get_reply}, {kFlaggedId, &Ucx::on_flagged}};
    for (const auto& [id, cb] : handlers) {
      ucp_am_handler_param_t hp{};
      hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
      hp.id = id;
      hp.cb = cb;
      hp.arg = this;
      s = ucp_worker_set_am_recv_handler(worker_, &hp);
      if (s != UCS_OK) return fail(why, len, "ucp_worker_set_am_recv_handler: %s", ucs_status_string(s));
    }
    s = ucp_worker_get_efd(worker_, &efd_);
    if (s != UCS_OK) return fail(why, len, "ucp_worker_get_efd: %s", ucs_status_string(s));
    stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (stop_fd_ < 0) return fail(why, len, "eventfd: %s", std::strerror(errno));
    progress_ = std::thread([this] { progress_loop(); });
    return 0;
  }

  bool cuda() const { return cuda_; }

  int connect(const unsigned char* reach, char* why, size_t len) {
    ucp_worker_attr_t wa{};
    wa.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS;
    ucs_status_t s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      s = ucp_worker_query(worker_, &wa);
    }
    if (s != UCS_OK) return fail(why, len, "ucp_worker_query: %s", ucs_status_string(s));
    std::vector<std::vector<char>> addresses;
    const int rc = exchange(wa.address, wa.address_length, &addresses);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ucp_worker_release_address(worker_, wa.address);
    }
    if (rc != 0) return fail(why, len, "the exchange of UCP worker addresses through the bootstrap failed");
    std::unique_lock<std::mutex> lock(mu_);
    for (int pe = 0; pe < sv_.size; ++pe) {
      if (!reach[pe] || pe == sv_.rank) continue;
      ucp_ep_params_t ep{};
      // Peer error handling: UCX 1.13 without it loses the remote completion of emulated RMA (shared
      // memory) across a flush. (UCX 1.22 with it has no protocol for emulated atomics, as
      // ucx_perftest -t ucp_add -e shows: docs/network.md.)
      ep.field_mask =
          UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
      ep.address = reinterpret_cast<const ucp_address_t*>(addresses[static_cast<size_t>(pe)].data());
      ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
      ep.err_handler.cb = &Ucx::on_ep_error;
      ep.err_handler.arg = this;
      s = ucp_ep_create(worker_, &ep, &peers_[static_cast<size_t>(pe)].ep);
      if (s != UCS_OK) return fail(why, len, "ucp_ep_create to PE %d: %s", pe, ucs_status_string(s));
    }
    // An endpoint connects lazily: a flush of each one connects it now (the peers' progress threads
    // answer), so that a peer that cannot be reached fails init, not a later operation.
    for (int pe = 0; pe < sv_.size; ++pe) {
      ucp_ep_h e = peers_[static_cast<size_t>(pe)].ep;
      if (!e) continue;
      ucp_request_param_t p{};
      if (finish(ucp_ep_flush_nbx(e, &p), true, pe, lock, "ucp_ep_flush_nbx", why, len) != 0) {
        const std::string reason = why && len ? why : "";
        return fail(why, len, "connecting to PE %d: %s", pe, reason.c_str());
      }
    }
    return 0;
  }

  void describe(int pe, char* out, size_t len) {
    const char* tls = std::getenv("UCX_TLS");
    std::snprintf(out, len, "UCX %s (UCX_TLS=%s)%s", ucp_get_version_string(), tls ? tls : "all",
                  pe >= 0 && pe < sv_.size && peers_[static_cast<size_t>(pe)].ep ? "" : ", not connected");
  }

  int add_memory(void* addr, size_t bytes, uint64_t offset, int mem_type, char* why, size_t len) {
    // GPU memory that this UCX cannot register fails here, after the exchange below (every PE takes part).
    const bool cannot = mem_type == GSHMEM_TRANSPORT_MEM_CUDA && !cuda_;
    const bool staged = mem_type == GSHMEM_TRANSPORT_MEM_STAGED;
    ucp_mem_map_params_t mp{};
    mp.field_mask =
        UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    mp.address = addr;
    mp.length = bytes;
    mp.memory_type = mem_type == GSHMEM_TRANSPORT_MEM_CUDA ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST;
    LocalRegion region;
    void* packed = nullptr;
    size_t packed_len = 0;
    ucs_status_t s = cannot ? UCS_ERR_UNSUPPORTED : UCS_OK;
    if (!staged && !cannot) {
      std::lock_guard<std::mutex> lock(mu_);
      s = ucp_mem_map(context_, &mp, &region.memh);
      if (s == UCS_OK) {
        s = ucp_rkey_pack(context_, region.memh, &packed, &packed_len);
        if (s != UCS_OK) ucp_mem_unmap(context_, region.memh);
      }
    }
    // Every PE takes part in the exchange, also one whose registration failed (it sends an empty key),
    // so that no PE waits for it; each reports its own failure.
    std::vector<char> mine(sizeof(uint64_t) * 2);
    // The header: 0 (failed), 1 (a key follows) or 2 (staged), and the address.
    const uint64_t header[2] = {s != UCS_OK ? 0u : staged ? 2u : 1u, reinterpret_cast<uint64_t>(addr)};
    std::memcpy(mine.data(), header, sizeof header);
    if (s == UCS_OK) mine.insert(mine.end(), static_cast<char*>(packed), static_cast<char*>(packed) + packed_len);
    if (packed) ucp_rkey_buffer_release(packed);
    std::vector<std::vector<char>> all;
    const int rc = exchange(mine.data(), mine.size(), &all);
    if (cannot) {
      return fail(why, len, "this UCX (%s) was built without CUDA: it cannot register GPU memory",
                  ucp_get_version_string());
    }
    if (s != UCS_OK) {
      return fail(why, len, "registering %zu bytes (ucp_mem_map, ucp_rkey_pack): %s", bytes, ucs_status_string(s));
    }
    if (!staged) locals_.push_back(region);
    if (rc != 0) return fail(why, len, "the exchange of UCX memory keys through the bootstrap failed");
    std::lock_guard<std::mutex> lock(mu_);
    for (int pe = 0; pe < sv_.size; ++pe) {
      Peer& peer = peers_[static_cast<size_t>(pe)];
      if (!peer.ep) continue;
      const std::vector<char>& blob = all[static_cast<size_t>(pe)];
      uint64_t h[2];
      std::memcpy(h, blob.data(), sizeof h);
      if (h[0] == 0) return fail(why, len, "PE %d could not register its memory with UCX", pe);
      RemoteRegion r;
      r.offset = offset;
      r.bytes = bytes;
      r.addr = h[1];
      r.staged = h[0] == 2;
      if (!r.staged) {
        s = ucp_ep_rkey_unpack(peer.ep, blob.data() + sizeof h, &r.rkey);
        if (s != UCS_OK) return fail(why, len, "ucp_ep_rkey_unpack of PE %d's key: %s", pe, ucs_status_string(s));
      }
      auto at = std::lower_bound(peer.regions.begin(), peer.regions.end(), r,
                                 [](const RemoteRegion& a, const RemoteRegion& b) { return a.offset < b.offset; });
      peer.regions.insert(at, r);
    }
    return 0;
  }

  int put(int pe, uint64_t offset, const void* src, size_t bytes, bool blocking, char* why, size_t len) {
    return each_piece(
        pe, offset, bytes, why, len,
        [&](ucp_ep_h ep, uint64_t raddr, ucp_rkey_h rkey, size_t at, size_t n, std::unique_lock<std::mutex>& lock) {
          if (!rkey)
            return staged_put(ep, pe, offset + at, static_cast<const char*>(src) + at, n, blocking, lock, why, len);
          if (!rma_allowed(pe, "ucp_put_nbx", why, len)) return 1;
          ucp_request_param_t p{};
          ucs_status_ptr_t r = ucp_put_nbx(ep, static_cast<const char*>(src) + at, n, raddr, rkey, &p);
          return finish(r, blocking, pe, lock, "ucp_put_nbx", why, len);
        });
  }

  int get(void* dst, int pe, uint64_t offset, size_t bytes, bool blocking, char* why, size_t len) {
    return each_piece(
        pe, offset, bytes, why, len,
        [&](ucp_ep_h ep, uint64_t raddr, ucp_rkey_h rkey, size_t at, size_t n, std::unique_lock<std::mutex>& lock) {
          if (!rkey) return staged_get(ep, pe, offset + at, static_cast<char*>(dst) + at, n, blocking, lock, why, len);
          if (!blocking && !rma_allowed(pe, "ucp_get_nbx", why, len)) return 1;
          ucp_request_param_t p{};
          ucs_status_ptr_t r = ucp_get_nbx(ep, static_cast<char*>(dst) + at, n, raddr, rkey, &p);
          return finish(r, blocking, pe, lock, "ucp_get_nbx", why, len);
        });
  }

  // A put on staged memory: an active message with the data, answered once the target applied it. With
  // `blocking` it returns when `src` may be reused; remote completion by quiet (the answer).
  int staged_put(ucp_ep_h ep, int pe, uint64_t offset, const char* src, size_t n, bool blocking,
                 std::unique_lock<std::mutex>& lock, char* why, size_t len) {
    uint64_t id;
    ucs_status_ptr_t r = post_staged(ep, pe, Kind::kPut, offset, src, n, false, nullptr, &id);
    if (UCS_PTR_IS_ERR(r)) return fail(why, len, "ucp_am_send_nbx: %s", ucs_status_string(UCS_PTR_STATUS(r)));
    return finish(r, blocking, pe, lock, "ucp_am_send_nbx", why, len);
  }

  // A get on staged memory: a request that the target answers with the data, into host memory `dst`:
  // there on return with `blocking`, else by quiet.
  int staged_get(ucp_ep_h ep, int pe, uint64_t offset, char* dst, size_t n, bool blocking,
                 std::unique_lock<std::mutex>& lock, char* why, size_t len) {
    uint64_t id;
    ucs_status_ptr_t r = post_staged(ep, pe, Kind::kGet, offset, nullptr, n, blocking, dst, &id);
    if (UCS_PTR_IS_ERR(r)) return fail(why, len, "ucp_am_send_nbx: %s", ucs_status_string(UCS_PTR_STATUS(r)));
    if (r != nullptr) ucp_request_free(r);
    if (!blocking) return GSHMEM_TRANSPORT_IN_PROGRESS;  // the data lands by quiet
    wait_until(
        lock, [&] { return pending_[id].done; },
        [&](int* who) {
          *who = pe;
          return "PE " + std::to_string(pe) + " to answer a get of " + std::to_string(n) + " bytes";
        });
    const Pending done = pending_[id];
    pending_.erase(id);
    if (done.status < 0) {
      return fail(why, len, "ucp_am_send_nbx: %s", ucs_status_string(static_cast<ucs_status_t>(done.status)));
    }
    if (done.status != 0) return fail(why, len, "PE %d could not read %zu bytes of its memory for a get", pe, n);
    return 0;
  }

  int atomic(int pe, uint64_t offset, int op, int bytes, uint64_t operand, uint64_t compare, uint64_t* fetched,
             bool blocking, char* why, size_t len) {
    if (op < GSHMEM_TRANSPORT_AMO_LOAD || op > GSHMEM_TRANSPORT_AMO_FADD) {
      return fail(why, len, "atomic operation %d is not one of the plugin ABI's", op);
    }
    if (bytes != 4 && bytes != 8 &&
        !(bytes == 2 && (op == GSHMEM_TRANSPORT_AMO_LOAD || op == GSHMEM_TRANSPORT_AMO_STORE ||
                         op == GSHMEM_TRANSPORT_AMO_SWAP || op == GSHMEM_TRANSPORT_AMO_FADD))) {
      return fail(why, len, "atomic operation %d does not apply to a word of %d bytes", op, bytes);
    }
    std::unique_lock<std::mutex> lock(mu_);
    uint64_t raddr;
    ucp_rkey_h rkey;
    ucp_ep_h ep = target(pe, offset, static_cast<size_t>(bytes), &raddr, &rkey);
    if (!ep) return fail(why, len, "heap offset %llu of PE %d is not registered with UCX", ull(offset), pe);
    // Puts issued before a fence are complete before this atomic leaves.
    if (flushed_ < fences_ && flush_worker(lock, why, len) != 0) return 1;
    if (peers_[static_cast<size_t>(pe)].failed != UCS_OK) {
      return fail(why, len, "ucp_am_send_nbx: %s", ucs_status_string(peers_[static_cast<size_t>(pe)].failed));
    }
    const uint64_t id = next_amo_++;
    Pending& pending = pending_[id];
    pending.pe = pe;
    pending.fetch = fetched != nullptr && blocking;
    pending.dest = blocking ? nullptr : fetched;
    pending.request = AmoRequest{id, offset, operand, compare, op, bytes, sv_.rank, 0};
    ucp_request_param_t p{};
    // The header lives in `pending` until the reply, which comes after the send completed.
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, kAmoRequestId, &pending.request, sizeof pending.request, nullptr, 0, &p);
    if (UCS_PTR_IS_ERR(r)) {
      pending_.erase(id);
      if (UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE) return starved();
      return fail(why, len, "ucp_am_send_nbx: %s", ucs_status_string(UCS_PTR_STATUS(r)));
    }
    if (r != nullptr) ucp_request_free(r);
    in_flight_.insert(id);
    // Applied at the target once it answers: complete by quiet.
    if (!pending.fetch) return GSHMEM_TRANSPORT_IN_PROGRESS;
    wait_until(
        lock, [&] { return pending_[id].done; },
        [&](int* who) {
          *who = pe;
          return "PE " + std::to_string(pe) + " to answer a fetching atomic";
        });
    const Pending done = pending_[id];
    pending_.erase(id);
    if (done.status < 0) {
      return fail(why, len, "ucp_am_send_nbx: %s", ucs_status_string(static_cast<ucs_status_t>(done.status)));
    }
    if (done.status != 0) return fail(why, len, "PE %d could not apply the atomic to its memory", pe);
    *fetched = done.value;
    return 0;
  }

  // One eager active message, in order with this PE's others to `pe` (one lane): the target applies the data,
  // then the flag, and answers nothing, so a barrier's arrival costs one message instead of a put, the
  // target's acknowledgement and a flush. Complete here when UCX took the message (the source reusable).
  int put_flagged(int pe, uint64_t offset, const void* src, size_t bytes, uint64_t flag_offset, uint64_t flag,
                  char* why, size_t len) {
    std::unique_lock<std::mutex> lock(mu_);
    if (pe < 0 || pe >= sv_.size || !peers_[static_cast<size_t>(pe)].ep) {
      return fail(why, len, "PE %d is not connected through UCX", pe);
    }
    Peer& peer = peers_[static_cast<size_t>(pe)];
    if (peer.failed != UCS_OK) return fail(why, len, "ucp_am_send_nbx: %s", ucs_status_string(peer.failed));
    // Refused here, as a put would be, rather than dropped at the target (where nobody would hear of it).
    uint64_t raddr;
    ucp_rkey_h rkey;
    if ((bytes > 0 && !target(pe, offset, bytes, &raddr, &rkey)) || !target(pe, flag_offset, 8, &raddr, &rkey)) {
      return fail(why, len, "heap offset %llu or %llu of PE %d is not registered with UCX", ull(offset),
                  ull(flag_offset), pe);
    }
    const Flagged header{offset, flag_offset, flag, sv_.rank, 0};
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t r = ucp_am_send_nbx(peer.ep, kFlaggedId, &header, sizeof header, src, bytes, &p);
    return finish(r, true, pe, lock, "ucp_am_send_nbx", why, len);
  }

  int fence(char* why, size_t len) {
    std::unique_lock<std::mutex> lock(mu_);
    const ucs_status_t s = ucp_worker_fence(worker_);
    if (s != UCS_OK) return fail(why, len, "ucp_worker_fence: %s", ucs_status_string(s));
    // Atomics and staged puts before the fence are applied before anything after it leaves.
    wait_for_answers(lock, "a fence");
    ++fences_;
    return failed_amos(why, len);
  }

  // The core's waiting thread takes what has arrived off the network itself (transport_v1.h: progress):
  // a peer's put then lands without a hand-over to the progress thread, whose wake-up costs more than
  // the message on a busy host. Not while another thread holds the worker (it progresses it, or issues).
  int progress() {
    // A count, not a clock read: this runs at every poll of a waiting thread. (Two threads that race here may
    // count one call for two; the count still moves, which is all the progress thread asks.)
    waiter_calls_.store(waiter_calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) return 0;
    // One round, not until there is nothing: the caller looks at what it waits for after each call, and over
    // TCP every round is an epoll_wait that the message it waits for would sit behind.
    return ucp_worker_progress(worker_) != 0 ? 1 : 0;
  }

  int quiet(char* why, size_t len) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t covers = rma_ticket_;
    // Nothing issued since the last quiet's flush (a barrier quiets twice: for the program's operations, then
    // before its flags): a flush over TCP is a round trip to every peer, for nothing.
    if (covers == quieted_ && in_flight_.empty() && flushed_ >= fences_ && !any_failed_ && failed_amo_pe_ < 0) {
      // A caller that retries after NO_RESOURCES relies on a quiet's progress; otherwise none (a progress call is
      // an epoll_wait over TCP: on 2 cores it made a barrier across the network, which quiets first, 7% slower).
      if (starved_) {
        starved_ = false;
        ucp_worker_progress(worker_);
      }
      return 0;
    }
    if (flush_worker(lock, why, len) != 0) return 1;
    wait_for_answers(lock, "a quiet");
    if (failed_amos(why, len) != 0) return 1;
    // A flush does not wait for the operations on an endpoint that failed (UCX completes them with the
    // error, and nobody holds their requests): a put or non-blocking get to a failed PE since the last
    // quiet that checked may not have arrived, and is reported instead of lost.
    if (any_failed_) {
      for (int pe = 0; pe < sv_.size; ++pe) {
        const Peer& peer = peers_[static_cast<size_t>(pe)];
        if (peer.failed != UCS_OK && peer.last_rma > verified_) {
          return fail(why, len,
                      "ucp_worker_flush_nbx: %s: the puts or gets to PE %d since the last quiet may not have "
                      "completed",
                      ucs_status_string(peer.failed), pe);
        }
      }
    }
    verified_ = std::max(verified_, covers);
    quieted_ = std::max(quieted_, covers);
    return 0;
  }

  int finalize() {
    // The core calls this after a quiet and a barrier of every PE: nothing is outstanding and nobody
    // accesses this PE's memory any more, so the endpoints close at once, without a flush (a peer
    // may have closed its side already) and without waiting for the peers.
    {
      std::unique_lock<std::mutex> lock(mu_);
      // The last barrier's arrivals are messages that nobody acknowledged: give them up to 100 ms to leave
      // before the endpoints close (a peer that closed already fails the flush; that is ignored).
      ucp_request_param_t fp{};
      ucs_status_ptr_t flushing = ucp_worker_flush_nbx(worker_, &fp);
      if (UCS_PTR_IS_PTR(flushing)) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
        while (ucp_request_check_status(flushing) == UCS_INPROGRESS && std::chrono::steady_clock::now() < until) {
          ucp_worker_progress(worker_);
        }
        ucp_request_free(flushing);  // one still in progress is released when it completes (or fails)
      }
      std::vector<ucs_status_ptr_t> closing;
      for (Peer& peer : peers_) {
        for (RemoteRegion& r : peer.regions) {
          if (r.rkey) ucp_rkey_destroy(r.rkey);
        }
        peer.regions.clear();
        if (!peer.ep) continue;
        ucp_request_param_t p{};
        p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        p.flags = UCP_EP_CLOSE_FLAG_FORCE;
        ucs_status_ptr_t r = ucp_ep_close_nbx(peer.ep, &p);
        if (UCS_PTR_IS_PTR(r)) closing.push_back(r);
        peer.ep = nullptr;
      }
      for (ucs_status_ptr_t r : closing) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS) ucp_worker_progress(worker_);
        ucp_request_free(r);
      }
    }
    stop_progress();
    for (LocalRegion& r : locals_) ucp_mem_unmap(context_, r.memh);
    locals_.clear();
    if (worker_) ucp_worker_destroy(worker_);
    if (context_) ucp_cleanup(context_);
    worker_ = nullptr;
    context_ = nullptr;
    return 0;
  }

  ~Ucx() { stop_progress(); }

 private:
  enum class Kind { kAtomic, kPut, kGet };
  static const char* kind_name(Kind k) {
    return k == Kind::kAtomic ? "an atomic" : k == Kind::kPut ? "a put" : "a get";
  }

  // An atomic, or a put or get on staged memory, sent and not answered yet.
  struct Pending {
    Kind kind = Kind::kAtomic;
    AmoRequest request{};
    DataRequest data{};        // a put's or get's header
    char* get_dest = nullptr;  // where a get's data goes
    int pe = -1;               // the target
    bool fetch = false;        // its caller waits for the value (else the reply ends it)
    uint64_t* dest = nullptr;  // where the reply stores the value for a caller that does not wait
    bool done = false;
    bool receiving = false;  // a get's data is being received into get_dest
    int status = 0;          // the target's answer, or a UCX status (negative) when the connection failed
    uint64_t value = 0;
  };
  static unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

  // One round of progress while waiting, holding mu_ through `lock` (released to let others in when
  // nothing moved).
  void progress_once(std::unique_lock<std::mutex>& lock) {
    if (ucp_worker_progress(worker_) == 0) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
    }
  }

  // Whether a put or non-blocking get to `pe` may be issued: not on a failed connection (UCX would complete
  // it with the error, unseen). Records it for quiet's check. Holds mu_.
  bool rma_allowed(int pe, const char* what, char* why, size_t len) {
    Peer& peer = peers_[static_cast<size_t>(pe)];
    if (peer.failed != UCS_OK) {
      fail(why, len, "%s: %s", what, ucs_status_string(peer.failed));
      return false;
    }
    peer.last_rma = ++rma_ticket_;
    return true;
  }

  // Flushes the worker: every RMA operation issued before is complete at its target. The fences issued
  // before the flush are then covered; a fence issued while it waits (by another thread, with mu_
  // released) is not. Holds mu_ through `lock`.
  int flush_worker(std::unique_lock<std::mutex>& lock, char* why, size_t len) {
    const uint64_t covers = fences_;
    ucp_request_param_t p{};
    if (finish(ucp_worker_flush_nbx(worker_, &p), true, -1, lock, "ucp_worker_flush_nbx", why, len) != 0) return 1;
    flushed_ = std::max(flushed_, covers);
    return 0;
  }

  // The clock of a wait inside the plugin: once the wait has lasted a second, tick() tells gshmem what
  // it waits for every second (services.waiting warns, and may end the job), with mu_ released.
  class WaitClock {
   public:
    explicit WaitClock(Ucx* ucx) : ucx_(ucx), start_(std::chrono::steady_clock::now()) {}
    // describe(&pe) says what is waited for and sets the PE it waits for (-1: unknown); it runs, holding
    // mu_, only when a report is due.
    template <class Describe>
    void tick(std::unique_lock<std::mutex>& lock, Describe describe) {
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (waited < next_) return;
      int pe = -1;
      const std::string what = describe(&pe);
      lock.unlock();
      ucx_->sv_.waiting(ucx_->sv_.ctx, pe, what.c_str(), waited, last_);
      lock.lock();
      last_ = waited;
      next_ = waited + 1;
    }

   private:
    Ucx* ucx_;
    std::chrono::steady_clock::time_point start_;
    double next_ = 1;
    double last_ = 0;
  };

  // Progresses until done(), holding mu_ through `lock` (released while nothing moves); a wait that
  // lasts is reported (WaitClock) with describe.
  template <class Done, class Describe>
  void wait_until(std::unique_lock<std::mutex>& lock, Done done, Describe describe) {
    WaitClock clock(this);
    while (!done()) {
      progress_once(lock);
      if (!done()) clock.tick(lock, describe);
    }
  }

  // Waits for the answers of the atomics and staged puts and gets in flight when it is called (for `what`:
  // a fence, a quiet); those that other threads send meanwhile (the network proxy serving a kernel that
  // keeps sending, for one) do not hold it up.
  void wait_for_answers(std::unique_lock<std::mutex>& lock, const char* what) {
    const uint64_t before = next_amo_;  // ids are given in increasing order
    auto older = [&] { return in_flight_.empty() || *in_flight_.begin() >= before; };
    wait_until(lock, older, [&](int* who) {
      std::vector<int> pes;
      size_t waiting = 0;
      for (auto it = in_flight_.begin(); it != in_flight_.end() && *it < before; ++it) {
        ++waiting;
        auto entry = pending_.find(*it);
        const int pe = entry == pending_.end() ? -1 : entry->second.pe;
        if (pe >= 0 && std::find(pes.begin(), pes.end(), pe) == pes.end()) pes.push_back(pe);
      }
      std::sort(pes.begin(), pes.end());
      std::string from = pes.size() == 1 ? "PE " : "PEs ";
      for (size_t i = 0; i < pes.size() && i < 4; ++i) from += (i ? ", " : "") + std::to_string(pes[i]);
      if (pes.size() > 4) from += " and " + std::to_string(pes.size() - 4) + " more";
      if (!pes.empty()) *who = pes.front();
      return (pes.empty() ? std::string("the peers") : from) + " to answer " + std::to_string(waiting) +
             " atomics, staged puts or gets in flight (" + what + ")";
    });
  }

  // The PEs that have operations UCX has not completed: a flush of each endpoint, progressed for up
  // to 100 ms. Whom a flush of the whole worker that lasts waits for; a slow path. Holds mu_.
  std::vector<int> unflushed(std::unique_lock<std::mutex>& lock) {
    std::vector<std::pair<int, ucs_status_ptr_t>> flushing;
    for (int pe = 0; pe < sv_.size; ++pe) {
      const Peer& peer = peers_[static_cast<size_t>(pe)];
      if (!peer.ep || peer.failed != UCS_OK) continue;
      ucp_request_param_t p{};
      ucs_status_ptr_t r = ucp_ep_flush_nbx(peer.ep, &p);
      if (UCS_PTR_IS_PTR(r)) flushing.emplace_back(pe, r);
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    auto busy = [&] {
      return std::any_of(flushing.begin(), flushing.end(),
                         [](const auto& f) { return ucp_request_check_status(f.second) == UCS_INPROGRESS; });
    };
    while (busy() && std::chrono::steady_clock::now() < until) progress_once(lock);
    std::vector<int> pes;
    for (const auto& [pe, r] : flushing) {
      if (ucp_request_check_status(r) == UCS_INPROGRESS) pes.push_back(pe);
      ucp_request_free(r);  // one still in progress is released when it completes
    }
    return pes;
  }

  // Whether an operation that nobody waits for (an atomic without a fetched value, a staged put, a
  // non-blocking staged get) failed since the last call. Holds mu_.
  int failed_amos(char* why, size_t len) {
    if (failed_amo_pe_ < 0) return 0;
    const int pe = failed_amo_pe_;
    failed_amo_pe_ = -1;
    const char* what = kind_name(failed_kind_);
    const ucs_status_t lost = peers_[static_cast<size_t>(pe)].failed;
    if (lost != UCS_OK) return fail(why, len, "%s to PE %d got no answer: %s", what, pe, ucs_status_string(lost));
    return fail(why, len, "PE %d could not apply %s to its memory", pe, what);
  }

  // Records that an operation nobody waits for failed (failed_amos reports it). Holds mu_.
  void note_failed(const Pending& p) {
    failed_amo_pe_ = p.pe;
    failed_kind_ = p.kind;
  }

  // Sends a staged put (`data`: its n bytes) or get (`data` null) to `pe` as an entry of pending_ (*id),
  // which holds the header until the answer (the answer comes after the send completed). Returns the
  // send's request, or an error (the peer's connection failed, or the send did). Holds mu_.
  ucs_status_ptr_t post_staged(ucp_ep_h ep, int pe, Kind kind, uint64_t offset, const void* data, size_t n, bool fetch,
                               char* get_dest, uint64_t* id) {
    const ucs_status_t lost = peers_[static_cast<size_t>(pe)].failed;
    if (lost != UCS_OK) return UCS_STATUS_PTR(lost);
    *id = next_amo_++;
    Pending& pending = pending_[*id];
    pending.kind = kind;
    pending.pe = pe;
    pending.fetch = fetch;
    pending.get_dest = get_dest;
    pending.data = DataRequest{*id, offset, n, sv_.rank, 0};
    ucp_request_param_t p{};
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, kind == Kind::kPut ? kPutRequestId : kGetRequestId, &pending.data,
                                         sizeof pending.data, data, data ? n : 0, &p);
    if (UCS_PTR_IS_ERR(r)) {
      pending_.erase(*id);
    } else {
      in_flight_.insert(*id);
    }
    return r;
  }

  // The target side of an atomic: applies it through gshmem, then answers (from within progress,
  // holding mu_).
  static ucs_status_t on_amo_request(void* arg, const void* header, size_t header_length, void*, size_t,
                                     const ucp_am_recv_param_t*) {
    Ucx* self = static_cast<Ucx*>(arg);
    if (header_length != sizeof(AmoRequest)) return UCS_OK;
    AmoRequest req;
    std::memcpy(&req, header, sizeof req);
    uint64_t old = 0;
    const int rc = self->sv_.local_atomic(self->sv_.ctx, req.offset, req.op, req.bytes, req.operand, req.compare, &old);
    self->answer(req.from, kAmoReplyId, req.id, rc, old, nullptr);
    return UCS_OK;
  }

  // Answers a peer's request `id` with `status` (0: done), an atomic's previous `value` and, for a get,
  // the data in `payload` (owned, freed once sent). From within progress, holding mu_.
  void answer(int to, unsigned am_id, uint64_t id, int status, uint64_t value, std::vector<char>* payload) {
    struct Answer {
      AmoReply reply;
      std::vector<char>* payload;
    };
    ucp_ep_h ep = to >= 0 && to < sv_.size ? peers_[static_cast<size_t>(to)].ep : nullptr;
    auto* a = new Answer{AmoReply{id, value, status, 0}, payload};
    if (!ep) {
      delete a->payload;
      delete a;
      return;
    }
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = [](void* request, ucs_status_t, void* user_data) {
      ucp_request_free(request);
      auto* done = static_cast<Answer*>(user_data);
      delete done->payload;
      delete done;
    };
    p.user_data = a;
    const bool data = payload && status == 0;
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, am_id, &a->reply, sizeof a->reply, data ? payload->data() : nullptr,
                                         data ? payload->size() : 0, &p);
    if (r == nullptr || UCS_PTR_IS_ERR(r)) {
      delete a->payload;  // sent at once (the callback is not called), or failed (the requester's ep fails too)
      delete a;
    }  // else the callback frees the request and the answer when the send completes
  }

  // A received message's data: at hand (eager), or to be fetched by ucp_am_recv_data_nbx (rendezvous)
  // into `into`, after which done(status) runs. From within progress, holding mu_.
  template <class Done>
  void receive(const void* data, size_t length, const ucp_am_recv_param_t* param, char* into, Done done) {
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
      if (length) std::memcpy(into, data, length);
      done(UCS_OK);
      return;
    }
    auto* later = new Done(std::move(done));
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv_am = [](void* request, ucs_status_t status, size_t, void* user_data) {
      ucp_request_free(request);
      auto* d = static_cast<Done*>(user_data);
      (*d)(status);
      delete d;
    };
    p.user_data = later;
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_, const_cast<void*>(data), into, length, &p);
    if (r == nullptr || UCS_PTR_IS_ERR(r)) {
      (*later)(r == nullptr ? UCS_OK : UCS_PTR_STATUS(r));
      delete later;
    }  // else the callback runs, and frees the request, when the data is here (UCX calls no callback of a
       // request freed before it completes)
  }

  // The target side of a staged put: the data into this PE's heap through gshmem, then the answer.
  static ucs_status_t on_put_request(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                     const ucp_am_recv_param_t* param) {
    Ucx* self = static_cast<Ucx*>(arg);
    if (header_length != sizeof(DataRequest)) return UCS_OK;
    DataRequest req;
    std::memcpy(&req, header, sizeof req);
    if (length != req.bytes) {
      self->answer(req.from, kAmoReplyId, req.id, 1, 0, nullptr);
      return UCS_OK;
    }
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
      // The data is valid during this call: straight into the heap.
      const int rc = self->sv_.local_copy(self->sv_.ctx, req.offset, data, length, 1);
      self->answer(req.from, kAmoReplyId, req.id, rc, 0, nullptr);
      return UCS_OK;
    }
    auto buffer = std::make_shared<std::vector<char>>(length);
    self->receive(data, length, param, buffer->data(), [self, req, buffer](ucs_status_t s) {
      const int rc =
          s == UCS_OK ? self->sv_.local_copy(self->sv_.ctx, req.offset, buffer->data(), buffer->size(), 1) : 1;
      self->answer(req.from, kAmoReplyId, req.id, rc, 0, nullptr);
    });
    return UCS_OK;
  }

  // The target side of put_flagged: the data into this PE's heap, then the flag (eager: the data is here).
  static ucs_status_t on_flagged(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                 const ucp_am_recv_param_t* param) {
    Ucx* self = static_cast<Ucx*>(arg);
    if (header_length != sizeof(Flagged) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) return UCS_OK;
    Flagged m;
    std::memcpy(&m, header, sizeof m);
    auto lost = [&](const char* what, uint64_t at) {
      char line[200];
      std::snprintf(line, sizeof line, "a flagged message from PE %d was lost: %s at heap offset %llu failed", m.from,
                    what, ull(at));
      self->sv_.log(self->sv_.ctx, 0, line);
      return UCS_OK;
    };
    if (length > 0 && self->sv_.local_copy(self->sv_.ctx, m.offset, data, length, 1) != 0)
      return lost("copying its data", m.offset);
    // The flag only grows: a message that arrived late never lowers it (UCX does not promise the order of
    // active messages, though one lane keeps it).
    uint64_t seen = 0;
    if (self->sv_.local_atomic(self->sv_.ctx, m.flag_offset, GSHMEM_TRANSPORT_AMO_LOAD, 8, 0, 0, &seen) != 0) {
      return lost("reading the flag", m.flag_offset);
    }
    while (seen < m.flag) {
      uint64_t old = 0;
      if (self->sv_.local_atomic(self->sv_.ctx, m.flag_offset, GSHMEM_TRANSPORT_AMO_CSWAP, 8, m.flag, seen, &old) !=
          0) {
        return lost("storing the flag", m.flag_offset);
      }
      if (old == seen) break;
      seen = old;
    }
    return UCS_OK;
  }

  // The target side of a staged get: the data out of this PE's heap through gshmem, sent as the answer.
  static ucs_status_t on_get_request(void* arg, const void* header, size_t header_length, void*, size_t,
                                     const ucp_am_recv_param_t*) {
    Ucx* self = static_cast<Ucx*>(arg);
    if (header_length != sizeof(DataRequest)) return UCS_OK;
    DataRequest req;
    std::memcpy(&req, header, sizeof req);
    auto* buffer = new std::vector<char>(req.bytes);
    const int rc = self->sv_.local_copy(self->sv_.ctx, req.offset, buffer->data(), buffer->size(), 0);
    self->answer(req.from, kGetReplyId, req.id, rc, 0, buffer);
    return UCS_OK;
  }

  // The requester's side of a staged get's answer: the data into the get's destination.
  static ucs_status_t on_get_reply(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                   const ucp_am_recv_param_t* param) {
    Ucx* self = static_cast<Ucx*>(arg);
    if (header_length != sizeof(AmoReply)) return UCS_OK;
    AmoReply rep;
    std::memcpy(&rep, header, sizeof rep);
    auto it = self->pending_.find(rep.id);
    if (it == self->pending_.end() || it->second.done) return UCS_OK;  // failed already (its connection)
    if (rep.status != 0 || length != it->second.data.bytes) {
      self->complete(rep.id, rep.status != 0 ? rep.status : 1);
      return UCS_OK;
    }
    const uint64_t id = rep.id;
    it->second.receiving = true;
    self->receive(data, length, param, it->second.get_dest,
                  [self, id](ucs_status_t s) { self->complete(id, s == UCS_OK ? 0 : static_cast<int>(s)); });
    return UCS_OK;
  }

  // Ends the pending get `id` with `status`: its waiting caller sees it, or (non-blocking) it is gone,
  // a failure noted for quiet. Holds mu_.
  void complete(uint64_t id, int status) {
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.done) return;
    in_flight_.erase(id);
    if (!it->second.fetch) {
      if (status != 0) note_failed(it->second);
      pending_.erase(it);
      return;
    }
    it->second.done = true;
    it->second.status = status;
  }

  static ucs_status_t on_amo_reply(void* arg, const void* header, size_t header_length, void*, size_t,
                                   const ucp_am_recv_param_t*) {
    Ucx* self = static_cast<Ucx*>(arg);
    if (header_length != sizeof(AmoReply)) return UCS_OK;
    AmoReply rep;
    std::memcpy(&rep, header, sizeof rep);
    auto it = self->pending_.find(rep.id);
    if (it == self->pending_.end() || it->second.done) return UCS_OK;
    self->in_flight_.erase(rep.id);
    if (!it->second.fetch) {
      if (rep.status != 0) self->note_failed(it->second);
      if (rep.status == 0 && it->second.dest) *it->second.dest = rep.value;
      self->pending_.erase(it);
      return UCS_OK;
    }
    it->second.done = true;
    it->second.status = rep.status;
    it->second.value = rep.value;
    return UCS_OK;
  }

  // The endpoint and remote address and key of `offset` of `pe`'s heap, and in *piece how many of the
  // `bytes` from there lie in its region (all of them when `piece` is null, else nullptr is returned);
  // nullptr when not connected or not registered. Holds mu_.
  ucp_ep_h target(int pe, uint64_t offset, size_t bytes, uint64_t* raddr, ucp_rkey_h* rkey, size_t* piece = nullptr) {
    if (pe < 0 || pe >= sv_.size) return nullptr;
    Peer& peer = peers_[static_cast<size_t>(pe)];
    if (!peer.ep) return nullptr;
    auto it = std::upper_bound(peer.regions.begin(), peer.regions.end(), offset,
                               [](uint64_t o, const RemoteRegion& r) { return o < r.offset; });
    if (it == peer.regions.begin()) return nullptr;
    --it;
    const uint64_t inside = offset - it->offset;
    if (inside >= it->bytes) return nullptr;
    const uint64_t left = it->bytes - inside;
    if (piece) {
      // A staged piece is one message, which the target receives and copies whole: at most kStagedPiece.
      *piece = static_cast<size_t>(std::min<uint64_t>(left, bytes));
      if (it->staged) *piece = std::min(*piece, kStagedPiece);
    } else if (bytes > left) {
      return nullptr;
    }
    *raddr = it->addr + (offset - it->offset);
    *rkey = it->rkey;
    return peer.ep;
  }

  // Calls f(ep, remote address, rkey, local offset, bytes, lock) for each piece of [offset, offset +
  // bytes) of `pe`'s heap that lies in one registered region (the heap grows in regions, and a block
  // may straddle two), holding mu_.
  template <class F>
  int each_piece(int pe, uint64_t offset, size_t bytes, char* why, size_t len, F f) {
    std::unique_lock<std::mutex> lock(mu_);
    size_t done = 0;
    bool in_progress = false;
    while (done < bytes) {
      uint64_t raddr;
      ucp_rkey_h rkey;
      size_t n = 0;
      ucp_ep_h ep = target(pe, offset + done, bytes - done, &raddr, &rkey, &n);
      if (!ep) {
        return fail(why, len, "heap offset %llu (%zu bytes) of PE %d is not registered with UCX", ull(offset + done),
                    bytes - done, pe);
      }
      // A piece that is not issued (an error, no resources) ends the call; the core issues the whole
      // operation again after _NO_RESOURCES (a put or get moved twice moves the same bytes).
      const int rc = f(ep, raddr, rkey, done, n, lock);
      if (rc == GSHMEM_TRANSPORT_IN_PROGRESS) {
        in_progress = true;
      } else if (rc != GSHMEM_TRANSPORT_OK) {
        return rc;
      }
      done += n;
    }
    return in_progress ? GSHMEM_TRANSPORT_IN_PROGRESS : GSHMEM_TRANSPORT_OK;
  }

  // UCX took nothing for lack of resources: the core completes what is outstanding (a quiet) and tries again.
  int starved() {
    starved_ = true;
    return GSHMEM_TRANSPORT_NO_RESOURCES;
  }

  // Completes a request as the operation needs: waits for it (blocking), or lets it complete on its
  // own (then quiet's flush covers it). Holds mu_ through `lock`, released while waiting.
  // `pe`: the PE the request is for (-1: every PE, a flush of the worker).
  // Returns GSHMEM_TRANSPORT_IN_PROGRESS for a request it lets complete on its own, _NO_RESOURCES when
  // UCX took nothing for lack of resources (the core completes what is outstanding and tries again).
  int finish(ucs_status_ptr_t r, bool wait, int pe, std::unique_lock<std::mutex>& lock, const char* what, char* why,
             size_t len) {
    if (r == nullptr) return GSHMEM_TRANSPORT_OK;
    if (UCS_PTR_IS_ERR(r)) {
      if (UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE) return starved();
      return fail(why, len, "%s: %s", what, ucs_status_string(UCS_PTR_STATUS(r)));
    }
    if (!wait) {
      ucp_request_free(r);
      return GSHMEM_TRANSPORT_IN_PROGRESS;
    }
    ucs_status_t s = UCS_INPROGRESS;
    wait_until(
        lock, [&] { return (s = ucp_request_check_status(r)) != UCS_INPROGRESS; },
        [&](int* who) {
          std::string on = " with PE " + std::to_string(pe);
          if (pe < 0) {
            const std::vector<int> pes = unflushed(lock);
            on = pes.empty() ? std::string(" with every PE")
                             : " with PE " + std::to_string(pes.front()) +
                                   (pes.size() > 1 ? " and " + std::to_string(pes.size() - 1) + " more" : "");
            if (!pes.empty()) *who = pes.front();
          } else {
            *who = pe;
          }
          return "UCX to complete " + std::string(what) + on;
        });
    ucp_request_free(r);
    return s == UCS_OK ? 0 : fail(why, len, "%s: %s", what, ucs_status_string(s));
  }

  // Gathers a blob of any size from every PE (two allgathers: the sizes, then the padded blobs).
  int exchange(const void* mine, size_t bytes, std::vector<std::vector<char>>* all) {
    const size_t n = static_cast<size_t>(sv_.size);
    std::vector<uint64_t> sizes(n);
    const uint64_t my_size = bytes;
    if (sv_.allgather(sv_.ctx, &my_size, sizes.data(), sizeof my_size) != 0) return 1;
    const size_t max = static_cast<size_t>(*std::max_element(sizes.begin(), sizes.end()));
    std::vector<char> padded(max ? max : 1, 0);
    std::memcpy(padded.data(), mine, bytes);
    std::vector<char> gathered(padded.size() * n);
    if (sv_.allgather(sv_.ctx, padded.data(), gathered.data(), padded.size()) != 0) return 1;
    all->assign(n, {});
    for (size_t i = 0; i < n; ++i) {
      const char* b = gathered.data() + i * padded.size();
      (*all)[i].assign(b, b + sizes[i]);
    }
    return 0;
  }

  // While a thread of the program captures a CUDA graph in the global mode (the default), CUDA refuses calls
  // that may synchronise (cuStreamSynchronize among them) in every other thread that has not relaxed its own
  // mode, and UCX makes such calls when it moves a message into GPU memory (cuda_copy): in this thread, the
  // copy failed and UCX aborted the process. Where the program has loaded CUDA's driver, this thread relaxes
  // its mode, as the core's proxy threads do; the plugin itself does not link CUDA.
  // Returns whether the mode is relaxed now; the progress loop asks again after each sleep until it is (the thread
  // may start before the program initialises CUDA).
  static bool relax_cuda_capture_mode() {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == nullptr) return false;
    using ExchangeMode = int (*)(int*);
    auto exchange = reinterpret_cast<ExchangeMode>(dlsym(driver, "cuThreadExchangeStreamCaptureMode"));
    int mode = 2;  // CU_STREAM_CAPTURE_MODE_RELAXED
    const bool relaxed = exchange != nullptr && exchange(&mode) == 0;
    dlclose(driver);  // NOLOAD took a reference of its own; the program keeps the driver loaded
    return relaxed;
  }

  // Progresses the worker while it has work, then sleeps until the network has something for it. The
  // sleep has a timeout: a transport may finish asynchronous work (a copy into GPU memory, for one)
  // without signalling the worker's event descriptor, and such work waits for the next progress call.
  // The timeout is short after activity and doubles while the PE stays idle, so an idle PE wakes ten
  // times a second. After an event it polls on for kSpinAfterActivity first (over TCP UCX moves each
  // message through this thread: a wake-up per message halved the put bandwidth of 64 KiB messages,
  // docs/network.md), and sleeps once nothing came for that long, so an idle PE burns no core.
  void progress_loop() {
    bool capture_relaxed = relax_cuda_capture_mode();
    int timeout_ms = kPollMinMs;
    auto last_active = std::chrono::steady_clock::now();
    std::chrono::microseconds stand_down = kStandDown;
    while (!stop_.load(std::memory_order_acquire)) {
      if (waiter_came()) {
        // A thread of the core waits and progresses the worker itself: out of its way (on a host with
        // fewer cores than threads, a second thread polling the same worker delays every message). While
        // it keeps doing so the look again comes later and later (each wake-up takes a core from a PE that
        // polls: on 2 cores with 2 PEs, waking every 200 us made a barrier across the network 8% slower),
        // so the thread serves the peers again at most kStandDownMax after the core's thread stopped.
        timespec ts{0, static_cast<long>(stand_down.count()) * 1000};
        pollfd fd{stop_fd_, POLLIN, 0};
        ppoll(&fd, 1, &ts, nullptr);
        stand_down = std::min(2 * stand_down, kStandDownMax);
        continue;
      }
      stand_down = kStandDown;
      bool moved = false;
      bool spin = false;
      ucs_status_t s = UCS_OK;
      {
        std::lock_guard<std::mutex> lock(mu_);
        while (ucp_worker_progress(worker_) != 0) moved = true;
        const auto now = std::chrono::steady_clock::now();
        if (moved) last_active = now;
        // Right after activity more usually follows (a stream of puts): poll on for a moment instead of
        // paying a wake-up from poll for each message.
        spin = now - last_active < kSpinAfterActivity;
        if (!spin) s = ucp_worker_arm(worker_);
      }
      if (moved) timeout_ms = kPollMinMs;
      if (spin) {
        std::this_thread::yield();
        continue;
      }
      if (s == UCS_ERR_BUSY) continue;
      pollfd fds[2] = {{efd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      if (poll(fds, 2, timeout_ms) == 0) {
        timeout_ms = std::min(2 * timeout_ms, kPollMaxMs);
        // Idle: ask again for the relaxed capture mode (not after each message: a dlopen per wake-up).
        if (!capture_relaxed) capture_relaxed = relax_cuda_capture_mode();
      }
    }
  }

  void stop_progress() {
    if (!progress_.joinable()) return;
    stop_.store(true, std::memory_order_release);
    const uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof one) < 0) {
      // The thread wakes at its poll timeout instead.
    }
    progress_.join();
    close(stop_fd_);
  }

  // At info level: a peer that finalized closes its side at once, so a failure seen here is not an
  // error by itself. An operation on the endpoint fails with this status, and a PE that died ends
  // the job through the launcher or the bootstrap, each with its own message.
  // The atomics in flight to that PE then fail with the status (no answer will come).
  static void on_ep_error(void* arg, ucp_ep_h ep, ucs_status_t status) {
    Ucx* self = static_cast<Ucx*>(arg);
    int pe = -1;
    for (size_t i = 0; i < self->peers_.size(); ++i) {
      if (self->peers_[i].ep == ep) pe = static_cast<int>(i);
    }
    if (pe >= 0) {
      self->peers_[static_cast<size_t>(pe)].failed = status == UCS_OK ? UCS_ERR_CONNECTION_RESET : status;
      self->any_failed_ = true;
      for (auto it = self->pending_.begin(); it != self->pending_.end();) {
        // Answered already (its caller has not taken the result yet), or a get whose data UCX is still
        // receiving into its destination: the receive ends with an error and completes it then.
        if (it->second.pe != pe || it->second.done || it->second.receiving) {
          ++it;
          continue;
        }
        self->in_flight_.erase(it->first);
        if (it->second.fetch) {
          it->second.done = true;
          it->second.status = static_cast<int>(self->peers_[static_cast<size_t>(pe)].failed);
          ++it;
        } else {
          self->note_failed(it->second);
          it = self->pending_.erase(it);
        }
      }
    }
    char line[256];
    std::snprintf(line, sizeof line, "UCX reports the connection to PE %d failed: %s", pe, ucs_status_string(status));
    self->sv_.log(self->sv_.ctx, 1, line);
  }

  // The progress thread's sleep: its timeout after activity, and when idle.
  static constexpr int kPollMinMs = 1, kPollMaxMs = 100;
  // How long the progress thread polls on after the last event before it sleeps.
  static constexpr std::chrono::microseconds kSpinAfterActivity{50};
  // How long the progress thread stays out of the way of a core thread that progresses the worker
  // while it waits (progress()) before it looks again, at first and at most.
  static constexpr std::chrono::microseconds kStandDown{200};
  static constexpr std::chrono::microseconds kStandDownMax{2000};
  // Whether a thread of the core called progress() since the progress thread last looked (that thread only).
  bool waiter_came() {
    const uint64_t calls = waiter_calls_.load(std::memory_order_relaxed);
    const bool came = calls != waiter_looked_;
    waiter_looked_ = calls;
    return came;
  }
  std::atomic<uint64_t> waiter_calls_{0};
  bool starved_ = false;  // an operation returned NO_RESOURCES since the last quiet (under mu_)
  uint64_t waiter_looked_ = 0;

  gshmem_transport_services_v1_t sv_;
  std::mutex mu_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  bool cuda_ = false;
  int efd_ = -1;
  int stop_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread progress_;
  std::vector<Peer> peers_;
  std::vector<LocalRegion> locals_;
  std::unordered_map<uint64_t, Pending> pending_;  // atomics sent, by id
  uint64_t next_amo_ = 1;
  std::set<uint64_t> in_flight_;  // the ids of the atomics and staged operations sent and not answered
  // Fences issued, and those whose earlier puts a completed flush covers: while flushed_ < fences_, the next
  // atomic flushes first. (One flag would let a flush issued before a fence, by another thread, clear it.)
  uint64_t fences_ = 0;
  uint64_t flushed_ = 0;
  // Puts and non-blocking gets issued (each one's ticket), and the last ticket that a quiet found complete
  // with no failed connection among its targets; whether any connection failed.
  uint64_t rma_ticket_ = 0;
  uint64_t verified_ = 0;
  uint64_t quieted_ = 0;  // the last ticket a quiet's flush completed (a quiet with nothing newer does nothing)
  bool any_failed_ = false;
  int failed_amo_pe_ = -1;  // a PE where an operation that nobody waits for failed
  Kind failed_kind_ = Kind::kAtomic;
};

Ucx* self_of(gshmem_transport_plugin_v1_t* p) { return static_cast<Ucx*>(p->state); }

int ucx_connect(gshmem_transport_plugin_v1_t* p, const unsigned char* reach, char* why, size_t len) {
  return self_of(p)->connect(reach, why, len);
}
void ucx_describe(gshmem_transport_plugin_v1_t* p, int pe, char* out, size_t len) {
  self_of(p)->describe(pe, out, len);
}
int ucx_add_memory(gshmem_transport_plugin_v1_t* p, void* addr, size_t bytes, uint64_t offset, int mem_type, char* why,
                   size_t len) {
  return self_of(p)->add_memory(addr, bytes, offset, mem_type, why, len);
}
int ucx_put(gshmem_transport_plugin_v1_t* p, int pe, uint64_t offset, const void* src, size_t bytes, int blocking,
            char* why, size_t len) {
  return self_of(p)->put(pe, offset, src, bytes, blocking != 0, why, len);
}
int ucx_get(gshmem_transport_plugin_v1_t* p, void* dst, int pe, uint64_t offset, size_t bytes, int blocking, char* why,
            size_t len) {
  return self_of(p)->get(dst, pe, offset, bytes, blocking != 0, why, len);
}
int ucx_atomic(gshmem_transport_plugin_v1_t* p, int pe, uint64_t offset, int op, int bytes, uint64_t operand,
               uint64_t compare, uint64_t* fetched, int blocking, char* why, size_t len) {
  return self_of(p)->atomic(pe, offset, op, bytes, operand, compare, fetched, blocking != 0, why, len);
}
int ucx_fence(gshmem_transport_plugin_v1_t* p, char* why, size_t len) { return self_of(p)->fence(why, len); }
int ucx_quiet(gshmem_transport_plugin_v1_t* p, char* why, size_t len) { return self_of(p)->quiet(why, len); }
int ucx_progress(gshmem_transport_plugin_v1_t* p) { return self_of(p)->progress(); }
int ucx_put_flagged(gshmem_transport_plugin_v1_t* p, int pe, uint64_t offset, const void* src, size_t bytes,
                    uint64_t flag_offset, uint64_t flag, char* why, size_t len) {
  return self_of(p)->put_flagged(pe, offset, src, bytes, flag_offset, flag, why, len);
}
int ucx_finalize(gshmem_transport_plugin_v1_t* p) {
  Ucx* self = self_of(p);
  const int rc = self->finalize();
  delete self;
  p->state = nullptr;
  return rc;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int gshmem_transport_plugin_init(
    const gshmem_transport_services_v1_t* sv, gshmem_transport_plugin_v1_t* p, unsigned abi_version, char* why,
    size_t len) {
  if (abi_version != GSHMEM_TRANSPORT_PLUGIN_ABI) {
    return fail(why, len, "gshmem speaks transport plugin ABI %u, this plugin %d", abi_version,
                GSHMEM_TRANSPORT_PLUGIN_ABI);
  }
  auto* self = new Ucx(*sv);
  if (self->init(why, len) != 0) {
    delete self;
    return 1;
  }
  p->abi_version = GSHMEM_TRANSPORT_PLUGIN_ABI;
  p->name = "ucx";
  p->caps = self->cuda() ? GSHMEM_TRANSPORT_CAP_CUDA_MEMORY : 0u;
  p->state = self;
  p->connect = ucx_connect;
  p->describe = ucx_describe;
  p->add_memory = ucx_add_memory;
  p->put = ucx_put;
  p->get = ucx_get;
  p->atomic = ucx_atomic;
  p->fence = ucx_fence;
  p->quiet = ucx_quiet;
  p->progress = ucx_progress;
  p->put_flagged = ucx_put_flagged;
  p->finalize = ucx_finalize;
  return 0;
}
