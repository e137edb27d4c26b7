// The waits and tests of the host API (nvshmem_<T>_wait_until*, nvshmem_<T>_test*, the signal waits)
// and their stream-ordered forms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/arg_checks.h"
#include "transport/transport.h"

namespace gshmem {

class Runtime;

// A host wait or test (nvshmem_<T>_wait_until*, nvshmem_<T>_test*): on this PE's ivars[0..n),
// the elements with status[i] == 0 (all when status is NULL), each compared with values[i] (when
// set) or `value`. Values travel as bits in the low bytes of a uint64_t and are read as `kind`.
struct WaitCall {
  WaitKind kind = WaitKind::kU64;
  WaitFor what = WaitFor::kAll;
  bool block = true;  // wait until it holds; false: test once
  const void* ivars = nullptr;
  const char* ivars_name = "ivars";  // what messages call `ivars` ("signal" for the signal waits)
  size_t n = 1;
  const int* status = nullptr;
  int cmp = 0;
  const void* values = nullptr;  // host memory, n elements of the kind's width
  uint64_t value = 0;
  size_t* indices = nullptr;     // kSome: receives the satisfied indices
  uint64_t* observed = nullptr;  // n == 1: receives the value that satisfied the wait
};

class Waits {
 public:
  explicit Waits(Runtime& rt) : rt_(rt), checks_(rt) {}
  // Returns: kAll 1 when it holds (always 1 when blocking), kAny an index or SIZE_MAX, kSome the
  // number of indices stored.
  size_t wait(const WaitCall& call, const char* api);
  // wait_until(_all)(_vector)_on_stream and signal_wait_until_on_stream; call.what is kAll.
  void wait_on_stream(const WaitCall& call, void* stream, const char* api);
  // Waits on the calling thread for the work enqueued on `stream` (g_on_stream).
  void synchronize_stream(void* stream, const char* api);

 private:
  // The bytes of a wait's ivars; a count whose ivars or status array overflow 64 bits ends the job.
  size_t wait_bytes(const WaitCall& c, const char* api) const;
  // One evaluation of a wait's condition on a snapshot of the ivars.
  size_t evaluate(const WaitCall& call, const std::vector<uint64_t>& snapshot, size_t start) const;
  std::string describe_wait(const WaitCall& call, const std::vector<uint64_t>& snapshot) const;

  Runtime& rt_;
  ArgChecks checks_;
  uint64_t any_start_ = 0;  // rotates the first index _any waits and tests try
};

}  // namespace gshmem
