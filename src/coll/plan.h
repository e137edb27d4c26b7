// How the GPU backend runs a host or on-stream collective: which launches of the library's
// collective kernel, with how many blocks and threads, in stream order.
//
// Small collectives run in one launch of one block (the whole algorithm, its synchronisation
// included). From GSHMEM_COLL_GRID_MIN_SIZE bytes of data per PE, the data moves in a launch of
// several blocks that does no team synchronisation (CollCall::grid_work), between launches of one
// block for the team sync or barrier the algorithm needs before and after it: stream order makes
// the grid's work follow the sync and precede the barrier, with no grid-wide synchronisation inside
// a kernel (which would need every block resident at once).
#pragma once

#include <cstdint>

#include "coll/collectives.h"

namespace gshmem {

struct CollTuning {
  uint64_t grid_min_bytes = 256 << 10;  // data per PE from which several blocks move it (0: never)
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

// The launches for `call` on a team of `n` members (at most 3, written to out); returns their number.
int plan_collective(const CollCall& call, int n, const CollTuning& tuning, CollLaunch out[3]);

}  // namespace gshmem
