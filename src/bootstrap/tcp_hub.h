// The root of the TCP bootstrap: every PE connects to it, and it performs the collectives by
// gathering every PE's contribution and answering each. It runs in gshmrun (one per job).
//
// The hub is where a stuck job is diagnosed: it knows which PEs have joined a step, so a step
// that waits longer than the timeout, or that can never complete because a PE disconnected or
// finished, fails on every waiting PE with a message that names the missing PEs and why.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap/tcp_protocol.h"
#include "util/socket.h"

namespace gshmem {

class TcpHub {
 public:
  struct Options {
    int size = 0;  // 0: learned from the first PE that joins (unique-ID jobs)
    uint8_t secret[16] = {};
    double timeout_s = 120;  // a collective may wait this long for the last PE
  };

  // Receives events from the hub thread.
  class Listener {
   public:
    virtual ~Listener() = default;
    // A PE asked to end the job (nvshmem_global_exit or a fatal error).
    virtual void on_abort(int rank, int code, const std::string& why) = 0;
  };

  TcpHub(Fd listen_fd, const Options& options, Listener* listener);
  ~TcpHub();

  // Serves connections until stop() is called.
  void run();
  // Makes run() return soon. Thread-safe.
  void stop();
  // Whether the job size is known and every PE has left (finalized or disconnected). Thread-safe.
  bool all_left() const { return size_known_ && left_ == size_known_; }

 private:
  enum class PeState { kNotConnected, kActive, kFinished, kGone };
  struct Conn {
    Fd fd;
    int rank = -1;  // -1 until authenticated
    uint8_t nonce[16] = {};
    Deadline handshake_deadline;
    std::vector<uint8_t> in;
    bool closed = false;
  };
  struct Pending {
    uint32_t op = 0;
    int32_t arg = 0;
    Clock::time_point first_arrival;
    std::map<int, std::vector<uint8_t>> contributions;  // by rank
  };

  void accept_one();
  void read_from(Conn* c);
  void handle(Conn* c, const tcp::MsgHeader& h, std::vector<uint8_t> payload);
  void handle_auth(Conn* c, const std::vector<uint8_t>& payload);
  void handle_collective(Conn* c, const tcp::MsgHeader& h, std::vector<uint8_t> payload);
  void complete(uint64_t seq, Pending& p);
  void fail(uint64_t seq, Pending& p, Status status, const std::string& why);
  void check_pending();
  void mark_gone(int rank);
  std::string describe_missing(const Pending& p, uint64_t seq, bool timed_out) const;
  void send_msg(Conn* c, tcp::MsgType type, uint64_t seq, int32_t arg, const void* data, size_t n);
  Conn* conn_of(int rank);

  Fd listen_fd_;
  Options options_;
  Listener* listener_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<PeState> state_;
  std::map<uint64_t, Pending> pending_;
  std::map<uint64_t, std::string> failed_;  // seq -> reason, for PEs that arrive late
  std::string job_failure_;                 // set once any step failed; later steps fail at once
  std::atomic<bool> stop_{false};
  std::atomic<int> size_known_{0};  // the job size once known
  std::atomic<int> left_{0};        // PEs finished or gone
  int wake_pipe_[2] = {-1, -1};
};

}  // namespace gshmem
