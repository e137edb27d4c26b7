#include "util/stall_watch.h"

#include <chrono>

#include "util/log.h"

namespace gshmem {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

StallWatch::StallWatch(Options options) : o_(std::move(options)) {
  if (o_.warn_s > 0 || o_.timeout_s > 0) thread_ = std::thread([this] { run(); });
}

StallWatch::~StallWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

StallWatch::Call::Call(StallWatch* watch, const char* who, const char* what, uint64_t n, const char* effect)
    : watch_(watch), slot_(watch ? watch->enter(who, what, n, effect) : -1) {}

StallWatch::Call::~Call() {
  if (slot_ >= 0) watch_->leave(slot_);
}

int StallWatch::enter(const char* who, const char* what, uint64_t n, const char* effect) {
  if (!thread_.joinable()) return -1;
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = slots_[i];
    bool free = false;
    if (!s.used.compare_exchange_strong(free, true, std::memory_order_acquire)) continue;
    // Pairs with look()'s acquire fence: a watcher that reads the new who or what also sees that the
    // slot's previous call has ended.
    std::atomic_thread_fence(std::memory_order_release);
    s.who.store(who, std::memory_order_relaxed);
    s.effect.store(effect, std::memory_order_relaxed);
    s.what.store(what, std::memory_order_relaxed);
    s.n.store(n, std::memory_order_relaxed);
    s.since_ns.store(now_ns(), std::memory_order_release);
    return i;
  }
  return -1;
}

void StallWatch::leave(int slot) {
  Slot& s = slots_[slot];
  s.since_ns.store(0, std::memory_order_relaxed);
  s.used.store(false, std::memory_order_release);
}

void StallWatch::run() {
  int64_t seen[kSlots] = {};
  double next_warn[kSlots] = {};
  const auto period = std::chrono::duration<double>(o_.period_s);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, period);
    if (stop_) break;
    lock.unlock();
    look(now_ns(), seen, next_warn);
    lock.lock();
  }
}

std::string StallWatch::describe(const Slot& s) const {
  const char* what = s.what.load(std::memory_order_relaxed);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
  std::string d = log::format(what ? what : "in a call", static_cast<unsigned long long>(s.n.load()));
#pragma GCC diagnostic pop
  return d;
}

void StallWatch::look(int64_t now, int64_t seen[kSlots], double next_warn[kSlots]) {
  for (int i = 0; i < kSlots; ++i) {
    const Slot& s = slots_[i];
    const int64_t since = s.since_ns.load(std::memory_order_acquire);
    if (since == 0) {
      seen[i] = 0;
      continue;
    }
    const char* who = s.who.load(std::memory_order_relaxed);
    const char* effect = s.effect.load(std::memory_order_relaxed);
    const std::string meanwhile = effect && *effect ? std::string("; meanwhile ") + effect : "";
    const std::string what = describe(s);
    // A call that ended, and another that began, while this looked: the next look sees it whole. (The
    // fence keeps the reads of who and what before the second read of since_ns.)
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.since_ns.load(std::memory_order_relaxed) != since) continue;
    if (since != seen[i]) {
      seen[i] = since;
      next_warn[i] = o_.warn_s;
    }
    const double waited = static_cast<double>(now - since) / 1e9;
    const bool warn = o_.warn_s > 0 && waited >= next_warn[i];
    const bool end = o_.timeout_s > 0 && waited >= o_.timeout_s;
    if (!warn && !end) continue;
    const std::string context = o_.context ? o_.context() : "";
    if (end) {
      log::fatal("PE %d: %s has been %s for %.0f s, longer than GSHMEM_WAIT_TIMEOUT (%g s): ending the job.%s",
                 o_.my_pe, who, what.c_str(), waited, o_.timeout_s, context.c_str());
    }
    while (next_warn[i] <= waited) next_warn[i] += o_.warn_s;
    if (log::enabled(log::Level::Warn, o_.subsys)) {
      log::write("WARN", o_.subsys, "PE %d: %s has been %s for %.0f s and has not returned%s.%s (GSHMEM_WAIT_WARN)",
                 o_.my_pe, who, what.c_str(), waited, meanwhile.c_str(), context.c_str());
    }
  }
}

}  // namespace gshmem
