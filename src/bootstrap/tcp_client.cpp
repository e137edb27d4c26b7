// The PE side of the TCP bootstrap: one connection to the hub for the life of the job.
//
// A thread of its own reads the connection, so that the hub's word that a PE is gone reaches this
// PE whatever its other threads do (a host barrier, a kernel spinning on the GPU, code of its own).
// Collectives send from the calling thread and wait for the reader to hand them their answer.
#include "bootstrap/tcp_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "bootstrap/bootstrap.h"
#include "bootstrap/tcp_protocol.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {

using tcp::MsgHeader;
using tcp::MsgType;

namespace {

class TcpBootstrap final : public Bootstrap {
 public:
  TcpBootstrap(Fd fd, const TcpJoin& join, const Config& config)
      : fd_(std::move(fd)),
        rank_(join.rank),
        size_(join.size),
        timeout_s_(config.bootstrap_timeout),
        supervised_(join.supervised),
        root_owner_(join.root_owner) {
    tcp_set_liveness(fd_.get(), config.peer_timeout);
    reader_ = std::thread([this] { read_loop(); });
  }
  ~TcpBootstrap() override { close_connection(); }

  const char* name() const override { return "tcp"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status allgather(const void* in, void* out, size_t bytes) override {
    // Copy first: `in` may alias `out`, which the result overwrites.
    std::vector<uint8_t> mine(static_cast<const uint8_t*>(in), static_cast<const uint8_t*>(in) + bytes);
    return collective(tcp::CollOp::kAllgather, 0, mine.data(), bytes, out, bytes * static_cast<size_t>(size_));
  }
  Status alltoall(const void* in, void* out, size_t bytes) override {
    std::vector<uint8_t> mine(static_cast<const uint8_t*>(in),
                              static_cast<const uint8_t*>(in) + bytes * static_cast<size_t>(size_));
    return collective(tcp::CollOp::kAlltoall, 0, mine.data(), mine.size(), out, bytes * static_cast<size_t>(size_));
  }
  Status barrier() override { return collective(tcp::CollOp::kBarrier, 0, nullptr, 0, nullptr, 0); }
  Status broadcast(void* buf, size_t bytes, int root) override {
    return collective(tcp::CollOp::kBroadcast, root, rank_ == root ? buf : nullptr, rank_ == root ? bytes : 0, buf,
                      bytes);
  }

  void abort_job(int code, const std::string& why) override {
    if (!send(MsgType::kAbort, 0, 0, code, why.data(), why.size(), 5)) return;
    // A supervising launcher (gshmrun) ends every PE, this one included: give it a moment before
    // exiting by ourselves. Without one, the root tells the other PEs.
    if (supervised_) std::this_thread::sleep_for(std::chrono::seconds(5));
  }

  Status finalize() override {
    if (!fd_.valid()) return GSHMEM_SUCCESS;
    {
      // The hub closes the connection once it has the Fin: from now on that is no loss.
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    bool sent = send(MsgType::kFin, 0, 0, 0, nullptr, 0, 5);
    close_connection();
    return sent ? GSHMEM_SUCCESS : GSHMEM_ERROR_PEER_GONE;
  }

  Status park() override {
    {
      // Before the Park leaves: a Gone that the hub sends until it has read it must not end this PE.
      std::lock_guard<std::mutex> lock(mu_);
      parked_ = true;
    }
    if (send(MsgType::kPark, 0, 0, 0, nullptr, 0, 5)) return GSHMEM_SUCCESS;
    std::lock_guard<std::mutex> lock(mu_);
    parked_ = false;
    return GSHMEM_ERROR_PEER_GONE;
  }

  Status rejoin() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (lost_ || !fd_.valid()) {
        GSHMEM_ERROR(
            "PE %d cannot initialise again: the job's bootstrap root (%s) ended after this PE's nvshmem_finalize, "
            "so the job's PEs can no longer find each other. Initialise again before any process of the job ends",
            rank_, root_owner_.c_str());
        return GSHMEM_ERROR_PEER_GONE;
      }
      parked_ = false;
    }
    if (send(MsgType::kRejoin, 0, 0, 0, nullptr, 0, 5)) return GSHMEM_SUCCESS;
    GSHMEM_ERROR("PE %d cannot initialise again: the connection to the job's bootstrap root (%s) failed", rank_,
                 root_owner_.c_str());
    return GSHMEM_ERROR_PEER_GONE;
  }

