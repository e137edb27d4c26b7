#include "core/gpu_coll_engine.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "coll/plan.h"
#include "heap/symmetric_heap.h"
#include "team/teams.h"
#include "transport/manager.h"
#include "util/config.h"
#include "util/log.h"

namespace gshmem {

namespace {

// The GPU backend's collectives: the library's collective kernel, on the caller's stream or on the
// internal one, waited for with the usual diagnostics.
class GpuCollEngine final : public CollEngine {
 public:
  explicit GpuCollEngine(GpuCollSetup setup) : s_(std::move(setup)), tuning_(tuning(*s_.config)) {}
  Status run(const CollCall& call, const detail::TeamSlot& slot, const TeamInfo& team, bool on_stream, void* stream,
             const char* api) override {
    const SymmetricHeap& heap = *s_.heap;
    // The copy engines reach only members whose heaps are mapped here; the others are reached through
    // the network proxy. A reduction on such a team stages the members' sources through the team's
    // scratch (reduce_algo.h, staged_reduce), rounds of a team sync and a barrier that one block runs.
    CollTuning tuning = tuning_;
    bool across = false;
    for (int pe : team.members) across = across || !s_.transports->path(pe).caps().load_store;
    if (across) {
      tuning.ce_min_bytes = 0;
      if (call.op == detail::CollOp::kReduce || call.op == detail::CollOp::kReducescatter) {
        tuning.grid_min_bytes = 0;
        GSHMEM_CHECK(check_scratch(call, team, api));
      }
    }
    const CollPlan plan = plan_collective(call, team.size(), team.my_index, tuning);
    std::vector<GpuResources::Copy> copies;
    copies.reserve(plan.copies.size());
    for (const CollCopy& c : plan.copies) {
      char* peer = s_.transports->path(team.members[static_cast<size_t>(c.member)]).base() + (c.dest - heap.base());
      copies.push_back(GpuResources::Copy{peer, c.src, c.bytes});
    }
    if (on_stream) return s_.gpu->collective(copies, plan.launches, plan.count, true, stream, nullptr);
    const WaitWatch::Options watch = s_.watch(api);
    return s_.gpu->collective(copies, plan.launches, plan.count, false, nullptr, &watch);
  }

 private:
  // Whether the team's scratch holds an element of the reduction per member; else a message naming the
  // setting (a kernel's reduction traps for the same reason, reduce.cuh).
  Status check_scratch(const CollCall& call, const TeamInfo& team, const char* api) const {
    detail::TeamSlot t{};
    t.size = team.size();
    t.scratch_bytes = s_.reduce_scratch;
    const size_t elem = detail::reduce_type_size(call.dtype);
    if (detail::staged_elements(t, elem) > 0) return GSHMEM_SUCCESS;
    GSHMEM_ERROR(
        "%s on team %d of %d PEs with members across the network: each member's part of the reduction scratch "
        "(NVSHMEM_REDUCE_SCRATCH_SIZE = %u bytes, over %d members, in multiples of 16) holds no element of %zu "
        "bytes; set NVSHMEM_REDUCE_SCRATCH_SIZE to at least %zu",
        api, call.team, team.size(), t.scratch_bytes, team.size(), elem,
        static_cast<size_t>(team.size()) * std::max<size_t>(elem, 16));
    return GSHMEM_ERROR_INVALID_VALUE;
  }

  // Threads per block from a setting: a multiple of 32 in [32, 1024], else the default (with a warning).
  static int threads(int64_t value, const char* name) {
    if (value >= 32 && value <= 1024 && value % 32 == 0) return static_cast<int>(value);
    GSHMEM_WARN(kColl, "%s=%lld is not a multiple of 32 between 32 and 1024; using 512", name,
                static_cast<long long>(value));
    return 512;
  }
  static CollTuning tuning(const Config& cfg) {
    CollTuning t;
    t.grid_min_bytes = cfg.coll_grid_min_size;
    t.ce_min_bytes = cfg.coll_ce_min_size;
    t.max_blocks = static_cast<int>(std::min<int64_t>(std::max<int64_t>(cfg.coll_max_blocks, 1), 1024));
    t.reduce_threads = threads(cfg.reduce_nthreads, "NVSHMEM_REDUCE_NTHREADS");
    t.reducescatter_threads = threads(cfg.reducescatter_nthreads, "NVSHMEM_REDUCESCATTER_NTHREADS");
    t.fcollect_threads = threads(cfg.fcollect_nthreads, "NVSHMEM_FCOLLECT_NTHREADS");
    return t;
  }
  const GpuCollSetup s_;
  const CollTuning tuning_;
};

}  // namespace

std::unique_ptr<CollEngine> make_gpu_coll_engine(GpuCollSetup setup) {
  return std::make_unique<GpuCollEngine>(std::move(setup));
}

}  // namespace gshmem
