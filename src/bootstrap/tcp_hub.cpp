#include "bootstrap/tcp_hub.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "util/log.h"

namespace gshmem {

using tcp::MsgHeader;
using tcp::MsgType;

namespace {

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i) s += ", ";
    if (i == 8 && ranks.size() > 10) {
      s += log::format("... (%zu in all)", ranks.size());
      break;
    }
    s += std::to_string(ranks[i]);
  }
  return s;
}

}  // namespace

TcpHub::TcpHub(Fd listen_fd, const Options& options, Listener* listener)
    : listen_fd_(std::move(listen_fd)), options_(options), listener_(listener) {
  state_.assign(static_cast<size_t>(options_.size), PeState::kNotConnected);
  size_known_ = options_.size;
  if (pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) wake_pipe_[0] = wake_pipe_[1] = -1;
}

TcpHub::~TcpHub() {
  if (wake_pipe_[0] >= 0) close(wake_pipe_[0]);
  if (wake_pipe_[1] >= 0) close(wake_pipe_[1]);
}

void TcpHub::stop() {
  stop_ = true;
  if (wake_pipe_[1] >= 0) {
    char c = 1;
    (void)!write(wake_pipe_[1], &c, 1);
  }
}

TcpHub::Conn* TcpHub::conn_of(int rank) {
  for (auto& c : conns_) {
    if (c->rank == rank && !c->closed) return c.get();
  }
  return nullptr;
}

void TcpHub::run() {
  while (!stop_) {
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_.get(), POLLIN, 0});
    fds.push_back({wake_pipe_[0], POLLIN, 0});
    for (auto& c : conns_) fds.push_back({c->fd.get(), POLLIN, 0});
    int rc = ::poll(fds.data(), fds.size(), 100);
    if (rc < 0 && errno != EINTR) break;
    if (stop_) break;
    if (rc > 0) {
      if (fds[1].revents & POLLIN) {
        char drain[64];
        while (::read(wake_pipe_[0], drain, sizeof drain) > 0) {
        }
      }
      if (fds[0].revents & POLLIN) accept_one();
      // Connections accepted above are not in `fds`; they are polled next round.
      for (size_t i = 2; i < fds.size(); ++i) {
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(conns_[i - 2].get());
      }
    }
    // A handshake that does not finish in time is closed.
    for (auto& c : conns_) {
      if (c->rank < 0 && !c->closed && Clock::now() > c->handshake_deadline) c->closed = true;
    }
    process_ended();
    reap_connections();
    check_pending();
  }
}

void TcpHub::reap_connections() {
  // Telling the others that a PE is gone may find more closed connections: repeat until none.
  while (true) {
    int gone = -1;
    for (auto& c : conns_) {
      if (c->closed && c->rank >= 0 && state_[c->rank] == PeState::kParked) mark_finished(c->rank);
      if (c->closed && c->rank >= 0 && state_[c->rank] == PeState::kActive) {
        gone = c->rank;
        break;
      }
    }
    if (gone < 0) break;
    // Once one PE has gone the others follow it: only the first is worth waiting for its status.
    std::string how = listener_ && first_gone_ < 0 ? listener_->describe_end(gone) : "";
    mark_gone(gone, how.empty() ? log::format("PE %d closed its connection to the bootstrap root (its process was "
                                              "killed by a signal, crashed or called _exit, or its host stopped "
                                              "answering) before calling nvshmem_finalize",
                                              gone)
                                : log::format("PE %d %s before calling nvshmem_finalize", gone, how.c_str()));
  }
  conns_.erase(std::remove_if(conns_.begin(), conns_.end(), [](const std::unique_ptr<Conn>& c) { return c->closed; }),
               conns_.end());
}