  void set_peer_gone_handler(PeerGoneHandler handler) override {
    std::unique_lock<std::mutex> lock(mu_);
    handler_ = handler;
    if (!gone_.reported) return;
    // The word came before anyone could take it: pass it on now.
    Gone g = gone_;
    lock.unlock();
    handler(g.rank, g.exit_code, g.why);
  }

  Status finished_pes(std::vector<int>* ranks) override {
    uint64_t seq = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seq = ++query_seq_;
    }
    if (!send(MsgType::kQueryLeft, seq, 0, 0, nullptr, 0, 5)) return GSHMEM_ERROR_PEER_GONE;
    Reply r;
    GSHMEM_CHECK(await(seq, deadline_after(10), &r));
    ranks->clear();
    for (size_t off = 0; off + 4 <= r.payload.size(); off += 4) {
      int32_t v = 0;
      std::memcpy(&v, r.payload.data() + off, 4);
      ranks->push_back(v);
    }
    return GSHMEM_SUCCESS;
  }

  void announce_exit(int code) override {
    {
      // The hub drops the connection once told: that is no loss of the root.
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    // Exit may run on a thread that interrupted another in the middle of a send: never wait long.
    send(MsgType::kExiting, 0, 0, code, nullptr, 0, 0.2, /*try_only=*/true);
  }

 private:
  struct Reply {
    MsgType type = MsgType::kResult;
    int32_t arg = 0;
    std::vector<uint8_t> payload;
  };
  struct Gone {
    bool reported = false;
    int rank = -1;
    int exit_code = 1;
    std::string why;
  };

  // Sends one message; false if the connection is closed or the send failed.
  bool send(MsgType type, uint64_t seq, uint32_t op, int32_t arg, const void* data, size_t n, double timeout_s,
            bool try_only = false) {
    std::unique_lock<std::timed_mutex> lock(send_mu_, std::defer_lock);
    if (try_only) {
      if (!lock.try_lock_for(std::chrono::duration<double>(timeout_s))) return false;
    } else {
      lock.lock();
    }
    if (!fd_.valid()) return false;
    MsgHeader h{tcp::kMagic, static_cast<uint16_t>(type), tcp::kVersion, seq, n, op, arg};
    Deadline d = deadline_after(timeout_s);
    return ok(send_all(fd_.get(), &h, sizeof h, d)) && (n == 0 || ok(send_all(fd_.get(), data, n, d)));
  }

  // Waits for the answer to `seq`.
  Status await(uint64_t seq, Deadline d, Reply* out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, d, [&] { return replies_.count(seq) || lost_; });
    auto it = replies_.find(seq);
    if (it == replies_.end()) return lost_ ? GSHMEM_ERROR_PEER_GONE : GSHMEM_ERROR_TIMEOUT;
    *out = std::move(it->second);
    replies_.erase(it);
    return GSHMEM_SUCCESS;
  }

