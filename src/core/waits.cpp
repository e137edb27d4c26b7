// The waits and tests of the host API on this PE's symmetric variables, and their stream-ordered
// forms: a bounded-backoff poll that reports what it waits for when it lasts (WaitWatch).
#include "core/waits.h"

#include <cstring>

#include "core/activity.h"
#include "core/runtime.h"
#include "gshmem/constants.h"
#include "gshmem/detail/compare.h"
#include "util/host_wait.h"
#include "util/log.h"

namespace gshmem {

namespace {

// The value of `bits` read as `kind`, widened to 64 bits with its sign.
int64_t as_signed(uint64_t bits, WaitKind kind) {
  switch (wait_kind_bytes(kind)) {
    case 2:
      return static_cast<int16_t>(bits);
    case 4:
      return static_cast<int32_t>(bits);
    default:
      return static_cast<int64_t>(bits);
  }
}
uint64_t as_unsigned(uint64_t bits, WaitKind kind) {
  switch (wait_kind_bytes(kind)) {
    case 2:
      return static_cast<uint16_t>(bits);
    case 4:
      return static_cast<uint32_t>(bits);
    default:
      return bits;
  }
}

bool holds(uint64_t a, int cmp, uint64_t b, WaitKind kind) {
  return wait_kind_signed(kind) ? detail::compare_holds(as_signed(a, kind), cmp, as_signed(b, kind))
                                : detail::compare_holds(as_unsigned(a, kind), cmp, as_unsigned(b, kind));
}

const char* cmp_text(int cmp) {
  switch (cmp) {
    case GSHMEM_CMP_EQ:
      return "==";
    case GSHMEM_CMP_NE:
      return "!=";
    case GSHMEM_CMP_GT:
      return ">";
    case GSHMEM_CMP_LE:
      return "<=";
    case GSHMEM_CMP_LT:
      return "<";
    default:
      return ">=";
  }
}

std::string value_text(uint64_t bits, WaitKind kind) {
  return wait_kind_signed(kind) ? std::to_string(as_signed(bits, kind)) : std::to_string(as_unsigned(bits, kind));
}

// Element i of `n` elements of `bytes` bytes at `p`, as bits.
uint64_t element(const void* p, size_t i, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, static_cast<const char*>(p) + i * static_cast<size_t>(bytes), static_cast<size_t>(bytes));
  return v;
}

}  // namespace

size_t Waits::evaluate(const WaitCall& c, const std::vector<uint64_t>& snapshot, size_t start) const {
  const int bytes = wait_kind_bytes(c.kind);
  auto eligible = [&](size_t i) { return !c.status || c.status[i] == 0; };
  auto satisfied = [&](size_t i) {
    uint64_t want = c.values ? element(c.values, i, bytes) : c.value;
    return holds(element(snapshot.data(), i, bytes), c.cmp, want, c.kind);
  };
  switch (c.what) {
    case WaitFor::kAll:
      for (size_t i = 0; i < c.n; ++i) {
        if (eligible(i) && !satisfied(i)) return 0;
      }
      return 1;
    case WaitFor::kAny:
      for (size_t k = 0; k < c.n; ++k) {
        size_t i = (start + k) % c.n;
        if (eligible(i) && satisfied(i)) return i;
      }
      return SIZE_MAX;
    case WaitFor::kSome: {
      size_t found = 0;
      for (size_t i = 0; i < c.n; ++i) {
        if (eligible(i) && satisfied(i)) c.indices[found++] = i;
      }
      return found;
    }
  }
  return 0;
}

std::string Waits::describe_wait(const WaitCall& c, const std::vector<uint64_t>& snapshot) const {
  const int bytes = wait_kind_bytes(c.kind);
  std::string text;
  size_t shown = 0;
  for (size_t i = 0; i < c.n && shown < 4; ++i) {
    if (c.status && c.status[i] != 0) continue;
    uint64_t want = c.values ? element(c.values, i, bytes) : c.value;
    text += log::format("%s%s[%zu] = %s (waiting for %s %s)", shown ? ", " : "", c.ivars_name, i,
                        value_text(element(snapshot.data(), i, bytes), c.kind).c_str(), cmp_text(c.cmp),
                        value_text(want, c.kind).c_str());
    ++shown;
  }
  if (c.n > shown) text += log::format(" (%zu elements in all)", c.n);
  return text;
}

