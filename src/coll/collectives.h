// The host and on-stream entry of the collectives: argument checks, then the engine that runs them.
//
// Engines: the CPU backend's (host code: the algorithms of gshmem/detail/coll_algo.h with copies through
// each member's path, and the team barrier on flags stored through the same paths), and the GPU backend's
// (the core launches the library's collective kernel, which runs the same algorithms at block scope, on the caller's
// stream or on an internal one that it then waits for).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gshmem/detail/coll_algo.h"
#include "gshmem/detail/reduce_algo.h"
#include "gshmem/detail/team.h"
#include "util/status.h"

namespace gshmem {

class SymmetricHeap;
class Teams;
struct TeamInfo;

struct CollCall {
  detail::CollOp op = detail::CollOp::kBarrier;
  int32_t team = 0;
  int32_t root = 0;
  detail::ReduceType dtype = detail::ReduceType::kI32;  // reductions: the element type ...
  detail::ReduceOp redop = detail::ReduceOp::kSum;      // ... and the operation
  int32_t grid_work = 0;  // GPU: only the data movement, by every block of the grid (coll/plan.h)
  void* dest = nullptr;
  const void* src = nullptr;
  uint64_t bytes = 0;  // per block (broadcast and reduce: the whole message; reducescatter: dest)
};

#if defined(__CUDACC__)
#define GSHMEMI_COLL_CALL_FN __host__ __device__ inline
#else
#define GSHMEMI_COLL_CALL_FN inline
#endif

// Runs the collective `c` that moves data (broadcast, fcollect, alltoall, reduce, reducescatter) with the
// memory operations `ops` (coll_algo.h, reduce_algo.h): the CPU backend's engine and the library's
// kernel share it. False for any other collective or a (type, op) pair that has no reduction.
template <class Ops>
GSHMEMI_COLL_CALL_FN bool run_data_collective(Ops& ops, const detail::TeamSlot& t, const CollCall& c) {
  using detail::CollOp;
  char* dest = static_cast<char*>(c.dest);
  const char* src = static_cast<const char*>(c.src);
  switch (c.op) {
    case CollOp::kBroadcast:
      detail::broadcast(ops, t, dest, src, c.bytes, c.root);
      return true;
    case CollOp::kFcollect:
      detail::fcollect(ops, t, dest, src, c.bytes);
      return true;
    case CollOp::kAlltoall:
      detail::alltoall(ops, t, dest, src, c.bytes);
      return true;
    case CollOp::kReduce:
    case CollOp::kReducescatter:
      return detail::reduce_by_value(ops, t, c.dtype, c.redop, c.op == CollOp::kReducescatter, c.dest, c.src,
                                     c.bytes / detail::reduce_type_size(c.dtype));
    default:
      return false;
  }
}

#undef GSHMEMI_COLL_CALL_FN

class CollEngine {
 public:
  virtual ~CollEngine() = default;
  // Runs `call` on `team`, whose slot (this PE's view, in its heap: GPU memory on the GPU backend,
  // which the host must not read) is `slot`: in order on `stream` when `on_stream`, else before it
  // returns.
  virtual Status run(const CollCall& call, const detail::TeamSlot& slot, const TeamInfo& team, bool on_stream,
                     void* stream, const char* api) = 0;
};

// Waits until *flag >= target, where member `pe` of `team` writes the flag (the caller's diagnostics
// say so when the wait lasts): a barrier flag, or with `packet` a flag-in-data packet (ll_algo.h).
using FlagWait =
    std::function<void(const uint64_t* flag, uint64_t target, int team, int pe, bool packet, const char* api)>;

class TransportManager;

// The CPU backend's engine: host code that reaches each member through its path (transport/path.h).
std::unique_ptr<CollEngine> make_host_coll_engine(const SymmetricHeap& heap, TransportManager& transports,
                                                  FlagWait wait);

class Collectives {
 public:
  Collectives(Teams& teams, const SymmetricHeap& heap) : teams_(teams), heap_(heap) {}
  void set_engine(CollEngine* engine) { engine_ = engine; }
  // With `check`, every host or on-stream collective first checks that the members passed the same
  // arguments (NVSHMEM_ENABLE_ERROR_CHECKS): one exchange of the team per call.
  void set_check_arguments(bool check) { check_arguments_ = check; }
  // A collective on `team` from the host (`on_stream`: ordered on `stream`). Invalid arguments get a
  // message naming them and an error status.
  Status run(const CollCall& call, bool on_stream, void* stream, const char* api);

 private:
  bool check_buffer(const void* p, uint64_t bytes, const char* what, const char* api) const;
  Teams& teams_;
  const SymmetricHeap& heap_;
  CollEngine* engine_ = nullptr;
  bool check_arguments_ = false;
};

}  // namespace gshmem
