// The proxy's thread (see proxy_loop.h).
#include "transport/proxy_loop.h"

#include <time.h>

#include <algorithm>

#include "util/log.h"

namespace gshmem {
namespace {

using Clock = std::chrono::steady_clock;

// How long the proxy waits for more copies after one arrives, how long at most it gathers one batch while
// the engines may be idle (copies that keep coming, a kernel's iterations, go to the next batch), and how
// often at most it makes the stream write the completion count while copies keep arriving (microseconds).
// While the engines are surely still busy with what was issued (reckoned at kPeakBytesPerUs, above what
// they move over NVLink, so that the reckoning ends early rather than late), gathering costs nothing and
// goes on: the batch then holds whole iterations, which merge into whole copies.
constexpr double kGatherUs = 3;
constexpr double kGatherMaxUs = 20;
constexpr double kCountUs = 50;
constexpr double kPeakBytesPerUs = 450e3;
// Idle polling: back to back for this long after work came, then with sleeps that double up to the longest.
constexpr auto kSpinAfterCopies = std::chrono::milliseconds(100);
constexpr auto kSpinAfterRequests = std::chrono::microseconds(50);
constexpr auto kLongIdle = std::chrono::seconds(10);
constexpr long kSleepMaxNs = 50000;
constexpr long kLongIdleSleepNs = 1000000;
// Tickets taken in one pass before the loop settles what it took (completes the network requests, publishes).
constexpr uint64_t kTakeBatch = 64;
// How often at most a host quiet looks at `completed` while it waits.
constexpr long kFlushSleepMaxNs = 20000;

inline double us_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

inline void sleep_ns(long ns) {
  timespec ts{0, ns};
  nanosleep(&ts, nullptr);
}

}  // namespace

ProxyLoop::ProxyLoop(detail::ProxyRing* ring, ProxyCopySide* copies, ProxyNetworkSide* network)
    : ring_(ring), copies_(copies), network_(network) {
  for (uint64_t i = 0; i < detail::kProxyRingSlots; ++i) ring_->slots[i].turn = i;  // ticket i fills slot i first
}

void ProxyLoop::start(std::function<void()> thread_init) {
  thread_ = std::thread([this, init = std::move(thread_init)] {
    if (init) init();
    run();
  });
}

void ProxyLoop::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  thread_.join();
}

uint64_t ProxyLoop::take(std::vector<CopyRange>* batch, uint64_t max) {
  if (copies_failed()) return 0;
  uint64_t t = taken_.load(std::memory_order_relaxed);
  uint64_t n = 0;
  for (; n < max; ++n, ++t) {
    detail::ProxySlot& slot = ring_->slots[t % detail::kProxyRingSlots];
    if (__atomic_load_n(&slot.seq, __ATOMIC_ACQUIRE) != t + 1) break;
    const detail::ProxyRequest r = slot.req;
    // A request without a result frees its slot now: everything it needs is in `r`.
    if ((r.op & detail::kProxyFetch) == 0) __atomic_store_n(&slot.turn, t + detail::kProxyRingSlots, __ATOMIC_RELEASE);
    const bool copy = r.op == detail::kProxyCopy;
    completion_.took(t, copy);
    taken_.store(t + 1, std::memory_order_release);
    if (copy && copies_on()) {
      batch->push_back(CopyRange{r.offset, r.local, r.bytes});
    } else if (!copy && network_) {
      network_->serve(t, r);
    } else {
      __atomic_store_n(&ring_->error, 1, __ATOMIC_RELEASE);
      log::fatal(
          "request %llu of a kernel (code %u) asks for %s, which this PE does not have (the device code is "
          "from another gshmem, or the device state was overwritten); the job cannot go on",
          static_cast<unsigned long long>(t), r.op, copy ? "the copy engines" : "the network transport");
    }
  }
  return n;
}

void ProxyLoop::count() {
  if (copies_failed()) return;
  // Every copy below issued_upto_ is on the stream, every network request below requests_complete_below() has
  // completed: when the stream gets there, every ticket below the smaller of the two has.
  copies_->count(issued_upto_, std::min(issued_upto_, completion_.requests_complete_below()));
  counted_ = issued_upto_;
  last_count_ = Clock::now();
}

