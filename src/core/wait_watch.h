// The slow-path checks of a host thread that waits for other PEs (a host barrier, a host wait,
// nvshmem_finalize): the GSHMEM_WAIT_WARN warning, the GSHMEM_WAIT_TIMEOUT end, and whether the
// PEs it could be waiting for have already finalized and left, so that it can never complete.
//
// A PE that ends before nvshmem_finalize is handled elsewhere (the bootstrap's reader thread ends
// this PE at once); a PE that finalized is a PE that made fewer calls than this one, which only
// the waiter can notice. The poll loop calls check() after each pause that slept.
#pragma once

#include <functional>
#include <string>
#include <vector>

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
  };
  // `describe`: what is waited for, with its leading separator (" for PE 2 to arrive", ": ivars[0]
  // = 0 (waiting for == 7)"). `stuck`: given the PEs that have
  // finalized and left, why the wait can no longer complete, or "" if it still can (it must check
  // the condition again after the PEs were learnt: a PE may arrive and then leave).
  WaitWatch(const Options& options, std::function<std::string()> describe,
            std::function<std::string(const std::vector<int>&)> stuck);
  // Ends the job (with a message naming the call and what it waits for) when the wait can no
  // longer complete or has run past GSHMEM_WAIT_TIMEOUT; warns every GSHMEM_WAIT_WARN seconds.
  void check();

 private:
  Options o_;
  std::function<std::string()> describe_;
  std::function<std::string(const std::vector<int>&)> stuck_;
  Clock::time_point start_;
  double next_warn_;
  double next_left_check_;
};

}  // namespace gshmem
