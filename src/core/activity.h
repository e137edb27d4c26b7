// What this PE's host threads are doing inside gshmem, so that a PE ended because a peer is gone
// (or a wait that ran too long) can say which call it was in.
//
// A Scope marks a call for as long as it runs; scopes nest (nvshmem_finalize runs a barrier) and
// the innermost names the call. Marking costs three relaxed stores: the barrier and wait paths keep
// it. Threads share one record: with several host threads the last one to enter a call is named.
#pragma once

#include <cstdint>
#include <string>

namespace gshmem {
namespace activity {

class Scope {
 public:
  // `detail` is a printf format with one %llu for `n` ("barrier %llu of NVSHMEM_TEAM_WORLD"), or "".
  explicit Scope(const char* api, const char* detail = "", uint64_t n = 0);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  const char* api_;
  const char* detail_;
  uint64_t n_;
};

// "in nvshmem_barrier_all (barrier 12 of NVSHMEM_TEAM_WORLD)", or "not in a gshmem call".
std::string describe();

}  // namespace activity
}  // namespace gshmem