  Status collective(tcp::CollOp op, int32_t arg, const void* in, size_t in_bytes, void* out, size_t out_bytes) {
    if (!fd_.valid()) {
      GSHMEM_ERROR("the bootstrap is closed (nvshmem_finalize was called)");
      return GSHMEM_ERROR_STATE;
    }
    uint64_t seq = ++seq_;
    // The hub reports missing PEs after the timeout; wait a little longer than that for its answer.
    Deadline d = deadline_after(timeout_s_ + 30);
    if (!send(MsgType::kCollective, seq, static_cast<uint32_t>(op), arg, in, in_bytes, timeout_s_ + 30)) {
      return lost(GSHMEM_ERROR_PEER_GONE, op, seq);
    }
    Reply r;
    Status s = await(seq, d, &r);
    if (!ok(s)) return lost(s, op, seq);
    if (r.type == MsgType::kError) {
      GSHMEM_ERROR("%s", std::string(r.payload.begin(), r.payload.end()).c_str());
      return static_cast<Status>(r.arg);
    }
    if (r.type != MsgType::kResult || r.payload.size() != out_bytes) {
      GSHMEM_ERROR("bootstrap %s #%llu: unexpected answer from the bootstrap root (type %u, %zu bytes)",
                   tcp::coll_name(static_cast<uint32_t>(op)), static_cast<unsigned long long>(seq),
                   static_cast<unsigned>(r.type), r.payload.size());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    if (out_bytes) std::memcpy(out, r.payload.data(), out_bytes);
    return GSHMEM_SUCCESS;
  }

  Status lost(Status s, tcp::CollOp op, uint64_t seq) {
    if (s == GSHMEM_ERROR_TIMEOUT) {
      GSHMEM_ERROR("bootstrap %s #%llu: no answer from the bootstrap root (%s) within %g s",
                   tcp::coll_name(static_cast<uint32_t>(op)), static_cast<unsigned long long>(seq), root_owner_.c_str(),
                   timeout_s_ + 30);
      return s;
    }
    GSHMEM_ERROR("bootstrap %s #%llu: lost the connection to the bootstrap root (%s ended?)",
                 tcp::coll_name(static_cast<uint32_t>(op)), static_cast<unsigned long long>(seq), root_owner_.c_str());
    return GSHMEM_ERROR_PEER_GONE;
  }

  // The reader thread: hands answers to their callers and reports a PE that is gone. Ends when the
  // connection closes: at finalize quietly, otherwise as the loss of the root.
  void read_loop() {
    while (true) {
      MsgHeader h;
      Status s = recv_message_header(&h);
      std::vector<uint8_t> payload;
      if (ok(s) && (h.magic != tcp::kMagic || h.len > tcp::kMaxPayload)) s = GSHMEM_ERROR_BOOTSTRAP;
      if (ok(s)) {
        payload.resize(h.len);
        if (h.len) s = recv_forever(payload.data(), h.len);
      }
      if (!ok(s)) {
        root_lost(s);
        return;
      }
      const MsgType type = static_cast<MsgType>(h.type);
      if (type == MsgType::kGone) {
        report_gone(h.arg, static_cast<int>(h.op), std::string(payload.begin(), payload.end()));
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      replies_[h.seq] = Reply{type, h.arg, std::move(payload)};
      cv_.notify_all();
    }
  }

  Status recv_message_header(MsgHeader* h) { return recv_forever(h, sizeof *h); }
  Status recv_forever(void* buf, size_t n) {
    while (true) {
      Status s = recv_all(fd_.get(), buf, n, deadline_after(3600));
      if (s != GSHMEM_ERROR_TIMEOUT) return s;
    }
  }

  void root_lost(Status s) {
    // The handler (which ends the process) runs before any waiting collective learns of the loss:
    // a collective that failed first would let the program go on as if the call had merely failed.
    report_gone(-1, 1,
                log::format("the connection to the job's bootstrap root (%s) was lost (%s): that process ended or "
                            "its host stopped answering for GSHMEM_PEER_TIMEOUT seconds",
                            root_owner_.c_str(), gshmem_status_string(s)));
    std::lock_guard<std::mutex> lock(mu_);
    lost_ = true;
    cv_.notify_all();
  }

  void report_gone(int rank, int exit_code, const std::string& why) {
    PeerGoneHandler handler = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // A parked PE has no session for the loss to break: rejoin() reports a lost root.
      if (closing_ || parked_ || gone_.reported) return;
      gone_ = Gone{true, rank, exit_code, why};
      handler = handler_;
    }
    if (handler) handler(rank, exit_code, why);
  }

  void close_connection() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    if (fd_.valid()) ::shutdown(fd_.get(), SHUT_RDWR);
    if (reader_.joinable()) {
      if (reader_.get_id() == std::this_thread::get_id()) {
        reader_.detach();
      } else {
        reader_.join();
      }
    }
    std::lock_guard<std::timed_mutex> lock(send_mu_);
    fd_.reset();
  }

