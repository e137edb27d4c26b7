// Copy-engine offload of large device-initiated _nbi puts and gets.
//
// SM stores from a few CTAs cannot fill NVLink (4 CTAs of 1024 threads top out near 180 GB/s on
// H200), while the GPU's copy engines move ~390 GB/s without using an SM. A put_nbi / get_nbi of at
// least DeviceState::ce_min_bytes (GSHMEM_CE_MIN_SIZE) from a grid of at most ce_max_blocks blocks
// is therefore handed, as one ring entry, to a host thread of this PE (the copy proxy) that issues
// it with cuMemcpyAsync; the call returns at once. Layout and protocol of the ring:
// gshmem/detail/device_state.h.
//
// Contracts:
//  - ce_post: one thread hands over one copy; the source must not change and the destination is
//    not readable until a later quiet, fence or barrier (the _nbi rules).
//  - quiet_all (quiet, fence, the barriers): returns once every ticket taken before it has
//    completed. When the proxy reports a failed copy, a kernel waiting there or for ring space ends
//    with a trap rather than hang; the host log says which copy failed, why, and what to do. No
//    message from the device: a kernel that contains a call (printf) gets a slower fence everywhere
//    (ptxas puts MEMBAR.ALL.CTA before each MEMBAR.SC.SYS). Measured on H200 with the copy engines
//    off, quiet after a p took 0.055 us more than a bare fence with the call in the kernel, 0.015-0.02
//    without.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>

#include "gshmem/device/net.cuh"
#include "gshmem/device/ordering.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace detail {

// Whether a copy of `bytes` whose local side is `local` goes to the copy engines: they are on, the
// copy is large enough, and `local` is a global address (a shared-memory or stack address means
// nothing outside this thread's SM). A grid of more than GSHMEM_CE_MAX_BLOCKS blocks fills the links
// with its own stores, so it hands over only copies of at least kCeLargeGridFactor (4) x
// GSHMEM_CE_MIN_SIZE (measured on 2 x H200 with 32 blocks of 1024 threads per GPU, one way: its
// stores move 351 GB/s at 1 MiB per call where the engines move 280, 353 at 2 MiB where they move
// 326, the same at 4 MiB, and 356 at 8 MiB where the engines move 377; both ways at 8 MiB per call,
// 703 against 745). The state is read through a volatile access so that the compiler does not
// hoist it out of the caller's loop and split that loop in two (which costs a kernel of 1024-thread
// blocks the registers it needs to launch); it is one constant-cache load.
__device__ __forceinline__ bool ce_enabled(size_t bytes, const void* local) {
  const uint64_t min_bytes = *reinterpret_cast<const volatile uint64_t*>(&state().ce_min_bytes);
  const unsigned max_blocks = *reinterpret_cast<const volatile int32_t*>(&state().ce_max_blocks);
  // The product is 32-bit: a grid of 2^32 blocks or more can wrap below the limit, which costs it
  // speed, never correctness; 64 bits cost a kernel of 1024-thread blocks 16 registers.
  return min_bytes != 0 && bytes >= min_bytes &&
         (gridDim.x * gridDim.y * gridDim.z <= max_blocks || bytes / kCeLargeGridFactor >= min_bytes) &&
         __isGlobal(local);
}

__device__ __forceinline__ void ce_post(void* dst, const void* src, size_t bytes) {
  const DeviceState& st = state();
  CeRing* ring = st.ce_ring;
  const uint64_t ticket = atomicAdd(reinterpret_cast<unsigned long long*>(st.ce_counters), 1ull);
  Backoff backoff;
  // Acquire: the proxy has read the old contents of the slot before it advanced `consumed`, and
  // this thread's stores to the slot below must not overtake that read.
  while (ticket - load_acquire_sys(&ring->consumed) >= kCeRingSlots) {
    // The proxy stopped on a failed copy (the host log says which, and what to do).
    if (load_relaxed_sys(&ring->error) != 0) __trap();
    backoff.pause();
  }
  CeSlot* slot = &ring->slots[ticket % kCeRingSlots];
  store_relaxed_sys(&slot->dst, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dst)));
  store_relaxed_sys(&slot->src, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(src)));
  store_relaxed_sys(&slot->bytes, static_cast<uint64_t>(bytes));
  // The release also publishes the source bytes this thread (and, through the group barrier before
  // the call, its group) wrote: the copy engine reads them after the proxy saw the slot.
  store_release_sys(&slot->seq, ticket + 1);
}

// Tickets taken so far (a relaxed read; the caller's own tickets are included).
__device__ __forceinline__ uint64_t ce_posted() {
  return load_relaxed_sys(const_cast<const uint64_t*>(state().ce_counters));
}
__device__ __forceinline__ uint64_t ce_completed() {
  return load_relaxed_sys(const_cast<const uint64_t*>(state().ce_counters + 1));
}

// Zero, read from the SM's clock after everything before it in the program (its top bit is clear for
// centuries). Added to a value compared after a fence, it keeps ptxas from moving the comparison above
// the fence: there, the warp waits for the compared loads to return before it even issues the fence,
// and the fence's own wait then starts only after theirs.
__device__ __forceinline__ uint64_t zero_after_fence() {
  uint64_t c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
  return c >> 63;
}

// The copy-engine part of quiet(). The counters are read before the fence so that their latency hides under it
// (the comparison comes after it: measured on 2 x H200, this takes 0.07-0.12 us off a get of 4 to 1024 bytes
// and its quiet at every scope, and costs a put and its quiet 0.01-0.02 us); a copy taken before the read is
// waited for after it, and the fence after that wait makes what the copy engines wrote part of what a later
// release (a signal, a barrier) publishes.
// Waits until the copies with tickets below `posted` have completed (an acquire).
__device__ __forceinline__ void ce_wait_completed(uint64_t posted) {
  const DeviceState& st = state();
  Backoff backoff;
  while (load_acquire_sys(const_cast<const uint64_t*>(st.ce_counters + 1)) < posted) {
    if (load_relaxed_sys(&st.ce_ring->error) != 0) __trap();
    backoff.pause();
  }
}

__device__ __forceinline__ void ce_quiet() {
  const uint64_t posted = ce_posted();
  const uint64_t done = ce_completed();
  fence_sc_sys();
  if (done + zero_after_fence() >= posted) return;
  ce_wait_completed(posted);
  fence_sc_sys();
}

// quiet(): the thread's stores, atomics, handed-over copies and network requests are complete.
// (ce_min_bytes is 0 exactly when the copy engines are off; volatile for the reason given at ce_enabled.)
__device__ __forceinline__ void quiet_all() {
  if (*reinterpret_cast<const volatile uint64_t*>(&state().ce_min_bytes) == 0) {
    fence_sc_sys();
  } else {
    ce_quiet();
  }
  net_quiet();
}

// flush(): the source buffers of every put this thread issued before may be reused; nothing is promised
// about their arrival. A store to a mapped peer read its source when it issued, so only the copies handed
// to the copy engines and the requests to the network proxy are waited for (their completion is the only
// sign the transports give that the source was read), without quiet's fence when there are none.
__device__ __forceinline__ void flush_all() {
  if (*reinterpret_cast<const volatile uint64_t*>(&state().ce_min_bytes) != 0) ce_wait_completed(ce_posted());
  net_quiet();
}

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
