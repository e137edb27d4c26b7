// How the GPU backend runs a host or on-stream collective: which launches of the library's
// collective kernel, with how many blocks and threads, in stream order.
//
// Small collectives run in one launch of one block (the whole algorithm, its synchronisation
// included). From GSHMEM_COLL_GRID_MIN_SIZE bytes of data per PE, the data moves in a launch of
// several blocks that does no team synchronisation (CollCall::grid_work), between launches of one
// block for the team sync or barrier the algorithm needs before and after it: stream order makes
// the grid's work follow the sync and precede the barrier, with no grid-wide synchronisation inside
// a kernel (which would need every block resident at once).
//
// Broadcast, fcollect and alltoall whose block is at least GSHMEM_COLL_CE_MIN_SIZE bytes move it with
// the copy engines instead: one copy per member from this PE's source into the member's dest (the
// same puts as the kernel's algorithm, coll_algo.h), then a launch of one block for the team
// barrier. The copies use no SM, so the GPU keeps computing beside them, and they do not wait for a
// peer's kernel to be scheduled on a shared GPU. The caller must have mapped every member's heap.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/collectives.h"

namespace gshmem {

struct CollTuning {
  uint64_t grid_min_bytes = 256 << 10;  // data per PE from which several blocks move it (0: never)
  uint64_t ce_min_bytes = 4 << 20;      // block size from which the copy engines move it (0: never)
  int max_blocks = 32;                  // the most blocks of a grid launch
  int threads = 512;                    // threads per block, by collective (NVSHMEM's *_NTHREADS) ...
  int reduce_threads = 512;
  int reducescatter_threads = 512;
  int fcollect_threads = 512;
};

struct CollLaunch {
  CollCall call;
  unsigned blocks = 1;
  unsigned threads = 512;
};

// A copy of the copy-engine path: `bytes` from this PE's `src` into member `member`'s copy of the
// symmetric object that is at `dest` on this PE.
struct CollCopy {
  int member = 0;
  char* dest = nullptr;
  const char* src = nullptr;
  uint64_t bytes = 0;
};

// How to run a collective: first the copies (in order on one stream), then the launches.
struct CollPlan {
  std::vector<CollCopy> copies;
  CollLaunch launches[3];
  int count = 0;  // launches
  bool copy_engines = false;
};

// The plan for `call` by member `my_index` of a team of `n` members.
CollPlan plan_collective(const CollCall& call, int n, int my_index, const CollTuning& tuning);

}  // namespace gshmem
