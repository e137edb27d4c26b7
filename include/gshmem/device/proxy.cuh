// The device side of the proxy: one ring of requests that a host thread of this PE serves (copies for the
// copy engines, ce.cuh; operations on PEs that this GPU does not map, net.cuh). Layout and protocol of the
// ring: gshmem/detail/device_state.h; the host side: src/transport/proxy.h.
//
// Contracts:
//  - proxy_post: one thread posts one request and gets its ticket; a full ring makes it wait, never fail.
//    The release that publishes the request also publishes what this thread (and, through the group
//    barrier before the call, its group) wrote before: the proxy reads `local` after it sees the slot.
//  - proxy_result(t): the value of fetching request t; frees its slot.
//  - proxy_wait_completed(c): every request with a ticket below c has completed (a copy has finished; a
//    network operation has completed at its target), and what the proxy or the copy engines wrote into
//    this GPU's memory for them is visible to the calling thread. proxy_counters[1] is a lower bound of the
//    ring's `completed` that lives in device memory.
//  - proxy_quiet: every request taken before the call has completed. With nothing outstanding it reads
//    device memory only (the counters), never the ring in host memory.
//  - When the proxy stops on a failure, a kernel waiting on the ring ends with a trap; the host log says
//    which request failed and why. No message from the device: a kernel that contains a call (printf) gets
//    a slower fence everywhere (ptxas puts MEMBAR.ALL.CTA before each MEMBAR.SC.SYS).
#pragma once

#if defined(__CUDACC__)
#include <cstdint>

#include "gshmem/device/ordering.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace detail {

__device__ __forceinline__ void proxy_wait_pause(Backoff* backoff) {
  // The proxy stopped on a failed request (the host log says which).
  if (load_relaxed_sys(&state().proxy_ring->error) != 0) __trap();
  backoff->pause();
}

// Posts `r`; returns its ticket.
static __device__ __noinline__ uint64_t proxy_post(const ProxyRequest& r) {
  const DeviceState& st = state();
  ProxyRing* ring = st.proxy_ring;
  const uint64_t t = atomicAdd(reinterpret_cast<unsigned long long*>(st.proxy_counters), 1ull);
  ProxySlot* slot = &ring->slots[t % kProxyRingSlots];
  Backoff backoff;
  // Acquire: the proxy has read the slot's previous request before it handed the slot on.
  while (load_acquire_sys(&slot->turn) != t) proxy_wait_pause(&backoff);
  store_relaxed_sys(&slot->req.op, r.op);
  store_relaxed_sys(&slot->req.pe, r.pe);
  store_relaxed_sys(&slot->req.offset, r.offset);
  store_relaxed_sys(&slot->req.local, r.local);
  store_relaxed_sys(&slot->req.bytes, r.bytes);
  store_relaxed_sys(&slot->req.amo, r.amo);
  store_relaxed_sys(&slot->req.amo_bytes, r.amo_bytes);
  store_relaxed_sys(&slot->req.data[0], r.data[0]);
  store_relaxed_sys(&slot->req.data[1], r.data[1]);
  store_release_sys(&slot->seq, t + 1);
  return t;
}

// The result of fetching request `t` (posted with kProxyFetch); frees its slot.
static __device__ __noinline__ void proxy_result(uint64_t t, uint64_t* out) {
  ProxySlot* slot = &state().proxy_ring->slots[t % kProxyRingSlots];
  Backoff backoff;
  while (load_acquire_sys(&slot->turn) != (t | kProxyResultReady)) proxy_wait_pause(&backoff);
  out[0] = load_relaxed_sys(&slot->result[0]);
  out[1] = load_relaxed_sys(&slot->result[1]);
  // The reads above come before the slot is handed to the next ticket.
  store_release_sys(&slot->turn, t + kProxyRingSlots);
}

// Tickets taken so far (a relaxed read of device memory; the caller's own tickets are included).
__device__ __forceinline__ uint64_t proxy_posted() {
  return load_relaxed_sys(const_cast<const uint64_t*>(state().proxy_counters));
}

// Waits until the requests with tickets below `upto` have completed: proxy_counters[1] (device memory, which the
// copy stream also writes after its copies: a copy's end is seen there without the proxy thread's turn) or the
// ring's `completed` (host memory) says so. Every value either holds is a ticket below which all have
// completed, never more. The fence after the wait makes what they wrote part of what a later release of this
// thread (a signal, a barrier) publishes; the count seen in the ring then goes to proxy_counters[1] for the
// other threads of this GPU (atomicMax: a copy stream's write may lower it for a while, never above the truth).
static __device__ __noinline__ void proxy_wait_completed(uint64_t upto) {
  const DeviceState& st = state();
  const ProxyRing* ring = st.proxy_ring;
  uint64_t* mirror = st.proxy_counters + 1;
  Backoff backoff;
  uint64_t seen = 0;
  for (;;) {
    if (load_acquire_sys(mirror) >= upto) break;
    if ((seen = load_acquire_sys(&ring->completed)) >= upto) break;
    proxy_wait_pause(&backoff);
  }
  fence_sc_sys();
  if (seen >= upto) atomicMax(reinterpret_cast<unsigned long long*>(mirror), static_cast<unsigned long long>(seen));
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

// The proxy's part of quiet(), fence included: every request taken before the call has completed. The
// counters (device memory) are read before the fence so that their latency hides under it; the comparison
// comes after it (measured on 2 x H200 with the copy-engine counters this reads now: 0.07-0.12 us off a
// get of 4 to 1024 bytes and its quiet at every scope, 0.01-0.02 us more on a put and its quiet). Only
// when something is outstanding does the thread read the ring's counter in host memory.
__device__ __forceinline__ void proxy_quiet(const uint64_t* counters) {
  const uint64_t posted = load_relaxed_sys(counters);
  const uint64_t seen = load_relaxed_sys(counters + 1);
  fence_sc_sys();
  if (seen + zero_after_fence() >= posted) return;
  proxy_wait_completed(posted);
}

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
