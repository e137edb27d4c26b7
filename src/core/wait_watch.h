// The slow-path checks of a host thread that waits for other PEs (a host barrier, a host wait,
// nvshmem_finalize): the GSHMEM_WAIT_WARN warning, the GSHMEM_WAIT_TIMEOUT end, and whether the
// PEs it could be waiting for have already finalized and left, so that it can never complete.
//
// A PE that ends before nvshmem_finalize is handled elsewhere (the bootstrap's reader thread ends
// this PE at once); a PE that finalized is a PE that made fewer calls than this one, which only
// the waiter can notice. The poll loop calls check() after each pause that slept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/host_wait.h"
#include "util/log.h"
#include "util/socket.h"

namespace gshmem {

class Bootstrap;

class WaitWatch {
 public:
  struct Options {
    const char* api = "";
    int my_pe = 0;
    int n_pes = 1;
    double warn_s = 0;     // GSHMEM_WAIT_WARN (0: never)
    double timeout_s = 0;  // GSHMEM_WAIT_TIMEOUT (0: never)
    Bootstrap* boot = nullptr;
    log::Subsys subsys = log::kColl;  // of the warning (NVSHMEM_DEBUG_SUBSYS)
    PollWork work;                    // done at each poll of the wait (the network's progress)
  };
  // Cheap (a clock read): waits that end at once construct one too.
  explicit WaitWatch(const Options& options);
  // A wait that someone else times (a network plugin's): it began `waited_s` seconds ago and was last
  // checked at `last_s` (0: never), so check() warns only when a multiple of GSHMEM_WAIT_WARN lies in
  // (last_s, waited_s], and asks at once which PEs have left.
  WaitWatch(const Options& options, double waited_s, double last_s);
  // Ends the job (with a message naming the call and what it waits for) when the wait can no
  // longer complete or has run past GSHMEM_WAIT_TIMEOUT; warns every GSHMEM_WAIT_WARN seconds.
  // `describe()`: what is waited for, with its leading separator (" for PE 2 to arrive", ": ivars[0]
  // = 0 (waiting for == 7)"). `stuck(left)`: given the PEs that have finalized and left, why the
  // wait can no longer complete, or "" if it still can (it must check the condition again after the
  // PEs were learnt: a PE may arrive and then leave). Either runs only when a check is due.
  template <class Describe, class Stuck>
  void check(const Describe& describe, const Stuck& stuck) {
    const double waited = seconds_waited();
    if (o_.warn_s > 0 && waited >= next_warn_) warn(waited, describe());
    if (o_.timeout_s > 0 && waited >= o_.timeout_s) time_out(waited, describe());
    std::vector<int> left;
    if (left_check_due(waited, &left)) {
      const std::string why = stuck(left);
      if (!why.empty()) never(why);
    }
  }

 private:
  double seconds_waited() const;
  void warn(double waited, const std::string& what);
  [[noreturn]] void time_out(double waited, const std::string& what) const;
  // Whether a check of the PEs that left is due; if so, and some have, they are in *left.
  bool left_check_due(double waited, std::vector<int>* left);
  [[noreturn]] void never(const std::string& why) const;

  Options o_;
  Clock::time_point start_;
  double next_warn_;
  double next_left_check_;
};

// The CPU backend's wait until *flag >= target, where PE `pe` writes the flag (a barrier's flag, or with
// `packet` a flag-in-data packet of ll_algo.h, whose upper half numbers the collectives), with the checks
// of every host wait; its messages name `team`.
void wait_for_flag(const WaitWatch::Options& options, const uint64_t* flag, uint64_t target, int pe, int team,
                   bool packet);

// A wait inside the network plugin that has lasted `waited_s` (services.waiting, transport_v1.h) for
// `what` from PE `pe` (-1: unknown): warns, or ends the job when it ran too long or `pe` has left.
void report_network_wait(const WaitWatch::Options& options, int pe, const char* what, double waited_s, double last_s);

}  // namespace gshmem
