// Device-initiated operations on PEs that this GPU does not map (PEs on other hosts, or every other PE
// with NVSHMEM_DISABLE_P2P): each is a request in the network ring (gshmem/detail/device_state.h),
// served in order by the network proxy, a host thread of this PE that issues it through the network
// transport (src/transport/net_proxy.h).
//
// Which PEs are reached this way is decided in one place, route.cuh (route::to).
//
// Contracts:
//  - One thread posts a request; a group (warp, block) posts one request for its whole copy.
//  - Requests are issued in ticket order; the network orders nothing between two of them unless a
//    fence request lies between (put_signal posts one between its data and its signal).
//  - net_complete(t): every request with a ticket up to t has completed at its target. quiet() waits
//    for every request taken before it; the barriers quiet first, so they complete the requests too.
//  - Memory the proxy reads or writes (`local`) must be global memory of this process: data in
//    registers, shared memory or the stack travels inside the request, 16 bytes at a time.
//  - A request waits for a free slot (a full ring makes the kernel wait, never fail). When the proxy
//    stops on a failed operation, a kernel waiting on the ring ends with a trap; the host log says which
//    operation failed and why before the job ends.
#pragma once

#if defined(__CUDACC__)
#include <cstddef>
#include <cstdint>

#include "gshmem/device/ordering.cuh"
#include "gshmem/device/state.cuh"

namespace gshmem {
namespace detail {

// The offset of symmetric address `sym` in every PE's heap.
__device__ __forceinline__ uint64_t heap_offset(const void* sym) {
  return static_cast<uint64_t>(static_cast<const char*>(sym) - state().heap_base);
}

__device__ __forceinline__ void net_wait_pause(Backoff* backoff) {
  // The proxy stopped on a failed operation (the host log says which, and the job is ending).
  if (load_relaxed_sys(&state().net_ring->error) != 0) __trap();
  backoff->pause();
}

// Posts `r`; returns its ticket. The release store of seq publishes what this thread (and, through the
// group barrier before the call, its group) wrote before: the proxy reads `local` after it sees the slot.
static __device__ __noinline__ uint64_t net_post(const NetRequest& r) {
  const DeviceState& st = state();
  NetRing* ring = st.net_ring;
  const uint64_t t = atomicAdd(reinterpret_cast<unsigned long long*>(st.net_counters), 1ull);
  NetSlot* slot = &ring->slots[t % kNetRingSlots];
  Backoff backoff;
  while (load_acquire_sys(&slot->turn) != t) net_wait_pause(&backoff);
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

// The result of fetching request `t` (posted with kNetFetch); frees its slot.
static __device__ __noinline__ void net_result(uint64_t t, uint64_t* out) {
  NetSlot* slot = &state().net_ring->slots[t % kNetRingSlots];
  Backoff backoff;
  while (load_acquire_sys(&slot->turn) != (t | kNetResultReady)) net_wait_pause(&backoff);
  out[0] = load_relaxed_sys(&slot->result[0]);
  out[1] = load_relaxed_sys(&slot->result[1]);
  // The reads above come before the slot is handed to the next ticket.
  store_release_sys(&slot->turn, t + kNetRingSlots);
}

// Waits until the requests with tickets below `upto` have completed at their targets; what the proxy
// wrote into this GPU's memory for them (gets) is then visible to the calling thread.
static __device__ __noinline__ void net_wait_completed(uint64_t upto) {
  const NetRing* ring = state().net_ring;
  Backoff backoff;
  while (load_acquire_sys(&ring->completed) < upto) net_wait_pause(&backoff);
  fence_sc_sys();
}

// The network part of quiet(): every request taken so far has completed.
__device__ __forceinline__ void net_quiet() {
  const DeviceState& st = state();
  if (st.net_ring == nullptr) return;
  const uint64_t posted = load_relaxed_sys(const_cast<const uint64_t*>(st.net_counters));
  if (load_acquire_sys(&st.net_ring->completed) >= posted) return;
  net_wait_completed(posted);
}

__device__ __forceinline__ NetRequest net_request(uint32_t op, int pe, uint64_t offset) {
  NetRequest r{};
  r.op = op;
  r.pe = pe;
  r.offset = offset;
  return r;
}

// Posts a put of `bytes` from `src` to `pe`'s heap at `offset`: one request when `src` is global memory,
// else requests that carry the data, 16 bytes each. Returns the last ticket.
static __device__ __noinline__ uint64_t net_put(uint64_t offset, const void* src, size_t bytes, int pe) {
  if (__isGlobal(src)) {
    NetRequest r = net_request(kNetPut, pe, offset);
    r.local = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(src));
    r.bytes = bytes;
    return net_post(r);
  }
  uint64_t t = 0;
  const char* s = static_cast<const char*>(src);
  for (size_t at = 0; at < bytes; at += kNetInlineBytes) {
    NetRequest r = net_request(kNetPut, pe, offset + at);
    r.bytes = bytes - at < kNetInlineBytes ? bytes - at : kNetInlineBytes;
    __builtin_memcpy(r.data, s + at, r.bytes);
    t = net_post(r);
  }
  return t;
}

// A get of `bytes` from `pe`'s heap at `offset` into `dst`. Into global memory: one request, complete
// by net_wait_completed or quiet (returns its ticket). Elsewhere (registers, shared memory, the stack):
// requests of 16 bytes whose results this thread copies before it returns (returns 0: nothing to wait for).
static __device__ __noinline__ uint64_t net_get(void* dst, uint64_t offset, size_t bytes, int pe) {
  if (__isGlobal(dst)) {
    NetRequest r = net_request(kNetGet, pe, offset);
    r.local = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dst));
    r.bytes = bytes;
    return net_post(r) + 1;
  }
  char* d = static_cast<char*>(dst);
  for (size_t at = 0; at < bytes; at += kNetInlineBytes) {
    NetRequest r = net_request(kNetGet | kNetFetch, pe, offset + at);
    r.bytes = bytes - at < kNetInlineBytes ? bytes - at : kNetInlineBytes;
    uint64_t v[2];
    net_result(net_post(r), v);
    __builtin_memcpy(d + at, v, r.bytes);
  }
  return 0;
}

// An atomic on the word of `bytes` (4 or 8) at `offset` of `pe`; with `fetch` it returns the old value.
static __device__ __noinline__ uint64_t net_amo(int32_t amo, uint64_t offset, int bytes, uint64_t operand,
                                                uint64_t compare, bool fetch, int pe) {
  NetRequest r = net_request(kNetAmo | (fetch ? kNetFetch : 0u), pe, offset);
  r.amo = amo;
  r.amo_bytes = bytes;
  r.bytes = static_cast<uint64_t>(bytes);
  r.data[0] = operand;
  r.data[1] = compare;
  const uint64_t t = net_post(r);
  if (!fetch) return 0;
  uint64_t v[2];
  net_result(t, v);
  return v[0];
}

// A barrier's arrival: `seq` into `pe`'s copy of the flag at `flag`, as a put that carries it. A flag has
// one writer and only grows, so a store is all it needs (no atomic: networks that emulate atomics cannot
// apply them to GPU memory). Requests before it that the barrier must complete were completed by its quiet.
__device__ __forceinline__ void net_flag(uint64_t* flag, uint64_t seq, int pe) {
  net_put(heap_offset(flag), &seq, sizeof seq, pe);
}

// Orders the requests before it with those after it, at every PE.
__device__ __forceinline__ uint64_t net_fence() { return net_post(net_request(kNetFence, 0, 0)); }

}  // namespace detail
}  // namespace gshmem

#endif  // __CUDACC__
