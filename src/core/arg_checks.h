// The argument checks shared by the host API's operations. Each ends the job with a message that
// names the API, the value and the valid range when the argument is wrong.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gshmem {

class Runtime;

class PeerPath;

// Where an operation's symmetric side lies on the target PE: a heap offset on the PE's path.
struct RemoteTarget {
  PeerPath* path;
  uint64_t offset;
};

class ArgChecks {
 public:
  explicit ArgChecks(const Runtime& rt) : rt_(rt) {}
  // The library is initialised and `pe` is a valid PE.
  void check_pe(int pe, const char* api) const;
  // `pe` is valid, [sym, sym + bytes) is in this PE's heap and `pe` is reachable; returns `pe`'s path and
  // the heap offset of its copy of `sym`. `what` names the argument in messages.
  RemoteTarget target(const void* sym, size_t bytes, int pe, const char* what, const char* api) const;
  // [p, p + bytes) is in this PE's heap and aligned to `align`.
  void check_local(const void* p, size_t bytes, size_t align, const char* what, const char* api) const;
  // The local side of a copy: memory of the program's own passes; a buffer in the heap's address
  // space must lie inside a mapped part of it.
  void check_local_buffer(const void* p, size_t bytes, const char* what, const char* api) const;
  void check_signal_op(int sig_op, const char* api) const;
  void check_comparison(int cmp, const char* api) const;

 private:
  // [p, p + bytes) is in this PE's heap.
  void check_in_heap(const void* p, size_t bytes, const char* what, const char* api) const;

  const Runtime& rt_;
};

}  // namespace gshmem
