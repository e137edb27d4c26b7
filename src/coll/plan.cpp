#include "coll/plan.h"

#include <algorithm>

namespace gshmem {

namespace {

using detail::CollOp;

// Bytes this PE moves (stores to peers or loads from them) in `call`; 0 for the synchronisations.
uint64_t data_bytes(const CollCall& c, int n) {
  const uint64_t members = static_cast<uint64_t>(n);
  switch (c.op) {
    case CollOp::kBroadcast:  // the root stores the message into every member
    case CollOp::kFcollect:   // every member stores its block into every member
    case CollOp::kAlltoall:
    case CollOp::kReducescatter:  // every member loads its block from every member
      return c.bytes * members;
    case CollOp::kReduce:  // a chunk from every member, and its result into every member
      return c.bytes * 2;
    default:
      return 0;
  }
}

unsigned threads_for(CollOp op, const CollTuning& t) {
  switch (op) {
    case CollOp::kReduce:
      return static_cast<unsigned>(t.reduce_threads);
    case CollOp::kReducescatter:
      return static_cast<unsigned>(t.reducescatter_threads);
    case CollOp::kFcollect:
      return static_cast<unsigned>(t.fcollect_threads);
    default:
      return static_cast<unsigned>(t.threads);
  }
}

CollLaunch sync_launch(const CollCall& c, CollOp op) {
  CollLaunch l;
  l.call.op = op;
  l.call.team = c.team;
  l.threads = 32;  // a warp signals and waits for the members in parallel
  return l;
}

// The memory operations of coll_algo.h as a list of copies: the algorithm's puts, in its order; its
// closing barrier is the plan's launch.
struct CopyRecorder {
  std::vector<CollCopy>* copies;
  void put(int member, char* dest, const char* src, size_t bytes) const {
    copies->push_back(CollCopy{member, dest, src, bytes});
  }
  void barrier() const {}
  static constexpr bool kPackets = false;  // the copy engines move every size asked of them
};

bool moves_blocks(CollOp op) { return op == CollOp::kBroadcast || op == CollOp::kFcollect || op == CollOp::kAlltoall; }

int plan_kernels(const CollCall& call, int n, const CollTuning& tuning, CollLaunch out[3]);

}  // namespace

CollPlan plan_collective(const CollCall& call, int n, int my_index, const CollTuning& tuning) {
  CollPlan plan;
  if (tuning.ce_min_bytes != 0 && call.bytes >= tuning.ce_min_bytes && moves_blocks(call.op) && n > 1) {
    plan.copy_engines = true;
    detail::TeamSlot slot{};
    slot.size = n;
    slot.my_index = my_index;
    CopyRecorder recorder{&plan.copies};
    char* dest = static_cast<char*>(call.dest);
    const char* src = static_cast<const char*>(call.src);
    if (call.op == CollOp::kBroadcast) detail::broadcast(recorder, slot, dest, src, call.bytes, call.root);
    if (call.op == CollOp::kFcollect) detail::fcollect(recorder, slot, dest, src, call.bytes);
    if (call.op == CollOp::kAlltoall) detail::alltoall(recorder, slot, dest, src, call.bytes);
    plan.launches[0] = sync_launch(call, CollOp::kBarrier);
    plan.count = 1;
    return plan;
  }
  plan.count = plan_kernels(call, n, tuning, plan.launches);
  return plan;
}

namespace {

int plan_kernels(const CollCall& call, int n, const CollTuning& tuning, CollLaunch out[3]) {
  const uint64_t bytes = data_bytes(call, n);
  const unsigned threads = threads_for(call.op, tuning);
  if (tuning.grid_min_bytes == 0 || bytes < tuning.grid_min_bytes || tuning.max_blocks <= 1 || n <= 1) {
    out[0].call = call;
    out[0].threads = call.op == CollOp::kBarrier || call.op == CollOp::kSync ? 32 : threads;
    return 1;
  }
  // One block per grid_min_bytes / 4 of data (at least 4), up to max_blocks.
  const uint64_t per_block = std::max<uint64_t>(tuning.grid_min_bytes / 4, 1);
  const unsigned blocks =
      static_cast<unsigned>(std::min<uint64_t>(static_cast<uint64_t>(tuning.max_blocks), bytes / per_block));
  int k = 0;
  const bool reduces = call.op == CollOp::kReduce || call.op == CollOp::kReducescatter;
  if (reduces) out[k++] = sync_launch(call, CollOp::kSync);  // every member's source is ready
  out[k].call = call;
  out[k].call.grid_work = 1;
  out[k].blocks = blocks;
  out[k].threads = threads;
  ++k;
  // Reduce-scatter stores only locally: a sync tells the members that their sources are free.
  out[k++] = sync_launch(call, call.op == CollOp::kReducescatter ? CollOp::kSync : CollOp::kBarrier);
  return k;
}

}  // namespace
}  // namespace gshmem
