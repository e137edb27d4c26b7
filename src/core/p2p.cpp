// The point-to-point operations of the host API beyond put and get: strided copies, atomics,
// signals, waits and tests, and their stream-ordered forms.
//
// Every entry point checks its arguments first (state, PE, heap range, alignment, operator) and
// ends the job with a message that names the call and the value when one is wrong: NVSHMEM's void
// functions have no way to report an error, and going on would corrupt memory or hang.

#include <chrono>
#include <climits>
#include <cstring>

#include "core/activity.h"
#include "core/runtime.h"
#include "gshmem/constants.h"
#include "gshmem/detail/compare.h"
#include "util/host_wait.h"
#include "util/log.h"
#include "util/socket.h"

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

void Runtime::check_pe(int pe, const char* api) const {
  if (state_ != kInitialized) not_ready(api);
  if (pe < 0 || pe >= n_pes()) {
    log::fatal("%s: PE %d is out of range: valid PEs are 0 to %d (%d PEs)", api, pe, n_pes() - 1, n_pes());
  }
}

void Runtime::check_local_buffer(const void* p, size_t bytes, const char* what, const char* api) const {
  // Memory outside the heap's address space is the program's own, not ours to check; inside it,
  // only what is mapped can be read or written.
  if (!heap_.in_reservation(p) || heap_.in_mapped_window(p, bytes)) return;
  log::fatal(
      "%s: the local %s %p (%zu bytes) lies in the symmetric heap's address space but runs past its mapped part "
      "(this PE's heap is [%p, %p)); a local buffer in the heap must lie inside memory from nvshmem_malloc",
      api, what, p, bytes, static_cast<void*>(heap_.base()), static_cast<void*>(heap_.base() + heap_.mapped()));
}

char* Runtime::remote_address(const void* sym, size_t bytes, int pe, const char* what, const char* api) const {
  check_pe(pe, api);
  if (!heap_.contains(sym, bytes)) {
    log::fatal(
        "%s: the %s %p (%zu bytes) is not inside the symmetric heap [%p, %p); it must be memory from "
        "nvshmem_malloc",
        api, what, sym, bytes, static_cast<void*>(heap_.base()), static_cast<void*>(heap_.base() + heap_.mapped()));
  }
  char* base = heap_.peer_base(pe);
  if (!base) log::fatal("%s: PE %d cannot be reached from PE %d: %s", api, pe, my_pe(), unreachable_reason().c_str());
  return base + (static_cast<const char*>(sym) - heap_.base());
}

void Runtime::check_local(const void* p, size_t bytes, size_t align, const char* what, const char* api) const {
  if (state_ != kInitialized) not_ready(api);
  if (!heap_.contains(p, bytes)) {
    log::fatal(
        "%s: the %s %p (%zu bytes) is not inside the symmetric heap [%p, %p); it must be memory from "
        "nvshmem_malloc",
        api, what, p, bytes, static_cast<void*>(heap_.base()), static_cast<void*>(heap_.base() + heap_.mapped()));
  }
  if (reinterpret_cast<uintptr_t>(p) % align != 0) {
    log::fatal("%s: the %s %p is not aligned to its size (%zu bytes)", api, what, p, align);
  }
}

void Runtime::check_signal_op(int sig_op, const char* api) const {
  if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD) {
    log::fatal("%s: signal operation %d is not NVSHMEM_SIGNAL_SET (%d) or NVSHMEM_SIGNAL_ADD (%d)", api, sig_op,
               GSHMEM_SIGNAL_SET, GSHMEM_SIGNAL_ADD);
  }
}

void Runtime::check_comparison(int cmp, const char* api) const {
  if (cmp < GSHMEM_CMP_EQ || cmp > GSHMEM_CMP_GE) {
    log::fatal(
        "%s: comparison %d is not one of NVSHMEM_CMP_EQ (0), NVSHMEM_CMP_NE (1), NVSHMEM_CMP_GT (2), NVSHMEM_CMP_LE "
        "(3), NVSHMEM_CMP_LT (4) or NVSHMEM_CMP_GE (5)",
        api, cmp);
  }
}

