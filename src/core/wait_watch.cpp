#include "core/wait_watch.h"

#include <algorithm>
#include <cmath>

#include "bootstrap/bootstrap.h"
#include "gshmem/constants.h"
#include "util/host_wait.h"
#include "util/log.h"

namespace gshmem {

namespace {
// How often a waiter asks the root which PEs have left: once a second keeps the root's load small
// in a large job (each question is one short message) and still ends a stuck job quickly.
constexpr double kLeftCheckPeriod = 1.0;
}  // namespace

WaitWatch::WaitWatch(const Options& options)
    : o_(options), start_(Clock::now()), next_warn_(options.warn_s), next_left_check_(kLeftCheckPeriod) {}

WaitWatch::WaitWatch(const Options& options, double waited_s, double last_s)
    : o_(options),
      start_(Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(waited_s))),
      next_warn_(options.warn_s > 0 ? (std::floor(last_s / options.warn_s) + 1) * options.warn_s : 0),
      next_left_check_(0) {}

double WaitWatch::seconds_waited() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void WaitWatch::warn(double waited, const std::string& what) {
  if (log::enabled(log::Level::Warn, o_.subsys)) {
    log::write("WARN", o_.subsys, "%s: PE %d has waited %.0f s%s (GSHMEM_WAIT_WARN)", o_.api, o_.my_pe, waited,
               what.c_str());
  }
  next_warn_ += o_.warn_s;
}

void WaitWatch::time_out(double waited, const std::string& what) const {
  log::fatal("%s: PE %d has waited %.0f s%s, longer than GSHMEM_WAIT_TIMEOUT (%g s): ending the job", o_.api, o_.my_pe,
             waited, what.c_str(), o_.timeout_s);
}

bool WaitWatch::left_check_due(double waited, std::vector<int>* left) {
  if (!o_.boot || o_.n_pes < 2 || waited < next_left_check_) return false;
  next_left_check_ = waited + kLeftCheckPeriod;
  return ok(o_.boot->finished_pes(left)) && !left->empty();
}

void WaitWatch::never(const std::string& why) const {
  log::fatal("%s: PE %d can never complete: %s", o_.api, o_.my_pe, why.c_str());
}

void wait_for_flag(const WaitWatch::Options& options, const uint64_t* flag, uint64_t target, int pe, int team,
                   bool packet) {
  if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= target) return;  // no clock read, no strings: the peer was first
  const int shift = packet ? 32 : 0;
  const char* unit = packet ? "collective" : "barrier";
  auto reached = [flag, shift] {
    return static_cast<unsigned long long>(__atomic_load_n(flag, __ATOMIC_ACQUIRE) >> shift);
  };
  const auto seq = static_cast<unsigned long long>(target >> shift);
  WaitWatch watch(options);
  // The messages' words, built only when a check is due (a barrier waits for its peers thousands of times a
  // second).
  auto of_team = [team] { return log::format(" of team %d", team); };
  auto skipped = [team] {
    return team == GSHMEM_TEAM_WORLD ? std::string("nvshmem_barrier_all, nvshmem_sync_all or collective on team 0")
                                     : log::format("collective on team %d", team);
  };
  auto describe = [&] {
    return log::format(" for PE %d to arrive (it reached %s %llu%s, this is %s %llu%s)", pe, unit, reached(),
                       of_team().c_str(), unit, seq, of_team().c_str());
  };
  auto stuck = [&](const std::vector<int>& left) -> std::string {
    if (std::find(left.begin(), left.end(), pe) == left.end() || reached() >= seq) return "";
    return log::format(
        "it waits in %s %llu%s for PE %d, which has already called nvshmem_finalize and left the job after "
        "%s %llu%s: PE %d made fewer %ss than this PE (a skipped %s, or an early return on some path)",
        unit, seq, of_team().c_str(), pe, unit, reached(), of_team().c_str(), pe, unit, skipped().c_str());
  };
  HostBackoff backoff(options.work);
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < target) {
    if (backoff.pause()) watch.check(describe, stuck);
  }
}

void report_network_wait(const WaitWatch::Options& watch_options, int pe, const char* what, double waited_s,
                         double last_s) {
  // A peer whose process is stopped, or whose own progress cannot run, never answers, and the network
  // library does not see it: the plugin reports its waits that last every second.
  WaitWatch::Options options = watch_options;
  options.subsys = log::kTransport;
  WaitWatch watch(options, waited_s, last_s);
  auto describe = [&] {
    std::string d = std::string(" for ") + what;
    if (pe >= 0) {
      d += log::format(
          " (PE %d is in the job but does not answer: is its process stopped, or its network progress unable to "
          "run?)",
          pe);
    }
    return d;
  };
  auto stuck = [&](const std::vector<int>& left) -> std::string {
    if (pe < 0 || std::find(left.begin(), left.end(), pe) == left.end()) return "";
    return log::format("it waits for PE %d (%s), which has called nvshmem_finalize and left the job", pe, what);
  };
  watch.check(describe, stuck);
}

}  // namespace gshmem
