// Copy-engine offload of large device-initiated _nbi puts and gets.
//
// SM stores from a few CTAs cannot fill NVLink (4 CTAs of 1024 threads top out near 180 GB/s on
// H200), while the GPU's copy engines move ~390 GB/s without using an SM. A put_nbi / get_nbi of at
// least DeviceState::ce_min_bytes (GSHMEM_CE_MIN_SIZE) from a grid of at most ce_max_blocks blocks
// is therefore handed, as one request in the proxy's ring (proxy.cuh), to a host thread of this PE that
// issues it with cuMemcpyAsync; the call returns at once.
//
// Contracts:
//  - ce_post: one thread hands over one copy; the source must not change and the destination is
//    not readable until a later quiet, fence or barrier (the _nbi rules).
//  - quiet_all (quiet, fence, the barriers): returns once every request taken before it has
//    completed, copies and network requests alike (one wait). When the proxy reports a failed copy, a
//    kernel waiting there or for ring space ends with a trap rather than hang; the host log says which
//    copy failed, why, and what to do. (No message from the device, proxy.cuh says why: measured on
//    H200 with the copy engines off, quiet after a p took 0.055 us more than a bare fence with a call
//    in the kernel, 0.015-0.02 without.)
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>

#include "gshmem/device/ordering.cuh"
#include "gshmem/device/proxy.cuh"
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

// Hands the copy of `bytes` from `src` to `dst` to the copy engines (both global addresses of this
// process: a mapped peer's and this PE's).
__device__ __forceinline__ void ce_post(void* dst, const void* src, size_t bytes) {
  ProxyRequest r{};
  r.op = kProxyCopy;
  r.offset = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dst));
  r.local = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(src));
  r.bytes = bytes;
  proxy_post(r);
}

// The proxy's counters, or null when there is no proxy (read through a volatile access, for the reason
// given at ce_enabled).
__device__ __forceinline__ const uint64_t* proxy_counters_or_null() {
  return *reinterpret_cast<uint64_t* const volatile*>(&state().proxy_counters);
}

// quiet(): the thread's stores, atomics, handed-over copies and network requests are complete.
__device__ __forceinline__ void quiet_all() {
  const uint64_t* counters = proxy_counters_or_null();
  if (counters == nullptr) {
    fence_sc_sys();
  } else {
    proxy_quiet(counters);
  }
}

// flush(): the source buffers of every put this thread issued before may be reused; nothing is promised
// about their arrival. A store to a mapped peer read its source when it issued, so only the requests to
// the proxy (copies and network operations) are waited for (their completion is the only sign the
// transports give that the source was read), without quiet's fence when there are none.
__device__ __forceinline__ void flush_all() {
  const uint64_t* counters = proxy_counters_or_null();
  if (counters == nullptr) return;
  const uint64_t posted = load_relaxed_sys(counters);
  if (load_acquire_sys(counters + 1) >= posted) return;
  proxy_wait_completed(posted);
}

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
