#include "core/wait_watch.h"

#include <cmath>

#include "bootstrap/bootstrap.h"
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

}  // namespace gshmem
