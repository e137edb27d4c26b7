#include "core/wait_watch.h"

#include "bootstrap/bootstrap.h"
#include "util/log.h"

namespace gshmem {

namespace {
// How often a waiter asks the root which PEs have left: once a second keeps the root's load small
// in a large job (each question is one short message) and still ends a stuck job quickly.
constexpr double kLeftCheckPeriod = 1.0;
}  // namespace

WaitWatch::WaitWatch(const Options& options, std::function<std::string()> describe,
                     std::function<std::string(const std::vector<int>&)> stuck)
    : o_(options),
      describe_(std::move(describe)),
      stuck_(std::move(stuck)),
      start_(Clock::now()),
      next_warn_(options.warn_s),
      next_left_check_(kLeftCheckPeriod) {}

void WaitWatch::check() {
  const double waited = std::chrono::duration<double>(Clock::now() - start_).count();
  if (o_.warn_s > 0 && waited >= next_warn_) {
    GSHMEM_WARN(kColl, "%s: PE %d has waited %.0f s%s (GSHMEM_WAIT_WARN)", o_.api, o_.my_pe, waited,
                describe_().c_str());
    next_warn_ += o_.warn_s;
  }
  if (o_.timeout_s > 0 && waited >= o_.timeout_s) {
    log::fatal("%s: PE %d has waited %.0f s%s, longer than GSHMEM_WAIT_TIMEOUT (%g s): ending the job", o_.api,
               o_.my_pe, waited, describe_().c_str(), o_.timeout_s);
  }
  if (o_.boot && o_.n_pes > 1 && waited >= next_left_check_) {
    next_left_check_ = waited + kLeftCheckPeriod;
    std::vector<int> left;
    if (ok(o_.boot->finished_pes(&left)) && !left.empty()) {
      std::string why = stuck_(left);
      if (!why.empty()) log::fatal("%s: PE %d can never complete: %s", o_.api, o_.my_pe, why.c_str());
    }
  }
}

}  // namespace gshmem
