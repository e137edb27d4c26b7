// The PE side of the TCP bootstrap: one connection to the hub for the life of the job.
#include "bootstrap/tcp_client.h"

#include <unistd.h>

#include <cstring>
#include <thread>

#include "bootstrap/bootstrap.h"
#include "bootstrap/tcp_protocol.h"
#include "util/log.h"

namespace gshmem {

using tcp::MsgHeader;
using tcp::MsgType;

namespace {

class TcpBootstrap final : public Bootstrap {
 public:
  TcpBootstrap(Fd fd, int rank, int size, double timeout_s, bool supervised)
      : fd_(std::move(fd)), rank_(rank), size_(size), timeout_s_(timeout_s), supervised_(supervised) {}

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
    if (!fd_.valid()) return;
    MsgHeader h{tcp::kMagic, static_cast<uint16_t>(MsgType::kAbort), tcp::kVersion, 0, why.size(), 0, code};
    Deadline d = deadline_after(5);
    if (send_all(fd_.get(), &h, sizeof h, d) != GSHMEM_SUCCESS) return;
    if (send_all(fd_.get(), why.data(), why.size(), d) != GSHMEM_SUCCESS) return;
    // A supervising launcher (gshmrun) ends every PE, this one included: give it a moment before
    // exiting by ourselves. Without one, the root only tells the other PEs.
    if (supervised_) std::this_thread::sleep_for(std::chrono::seconds(5));
  }

  Status finalize() override {
    if (!fd_.valid()) return GSHMEM_SUCCESS;
    MsgHeader h{tcp::kMagic, static_cast<uint16_t>(MsgType::kFin), tcp::kVersion, 0, 0, 0, 0};
    Status s = send_all(fd_.get(), &h, sizeof h, deadline_after(5));
    fd_.reset();
    return s;
  }

 private:
  Status collective(tcp::CollOp op, int32_t arg, const void* in, size_t in_bytes, void* out, size_t out_bytes) {
    if (!fd_.valid()) {
      GSHMEM_ERROR("the bootstrap is closed (nvshmem_finalize was called)");
      return GSHMEM_ERROR_STATE;
    }
    uint64_t seq = ++seq_;
    MsgHeader h{tcp::kMagic,
                static_cast<uint16_t>(MsgType::kCollective),
                tcp::kVersion,
                seq,
                in_bytes,
                static_cast<uint32_t>(op),
                arg};
    // The hub reports missing PEs after the timeout; wait a little longer than that for its answer.
    Deadline d = deadline_after(timeout_s_ + 30);
    Status s = send_all(fd_.get(), &h, sizeof h, d);
    if (ok(s) && in_bytes) s = send_all(fd_.get(), in, in_bytes, d);
    if (!ok(s)) return lost(s, op, seq);
    MsgHeader r;
    s = recv_all(fd_.get(), &r, sizeof r, d);
    if (!ok(s)) return lost(s, op, seq);
    if (r.magic != tcp::kMagic || r.len > tcp::kMaxPayload) return lost(GSHMEM_ERROR_BOOTSTRAP, op, seq);
    std::vector<uint8_t> payload(r.len);
    if (r.len) s = recv_all(fd_.get(), payload.data(), r.len, d);
    if (!ok(s)) return lost(s, op, seq);
    if (static_cast<MsgType>(r.type) == MsgType::kError) {
      GSHMEM_ERROR("%s", std::string(payload.begin(), payload.end()).c_str());
      return static_cast<Status>(r.arg);
    }
    if (static_cast<MsgType>(r.type) != MsgType::kResult || r.seq != seq || r.len != out_bytes) {
      GSHMEM_ERROR("bootstrap %s #%llu: unexpected answer from the bootstrap root (type %u, %llu bytes)",
                   tcp::coll_name(static_cast<uint32_t>(op)), static_cast<unsigned long long>(seq), r.type,
                   static_cast<unsigned long long>(r.len));
      return GSHMEM_ERROR_BOOTSTRAP;
    }
    if (out_bytes) std::memcpy(out, payload.data(), out_bytes);
    return GSHMEM_SUCCESS;
  }

  Status lost(Status s, tcp::CollOp op, uint64_t seq) {
    if (s == GSHMEM_ERROR_TIMEOUT) {
      GSHMEM_ERROR("bootstrap %s #%llu: no answer from the bootstrap root (gshmrun) within %g s",
                   tcp::coll_name(static_cast<uint32_t>(op)), static_cast<unsigned long long>(seq), timeout_s_ + 30);
    } else {
      GSHMEM_ERROR("bootstrap %s #%llu: lost the connection to the bootstrap root (gshmrun ended?)",
                   tcp::coll_name(static_cast<uint32_t>(op)), static_cast<unsigned long long>(seq));
    }
    fd_.reset();
    return s == GSHMEM_ERROR_TIMEOUT ? s : GSHMEM_ERROR_PEER_GONE;
  }

  Fd fd_;
  int rank_;
  int size_;
  double timeout_s_;
  bool supervised_;
  uint64_t seq_ = 0;
};

}  // namespace

Status connect_tcp_bootstrap(const std::string& root, const uint8_t secret[16], int rank, int size, double timeout_s,
                             std::unique_ptr<Bootstrap>* out, bool supervised) {
  std::string host;
  int port = 0;
  if (!split_host_port(root, &host, &port)) {
    GSHMEM_ERROR("GSHMEM_RUN_ROOT='%s' is not host:port", root.c_str());
    return GSHMEM_ERROR_CONFIG;
  }
  Deadline d = deadline_after(timeout_s);
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
  *out = std::make_unique<TcpBootstrap>(std::move(fd), rank, size, timeout_s, supervised);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem
