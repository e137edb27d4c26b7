// Native device API: RMA regions of a block (NVSHMEM 3.8's nvshmemx_region_start_block, _stop_block and
// the device nvshmemx_region_is_active).
//
//   gshmem::dev::region_start<kBlock>(&handle, hints)    region_stop<kBlock>(handle)    region_is_active(hints,
//   &active)
//
// Contracts (NVSHMEM's): a region belongs to the calling block; start and stop are collective over the
// block (every thread passes the same arguments and gets the same status, and start gives every thread the
// handle). Regions do not nest: a second start in the block returns INVALID_VALUE, as do a stop without an
// active region or with another handle, a null handle pointer and unknown hint bits. is_active is any
// thread's: 1 when the block's region is active and has every hint asked for (none: any region).
// The hints are hints (core/regions.h): the device's operations are issued at once, so a region changes no
// operation's completion; stop is not a quiet.
//
// The state lives in the block's shared memory (32 bytes, in kernels that use regions), which a kernel does
// not initialise: it counts as the block's only when it names this launch (the grid's launch number, which
// the PEs sharing a GPU count apart: with this PE's number) and this block, which no earlier block can.
#pragma once

#if defined(__CUDACC__)
#include <cstdint>

#include "gshmem/constants.h"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/state.cuh"
#include "gshmem/status.h"

namespace gshmem {
namespace dev {
namespace detail_region {

struct Slot {
  unsigned long long grid;    // the launch whose block wrote this state (%gridid)
  uint32_t block;             // the block (its linear index in the grid)
  int32_t pe;                 // this PE (PEs sharing a GPU count launches apart)
  unsigned long long handle;  // the block's last region's handle (1, 2, ...)
  uint32_t hints;
  uint32_t active;
};

// In the device library (devlib/) internal linkage: one slot per module, and no exported name of it. Elsewhere one
// slot for the program's translation units (with -rdc a region may start in one and stop in another).
#if defined(GSHMEM_DEVICE_LIBRARY)
#define GSHMEMI_REGION_SLOT_LINKAGE static
#else
#define GSHMEMI_REGION_SLOT_LINKAGE
#endif
GSHMEMI_REGION_SLOT_LINKAGE __device__ __forceinline__ Slot& slot() {
  __shared__ Slot s;
  return s;
}

struct Owner {
  unsigned long long grid;
  uint32_t block;
  int32_t pe;
};
__device__ __forceinline__ Owner owner() {
  Owner o;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(o.grid));
  o.block = static_cast<uint32_t>(gshmem::detail::linear_block());
  o.pe = gshmem::detail::state().mype;
  return o;
}
__device__ __forceinline__ bool owns(const Slot& s, const Owner& o) {
  return s.grid == o.grid && s.block == o.block && s.pe == o.pe;
}

__device__ __forceinline__ bool valid_hints(uint32_t hints) { return (hints & ~GSHMEM_REGION_HINTS_ALL) == 0; }

}  // namespace detail_region

template <Scope S = Scope::kBlock>
__device__ __forceinline__ int region_start(uint64_t* handle, uint32_t hints) {
  static_assert(S == Scope::kBlock, "a device region belongs to a block");
  detail_region::Slot& s = detail_region::slot();
  const detail_region::Owner me = detail_region::owner();
  __syncthreads();
  const bool mine = detail_region::owns(s, me);
  int rc = GSHMEM_SUCCESS;
  if (handle == nullptr || !detail_region::valid_hints(hints) || (mine && s.active != 0))
    rc = GSHMEM_ERROR_INVALID_VALUE;
  const unsigned long long next = mine ? s.handle + 1 : 1;
  __syncthreads();  // every thread has read the state before it changes
  if (rc == GSHMEM_SUCCESS && gshmem::detail::linear_thread() == 0) {
    s.grid = me.grid;
    s.block = me.block;
    s.pe = me.pe;
    s.handle = next;
    s.hints = hints;
    s.active = 1;
  }
  __syncthreads();
  if (rc == GSHMEM_SUCCESS) *handle = next;
  return rc;
}

template <Scope S = Scope::kBlock>
__device__ __forceinline__ int region_stop(uint64_t handle) {
  static_assert(S == Scope::kBlock, "a device region belongs to a block");
  detail_region::Slot& s = detail_region::slot();
  const detail_region::Owner me = detail_region::owner();
  __syncthreads();
  const int rc =
      detail_region::owns(s, me) && s.active != 0 && s.handle == handle ? GSHMEM_SUCCESS : GSHMEM_ERROR_INVALID_VALUE;
  __syncthreads();
  if (rc == GSHMEM_SUCCESS && gshmem::detail::linear_thread() == 0) s.active = 0;
  __syncthreads();
  return rc;
}

__device__ __forceinline__ int region_is_active(uint32_t hints, int* active) {
  if (active == nullptr || !detail_region::valid_hints(hints)) return GSHMEM_ERROR_INVALID_VALUE;
  const detail_region::Slot& s = detail_region::slot();
  *active = detail_region::owns(s, detail_region::owner()) && s.active != 0 && (s.hints & hints) == hints ? 1 : 0;
  return GSHMEM_SUCCESS;
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__
