// RMA regions (NVSHMEM 3.8's nvshmemx_region_*) of the host API: a stretch of a PE's host-initiated
// non-blocking puts and gets that the program marks, with hints for the transports. One region at a
// time per PE (no nesting), named by a handle that start returns and stop must be given.
//
// The hints are hints: GSHMEM_REGION_HINT_BATCH_RMA allows the transports to hold the region's operations
// back and post them together at stop. Ours issue each operation at once (the network proxy already posts
// what it finds together), so a region changes no operation's completion: stop is not a quiet, and the
// operations complete by quiet (or a barrier) as outside a region.
#pragma once

#include <cstdint>
#include <mutex>

#include "util/status.h"

namespace gshmem {

class Regions {
 public:
  // Starts this PE's region with `hints` (GSHMEM_REGION_HINT_*); its handle (never 0) into *handle.
  // INVALID_VALUE for a null handle, unknown hint bits or a region already active.
  Status start(uint64_t* handle, uint32_t hints, const char* api);
  // Ends the active region; INVALID_VALUE when none is active or `handle` is not its handle.
  Status stop(uint64_t handle, const char* api);
  // *active = 1 when a region is active and has every hint of `hints` (none: any region), else 0.
  // INVALID_VALUE for a null `active` or unknown hint bits.
  Status is_active(uint32_t hints, int* active, const char* api) const;
  // Forgets the active region (finalize).
  void clear();

 private:
  mutable std::mutex mu_;
  bool active_ = false;
  uint64_t handle_ = 0;
  uint32_t hints_ = 0;
  uint64_t last_handle_ = 0;
};

}  // namespace gshmem