void Runtime::rma_strided(bool put, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                          size_t nelems, int pe, Completion completion, void* stream, const char* api) {
  if (dst < 1 || sst < 1) {
    log::fatal("%s: the strides must be at least 1 element, but the destination stride is %td and the source %td", api,
               dst, sst);
  }
  if (nelems == 0) {
    check_pe(pe, api);  // nothing moves, so neither pointer is used (NULL is fine)
    return;
  }
  const ptrdiff_t sym_stride = put ? dst : sst;
  // The symmetric side spans ((nelems - 1) * stride + 1) elements; a product that overflows would
  // wrap to a small extent and pass the heap check while the elements land elsewhere.
  size_t extent = 0;
  if (__builtin_mul_overflow(nelems - 1, static_cast<size_t>(sym_stride), &extent) ||
      __builtin_add_overflow(extent, size_t{1}, &extent) || __builtin_mul_overflow(extent, elem, &extent)) {
    log::fatal("%s: %zu elements of %zu bytes with a %s stride of %td elements span more than the address space", api,
               nelems, elem, put ? "destination" : "source", sym_stride);
  }
  const void* sym = put ? static_cast<const void*>(dest) : source;
  char* remote = remote_address(sym, extent, pe, put ? "destination" : "source", api);
  const ptrdiff_t local_stride = put ? sst : dst;
  size_t local_extent = 0;
  if (__builtin_mul_overflow(nelems - 1, static_cast<size_t>(local_stride), &local_extent) ||
      __builtin_add_overflow(local_extent, size_t{1}, &local_extent) ||
      __builtin_mul_overflow(local_extent, elem, &local_extent)) {
    log::fatal("%s: %zu elements of %zu bytes with a %s stride of %td elements span more than the address space", api,
               nelems, elem, put ? "source" : "destination", local_stride);
  }
  check_local_buffer(put ? source : static_cast<const void*>(dest), local_extent, put ? "source" : "destination", api);
  Status s = put ? transport_->copy_strided(remote, dst * elem, source, sst * elem, elem, nelems, completion, stream)
                 : transport_->copy_strided(dest, dst * elem, remote, sst * elem, elem, nelems, completion, stream);
  if (!ok(s)) log::fatal("%s: the strided copy of %zu elements %s PE %d failed", api, nelems, put ? "to" : "from", pe);
}

void Runtime::p_on_stream(void* dest, const void* value, size_t bytes, int pe, void* stream, const char* api) {
  char* remote = remote_address(dest, bytes, pe, "destination", api);
  if (!ok(transport_->store_on_stream(remote, value, bytes, stream)))
    log::fatal("%s: the store to PE %d failed", api, pe);
}

uint64_t Runtime::atomic(void* dest, const Amo& amo, bool fetch, int pe, const char* api) {
  char* remote = remote_address(dest, static_cast<size_t>(amo.bytes), pe, "destination", api);
  if (reinterpret_cast<uintptr_t>(dest) % static_cast<uintptr_t>(amo.bytes) != 0) {
    log::fatal("%s: the destination %p is not aligned to its size (%d bytes)", api, dest, amo.bytes);
  }
  uint64_t old = 0;
  if (!ok(transport_->atomic(remote, amo, fetch ? &old : nullptr, Completion::kBlocking, nullptr))) {
    log::fatal("%s: the atomic on PE %d failed", api, pe);
  }
  return old;
}

void Runtime::signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, Completion completion, void* stream,
                        const char* api) {
  check_signal_op(sig_op, api);
  char* remote = remote_address(sig_addr, sizeof(uint64_t), pe, "signal", api);
  check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  Amo amo{sig_op == GSHMEM_SIGNAL_SET ? AmoOp::kStore : AmoOp::kAdd, 8, signal, 0};
  if (!ok(transport_->atomic(remote, amo, nullptr, completion, stream))) {
    log::fatal("%s: the signal update on PE %d failed", api, pe);
  }
}

void Runtime::put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, int sig_op,
                         int pe, Completion completion, void* stream, const char* api) {
  check_signal_op(sig_op, api);
  // With 0 bytes only the signal is updated; `dest` is not used and may be NULL.
  char* remote = bytes > 0 ? remote_address(dest, bytes, pe, "destination", api) : nullptr;
  char* remote_sig = remote_address(sig_addr, sizeof(uint64_t), pe, "signal", api);
  check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  // The copy and the signal go in order on one stream (or in order on the CPU), and the signal's
  // update is a release after the copy completed: the data arrives first. A blocking call waits
  // once, for the signal.
  const Completion copy_completion = completion == Completion::kBlocking ? Completion::kNbi : completion;
  Amo amo{sig_op == GSHMEM_SIGNAL_SET ? AmoOp::kStore : AmoOp::kAdd, 8, signal, 0};
  if (bytes > 0) check_local_buffer(source, bytes, "source", api);
  if (bytes > 0 && !ok(transport_->copy(remote, source, bytes, copy_completion, stream))) {
    log::fatal("%s: the copy of %zu bytes to PE %d failed", api, bytes, pe);
  }
  if (!ok(transport_->atomic(remote_sig, amo, nullptr, completion, stream))) {
    log::fatal("%s: the signal update on PE %d failed", api, pe);
  }
}

uint64_t Runtime::signal_fetch(const uint64_t* sig_addr, const char* api) {
  check_local(sig_addr, sizeof(uint64_t), sizeof(uint64_t), "signal", api);
  uint64_t v = 0;
  if (!ok(transport_->read_words(&v, sig_addr, sizeof v, sizeof v))) log::fatal("%s: reading the signal failed", api);
  return v;
}

size_t Runtime::evaluate(const WaitCall& c, const std::vector<uint64_t>& snapshot, size_t start) const {
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

std::string Runtime::describe_wait(const WaitCall& c, const std::vector<uint64_t>& snapshot) const {
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

size_t Runtime::wait_bytes(const WaitCall& c, const char* api) const {
  size_t widest = 0;
  // The status array has one int per element, the ivars 2, 4 or 8 bytes.
  if (__builtin_mul_overflow(c.n, std::max<size_t>(wait_kind_bytes(c.kind), sizeof(int)), &widest)) {
    log::fatal("%s: %zu elements are more than the address space holds (a negative count?)", api, c.n);
  }
  return c.n * static_cast<size_t>(wait_kind_bytes(c.kind));
}

size_t Runtime::wait(const WaitCall& c, const char* api) {
  check_comparison(c.cmp, api);
  const int bytes = wait_kind_bytes(c.kind);
  if (c.n == 0) {
    if (state_ != kInitialized) not_ready(api);
    return c.what == WaitFor::kAny ? SIZE_MAX : (c.what == WaitFor::kAll ? 1 : 0);
  }
  const size_t total = wait_bytes(c, api);
  check_local(c.ivars, total, static_cast<size_t>(bytes), c.ivars_name, api);
  bool any_eligible = !c.status;
  for (size_t i = 0; c.status && i < c.n; ++i) any_eligible |= c.status[i] == 0;
  if (!any_eligible) return c.what == WaitFor::kAny ? SIZE_MAX : (c.what == WaitFor::kAll ? 1 : 0);

  const size_t start = c.what == WaitFor::kAny ? any_start_++ % c.n : 0;
  std::vector<uint64_t> snapshot((total + 7) / 8);
  activity::Scope doing(api, "a wait on this PE's symmetric address 0x%llx",
                        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(c.ivars)));
  WaitWatch watch(wait_watch_options(api));
  auto describe = [&] { return ": " + describe_wait(c, snapshot); };
  auto stuck = [&](const std::vector<int>& left) -> std::string {
    // Only another PE can satisfy a wait (or another thread of this one, which NVSHMEM's
    // threading levels do not let wait and write at once).
    if (static_cast<int>(left.size()) < n_pes() - 1) return "";
    return "every other PE has called nvshmem_finalize and left the job, so nothing can satisfy its wait: " +
           describe_wait(c, snapshot);
  };
  HostBackoff backoff;
  while (true) {
    if (!ok(transport_->read_words(snapshot.data(), c.ivars, total, bytes))) {
      log::fatal("%s: reading the wait variables failed", api);
    }
    size_t r = evaluate(c, snapshot, start);
    const bool done = c.what == WaitFor::kAny ? r != SIZE_MAX : r != 0;
    if (done && c.observed) *c.observed = element(snapshot.data(), 0, bytes);
    if (done || !c.block) return r;
    if (backoff.pause()) watch.check(describe, stuck);
  }
}

void Runtime::wait_on_stream(const WaitCall& c, void* stream, const char* api) {
  if (backend_ == Backend::kCpu) {
    // No streams: stream order is program order, so the wait happens here.
    wait(c, api);
    return;
  }
  check_comparison(c.cmp, api);
  const size_t bytes = static_cast<size_t>(wait_kind_bytes(c.kind));
  if (c.n == 0) return;
  const size_t total = wait_bytes(c, api);
  check_local(c.ivars, total, bytes, c.ivars_name, api);
  if (c.status && !heap_.contains(c.status, c.n * sizeof(int)) && !transport_->device_can_read(c.status)) {
    log::fatal("%s: status %p is host memory the GPU cannot read; pass device memory or pinned host memory", api,
               static_cast<const void*>(c.status));
  }
  if (c.values && !heap_.contains(c.values, total) && !transport_->device_can_read(c.values)) {
    log::fatal("%s: cmp_values %p is host memory the GPU cannot read; pass device memory or pinned host memory", api,
               c.values);
  }
  StreamWait w{c.kind, c.cmp, c.ivars, c.n, c.status, c.values, c.value};
  if (!ok(transport_->wait_on_stream(w, stream))) log::fatal("%s: enqueuing the wait failed", api);
}

void Runtime::synchronize_stream(void* stream, const char* api) {
  if (!ok(transport_->synchronize(stream))) log::fatal("%s: waiting for the stream failed", api);
}

}  // namespace gshmem