size_t Waits::wait_bytes(const WaitCall& c, const char* api) const {
  size_t widest = 0;
  // The status array has one int per element, the ivars 2, 4 or 8 bytes.
  if (__builtin_mul_overflow(c.n, std::max<size_t>(wait_kind_bytes(c.kind), sizeof(int)), &widest)) {
    log::misuse("%s: %zu elements are more than the address space holds (a negative count?)", api, c.n);
  }
  return c.n * static_cast<size_t>(wait_kind_bytes(c.kind));
}

size_t Waits::wait(const WaitCall& c, const char* api) {
  checks_.check_comparison(c.cmp, api);
  const int bytes = wait_kind_bytes(c.kind);
  if (c.n == 0) {
    if (!rt_.initialized()) rt_.not_ready(api);
    return c.what == WaitFor::kAny ? SIZE_MAX : (c.what == WaitFor::kAll ? 1 : 0);
  }
  const size_t total = wait_bytes(c, api);
  checks_.check_local(c.ivars, total, static_cast<size_t>(bytes), c.ivars_name, api);
  bool any_eligible = !c.status;
  for (size_t i = 0; c.status && i < c.n; ++i) any_eligible |= c.status[i] == 0;
  if (!any_eligible) return c.what == WaitFor::kAny ? SIZE_MAX : (c.what == WaitFor::kAll ? 1 : 0);

  const size_t start = c.what == WaitFor::kAny ? any_start_++ % c.n : 0;
  std::vector<uint64_t> snapshot((total + 7) / 8);
  activity::Scope doing(api, "a wait on this PE's symmetric address 0x%llx",
                        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(c.ivars)));
  const WaitWatch::Options options = rt_.wait_watch_options(api);
  WaitWatch watch(options);
  auto describe = [&] { return ": " + describe_wait(c, snapshot); };
  auto stuck = [&](const std::vector<int>& left) -> std::string {
    // Only another PE can satisfy a wait (or another thread of this one, which NVSHMEM's
    // threading levels do not let wait and write at once).
    if (static_cast<int>(left.size()) < rt_.n_pes() - 1) return "";
    return "every other PE has called nvshmem_finalize and left the job, so nothing can satisfy its wait: " +
           describe_wait(c, snapshot);
  };
  HostBackoff backoff(options.work);
  while (true) {
    if (!ok(rt_.transports().memory().read_words(snapshot.data(), c.ivars, total, bytes))) {
      log::fatal("%s: reading the wait variables failed", api);
    }
    size_t r = evaluate(c, snapshot, start);
    const bool done = c.what == WaitFor::kAny ? r != SIZE_MAX : r != 0;
    if (done && c.observed) *c.observed = element(snapshot.data(), 0, bytes);
    if (done || !c.block) return r;
    if (backoff.pause()) watch.check(describe, stuck);
  }
}

void Waits::wait_on_stream(const WaitCall& c, void* stream, const char* api) {
  if (rt_.backend() == Backend::kCpu) {
    // No streams: stream order is program order, so the wait happens here.
    wait(c, api);
    return;
  }
  checks_.check_comparison(c.cmp, api);
  const size_t bytes = static_cast<size_t>(wait_kind_bytes(c.kind));
  if (c.n == 0) return;
  const size_t total = wait_bytes(c, api);
  checks_.check_local(c.ivars, total, bytes, c.ivars_name, api);
  if (c.status && !rt_.heap().contains(c.status, c.n * sizeof(int)) &&
      !rt_.transports().memory().device_can_read(c.status)) {
    log::misuse("%s: status %p is host memory the GPU cannot read; pass device memory or pinned host memory", api,
               static_cast<const void*>(c.status));
  }
  if (c.values && !rt_.heap().contains(c.values, total) && !rt_.transports().memory().device_can_read(c.values)) {
    log::misuse("%s: cmp_values %p is host memory the GPU cannot read; pass device memory or pinned host memory", api,
               c.values);
  }
  StreamWait w{c.kind, c.cmp, c.ivars, c.n, c.status, c.values, c.value};
  if (!ok(rt_.transports().memory().wait_on_stream(w, stream))) log::fatal("%s: enqueuing the wait failed", api);
}

void Waits::synchronize_stream(void* stream, const char* api) {
  if (!ok(rt_.transports().memory().synchronize(stream))) log::fatal("%s: waiting for the stream failed", api);
}

}  // namespace gshmem