void ProxyLoop::gather_and_issue(std::vector<CopyRange>* batch) {
  // Gather what the other blocks of the kernel hand over right after (a grid's blocks post within
  // microseconds of each other), so that their shares merge into one copy.
  const auto gather_start = Clock::now();
  auto gather_from = gather_start;
  while (batch->size() < detail::kProxyRingSlots && !copies_failed()) {
    const auto now = Clock::now();
    if (us_between(gather_from, now) >= kGatherUs) break;
    if (us_between(gather_start, now) >= kGatherMaxUs && now >= busy_until_) break;
    const size_t before = batch->size();
    if (take(batch, detail::kProxyRingSlots - batch->size()) == 0) {
      if (completion_.requests_pending()) {
        settle();  // network requests that came meanwhile do not wait for the copies
      } else {
        cpu_relax();
      }
    } else if (batch->size() > before) {
      gather_from = Clock::now();
    }
  }
  uint64_t batch_bytes = 0;
  for (const CopyRange& c : *batch) batch_bytes += c.bytes;
  copies_->issue(batch);
  batch->clear();
  // A copy that failed (and those after it in the batch, not issued) must never be counted as done: the
  // ring's error flag ends the kernels that wait for them instead.
  if (copies_failed()) return;
  issued_upto_ = taken_.load(std::memory_order_relaxed);
  busy_until_ = std::max(busy_until_, Clock::now()) +
                std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double, std::micro>(static_cast<double>(batch_bytes) / kPeakBytesPerUs));
}

void ProxyLoop::settle() {
  if (completion_.requests_pending()) {
    network_->complete();
    completion_.requests_done();
  }
  if (completion_.copies_pending()) completion_.copies_done(__atomic_load_n(&ring_->copies_done, __ATOMIC_ACQUIRE));
  const uint64_t c = completion_.completed();
  if (c != published_) {
    __atomic_store_n(&ring_->completed, c, __ATOMIC_RELEASE);
    published_ = c;
  }
}

void ProxyLoop::run() {
  std::vector<CopyRange> batch;
  batch.reserve(detail::kProxyRingSlots);
  auto last_work = Clock::now();
  last_count_ = busy_until_ = last_work;
  bool after_copies = false;
  unsigned polls = 0;
  long sleep = 1000;
  for (;;) {
    // Read before the ring: a stop that comes after the last request was published sees it served.
    const bool stopping = stop_.load(std::memory_order_acquire);
    const uint64_t took = take(&batch, kTakeBatch);
    const bool copies_came = !batch.empty();
    if (copies_came) {
      gather_and_issue(&batch);
      after_copies = true;
    }
    auto now = Clock::now();
    // The completion count costs the copy engines a pause between copies: written once the burst of copies
    // ended (network requests that keep coming do not hold it back), or every kCountUs while copies keep
    // coming, so that no quiet waits long.
    if (counted_ != issued_upto_ && (!copies_came || us_between(last_count_, now) >= kCountUs)) count();
    settle();
    now = Clock::now();
    if (took > 0) {
      last_work = now;
      sleep = 1000;
      continue;
    }
    if (stopping) break;
    if (copies_on() && (++polls & 1023) == 0 && !copies_->check()) return;  // CUDA is gone: the process exits
    const auto idle = now - last_work;
    if ((completion_.copies_pending() && !copies_failed()) ||
        idle < (after_copies ? Clock::duration(kSpinAfterCopies) : Clock::duration(kSpinAfterRequests))) {
      cpu_relax();
      continue;
    }
    after_copies = false;
    // (With the network, never longer than kSleepMaxNs: the first request after a long pause waits at most that.)
    sleep_ns(idle > kLongIdle && !network_ ? kLongIdleSleepNs : sleep);
    sleep = std::min(2 * sleep, kSleepMaxNs);
  }
  // Everything taken was issued: the stream counts it, and the proxy publishes it complete.
  if (copies_on()) {
    if (counted_ != issued_upto_) count();
    copies_->drain();
  }
  settle();
}

Status ProxyLoop::flush() {
  if (!thread_.joinable()) return GSHMEM_SUCCESS;
  // The tickets published so far: those taken, then the run of published slots after them.
  const uint64_t seen = taken_.load(std::memory_order_acquire);
  uint64_t target = seen;
  while (target < seen + detail::kProxyRingSlots &&
         __atomic_load_n(&ring_->slots[target % detail::kProxyRingSlots].seq, __ATOMIC_ACQUIRE) == target + 1) {
    ++target;
  }
  // The proxy may have taken more meanwhile, and a kernel reused a slot the scan looked at: what it took counts.
  target = std::max(target, taken_.load(std::memory_order_acquire));
  long sleep = 1000;
  while (__atomic_load_n(&ring_->completed, __ATOMIC_ACQUIRE) < target) {
    if (__atomic_load_n(&ring_->error, __ATOMIC_ACQUIRE) != 0) return GSHMEM_ERROR_CUDA;
    sleep_ns(sleep);
    sleep = std::min(2 * sleep, kFlushSleepMaxNs);
  }
  return __atomic_load_n(&ring_->error, __ATOMIC_ACQUIRE) != 0 ? GSHMEM_ERROR_CUDA : GSHMEM_SUCCESS;
}

}  // namespace gshmem
