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
#include "util/log.h"
#include "util/socket.h"

namespace gshmem {

class TcpHub {
 public:
  struct Options {
    int size = 0;  // 0: learned from the first PE that joins (unique-ID jobs)
    uint8_t secret[16] = {};
    double timeout_s = 120;     // a collective may wait this long for the last PE
    double peer_timeout_s = 3;  // a PE's host that stops answering counts as gone after this
  };

  // Receives events from the hub thread.
  class Listener {
   public:
    virtual ~Listener() = default;
    // A PE asked to end the job (nvshmem_global_exit or a fatal error).
    virtual void on_abort(int rank, int code, const std::string& why) = 0;
    // PE `rank` closed its connection before nvshmem_finalize: how it ended, as "exited with code
    // 0" or "was killed by signal 9 (Killed)", when the listener can tell (it may wait briefly for
    // the process's status); "" otherwise.
    virtual std::string describe_end(int rank) { return ""; }
  };

  TcpHub(Fd listen_fd, const Options& options, Listener* listener);
  ~TcpHub();

  // Serves connections until stop() is called.
  void run();
  // Makes run() return soon. Thread-safe.
  void stop();
  // Whether the job size is known and every PE has left (finalized or disconnected). Thread-safe.
  bool all_left() const { return size_known_ && left_ == size_known_; }
  // Whether the job size is known and no PE is in a session or still to join: every PE has finalized (parked
  // or left) or is gone. Thread-safe.
  bool none_active() const;
  // The PEs in a session or still to join (what none_active waits for). Thread-safe.
  std::vector<int> active_pes() const;
  // Whether a PE's end of the job (kAbort) has been passed on to the others. Thread-safe.
  bool abort_told() const { return abort_told_; }
  // Thread-safe questions about PE `rank`: whether it has joined the job (now or before), finalized and left,
  // finalized (left, or parked for a next session), or is settled (left, gone or never to come: not connected
  // now and not to be waited for).
  bool joined(int rank) const;
  bool finished(int rank) const;
  bool finalized(int rank) const;
  bool settled(int rank) const;
  // The first PE that went before nvshmem_finalize, or -1.
  int first_gone() const { return first_gone_; }
  // The PE whose process serves this hub (rank 0 of a launcher job, the unique ID's maker), or -1
  // (gshmrun). It hears that a PE is gone last: it ends at once, and the hub with it.
  void set_local_rank(int rank) { local_rank_ = rank; }
  // Tells the hub that PE `rank`'s process has ended (`how`: "exited with code 1"); a PE that had not
  // joined yet is then never waited for. Thread-safe.
  void notify_ended(int rank, const std::string& how);

 private:
  // kParked: finalized its session, still connected, may initialise again (tcp_protocol.h).
  enum class PeState { kNotConnected, kActive, kParked, kFinished, kGone };
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
  // PE `rank` has ended before nvshmem_finalize (`why` says how): steps that wait for it fail, and
  // every PE still in the job is told.
  void mark_gone(int rank, const std::string& why);
  // PE `rank` has left the job cleanly (Fin, or the end of a parked PE's process): steps that still wait
  // for it can never complete.
  void mark_finished(int rank);
  // The pending steps that PE `rank` has not joined can never complete: they fail, naming who is missing.
  void fail_steps_without(int rank);
  void set_state(int rank, PeState state);
  // Closed connections of PEs still active are PEs gone, of parked PEs PEs finished; drops closed
  // connections.
  void reap_connections();
  void process_ended();
  void send_left_list(Conn* c, uint64_t seq);
  std::string describe_missing(const Pending& p, uint64_t seq, bool timed_out) const;
  void send_msg(Conn* c, tcp::MsgType type, uint64_t seq, int32_t arg, const void* data, size_t n, uint32_t op = 0);
  Conn* conn_of(int rank);

  Fd listen_fd_;
  Options options_;
  Listener* listener_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<PeState> state_;
  std::map<uint64_t, Pending> pending_;
  std::map<uint64_t, std::string> failed_;  // seq -> reason, for PEs that arrive late
  std::string job_failure_;                 // set once any step failed; later steps fail at once...
  std::vector<bool> in_failed_session_;     // ...while a PE is still in the session where it failed (a PE that
                                            // parks since has left it; once all have, a new session starts clean)
  std::atomic<bool> stop_{false};
  std::atomic<int> size_known_{0};  // the job size once known
  std::atomic<int> left_{0};        // PEs finished or gone
  std::atomic<int> first_gone_{-1};
  std::atomic<int> local_rank_{-1};
  std::atomic<bool> abort_told_{false};
  bool job_ending_ = false;      // a PE ended the job (kAbort); the listener stops the rest
  mutable std::mutex state_mu_;  // guards state_ for readers of other threads (the hub thread writes)
  std::vector<std::pair<int, std::string>> ended_;  // from notify_ended, under state_mu_
  log::RateLimit refused_log_;
  log::RateLimit stranger_log_;
  int wake_pipe_[2] = {-1, -1};
};

}  // namespace gshmem