  Fd fd_;
  int rank_;
  int size_;
  double timeout_s_;
  bool supervised_;
  std::string root_owner_;
  uint64_t seq_ = 0;  // collectives: one thread at a time (the runtime serialises them)
  std::timed_mutex send_mu_;
  std::thread reader_;
  std::mutex mu_;  // guards what follows
  std::condition_variable cv_;
  std::map<uint64_t, Reply> replies_;
  uint64_t query_seq_ = tcp::kQuerySeqBase;
  bool lost_ = false;
  bool closing_ = false;
  bool parked_ = false;  // between park() and rejoin()
  Gone gone_;
  PeerGoneHandler handler_ = nullptr;
};

}  // namespace

Status connect_tcp_bootstrap(const Config& config, const TcpJoin& join, std::unique_ptr<Bootstrap>* out) {
  const std::string& root = join.root;
  const int rank = join.rank, size = join.size;
  const uint8_t* secret = join.secret;
  std::string host;
  int port = 0;
  if (!split_host_port(root, &host, &port)) {
    GSHMEM_ERROR("the bootstrap root's address '%s' is not host:port", root.c_str());
    return GSHMEM_ERROR_CONFIG;
  }
  Deadline d = deadline_after(config.bootstrap_timeout);
  Fd fd;
  std::string why;
  Status s = tcp_connect(host, port, d, &fd, &why);
  if (!ok(s)) {
    GSHMEM_ERROR("PE %d cannot reach the bootstrap root at %s: %s", rank, root.c_str(), why.c_str());
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  MsgHeader h;
  uint8_t nonce[16];
  s = recv_all(fd.get(), &h, sizeof h, d);
  if (ok(s) && (h.magic != tcp::kMagic || static_cast<MsgType>(h.type) != MsgType::kHello || h.len != 16)) {
    GSHMEM_ERROR("the bootstrap root at %s does not speak the gshmem protocol (version %u, ours %u)", root.c_str(),
                 h.version, tcp::kVersion);
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  if (ok(s)) s = recv_all(fd.get(), nonce, sizeof nonce, d);
  if (!ok(s)) {
    GSHMEM_ERROR("PE %d: the bootstrap root at %s closed the connection during the handshake", rank, root.c_str());
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  tcp::AuthBody auth{rank, size, tcp::pe_mac(secret, nonce, rank, size)};
  MsgHeader ah{tcp::kMagic, static_cast<uint16_t>(MsgType::kAuth), tcp::kVersion, 0, sizeof auth, 0, 0};
  s = send_all(fd.get(), &ah, sizeof ah, d);
  if (ok(s)) s = send_all(fd.get(), &auth, sizeof auth, d);
  MsgHeader r;
  if (ok(s)) s = recv_all(fd.get(), &r, sizeof r, d);
  std::vector<uint8_t> payload;
  if (ok(s) && (r.magic != tcp::kMagic || r.len > 4096)) s = GSHMEM_ERROR_BOOTSTRAP;  // not proven yet: small only
  if (ok(s)) {
    payload.resize(r.len);
    if (r.len) s = recv_all(fd.get(), payload.data(), r.len, d);
  }
  if (!ok(s)) {
    GSHMEM_ERROR("PE %d: no answer from the bootstrap root at %s during the handshake", rank, root.c_str());
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  if (static_cast<MsgType>(r.type) == MsgType::kReject) {
    GSHMEM_ERROR("PE %d was refused by the bootstrap root: %s", rank,
                 std::string(payload.begin(), payload.end()).c_str());
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  uint64_t mac = 0;
  if (static_cast<MsgType>(r.type) != MsgType::kWelcome || payload.size() != sizeof mac ||
      (std::memcpy(&mac, payload.data(), sizeof mac), mac != tcp::hub_mac(secret, nonce, rank))) {
    GSHMEM_ERROR("PE %d: the bootstrap root at %s could not prove the job secret; refusing to join", rank,
                 root.c_str());
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  *out = std::make_unique<TcpBootstrap>(std::move(fd), join, config);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