void TcpHub::process_ended() {
  std::vector<std::pair<int, std::string>> ended;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    ended.swap(ended_);
  }
  for (auto& e : ended) {
    const int r = e.first;
    if (r < 0 || r >= static_cast<int>(state_.size())) continue;
    if (state_[r] == PeState::kNotConnected) {
      // It will never join: steps that wait for it fail now, not at the timeout.
      mark_gone(r, log::format("PE %d %s without joining the job (before or in nvshmem_init)", r, e.second.c_str()));
    } else if (state_[r] == PeState::kParked) {
      if (Conn* c = conn_of(r)) c->closed = true;
      mark_finished(r);
    } else if (state_[r] == PeState::kActive) {
      if (Conn* c = conn_of(r)) c->closed = true;
      mark_gone(r, log::format("PE %d %s before calling nvshmem_finalize", r, e.second.c_str()));
    }
  }
}

void TcpHub::set_state(int rank, PeState state) {
  std::lock_guard<std::mutex> lock(state_mu_);
  state_[rank] = state;
}

bool TcpHub::joined(int rank) const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return rank >= 0 && rank < static_cast<int>(state_.size()) && state_[rank] != PeState::kNotConnected;
}

bool TcpHub::finished(int rank) const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return rank >= 0 && rank < static_cast<int>(state_.size()) && state_[rank] == PeState::kFinished;
}

bool TcpHub::finalized(int rank) const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return rank >= 0 && rank < static_cast<int>(state_.size()) &&
         (state_[rank] == PeState::kFinished || state_[rank] == PeState::kParked);
}

bool TcpHub::settled(int rank) const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return rank < 0 || rank >= static_cast<int>(state_.size()) ||
         (state_[rank] == PeState::kFinished || state_[rank] == PeState::kGone);
}

bool TcpHub::none_active() const { return size_known_ && active_pes().empty(); }

std::vector<int> TcpHub::active_pes() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  std::vector<int> out;
  for (size_t r = 0; r < state_.size(); ++r) {
    if (state_[r] == PeState::kActive || state_[r] == PeState::kNotConnected) out.push_back(static_cast<int>(r));
  }
  return out;
}

void TcpHub::notify_ended(int rank, const std::string& how) {
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    ended_.emplace_back(rank, how);
  }
  if (wake_pipe_[1] >= 0) {
    char c = 1;
    (void)!write(wake_pipe_[1], &c, 1);
  }
}

void TcpHub::send_left_list(Conn* c, uint64_t seq) {
  std::vector<int32_t> left;
  for (size_t r = 0; r < state_.size(); ++r) {
    if (state_[r] == PeState::kFinished || state_[r] == PeState::kParked) left.push_back(static_cast<int32_t>(r));
  }
  send_msg(c, MsgType::kLeftList, seq, 0, left.data(), left.size() * sizeof(int32_t));
}

void TcpHub::accept_one() {
  int pending = 0;
  for (auto& c : conns_) pending += c->rank < 0 && !c->closed;
  Fd fd;
  if (tcp_accept(listen_fd_.get(), Clock::now(), &fd) != GSHMEM_SUCCESS) {
    // Out of descriptors (EMFILE): let the loop breathe instead of spinning on a readable socket.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return;
  }
  if (pending >= tcp::kMaxPendingHandshakes) return;  // closes `fd`
  auto c = std::make_unique<Conn>();
  tcp_set_liveness(fd.get(), options_.peer_timeout_s);
  c->fd = std::move(fd);
  c->handshake_deadline = deadline_after(30);
  if (random_bytes(c->nonce, sizeof c->nonce) != GSHMEM_SUCCESS) return;
  send_msg(c.get(), MsgType::kHello, 0, 0, c->nonce, sizeof c->nonce);
  conns_.push_back(std::move(c));
}

void TcpHub::read_from(Conn* c) {
  if (c->closed) return;
  bool eof = false;
  uint8_t buf[65536];
  while (true) {
    ssize_t k = ::recv(c->fd.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (k > 0) {
      c->in.insert(c->in.end(), buf, buf + k);
      continue;
    }
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    // EOF or error: handle what arrived before it (a Fin, say), then the PE is gone unless it
    // said goodbye.
    eof = true;
    break;
  }
  size_t off = 0;
  while (c->in.size() - off >= sizeof(MsgHeader)) {
    MsgHeader h;
    std::memcpy(&h, c->in.data() + off, sizeof h);
    // Before authentication only an Auth message of its fixed size is accepted, so a stranger
    // cannot make the root buffer anything.
    const bool unauthenticated = c->rank < 0;
    if (h.magic != tcp::kMagic || h.version != tcp::kVersion || h.len > tcp::kMaxPayload ||
        (unauthenticated && (static_cast<MsgType>(h.type) != MsgType::kAuth || h.len != sizeof(tcp::AuthBody)))) {
      uint64_t left_out = 0;
      if (c->rank >= 0 || stranger_log_.allow(&left_out)) {
        GSHMEM_WARN(kBootstrap, "dropping a bootstrap connection that does not speak the gshmem protocol%s",
                    left_out ? log::format(" (and %llu more since the last such message)",
                                           static_cast<unsigned long long>(left_out))
                                   .c_str()
                             : "");
      }
      c->closed = true;
      return;
    }
    if (c->in.size() - off - sizeof h < h.len) break;
    std::vector<uint8_t> payload(c->in.begin() + static_cast<long>(off + sizeof h),
                                 c->in.begin() + static_cast<long>(off + sizeof h + h.len));
    off += sizeof h + h.len;
    handle(c, h, std::move(payload));
    if (c->closed) return;
  }
  c->in.erase(c->in.begin(), c->in.begin() + static_cast<long>(off));
  // A PE that is still active when its closed connection is dropped is gone (reap_connections).
  if (eof) c->closed = true;
}

void TcpHub::send_msg(Conn* c, MsgType type, uint64_t seq, int32_t arg, const void* data, size_t n, uint32_t op) {
  if (c->closed) return;
  MsgHeader h{tcp::kMagic, static_cast<uint16_t>(type), tcp::kVersion, seq, n, op, arg};
  Deadline d = deadline_after(30);
  if (send_all(c->fd.get(), &h, sizeof h, d) != GSHMEM_SUCCESS ||
      (n && send_all(c->fd.get(), data, n, d) != GSHMEM_SUCCESS)) {
    c->closed = true;
  }
}

void TcpHub::handle(Conn* c, const MsgHeader& h, std::vector<uint8_t> payload) {
  MsgType type = static_cast<MsgType>(h.type);
  if (c->rank < 0) {
    if (type == MsgType::kAuth) {
      handle_auth(c, payload);
    } else {
      c->closed = true;
    }
    return;
  }
  switch (type) {
    case MsgType::kCollective:
      handle_collective(c, h, std::move(payload));
      break;
    case MsgType::kAbort: {
      std::string why(payload.begin(), payload.end());
      job_ending_ = true;
      if (listener_) {
        listener_->on_abort(c->rank, h.arg, why);
      } else {
        // No launcher to end the job (a unique-ID job): every step from now on fails, naming it, and
        // every other PE is told to end with the same code.
        std::string text = log::format("PE %d ended the job with exit code %d (%s)", c->rank, h.arg, why.c_str());
        for (auto it = pending_.begin(); it != pending_.end(); it = pending_.erase(it)) {
          fail(it->first, it->second, GSHMEM_ERROR_PEER_GONE, text);
        }
        job_failure_ = text;
        for (auto& other : conns_) {
          if (other->rank >= 0 && other->rank != c->rank && state_[other->rank] == PeState::kActive) {
            send_msg(other.get(), MsgType::kGone, 0, static_cast<int32_t>(c->rank), text.data(), text.size(),
                     static_cast<uint32_t>(h.arg));
          }
        }
      }
      abort_told_ = true;
      break;
    }
    case MsgType::kExiting:
      c->closed = true;
      mark_gone(c->rank, log::format("PE %d exited with code %d before calling nvshmem_finalize", c->rank, h.arg));
      break;
    case MsgType::kQueryLeft:
      send_left_list(c, h.seq);
      break;
    case MsgType::kFin:
      c->closed = true;
      mark_finished(c->rank);
      break;
    case MsgType::kPark:
      if (state_[c->rank] == PeState::kActive) set_state(c->rank, PeState::kParked);
      if (static_cast<size_t>(c->rank) < in_failed_session_.size()) in_failed_session_[c->rank] = false;
      break;
    case MsgType::kRejoin:
      if (state_[c->rank] == PeState::kParked) set_state(c->rank, PeState::kActive);
      break;
    default:
      GSHMEM_WARN(kBootstrap, "PE %d sent an unexpected bootstrap message (type %u)", c->rank, h.type);
      break;
  }
}

void TcpHub::handle_auth(Conn* c, const std::vector<uint8_t>& payload) {
  tcp::AuthBody a{};
  std::string reject;
  if (payload.size() != sizeof a) {
    reject = "malformed authentication";
  } else {
    std::memcpy(&a, payload.data(), sizeof a);
    const bool authentic = a.mac == tcp::pe_mac(options_.secret, c->nonce, a.rank, a.size);
    if (authentic && options_.size == 0 && a.size >= 1) {
      // A unique-ID job: the first authenticated PE tells the size.
      options_.size = a.size;
      std::lock_guard<std::mutex> lock(state_mu_);
      state_.assign(static_cast<size_t>(a.size), PeState::kNotConnected);
      size_known_ = a.size;
    }
    if (!authentic) {
      reject =
          "wrong job secret: this process belongs to another job (a unique ID from another job, or a stale "
          "GSHMEM_RUN_* environment)";
    } else if (a.size != options_.size) {
      reject = log::format("job size mismatch: the PE says %d PEs, the job has %d", a.size, options_.size);
    } else if (a.rank < 0 || a.rank >= options_.size) {
      reject = log::format("rank %d is out of range for %d PEs", a.rank, options_.size);
    } else if (state_[a.rank] != PeState::kNotConnected) {
      reject = log::format(
          "PE %d has already joined this job: two processes claim the same rank (did a PE start another program that "
          "calls nvshmem_init with the launcher's environment?)",
          a.rank);
    }
  }
  if (!reject.empty()) {
    uint64_t left_out = 0;
    if (refused_log_.allow(&left_out)) {
      GSHMEM_WARN(kBootstrap, "bootstrap root refused a process claiming PE %d: %s%s", a.rank, reject.c_str(),
                  left_out ? log::format(" (and %llu more refusals since the last such message)",
                                         static_cast<unsigned long long>(left_out))
                                 .c_str()
                           : "");
    }
    send_msg(c, MsgType::kReject, 0, 0, reject.data(), reject.size());
    c->closed = true;
    return;
  }
  c->rank = a.rank;
  set_state(a.rank, PeState::kActive);
  uint64_t mac = tcp::hub_mac(options_.secret, c->nonce, a.rank);
  send_msg(c, MsgType::kWelcome, 0, 0, &mac, sizeof mac);
}

void TcpHub::handle_collective(Conn* c, const MsgHeader& h, std::vector<uint8_t> payload) {
  // A step that failed fails for the PEs that arrive late too; after a failure, so does every later step of a PE
  // still in the session where it failed (or of any PE once one ended the job). A PE that has finalized since
  // is in a new session: its steps wait for the others as usual.
  auto f = failed_.find(h.seq);
  const bool in_failed_session =
      static_cast<size_t>(c->rank) < in_failed_session_.size() && in_failed_session_[c->rank];
  if (f != failed_.end() || (!job_failure_.empty() && (job_ending_ || in_failed_session))) {
    const std::string& why = f != failed_.end() ? f->second : job_failure_;
    send_msg(c, MsgType::kError, h.seq, GSHMEM_ERROR_BOOTSTRAP, why.data(), why.size());
    return;
  }
  Pending& p = pending_[h.seq];
  if (p.contributions.empty()) {
    p.op = h.op;
    p.arg = h.arg;
    p.first_arrival = Clock::now();
  } else {
    const auto& first = *p.contributions.begin();
    bool same_len =
        (static_cast<tcp::CollOp>(h.op) == tcp::CollOp::kBroadcast) || first.second.size() == payload.size();
    if (p.op != h.op || p.arg != h.arg || !same_len) {
      std::string why = log::format(
          "the PEs disagree on bootstrap step #%llu: PE %d called %s with %zu bytes (arg %d), PE %d called %s with %zu "
          "bytes (arg %d); every PE must make the same collective calls in the same order with the same sizes",
          static_cast<unsigned long long>(h.seq), first.first, tcp::coll_name(p.op), first.second.size(), p.arg,
          c->rank, tcp::coll_name(h.op), payload.size(), h.arg);
      p.contributions[c->rank] = std::move(payload);
      fail(h.seq, p, GSHMEM_ERROR_SYMMETRY, why);
      pending_.erase(h.seq);
      return;
    }
  }
  p.contributions[c->rank] = std::move(payload);
  // A PE that can never arrive makes the step fail now rather than at the timeout.
  for (int r = 0; r < options_.size; ++r) {
    if ((state_[r] == PeState::kGone || state_[r] == PeState::kFinished) && !p.contributions.count(r)) {
      fail(h.seq, p, GSHMEM_ERROR_PEER_GONE, describe_missing(p, h.seq, false));
      pending_.erase(h.seq);
      return;
    }
  }
  if (static_cast<int>(p.contributions.size()) == options_.size) {
    complete(h.seq, p);
    pending_.erase(h.seq);
  }
}

void TcpHub::complete(uint64_t seq, Pending& p) {
  const int n = options_.size;
  switch (static_cast<tcp::CollOp>(p.op)) {
    case tcp::CollOp::kAllgather:
    case tcp::CollOp::kBarrier: {
      std::vector<uint8_t> all;
      for (int r = 0; r < n; ++r) all.insert(all.end(), p.contributions[r].begin(), p.contributions[r].end());
      for (int r = 0; r < n; ++r) {
        if (Conn* c = conn_of(r)) send_msg(c, MsgType::kResult, seq, 0, all.data(), all.size());
      }
      break;
    }
    case tcp::CollOp::kAlltoall: {
      size_t block = p.contributions[0].size() / static_cast<size_t>(n);
      for (int r = 0; r < n; ++r) {
        std::vector<uint8_t> out;
        out.reserve(block * static_cast<size_t>(n));
        for (int s = 0; s < n; ++s) {
          const auto& src = p.contributions[s];
          out.insert(out.end(), src.begin() + static_cast<long>(block * r),
                     src.begin() + static_cast<long>(block * (r + 1)));
        }
        if (Conn* c = conn_of(r)) send_msg(c, MsgType::kResult, seq, 0, out.data(), out.size());
      }
      break;
    }
    case tcp::CollOp::kBroadcast: {
      int root = p.arg;
      const auto& data = p.contributions[root];
      for (int r = 0; r < n; ++r) {
        if (Conn* c = conn_of(r)) send_msg(c, MsgType::kResult, seq, 0, data.data(), data.size());
      }
      break;
    }
  }
}

void TcpHub::fail(uint64_t seq, Pending& p, Status status, const std::string& why) {
  failed_[seq] = why;
  if (job_failure_.empty()) {
    job_failure_ = why;
    in_failed_session_.assign(state_.size(), false);
    for (size_t r = 0; r < state_.size(); ++r) {
      in_failed_session_[r] = state_[r] == PeState::kActive || state_[r] == PeState::kNotConnected;
    }
  }
  GSHMEM_WARN(kBootstrap, "%s", why.c_str());
  for (auto& kv : p.contributions) {
    if (Conn* c = conn_of(kv.first)) send_msg(c, MsgType::kError, seq, status, why.data(), why.size());
  }
}

std::string TcpHub::describe_missing(const Pending& p, uint64_t seq, bool timed_out) const {
  std::vector<int> never, gone, finished, parked, late;
  for (int r = 0; r < options_.size; ++r) {
    if (p.contributions.count(r)) continue;
    switch (state_[r]) {
      case PeState::kNotConnected:
        never.push_back(r);
        break;
      case PeState::kGone:
        gone.push_back(r);
        break;
      case PeState::kFinished:
        finished.push_back(r);
        break;
      case PeState::kParked:
        parked.push_back(r);
        break;
      case PeState::kActive:
        late.push_back(r);
        break;
    }
  }
  double waited = std::chrono::duration<double>(Clock::now() - p.first_arrival).count();
  std::vector<int> present;
  for (const auto& kv : p.contributions) present.push_back(kv.first);
  std::string s =
      log::format("bootstrap %s #%llu cannot complete: PEs %s joined it %.1f s ago, but", tcp::coll_name(p.op),
                  static_cast<unsigned long long>(seq), rank_list(present).c_str(), waited);
  std::string sep = " ";
  if (!never.empty()) {
    s += sep + "PEs " + rank_list(never) +
         " never connected to the bootstrap (they did not start, or did not call nvshmem_init)";
    sep = "; ";
  }
  if (!gone.empty()) {
    s += sep + "PEs " + rank_list(gone) + " disconnected (they exited or crashed)";
    sep = "; ";
  }
  if (!finished.empty()) {
    s += sep + "PEs " + rank_list(finished) + " already called nvshmem_finalize";
    sep = "; ";
  }
  if (!parked.empty()) {
    s += sep + "PEs " + rank_list(parked) + " called nvshmem_finalize and have not initialised again";
    sep = "; ";
  }
  if (!late.empty()) {
    if (timed_out) {
      s += sep + "PEs " + rank_list(late) + " did not arrive within " + log::format("%g", options_.timeout_s) +
           " s (GSHMEM_BOOTSTRAP_TIMEOUT)";
    } else {
      s += sep + "PEs " + rank_list(late) + " have not joined it yet";
    }
  }
  return s;
}

void TcpHub::check_pending() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    double waited = std::chrono::duration<double>(Clock::now() - it->second.first_arrival).count();
    if (waited > options_.timeout_s) {
      fail(it->first, it->second, GSHMEM_ERROR_TIMEOUT, describe_missing(it->second, it->first, true));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

void TcpHub::fail_steps_without(int rank) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!it->second.contributions.count(rank)) {
      fail(it->first, it->second, GSHMEM_ERROR_PEER_GONE, describe_missing(it->second, it->first, false));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

void TcpHub::mark_finished(int rank) {
  if (state_[rank] == PeState::kGone || state_[rank] == PeState::kFinished) return;
  set_state(rank, PeState::kFinished);
  ++left_;
  fail_steps_without(rank);
}

void TcpHub::mark_gone(int rank, const std::string& why) {
  if (state_[rank] == PeState::kGone || state_[rank] == PeState::kFinished) return;
  if (state_[rank] == PeState::kParked) {
    // It had finalized: its end is no loss to the job.
    mark_finished(rank);
    return;
  }
  set_state(rank, PeState::kGone);
  ++left_;
  int none = -1;
  first_gone_.compare_exchange_strong(none, rank);
  GSHMEM_INFO(kBootstrap, "%s", why.c_str());
  // After a PE ended the job on purpose the launcher stops the rest; no need to tell them.
  if (!(job_ending_ && listener_)) {
    Conn* local = nullptr;
    for (auto& c : conns_) {
      if (c->rank >= 0 && c->rank != rank && !c->closed && state_[c->rank] == PeState::kActive) {
        if (c->rank == local_rank_) {
          local = c.get();
        } else {
          send_msg(c.get(), MsgType::kGone, 0, static_cast<int32_t>(rank), why.data(), why.size(), 1);
        }
      }
    }
    if (local) send_msg(local, MsgType::kGone, 0, static_cast<int32_t>(rank), why.data(), why.size(), 1);
  }
  fail_steps_without(rank);
}

}  // namespace gshmem
